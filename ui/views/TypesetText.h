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
class QLabel;

namespace headscope::ui::typeset {

// True when text writes a subscript or superscript in the notation above.
bool hasNotation(const QString& text);
// The HTML of text: escaped (< & > ' "), sub/superscripts as <sub>/<sup>, spaces kept, one
// paragraph per line aligned as `align` says (left, centre or right).
QString toHtml(const QString& text, Qt::Alignment align = Qt::AlignHCenter);
// One line's HTML (no paragraph): escaped, sub/superscripts as <sub>/<sup>, for a table cell
// or a run inside other rich text.
QString lineHtml(const QString& line);
// Rich text for a QLabel or a tool tip: lineHtml of each line, lines joined by <br>; it wraps
// at spaces where the label does.
QString richText(const QString& text);
// A one-line label's text with a mnemonic ("d_&model", "Lo&ck d_k = d_v"): its "&" dropped
// ("&&" is "&"), the notation typeset, the marked character underlined as Qt draws it.
QString mnemonicRichText(const QString& text);
// richText where text uses the notation; text itself (plain text, left to Qt) where not.
QString richTextIfNotation(const QString& text);
// Shows text on label: as richText where it uses the notation, as Qt's auto-detected text
// where not. The label's accessible name is the text as written ("x_i W_QK,i"): data, not display.
void setLabelText(QLabel* label, const QString& text);
// What a reader sees: the notation's marks and escapes dropped ("W_i^Q" -> "WiQ").
QString plain(const QString& text);

// The typeset text's size in font (lines aligned within the widest), and drawing it with its
// top left corner at the painter's origin. Drawn through QTextDocument, so PDF and SVG hold
// the words as text.
QSizeF size(const QString& text, const QFont& font);
void draw(QPainter* painter, const QString& text, const QFont& font, const QColor& color,
          Qt::Alignment align = Qt::AlignHCenter);

}  // namespace headscope::ui::typeset
