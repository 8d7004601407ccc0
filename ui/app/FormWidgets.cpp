#include "FormWidgets.h"

#include <QCheckBox>
#include <QFormLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSpinBox>

namespace headscope::ui {

QSpinBox* makeSpin(QWidget* parent, const char* name, int lo, int hi, const QString& tip) {
    auto* spin = new QSpinBox(parent);
    spin->setObjectName(QLatin1String(name));
    spin->setRange(lo, hi);
    spin->setKeyboardTracking(false);  // typed numbers apply on Enter / Tab, arrows at once
    spin->setAccelerated(true);
    spin->setToolTip(tip);
    return spin;
}

QCheckBox* makeCheck(QWidget* parent, const char* name, const QString& text, const QString& tip) {
    auto* box = new QCheckBox(text, parent);
    box->setObjectName(QLatin1String(name));
    box->setToolTip(tip);
    return box;
}

QPlainTextEdit* makeTextEdit(QWidget* parent, const char* name, int lines, const QString& tip) {
    auto* edit = new QPlainTextEdit(parent);
    edit->setObjectName(QLatin1String(name));
    edit->setTabChangesFocus(true);  // Tab leaves the box: keyboard users are not trapped
    edit->setToolTip(tip);
    edit->setProperty("headscope_lines", lines);
    return edit;
}

void addRow(QFormLayout* form, const QString& label, QWidget* field, QWidget* buddy) {
    auto* text = new QLabel(label);
    text->setBuddy(buddy ? buddy : field);
    text->setToolTip((buddy ? buddy : field)->toolTip());
    form->addRow(text, field);
}

}  // namespace headscope::ui
