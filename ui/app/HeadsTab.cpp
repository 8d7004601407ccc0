#include "HeadsTab.h"

#include <algorithm>
#include <cmath>

#include <QResizeEvent>
#include <QSplitter>
#include <QVBoxLayout>

#include "GridShape.h"
#include "HeadDetailView.h"
#include "HeadGridView.h"

namespace headscope::ui {

HeadsTab::HeadsTab(HeadGridView* grid, HeadDetailView* focus, QWidget* parent)
    : QWidget(parent), grid_(grid), focus_(focus) {
    setObjectName(QStringLiteral("heads_tab"));
    split_ = new QSplitter(Qt::Horizontal, this);
    split_->setChildrenCollapsible(false);
    split_->addWidget(focus_);
    split_->addWidget(grid_);
    split_->setStretchFactor(0, 3);  // the selected head gets three fifths
    split_->setStretchFactor(1, 2);
    focus_->setInfoShown(false);     // the numbers are one double click away (the head window)
    focus_->setCompactAllowed(true);  // in a low room: every word before the subtitle
    auto* layout = new QVBoxLayout(this);
    layout->setSizeConstraint(QLayout::SetNoConstraint);  // minimumSizeHint() is the tab's minimum
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split_);
    // A drag (never setSizes) moves the splitter: the user's ratio from then on.
    connect(split_, &QSplitter::splitterMoved, this, [this]() {
        const QList<int> sizes = split_->sizes();
        if (sizes.size() != 2 || sizes[0] + sizes[1] <= 0) return;
        user_ratio_ = double(sizes[0]) / double(sizes[0] + sizes[1]);
        user_orientation_ = split_->orientation();
    });
    // The thumbnails' room depends on the head count (queued: not inside the grid's refresh).
    connect(grid_, &HeadGridView::headCountChanged, this, [this]() { arrange(this->size()); }, Qt::QueuedConnection);
    connect(focus_, &HeadDetailView::tokenCountChanged, this, [this]() { arrange(this->size()); }, Qt::QueuedConnection);
}

namespace {

// The size a layout will not go below, as Qt's layouts reckon it: a set minimum wins over the
// hint in each direction (the views set theirs; QCustomPlot's hint grows with its fonts).
QSize minimumOf(const QWidget* w) {
    const QSize set = w->minimumSize(), hint = w->minimumSizeHint();  // QWidget's: public
    return QSize(set.width() > 0 ? set.width() : hint.width(), set.height() > 0 ? set.height() : hint.height());
}

}  // namespace

QSize HeadsTab::minimumSizeHint() const { return minimumOf(grid_); }

bool HeadsTab::focusShown() const { return wanted_ && !focus_->isHidden(); }

void HeadsTab::setFocusWanted(bool on) {
    wanted_ = on;
    arrange(size());
}

void HeadsTab::resizeEvent(QResizeEvent* event) {
    arrange(event->size());
    QWidget::resizeEvent(event);
}

void HeadsTab::arrange(const QSize& size) {
    // Wider than tall: side by side; else the thumbnails below the large head.
    const bool wide = size.width() >= size.height();
    // The grid's minimum as thumbnails, whichever it shows now (no hysteresis).
    const QSize focus_min(HeadDetailView::kFullMinWidth, HeadDetailView::kFullMinHeight);
    const QSize grid_min(std::min(minimumOf(grid_).width(), HeadGridView::kThumbnailsMinWidth), minimumOf(grid_).height());
    const int handle = split_->handleWidth();
    const bool full_room = wide ? size.width() >= focus_min.width() + grid_min.width() + handle &&
                                      size.height() >= std::max(focus_min.height(), grid_min.height())
                                : size.height() >= focus_min.height() + grid_min.height() + handle &&
                                      size.width() >= std::max(focus_min.width(), grid_min.width());
    // A low, wide tab (a lesson strip below it at 2x) shows the large head compact where that
    // keeps a word on every row and column beside the thumbnails.
    const int words_w = wide ? focus_->widthForEveryWord(size.height()) : 0;
    const bool words_room = words_w > 0 && size.width() - handle - words_w >= grid_min.width() &&
                            size.height() >= grid_min.height();
    const bool room = full_room || words_room;
    const bool shown = wanted_ && room;
    const Qt::Orientation orientation = wide ? Qt::Horizontal : Qt::Vertical;
    if (split_->orientation() != orientation) split_->setOrientation(orientation);
    if (focus_->isHidden() == shown) focus_->setVisible(shown);
    grid_->setThumbnails(shown);  // beside the large head the grid is context: no words, one bar
    // Side by side, the thumbnails get two fifths of the width, and at least what keeps each
    // kMinThumbnail pixels square (full HD: two columns of 8 heads, not a column of strips),
    // as long as the large head keeps its minimum.
    if (shown && user_ratio_ >= 0 && user_orientation_ == orientation) {
        const int total = (wide ? size.width() : size.height()) - handle;
        const int focus_min_along = wide ? (full_room ? focus_min.width() : words_w) : focus_min.height();
        const int grid_min_along = wide ? grid_min.width() : grid_min.height();
        const int focus_along = std::clamp(int(std::lround(user_ratio_ * total)), std::min(focus_min_along, total),
                                           std::max(focus_min_along, total - grid_min_along));
        split_->setSizes({focus_along, total - focus_along});
    } else if (shown && wide && grid_->headCount() > 0) {
        const int total = size.width() - handle;
        // The large head first gets the width that keeps a word on every row and column (a low
        // tab, at 2x: the thumbnails would otherwise take the width its words need).
        const int focus_need = std::max(full_room ? focus_min.width() : 0, words_w);
        const int focus_w = total - focus_need >= grid_min.width() ? focus_need : focus_min.width();
        const int wanted = std::max(total * 2 / 5, grid_->thumbnailsWidth(size.height(), kMinThumbnail));
        const int grid_w = std::clamp(wanted, grid_min.width(), std::max(grid_min.width(), total - focus_w));
        split_->setSizes({total - grid_w, grid_w});
    }
}

}  // namespace headscope::ui
