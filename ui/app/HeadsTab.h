#pragma once
// The Heads tab (issue 21, focus and context): the selected head large, with a word on every
// row and column that fits (HeadDetailView, its number panel off), and every head beside it in
// the head grid as thumbnails that select on a click. Side by side where the tab is wider than
// tall, the thumbnails below where it is taller; where the tab has no room for the large head
// at a readable size (1024 x 768 at 2x) the grid alone. View > Selected head large (Ctrl+Shift+H)
// turns the large head on and off; on at start (the default view is focus and context).
// The split between the large head and the thumbnails is the default (below) until the user
// drags it; from then on the tab keeps the user's ratio through every resize.

#include <QWidget>

class QSplitter;

namespace headscope::ui {

class HeadDetailView;
class HeadGridView;

class HeadsTab : public QWidget {
    Q_OBJECT

public:
    HeadsTab(HeadGridView* grid, HeadDetailView* focus, QWidget* parent = nullptr);

    HeadGridView* grid() const { return grid_; }
    HeadDetailView* focus() const { return focus_; }
    // Whether the large head is wanted (View > Selected head large) and whether it is shown now.
    void setFocusWanted(bool on);
    bool focusWanted() const { return wanted_; }
    bool focusShown() const;
    // The large head's share of the split (0 to 1) the user chose by dragging it, or -1 (the default split).
    double userRatio() const { return user_ratio_; }
    QSplitter* splitter() const { return split_; }

    // The grid's minimum: the large head gives way on a small tab instead of widening the window.
    QSize minimumSizeHint() const override;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void arrange(const QSize& size);

    HeadGridView* grid_;
    HeadDetailView* focus_;
    QSplitter* split_;
    bool wanted_ = true;
    double user_ratio_ = -1;            // set by a drag of the splitter handle (splitterMoved)
    Qt::Orientation user_orientation_ = Qt::Horizontal;  // the orientation it was dragged in
};

}  // namespace headscope::ui
