// ControlsDock in the room it has: labels wrapped where the dock is narrow, the text boxes' heights
// at the font View > Larger chose, and the width at which every field shows whole (the Layer and
// Input groups, the config and the problems are in ControlsDock.cpp; the other groups in
// ControlsDockGroups.cpp).
#include "ControlsDock.h"

#include <QComboBox>
#include <QEvent>
#include <QFontMetrics>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QScrollBar>

#include "FormWidgets.h"

namespace headscope::ui {

void ControlsDock::changeEvent(QEvent* event) {
    QDockWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange) {
        updateTextHeights();
        wrapLongLabels();
    }
}

void ControlsDock::resizeEvent(QResizeEvent* event) {
    QDockWidget::resizeEvent(event);
    wrapLongLabels();
}

int ControlsDock::wholeWidth() const {
    const auto* area = widget()->findChild<QScrollArea*>();
    // The frame and margins around the viewport, the vertical scroll bar (shown or soon to be:
    // the fields are taller than a small room), and what the fields need.
    const QScrollBar* bar = area->verticalScrollBar();
    const int bar_width = bar->isVisible() ? 0 : bar->sizeHint().width();
    return width() - area->viewport()->width() + bar_width + area->widget()->minimumSizeHint().width();
}

void ControlsDock::wrapLongLabels() {
    // A label wider than the dock ("Source text (cross-attention)" at 2x) takes two lines
    // instead of widening the dock past its edge; the others stay on one line.
    const int room = width() - 64;  // group frames, form margins, the scroll bar
    for (QLabel* label : widget()->findChildren<QLabel*>()) {
        if (label == problems_label_) continue;
        const bool wrap = label->fontMetrics().horizontalAdvance(QString(label->text()).remove(QLatin1Char('&'))) > room;
        if (wrap != label->wordWrap()) label->setWordWrap(wrap);
    }
}

void ControlsDock::updateTextHeights() {
    // The padded keys' hint ("none, e.g. 0, 3") stays whole: at large fonts the field wraps
    // under its label rather than cutting it.
    const QFontMetrics hint(font());
    padded_keys_->setMinimumWidth(hint.horizontalAdvance(padded_keys_->placeholderText()) + 16);
    fitShownItem(mask_);
    fitShownItem(init_);
    // A few lines of text, at whatever font size View > Larger chose.
    for (QPlainTextEdit* edit : {text_, source_text_}) {
        const int lines = edit->property("headscope_lines").toInt();
        const QFontMetrics metrics(font());
        edit->setFixedHeight(lines * metrics.lineSpacing() + 2 * edit->frameWidth() +
                             int(2 * edit->document()->documentMargin()) + 4);
    }
}

}  // namespace headscope::ui
