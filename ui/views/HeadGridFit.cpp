// HeadGridView's sizes: how many columns keep the head titles apart, whether a colour bar
// per head keeps its numbers readable, the thumbnails' room beside the large head (and the
// texts that give way to them), and the rows' heights made equal on a measured layout.
#include "HeadGridView.h"

#include <QFontMetrics>
#include <algorithm>
#include <cmath>

#include "GridShape.h"
#include "Heatmap.h"
#include "TextFit.h"

namespace headscope::ui {
namespace {

constexpr double kOwnBarPx = 7;  // a per-head colour bar's width at font scale 1

}  // namespace

int HeadGridView::fittingColumns(int heads, const QSize& laid_out, int columns) const {
    // gridColumns() weighs cell sizes; here the texts that must fit: every row's head title
    // (QCustomPlot squeezes the plot's titles over the heads when the rows' minimum heights
    // exceed the widget), and every column wide enough for its head title ("▶ h63").
    if (laid_out.width() < 200 || laid_out.height() < 150) return columns;
    const double s = options_.font_scale;
    const int head_h = QFontMetrics(heatmap::font(kHeadTitlePt, s, true)).height();
    const int tick_h = QFontMetrics(heatmap::font(kTickPt, s)).height();
    const int titles_h = QFontMetrics(heatmap::font(kTitlePt, s, true)).height() +
                         3 * QFontMetrics(heatmap::font(kSubtitlePt, std::min(s, 1.4))).height() + 16;
    const double row_h = head_h + 0.5 * tick_h + 14 + tick_h;  // title, paddings, a heatmap a word high at least
    const int rows_fit = std::max(1, int((laid_out.height() - titles_h - tick_h) / row_h));
    const int at_least = (heads + rows_fit - 1) / rows_fit;
    const int title_w = QFontMetrics(heatmap::font(kHeadTitlePt, s, true)).horizontalAdvance(QStringLiteral("▶ h%1").arg(heads - 1));
    const int at_most = std::max(1, (laid_out.width() - kBarSpace - 6 * tick_h) / (title_w + 12));
    const int fitted = std::clamp(std::max(columns, at_least), 1, std::max(at_least, std::min(heads, at_most)));
    // A full last row if a few more columns give one: a short last row puts key words under
    // two rows, and both pay their height.
    for (int c = fitted; c <= std::min({heads, at_most, fitted + fitted / 3}); ++c)
        if (heads % c == 0) return c;
    return fitted;
}

int HeadGridView::ownBarWidth() const {
    // A per-head bar, its ticks and numbers ("0.25"), and the gap to its heatmap.
    const QFontMetrics fm(heatmap::font(kBarPt - 1, options_.font_scale));
    return int(kOwnBarPx * options_.font_scale) + 3 + 3 + fm.horizontalAdvance(QStringLiteral("0.00")) + 8;
}

bool HeadGridView::perHeadBarsFit(int heads, const QSize& laid_out) const {
    if (heads >= kMaxHeadBars) return false;
    const QSize size = laid_out.width() < 200 || laid_out.height() < 150 ? QSize(1920, 1400) : laid_out;
    const double s = options_.font_scale;
    const int columns = fixed_columns_ > 0 ? std::min(fixed_columns_, heads)
                                           : gridColumns(heads, analysis_->nQuery(), analysis_->nKeyValue(), size, s, 0);
    const int rows = (heads + columns - 1) / columns;
    const int text_h = QFontMetrics(heatmap::font(kTickPt, s)).height();
    const int bar_text_h = QFontMetrics(heatmap::font(kBarPt - 1, s)).height();
    // As updateLabels() estimates it: titles above, a head title and a line of key words a row.
    const double bar_h = double(size.height() - 3 * text_h - 16) / rows - (1.8 * text_h + 24) - text_h;
    const double heatmap_w = double(size.width()) / columns - ownBarWidth() - 10;
    // At least three numbers along each bar, and each heatmap wider than its bar.
    return bar_h >= 3 * 1.6 * bar_text_h && heatmap_w >= 2 * ownBarWidth();
}

QSize HeadGridView::thumbnailRoom(const QSize& laid_out) const {
    // The grid less its one-line title and subtitle, and the shared colour bar.
    const QSize size = laid_out.width() < 200 || laid_out.height() < 150 ? QSize(400, 800) : laid_out;
    const double s = options_.font_scale;
    const int titles = QFontMetrics(heatmap::font(kTitlePt, s, true)).height() +
                       QFontMetrics(heatmap::font(kSubtitlePt, std::min(s, 1.4))).height() + 16;
    return QSize(std::max(1, size.width() - kBarSpace), std::max(1, size.height() - titles));
}

int HeadGridView::thumbnailTitleHeight() const {
    // The head title, its padding (half a line for query words: none here, but kept) and the
    // paddings around a heatmap.
    const double s = options_.font_scale;
    return QFontMetrics(heatmap::font(kHeadTitlePt, s, true)).height() +
           int(4 + 0.5 * QFontMetrics(heatmap::font(kTickPt, s)).height()) + 8;
}

int HeadGridView::thumbnailsWidth(int height, int side) const {
    const int heads = headCount();
    if (heads == 0) return 0;
    const QSize room = thumbnailRoom(QSize(4000, height));
    const int title_h = thumbnailTitleHeight();
    for (int columns = 1; columns <= heads; ++columns) {
        const int rows = (heads + columns - 1) / columns;
        if (room.height() / rows - title_h - kThumbnailGap >= side) return columns * (side + kThumbnailGap) + kBarSpace;
    }
    return heads * (side + kThumbnailGap) + kBarSpace;
}

void HeadGridView::fitThumbnailTexts(const QSize& laid_out, int width, const QString& title, QString subtitle) {
    // Beside the large head the texts are context: where their lines would squash the
    // thumbnails below kMinThumbnail (a low tab at 2x: two title lines and four subtitle lines
    // left 10 px strips), the subtitle loses its parts from the end (the large head's own
    // picture shows grey and hatching), then the title its words ("4 heads").
    if (laid_out.width() < 200 || laid_out.height() < 150) return;
    const int columns = std::max(1, columns_);
    const int rows = (headCount() + columns - 1) / columns;
    const auto height_of = [](const QCPTextElement* element) {
        return element->text().isEmpty() ? 0 : int(element->text().count(QLatin1Char('\n')) + 1) * QFontMetrics(element->font()).height();
    };
    const auto side = [&]() {
        const int texts = height_of(title_) + height_of(subtitle_) + 16;
        return (laid_out.height() - texts) / rows - thumbnailTitleHeight() - kThumbnailGap;
    };
    while (side() < kMinThumbnail && subtitle.contains(QStringLiteral(" · "))) {
        subtitle.truncate(subtitle.lastIndexOf(QStringLiteral(" · ")));
        subtitle_->setText(fit::wrapLines(subtitle, subtitle_->font(), width));
    }
    if (side() < kMinThumbnail && title.contains(QStringLiteral(" · ")))
        title_->setText(fit::wrapLines(title.section(QStringLiteral(" · "), 1), title_->font(), width));
}

void HeadGridView::equalizeRows(const QSize& size) {
    // The rows' stretch factors above are estimates; measured on a layout pass they become
    // exact: every row's heatmaps get the same height, whatever words and titles take.
    const int columns = std::max(1, columns_);
    const int rows = (headCount() + columns - 1) / columns;
    // Only the shared bar's grid puts the key words under the last row alone; with a bar per
    // head every row carries the same words and is the same height already.
    if (!heads_grid_ || rows < 2 || !layout_shared_ || size != viewport().size()) return;
    fit::layOut(this);
    double total = 0, overhead = 0;
    std::vector<double> margins(std::size_t(rows), 0.0);
    for (int r = 0; r < rows; ++r) {
        const QCPAxisRect* rect = cells_[std::size_t(r * columns)].rect;
        margins[std::size_t(r)] = rect->outerRect().height() - rect->rect().height();  // title, words, paddings
        total += rect->outerRect().height();
        overhead += margins[std::size_t(r)];
    }
    const double inner = (total - overhead) / rows;
    if (inner <= 1) return;
    for (int r = 0; r < rows; ++r) heads_grid_->setRowStretchFactor(r, inner + margins[std::size_t(r)]);
    fit::layOut(this);  // the cells' heights as they will be drawn
}

}  // namespace headscope::ui
