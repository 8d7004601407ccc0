#pragma once
// Helpers the window tests share: a window that ignores saved settings, typing into a spin
// box as a user does, whether one rectangle lies inside another, and word labels on token axes;
// a rectangle in words and pending layouts settled (test_screen_fit, test_classroom_ui, test_small_room);
// a central tab's scroll area, whether it scrolls and whether a widget in it is on screen
// (test_small_room, test_training_room).

#include <QRect>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QtTest>

#include "MainWindow.h"

namespace headscope::ui::testing {

inline MainWindowOptions noSettings() {
    MainWindowOptions options;
    options.use_settings = false;
    return options;
}

// Select the spin box's text, type text, press Return: the value is committed as by a user.
inline void typeIntoSpinBox(QSpinBox* spin, const QString& text) {
    spin->setFocus();
    spin->selectAll();
    QTest::keyClicks(spin, text);
    QTest::keyClick(spin, Qt::Key_Return);
}

// "(x,y wxh)" for a failure message.
inline QString describe(const QRect& r) {
    return QStringLiteral("(%1,%2 %3x%4)").arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height());
}

// Pending layout requests carried out, and a little time for the window system to answer.
inline void settle() {
    for (int i = 0; i < 4; ++i) {
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        QTest::qWait(40);
    }
}

// inner lies within outer, give or take slack pixels.
inline bool inside(const QRect& outer, const QRect& inner, int slack = 1) {
    return inner.left() >= outer.left() - slack && inner.top() >= outer.top() - slack &&
           inner.right() <= outer.right() + slack && inner.bottom() <= outer.bottom() + slack;
}

// The window as headscope opens it on this screen (MainWindow::fitToScreen), shown, exposed and
// with its first analysis drawn: empty, else what went wrong.
inline QString showFitted(MainWindow& window) {
    window.fitToScreen();
    window.show();
    if (!QTest::qWaitForWindowExposed(&window)) return QStringLiteral("the window was never exposed");
    QString error;
    return window.waitForCompleteUpdate(60000, &error) ? QString() : error;
}

// Token i's label on a token axis: its word, or, on a thinned axis, "i:word" (issue 21), its
// word elided where the room is short ("10:tir…": at least one letter of it, then "…").
inline bool isWordLabel(const QString& label, int i, const QStringList& words) {
    if (i < 0 || i >= words.size()) return false;
    const QString numbered = QStringLiteral("%1:%2").arg(i).arg(words[i]), prefix = QStringLiteral("%1:").arg(i);
    const bool elided = label.endsWith(QChar(0x2026)) && label.size() > prefix.size() + 1 &&
                        numbered.startsWith(label.left(label.size() - 1));
    return label == words[i] || label == numbered || elided;
}

// The scroll area a central tab's page sits in (MainWindow wraps Training and Ablation in one).
inline QScrollArea* pageScroll(QWidget* page) {
    for (QWidget* w = page; w; w = w->parentWidget())
        if (auto* area = qobject_cast<QScrollArea*>(w)) return area;
    return nullptr;
}

// Empty when neither of the area's scroll bars is shown; else which, and by how much.
inline QString scrolled(QScrollArea* area) {
    QStringList bars;
    if (area->horizontalScrollBar()->isVisible())
        bars << QStringLiteral("horizontal (%1 px more)").arg(area->horizontalScrollBar()->maximum());
    if (area->verticalScrollBar()->isVisible())
        bars << QStringLiteral("vertical (%1 px more)").arg(area->verticalScrollBar()->maximum());
    return bars.join(QStringLiteral(", "));
}

// w shown, and drawn within the window and within the visible part of the tab's scroll area.
inline QString offScreen(QWidget* w, MainWindow& window, QScrollArea* area) {
    if (!w->isVisible()) return QStringLiteral("hidden");
    const QRect in_window(w->mapTo(&window, QPoint(0, 0)), w->size());
    const QRect viewport(area->viewport()->mapTo(&window, QPoint(0, 0)), area->viewport()->size());
    if (!inside(window.rect(), in_window, 0) || !inside(viewport, in_window, 0))
        return QStringLiteral("at %1, the tab shows %2 of the window %3")
            .arg(describe(in_window), describe(viewport), describe(window.rect()));
    return {};
}

}  // namespace headscope::ui::testing
