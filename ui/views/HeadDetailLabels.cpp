// HeadDetailView's token words: how many fit on each axis, at which size, and the compact
// layout a low room takes for them (the Heads tab below a lesson strip at 2x).
#include "HeadDetailView.h"

#include <QFontMetrics>
#include <algorithm>
#include <cmath>

#include "Heatmap.h"
#include "TextFit.h"
#include "TokenThinning.h"

namespace headscope::ui {

HeadDetailView::LabelFit HeadDetailView::fitLabels(double tick_pt, bool compact, bool titled) const {
    const Analysis& a = *analysis_;
    const QStringList q = heatmap::queryLabels(a, 16, options_.token_positions),
                      k = heatmap::keyLabels(a, 16, options_.token_positions);
    const double s = options_.font_scale;
    const QFont tick = heatmap::font(tick_pt, s);
    const int text_h = QFontMetrics(tick).height();
    const int query_w = heatmap::maxLabelWidth(q, tick), key_w = heatmap::maxLabelWidth(k, tick);
    // Not laid out yet (a hidden child is 100 x 30): judge by the token count alone until
    // the resize that follows.
    QSize size = plot_->viewport().size();
    if (size.width() < 200 || size.height() < 150) size = QSize(1600, 1400);
    // What the plot spends beside the cells. Full: a title and a subtitle above, axis titles, a
    // labelled colour bar (170 px). Compact: a one-line title, no axis titles (unless thinned),
    // the colour bar's own widths (bar, tick words) and the layout's paddings; untitled, the
    // title stands vertically beside the colour bar.
    const int bar_w = compact ? compactBarWidth(titled) : 170;
    const int chrome_h = compact ? compactChromeHeight(titled) : fullChromeHeight();
    const int side_w = compact ? query_w + 14 : query_w;
    // The tokens in view (all, or the zoom's window).
    const double px_col = double(size.width() - side_w - bar_w) / std::max(1, shownKeys());
    LabelFit fit;
    fit.tick_pt = tick_pt;
    fit.compact = compact;
    fit.titled = titled || !compact;
    fit.rotate = key_w + 6 > px_col;
    const double px_row =
        double(size.height() - chrome_h - (fit.rotate ? key_w : text_h)) / std::max(1, shownQueries());
    // A word per cell where they fit 0.8 lines apart; else every k-th word with its position.
    const double spacing = (compact ? kCompactLineSpacing : kLineSpacing) * text_h;
    const auto stride = [&](double px) { return px <= 0 ? 1000 : std::max(1, int(std::ceil(spacing / px))); };
    fit.x_stride = stride(px_col);
    fit.y_stride = stride(px_row);
    return fit;
}

int HeadDetailView::titleWidth() const { return std::max(200, plot_->width() < 200 ? 1000 : plot_->width()) - 12; }

int HeadDetailView::fullChromeHeight() const {
    // The title and subtitle as they wrap, the axis titles, and the paddings of the compact
    // layout (F5 at 1x, fonts 1.75x: a two-line title and a three-line subtitle took the rows
    // the old estimate of four tick lines gave them, and the query words overlapped).
    const double s = options_.font_scale;
    const auto lines = [this](const QString& text, const QFont& font) {
        return text.isEmpty() ? 0 : int(fit::wrapLines(text, font, titleWidth()).count(QLatin1Char('\n'))) + 1;
    };
    const QFont title = heatmap::font(kTitlePt, s, true), subtitle = heatmap::font(kSubtitlePt, s);
    return lines(full_title_, title) * QFontMetrics(title).height() + 6 +
           lines(subtitle_text_, subtitle) * QFontMetrics(subtitle).height() + 6 +
           QFontMetrics(heatmap::font(kAxisPt, s, true)).height() + 4 + compactChromeHeight(false);
}

void HeadDetailView::setCompactAllowed(bool on) {
    compact_allowed_ = on;
    if (analysis_) refresh();
}

int HeadDetailView::widthForEveryWord(int height) const {
    if (!compact_allowed_ || !analysis_ || analysis_->results.heads.empty()) return 0;
    // The compact layout's width at the largest words whose rows fit `height` (plot and margins),
    // with its title above, else beside the colour bar.
    const Analysis& a = *analysis_;
    const QStringList q = heatmap::queryLabels(a, 16, options_.token_positions);
    const double s = options_.font_scale;
    for (const bool titled : {true, false}) {
        for (double pt = kTickPt; pt >= kSmallestTickPt; pt -= 1) {
            const QFont tick = heatmap::font(pt, s);
            const int text_h = QFontMetrics(tick).height();
            const int key_w = heatmap::maxLabelWidth(heatmap::keyLabels(a, 16, options_.token_positions), tick);
            const int plot_h = height - 8;
            if (compactChromeHeight(titled) + key_w + kCompactLineSpacing * text_h * a.nQuery() > plot_h) continue;
            return heatmap::maxLabelWidth(q, tick) + 14 + compactBarWidth(titled) +
                   int(std::ceil(kCompactLineSpacing * text_h * a.nKeyValue())) + 8 + 2;
        }
    }
    return 0;
}

int HeadDetailView::compactBarWidth(bool titled) const {
    // The colour bar: the bar, the column spacing, its numbers and paddings, and untitled the
    // title as its label.
    const double s = options_.font_scale;
    const QFontMetrics bar_text(heatmap::font(kTickPt, s));
    return int(16 * s) + 12 + bar_text.horizontalAdvance(QStringLiteral("0.25")) + 14 + 12 +
           (titled ? 0 : bar_text.height() + 6);
}

int HeadDetailView::compactChromeHeight(bool titled) const {
    // A one-line title and its margin, the axis rect's top margin, and below the heatmap the
    // ticks, their padding and the axis padding (measured: 45 px above, 16 below, at 2x).
    const double s = options_.font_scale;
    // Untitled, only the colour bar's half line of numbers (ColourBarTicker's margin, to which
    // the heatmap's top is aligned) and the layout's 6 px stand above the heatmap (measured: 15
    // px at 2x, where the titled estimate's 20 left lesson 5 step 4 1 px short of every word).
    const int above = titled ? QFontMetrics(heatmap::font(kCompactTitlePt, s, true)).height() + 6 + 12 + int(8 * s)
                             : int(std::ceil(QFontMetrics(heatmap::font(kTickPt, s)).height() / 2.0)) + 1 + 6;
    return above + 16;
}

void HeadDetailView::chooseLabelFit() {
    // The full layout where it keeps every word; else, in a low room, the compact one with the
    // largest words (10 down to 8 pt) that still keep every word, its title above, else beside
    // the colour bar; else the full layout thinned.
    label_fit_ = fitLabels(kTickPt, false, true);
    for (const bool titled : {true, false}) {
        for (double pt = kTickPt; compact_allowed_ && !label_fit_.every() && pt >= kSmallestTickPt; pt -= 1) {
            const LabelFit compact = fitLabels(pt, true, titled);
            if (compact.every()) label_fit_ = compact;
        }
    }
    const bool compact = label_fit_.compact;
    for (QCPAxis* axis : rect_->axes()) axis->setTickLabelFont(heatmap::font(label_fit_.tick_pt, options_.font_scale));
    arrangeRows(label_fit_.titled, !compact);
    // The colour bar ends with the heatmap; compact, it runs on beside the key words (sharing
    // the bottom margin there gave both 104 px where the words took 66: the heatmap lost rows).
    if (compact != compact_) {
        const QCP::MarginSides sides = compact ? QCP::msTop : QCP::msTop | QCP::msBottom;
        rect_->setMarginGroup(QCP::msAll, nullptr);
        scale_->setMarginGroup(QCP::msAll, nullptr);
        rect_->setMarginGroup(sides, margin_group_);
        scale_->setMarginGroup(sides, margin_group_);
    }
    compact_ = compact;
}

void HeadDetailView::arrangeRows(bool title, bool subtitle) {
    // Taken out of the layout, a title is still a layerable of the plot: hidden too.
    QCPLayoutGrid* layout = plot_->plotLayout();
    for (QCPLayoutElement* element : {static_cast<QCPLayoutElement*>(title_), static_cast<QCPLayoutElement*>(subtitle_),
                                      static_cast<QCPLayoutElement*>(body_)})
        if (element->layout() == layout) layout->take(element);  // one left out last time is not there to take
    layout->simplify();
    int row = 0;
    if (title) layout->addElement(row++, 0, title_);
    if (subtitle) layout->addElement(row++, 0, subtitle_);
    layout->addElement(row, 0, body_);
    title_->setVisible(title);
    subtitle_->setVisible(subtitle);
}

void HeadDetailView::updateLabels() {
    const Analysis& a = *analysis_;
    const QStringList q = heatmap::queryLabels(a, 16, options_.token_positions),
                      k = heatmap::keyLabels(a, 16, options_.token_positions);
    // A word per cell where they fit; else every k-th word with its position ("12:the", the axis
    // title says "every 3rd key"); bare positions only where not even two words fit.
    using heatmap::TickMode;
    const int x_stride = label_fit_.x_stride, y_stride = label_fit_.y_stride;
    const bool rotate = label_fit_.rotate;
    const TickMode x = x_stride > std::max(1, shownKeys() - 1) ? TickMode::Positions : TickMode::Tokens;
    const TickMode y = y_stride > std::max(1, shownQueries() - 1) ? TickMode::Positions : TickMode::Tokens;
    const bool numbered = options_.token_positions;
    heatmap::setTicks(rect_->axis(QCPAxis::atBottom), x, thinnedWithPositions(k, x_stride, numbered));
    heatmap::setTicks(rect_->axis(QCPAxis::atLeft), y, thinnedWithPositions(q, y_stride, numbered));
    rect_->axis(QCPAxis::atBottom)->setTickLabelRotation(x == TickMode::Tokens && rotate ? -90 : 0);
    // Compact: the words name the axes (the grid beside says queries down, keys across); a
    // thinned axis still says so.
    const QString key_title = compact_ ? QString() : QStringLiteral("key");
    const QString query_title = compact_ ? QString() : QStringLiteral("query");
    rect_->axis(QCPAxis::atBottom)->setLabel(x == TickMode::Tokens && x_stride > 1
                                                 ? QStringLiteral("key · ") + everyKth(x_stride, QStringLiteral("key"))
                                                 : key_title);
    rect_->axis(QCPAxis::atLeft)->setLabel(y == TickMode::Tokens && y_stride > 1
                                               ? QStringLiteral("query · ") + everyKth(y_stride, QStringLiteral("query"))
                                               : query_title);
}

}  // namespace headscope::ui
