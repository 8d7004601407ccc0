// HeadDetailView's zoom and pan (issue 35 item 4): a long text's map is drawn downsampled to the
// panel, the wheel zooms about the pointer down to single tokens, a drag pans, a double-click
// shows every token again; the map is refilled for the tokens in view, the words thinned for them.
#include "HeadDetailView.h"

#include <algorithm>
#include <cmath>

#include "Heatmap.h"

namespace headscope::ui {
namespace {

// The whole tokens an axis range shows, [first, first + count) of n: at least min(n, least) of
// them, within [0, n).
std::pair<int, int> tokensIn(const QCPRange& range, int n, int least) {
    const double size = std::clamp(range.size(), double(std::min(n, least)), double(n));
    const double lower = std::clamp(range.center() - size / 2, -0.5, n - 0.5 - size);
    const int first = std::clamp(int(std::lround(lower + 0.5)), 0, std::max(0, n - 1));
    const int count = std::clamp(int(std::lround(size)), 1, std::max(1, n - first));
    return {first, count};
}

}  // namespace

int HeadDetailView::shownKeys() const {
    return window_.isEmpty() ? (analysis_ ? analysis_->nKeyValue() : 0) : window_.width();
}

int HeadDetailView::shownQueries() const {
    return window_.isEmpty() ? (analysis_ ? analysis_->nQuery() : 0) : window_.height();
}

void HeadDetailView::setTokenWindow(QRect window) {
    if (!analysis_) return;
    const int n_kv = analysis_->nKeyValue(), n_q = analysis_->nQuery();
    const QRect all(0, 0, n_kv, n_q);
    if (!window.isEmpty()) {  // at least kMinZoomTokens a side, kept inside the tokens
        window.setWidth(std::max(window.width(), std::min(n_kv, kMinZoomTokens)));
        window.setHeight(std::max(window.height(), std::min(n_q, kMinZoomTokens)));
        window.moveLeft(std::clamp(window.left(), 0, std::max(0, n_kv - window.width())));
        window.moveTop(std::clamp(window.top(), 0, std::max(0, n_q - window.height())));
        window = window.intersected(all);
    }
    if (window == all) window = QRect();
    if (window == window_) {
        applyTokenWindow();  // the axes snap back to whole tokens (a zoom past the ends or below the least)
        plot_->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    window_ = window;
    refresh();  // the map refilled for the window, its words and subtitle
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void HeadDetailView::onAxisRange() {
    if (applying_range_ || !analysis_ || analysis_->results.heads.empty()) return;
    const auto [x0, keys] = tokensIn(rect_->axis(QCPAxis::atBottom)->range(), analysis_->nKeyValue(), kMinZoomTokens);
    const auto [y0, queries] = tokensIn(rect_->axis(QCPAxis::atLeft)->range(), analysis_->nQuery(), kMinZoomTokens);
    setTokenWindow(QRect(x0, y0, keys, queries));
}

void HeadDetailView::applyTokenWindow() {
    applying_range_ = true;
    if (window_.isEmpty()) {
        heatmap::setCellRanges(rect_, analysis_->nQuery(), analysis_->nKeyValue());
    } else {
        const QCPRange x(window_.left() - 0.5, window_.left() + window_.width() - 0.5);
        const QCPRange y(window_.top() - 0.5, window_.top() + window_.height() - 0.5);
        rect_->axis(QCPAxis::atBottom)->setRange(x);
        rect_->axis(QCPAxis::atTop)->setRange(x);
        rect_->axis(QCPAxis::atLeft)->setRange(y);
        rect_->axis(QCPAxis::atRight)->setRange(y);
    }
    applying_range_ = false;
}

QString HeadDetailView::zoomNote() const {
    QString note;
    if (!window_.isEmpty())
        note = QStringLiteral(" · in view: keys %1–%2, queries %3–%4 of %5 (double-click: all)")
                   .arg(window_.left()).arg(window_.left() + window_.width() - 1)
                   .arg(window_.top()).arg(window_.top() + window_.height() - 1)
                   .arg(analysis_->nQuery());
    const int keys = shownKeys(), queries = shownQueries();
    if (keys > heatmap::kMaxDrawnCells || queries > heatmap::kMaxDrawnCells) {
        const auto per_cell = [](int tokens) {
            const double share = double(tokens) / std::min(tokens, heatmap::kMaxDrawnCells);
            return QString::number(share, 'f', share < 10 ? 1 : 0);
        };
        note += QStringLiteral(" · each cell shows the largest of %1 × %2 tokens (wheel: zoom)")
                    .arg(per_cell(queries), per_cell(keys));
    }
    return note;
}

QCPRange HeadDetailView::colourRange(bool logits) {
    // Every head's cells for a shared scale: 32 heads of 2,048 tokens are 134 million, read once.
    const bool shared = options_.shared_scale;
    const int head = shared ? -1 : head_;
    if (range_key_.analysis.lock() != analysis_ || range_key_.head != head || range_key_.logits != logits ||
        range_key_.shared != shared) {
        range_ = heatmap::dataRange(*analysis_, head, logits, shared);
        range_key_ = {analysis_, head, logits, shared};
    }
    return range_;
}

}  // namespace headscope::ui
