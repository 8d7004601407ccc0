#pragma once
// Tool tips typeset as plot titles are (issue 21): a tool tip written in the notation
// ("W_QK,i = W_i^Q (W_i^K)ᵀ") is shown as rich text with real sub- and superscripts
// (TypesetText's richText, the one parser). One filter on the application covers every
// widget's tool tip, a tab's, a menu action's and an item view's or header's (ToolTipRole);
// the text a widget or model holds stays the notation (accessible descriptions and copies are
// data, not display). Tool tips already in rich text, or without notation, are Qt's own.

#include <QObject>
#include <QPoint>
#include <QString>

class QWidget;

namespace headscope::ui {

class TypesetToolTips : public QObject {
    Q_OBJECT

public:
    // Installs the filter on the application, once (later calls do nothing).
    static void install();
    // widget's own tool tip is data (a path, a file name: "/models/a_b"), shown as written.
    static void setVerbatim(QWidget* widget);
    // The tool tip Qt would show at pos, in widget's coordinates, as written.
    static QString toolTipAt(QWidget* widget, const QPoint& pos);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    using QObject::QObject;
};

}  // namespace headscope::ui
