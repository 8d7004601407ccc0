#pragma once
// A dock's title bar that typesets its title (issue 21: "Spectra and ranks of W_QK and W_OV"
// with real subscripts, as plot titles are; TypesetText), with the float and close buttons
// the dock's features allow; a double click floats or docks it, as Qt's own bar does. The
// dock's windowTitle() stays the notation (its tab and its View menu entry are plain text).
//
// setDockTitleBarHidden: a dock without its title bar: a lesson strip, or the spectra shown
// alone above one (issue 21: at 1024 x 768, 2x, the bar's 19 px go to the text). A DockTitleBar
// collapses to nothing; on a dock with Qt's own bar, hidden means an empty title bar widget,
// as QDockWidget documents, and shown again, Qt's own bar comes back.

#include <QWidget>

class QDockWidget;
class QLabel;
class QToolButton;

namespace headscope::ui {

class DockTitleBar : public QWidget {
    Q_OBJECT

public:
    explicit DockTitleBar(QDockWidget* dock);

    void setCollapsed(bool collapsed);
    bool isCollapsed() const { return collapsed_; }
    QString shownTitle() const;  // the title as the bar shows it (rich text where typeset)

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void refreshTitle();  // the title and buttons as the dock now is

    QDockWidget* dock_;
    QLabel* title_;
    QToolButton* float_;
    QToolButton* close_;
    bool collapsed_ = false;
};

void setDockTitleBarHidden(QDockWidget* dock, bool hidden);

}  // namespace headscope::ui
