#pragma once
// Small factories for the controls' form rows: each widget gets an object name (tests
// find it by name), a tooltip in plain words, and keyboard-friendly defaults.

#include <QString>

class QCheckBox;
class QFormLayout;
class QPlainTextEdit;
class QSpinBox;
class QWidget;

namespace headscope::ui {

QSpinBox* makeSpin(QWidget* parent, const char* name, int lo, int hi, const QString& tip);
QCheckBox* makeCheck(QWidget* parent, const char* name, const QString& text, const QString& tip);
QPlainTextEdit* makeTextEdit(QWidget* parent, const char* name, int lines, const QString& tip);

// A form row whose label carries a mnemonic (&Heads) and points at its field.
void addRow(QFormLayout* form, const QString& label, QWidget* field, QWidget* buddy = nullptr);

}  // namespace headscope::ui
