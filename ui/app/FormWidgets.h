#pragma once
// Small factories for the controls' form rows: each widget gets an object name (tests
// find it by name), a tooltip in plain words, and keyboard-friendly defaults.

#include <QString>

class QCheckBox;
class QComboBox;
class QFontMetrics;
class QFormLayout;
class QLabel;
class QPlainTextEdit;
class QSpinBox;
class QWidget;

namespace headscope::ui {

QSpinBox* makeSpin(QWidget* parent, const char* name, int lo, int hi, const QString& tip);
// The check box's text breaks onto more lines when the box is narrow (large fonts, a narrow
// dock) instead of being cut: the box takes the width its layout gives it.
QCheckBox* makeCheck(QWidget* parent, const char* name, const QString& text, const QString& tip);
QPlainTextEdit* makeTextEdit(QWidget* parent, const char* name, int lines, const QString& tip);

// text broken at spaces into lines no wider than width for fm ("&" mnemonics not counted).
QString wrapText(const QString& text, const QFontMetrics& fm, int width);

// A combo box no wider than its field's row needs: its longest item ("Identity (no projection)")
// must not widen the dock at 2x fonts; the row wraps under its label instead ...
void keepNarrow(QComboBox* combo);
// ... but never narrower than the item it shows: its row wraps under the label first.
void fitShownItem(QComboBox* combo);

// A label showing text, its notation typeset ("d_model" with its subscript: TypesetText).
QLabel* makeTypesetLabel(const QString& text, QWidget* parent);

// A form row whose label carries a mnemonic (&Heads) and points at its field.
void addRow(QFormLayout* form, const QString& label, QWidget* field, QWidget* buddy = nullptr);

// page inside a frameless scroll area that resizes it: the page fills the room it is given and
// scrolls where its minimum size does not fit, so a tab never makes the window larger than
// the screen (1024 x 768 at 2x fonts).
QWidget* scrollable(QWidget* page);

}  // namespace headscope::ui
