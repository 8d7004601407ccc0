#pragma once
// Plot titles and axis labels typeset as the lesson text is (issue 21): "W_i^Q" is W with the
// subscript i and the superscript Q, "d_model" d with the subscript model. The notation:
//   _x, _{...}  subscript: a run of letters and digits ("W_QK,i": a comma followed by a letter
//               or digit joins the head index to the run), or whatever the braces hold;
//   ^x, ^{...}  superscript: the same, with an optional leading minus ("M^-T").
// A mark is notation only after a one-letter name ("W", "d", "x"), a closing bracket or bar,
// or another script ("W_i^Q"): "tiny_gpt2" and "rope_head_N" stay as written, as does a mark
// not followed by such a run. "\_", "\^" and "\\" write the character itself.

#include <QFont>
#include <QSizeF>
#include <QString>
#include <Qt>

class QPainter;
class QColor;

namespace headscope::ui::typeset {

// True when text writes a subscript or superscript in the notation above.
bool hasNotation(const QString& text);
// The HTML of text: escaped (< & > ' "), sub/superscripts as <sub>/<sup>, spaces kept, one
// paragraph per line aligned as `align` says (left, centre or right).
QString toHtml(const QString& text, Qt::Alignment align = Qt::AlignHCenter);
// What a reader sees: the notation's marks and escapes dropped ("W_i^Q" -> "WiQ").
QString plain(const QString& text);

// The typeset text's size in font (lines aligned within the widest), and drawing it with its
// top left corner at the painter's origin. Drawn through QTextDocument, so PDF and SVG hold
// the words as text.
QSizeF size(const QString& text, const QFont& font);
void draw(QPainter* painter, const QString& text, const QFont& font, const QColor& color,
          Qt::Alignment align = Qt::AlignHCenter);

}  // namespace headscope::ui::typeset
