#include "FusedProjectionsView.h"

#include <QResizeEvent>
#include <QScrollArea>
#include <QScrollBar>
#include <QStyle>
#include <QVBoxLayout>
#include <algorithm>
#include <array>
#include <cmath>

#include "ColorMaps.h"
#include "ColourBarTicker.h"
#include "HeadNames.h"
#include "Heatmap.h"
#include "MatrixPage.h"
#include "TextFit.h"
#include "TypesetTitle.h"
#include "PanelText.h"

namespace headscope::ui {

namespace {
// A projection's panel titles, longest first: the bias named whenever the layer has one (the
// equation shortened, never the b_Q dropped): "Q = X W_Q + b_Q", "Q = X W_Q+b_Q", "Q (+ b_Q)".
QStringList projectionTitles(char name, bool from_source, bool bias) {
    const QString x = from_source ? QStringLiteral("X_src") : QStringLiteral("X");
    const QString p(QChar::fromLatin1(name));
    if (!bias) return {QStringLiteral("%1 = %2 W_%1").arg(p, x), p};
    return {QStringLiteral("%1 = %2 W_%1 + b_%1").arg(p, x), QStringLiteral("%1 = %2 W_%1+b_%1").arg(p, x),
            QStringLiteral("%1 (+ b_%1)").arg(p)};
}

// Block labels are thinned to at most this many per matrix.
constexpr int kMaxBlockLabels = 16;
// A panel's least readable room: 1 px per row and column up to kCellCap of them, kMinSide on its
// short side; a matrix drawn taller than kTallest (and than it is wide) only where the room has it.
constexpr double kMinSide = 60, kCellCap = 128, kTallest = 200;

// The width a panel needs to be drawn to its shape at its least readable size (token rows: the
// words take the height, the width alone counts), at most 2 kCellCap.
double leastWidth(double rows, double cols, bool token_rows) {
    if (token_rows) return std::max(kMinSide, std::min(cols, kCellCap));
    const double shape = cols / rows;  // width per height
    const double least = std::max({std::min(cols, kCellCap), rows >= cols ? kMinSide : kMinSide * shape,
                                   std::min(rows, kCellCap) * shape});
    return std::min(least, 2 * kCellCap);
}

// The height a panel `width` pixels wide is drawn with when the page grants it: its shape's (up
// to kTallest, or its width where that is more), a line a token row, kMinSide at least; at its
// least (least), the height of its shape at its least width.
double panelHeight(double rows, double cols, bool token_rows, double width, double line, bool least) {
    if (token_rows) return std::max(kMinSide, std::ceil(rows * line) + 1);
    if (least) return std::max(kMinSide, std::min(leastWidth(rows, cols, false) * rows / cols, kTallest));
    return std::max(kMinSide, std::min(width * rows / cols, std::max(width, kTallest)));
}

// "h0", "h1", ...; for key/value blocks of grouped-query attention "kv0: h0-1".
QStringList blockLabels(int blocks, int group) {
    QStringList labels;
    const int step = std::max(1, (blocks + kMaxBlockLabels - 1) / kMaxBlockLabels);
    for (int b = 0; b < blocks; ++b) {
        if (b % step != 0) {
            labels << QString();
        } else if (group <= 1) {
            labels << QStringLiteral("h%1").arg(b);
        } else {
            labels << QStringLiteral("kv%1: h%2–%3").arg(b).arg(b * group).arg((b + 1) * group - 1);
        }
    }
    return labels;
}

QList<int> edges(int extent, int width) {
    QList<int> out;
    for (int e = width; width > 0 && e < extent; e += width) out << e;
    return out;
}

}  // namespace

FusedProjectionsView::FusedProjectionsView(QWidget* parent) : AttentionView(FollowsAnalysis | FollowsHead, parent) {
    plot_ = new QCustomPlot(this);
    plot_->setObjectName(QStringLiteral("projections_plot"));
    plot_->setMinimumSize(320, 180);  // not the sum of eight panels: the docks keep their room
    plot_->setInteractions(QCP::Interactions());
    plot_->installEventFilter(this);
    plot_->plotLayout()->clear();
    title_ = new TypesetTitle(plot_, QStringLiteral("No analysis yet"));
    plot_->plotLayout()->addElement(0, 0, title_);
    // The weights over the activations, each row's four panels in a grid of their own (4 across
    // or 2 x 2, arrange()) beside their colour bar, which spans them.
    auto* grid = grid_ = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(1, 0, grid);
    grid->setColumnSpacing(4);
    grid->setRowSpacing(8);
    for (int row = 0; row < 2; ++row) {
        scales_[row] = new QCPColorScale(plot_);
        scales_[row]->setGradient(redBlueGradient());
        ColourBarTicker::install(scales_[row]);
        groups_[row] = new QCPLayoutGrid;
        grid->addElement(row, 0, groups_[row]);
        groups_[row]->setColumnSpacing(4);
        groups_[row]->setRowSpacing(8);
        auto* group = new QCPMarginGroup(plot_);
        for (int k = 0; k < 4; ++k) {
            const int m = 4 * row + k;
            panels_[m] = std::make_unique<MatrixPanel>(plot_, scales_[row]);
            panels_[m]->rect()->setMarginGroup(QCP::msTop | QCP::msBottom, group);
            groups_[row]->addElement(0, k, panels_[m]->rect());  // 4 across
        }
        scales_[row]->setMarginGroup(QCP::msTop | QCP::msBottom, group);
        grid->addElement(row, 1, scales_[row]);
    }
    grid->setColumnStretchFactor(1, 0.01);
    scroll_ = page::scrolling(this, plot_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(scroll_);
}

FusedProjectionsView::~FusedProjectionsView() = default;

QCPColorMap* FusedProjectionsView::colorMap(Matrix which) const { return panels_[which]->map(); }

QString FusedProjectionsView::title() const { return title_->text(); }

void FusedProjectionsView::replotNow() {
    refresh();
    plot_->replot(QCustomPlot::rpImmediateRefresh);
}

void FusedProjectionsView::refresh() {
    plot_->clearItems();
    if (!analysis_ || analysis_->weights().heads == 0) return;
    const Analysis& a = *analysis_;
    const Weights& w = a.weights();
    head_ = std::clamp(head_, 0, w.heads - 1);
    const int h = w.heads, kv = w.kv_heads, group = h / kv, g = w.kvHeadOf(head_);
    const double s = options_.font_scale;
    const QFont panel_font = heatmap::font(kPanelLabelPt, s, true), tick_font = heatmap::font(kPanelTickPt, s);

    struct Spec {
        const Eigen::MatrixXf* matrix;
        QStringList title;  // variants, longest first
        QString rows, cols;
        bool along_columns;
        int width, blocks, block_group, outlined;
    };
    const bool bias = w.hasBias();
    const QString q_rows = a.input.cross ? QStringLiteral("query tokens") : QStringLiteral("tokens");
    const QString kv_rows = a.input.cross ? QStringLiteral("source tokens") : QStringLiteral("tokens");
    const Spec specs[kCount] = {
        {&w.W_Q, {"W_Q"}, "d_model", "h·d_k", true, w.d_k, h, 1, head_},
        {&w.W_K, {"W_K"}, "d_model", "kv·d_k", true, w.d_k, kv, group, g},
        {&w.W_V, {"W_V"}, "d_model", "kv·d_v", true, w.d_v, kv, group, g},
        {&w.W_O, {"W_O"}, "h·d_v", "d_model", false, w.d_v, h, 1, head_},
        {&a.input.query.X, {"X"}, q_rows, "d_model", true, 0, 0, 1, -1},
        {&a.results.Q, projectionTitles('Q', false, bias), q_rows, "h·d_k", true, w.d_k, h, 1, head_},
        {&a.results.K, projectionTitles('K', a.input.cross, bias), kv_rows, "kv·d_k", true, w.d_k, kv, group, g},
        {&a.results.V, projectionTitles('V', a.input.cross, bias), kv_rows, "kv·d_v", true, w.d_v, kv, group, g},
    };
    const QStringList query_tokens = heatmap::queryLabels(a, 10, options_.token_positions),
                      kv_tokens = heatmap::keyLabels(a, 10, options_.token_positions);
    double extremes[2] = {0, 0};
    token_rows_ = query_tokens.size() <= 40 && kv_tokens.size() <= 40;
    for (int m = 0; m < kCount; ++m) {
        const Spec& spec = specs[m];
        MatrixPanel& panel = *panels_[m];
        extremes[m / 4] = std::max(extremes[m / 4], panel.setMatrix(*spec.matrix));
        panel.setTitle(spec.title, panel_font);
        panel.setAxisNames(spec.rows, spec.cols, tick_font);
        const bool activations = m >= X;
        const QStringList& tokens = (m == K || m == V) ? kv_tokens : query_tokens;
        // Words on the token rows while they fit (about one line of text per row); else numbers.
        panel.setRowLabels(activations && tokens.size() <= 40 ? tokens : QStringList(), tick_font, options_.token_positions);
        panel.rect()->axis(QCPAxis::atLeft)->setLabel(activations && tokens.size() <= 40 ? QString() : spec.rows);
        if (spec.width > 0) {
            panel.setBlocks(spec.along_columns, spec.width, blockLabels(spec.blocks, spec.block_group), spec.outlined,
                            tick_font);
            boundaries_[m] = edges(spec.along_columns ? int(spec.matrix->cols()) : int(spec.matrix->rows()), spec.width);
        } else {
            boundaries_[m].clear();
        }
    }
    for (int row = 0; row < 2; ++row) {
        scales_[row]->setDataRange(symmetricRange(heatmap::niceCeiling(extremes[row])));
        scales_[row]->axis()->setTickLabelFont(tick_font);
        scales_[row]->axis()->setLabel(row == 0 ? QStringLiteral("weight") : QStringLiteral("activation"));
        scales_[row]->axis()->setLabelFont(tick_font);
        // A bar as wide as a line of its numbers, so it reads as a bar beside them.
        scales_[row]->setBarWidth(std::max(10, int(std::lround(0.8 * QFontMetricsF(tick_font).height()))));
    }
    // Whether each head reads only its own slice of the embedding (the identity initialiser) or
    // all of it: W_Q (d_model, h d_k), head i's block W_Q.middleCols(i d_k, d_k) zero outside rows
    // i d_k .. (i+1) d_k - 1. Random or trained weights fail at the first block (issue 21: the
    // title said "each head reads the whole embedding" under lesson 3's sliced heads).
    bool sliced = h * w.d_k == w.dModel();
    for (int i = 0; sliced && i < h; ++i) {
        const auto block = w.queryHead(i);
        sliced = block.topRows(i * w.d_k).isZero(0) && block.bottomRows(block.rows() - (i + 1) * w.d_k).isZero(0);
    }
    if (sliced)
        title_variants_ = {
            QStringLiteral("Fused projections: head i's block of W_Q is zero outside rows i·d_k to (i+1)·d_k − 1: "
                           "each head reads only its own %1 of the %2 coordinates · %3 outlined")
                .arg(w.d_k).arg(w.dModel()).arg(headTitle(head_, h, kv)),
            QStringLiteral("Each head's block of W_Q is zero outside its own %1 rows · %2 outlined").arg(w.d_k).arg(headTitle(head_, h, kv)),
            QStringLiteral("Each head reads only its %1 rows · %2 outlined").arg(w.d_k).arg(headTitle(head_, h, kv)),
            headTitle(head_, h, kv) + QStringLiteral(" outlined")};
    else
        title_variants_ = {
            QStringLiteral("Fused projections: every head's block of W_Q spans all %1 rows (d_model): "
                           "each head reads the whole embedding · %2 outlined").arg(w.dModel()).arg(headTitle(head_, h, kv)),
            QStringLiteral("Every head's block of W_Q spans all %1 rows (d_model) · %2 outlined")
                .arg(w.dModel()).arg(headTitle(head_, h, kv)),
            QStringLiteral("Each head reads all %1 rows · %2 outlined").arg(w.dModel()).arg(headTitle(head_, h, kv)),
            headTitle(head_, h, kv) + QStringLiteral(" outlined")};
    gqa_note_ = kv < h ? QStringLiteral("Grouped-query attention: %1 key/value heads, each shared by %2 query heads")
                             .arg(kv).arg(group)
                       : QString();
    title_->setFont(heatmap::font(kPanelTitlePt, s, true));
    fitToRoom();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void FusedProjectionsView::fitToRoom() {
    if (title_variants_.isEmpty()) return;
    const double room = plot_->viewport().width() - 8;
    QString text = fit::longestThatFits(title_variants_, title_->font(), room);
    if (text.isEmpty()) text = title_variants_.back();
    if (!gqa_note_.isEmpty()) {
        const QStringList notes{gqa_note_, gqa_note_.section(QLatin1Char(','), 0, 0)};  // "... key/value heads"
        const QString note = fit::longestThatFits(notes, title_->font(), room);
        text += QLatin1Char('\n') + (note.isEmpty() ? notes.back() : note);
    }
    title_->setText(text);
    // 4 across while every panel has its least width there, else 3 and 1 or 2 x 2; measured as if
    // the scroll bar showed, so whether it shows does not change the arrangement or the page's height.
    const double line = QFontMetricsF(heatmap::font(kPanelTickPt, options_.font_scale)).height();
    const int bar = scroll_->verticalScrollBar()->isVisible() ? 0 : scroll_->style()->pixelMetric(QStyle::PM_ScrollBarExtent);
    QList<MatrixPanel*> panels;
    for (const auto& panel : panels_) panels << panel.get();
    // Laid out in `columns`: whether every panel keeps its least width there.
    const auto fitsAcross = [&](int columns) {
        arrange(columns, activations_first_);
        MatrixPanel::layOutFree(plot_, panels);
        for (int m = 0; m < kCount; ++m) {
            const QCPColorMapData* data = panels_[m]->map()->data();
            if (panels_[m]->rect()->rect().width() - double(bar) / columns <
                leastWidth(data->valueSize(), data->keySize(), token_rows_ && m >= X))
                return false;
        }
        return true;
    };
    // 3 and 1 where two by two shows less than three panels at the page's top (1024 x 768 at 2x:
    // W_Q and W_K, not W_V) and 3 and 1 shows three: the three that belong together are then in
    // sight at once. Where two by two shows more, its panels are the larger.
    if (!fitsAcross(4)) {
        int seen[2] = {0, 0};  // panels in sight, 3 and 1 / two by two
        const bool three = fitsAcross(3);
        if (three) sizePage(line, bar, &seen[0]);
        fitsAcross(2);
        sizePage(line, bar, &seen[1]);
        if (three && seen[1] < 3 && seen[0] >= 3) fitsAcross(3);
    }
    page::fit(plot_, sizePage(line, bar), panels, kMinSide, line);
}

FusedProjectionsView::Matrix FusedProjectionsView::panelAt(int row, int slot) const {
    // Side by side as computed (X, then Q, K, V made from it); in fewer columns the three that
    // share their rows first and the odd one (W_O, X) under them.
    static constexpr Matrix kActivations[2][4] = {{X, Q, K, V}, {Q, K, V, X}};
    return row == 0 ? Matrix(WQ + slot) : kActivations[columns_ < 4][slot];
}

void FusedProjectionsView::arrange(int columns, bool activations_first) {
    if (columns == columns_ && activations_first == activations_first_) return;
    for (int row = 0; row < 2; ++row) {
        for (int k = 0; k < 4; ++k) groups_[row]->take(panels_[4 * row + k]->rect());
        groups_[row]->simplify();
        grid_->take(groups_[row]);
        grid_->take(scales_[row]);
    }
    grid_->simplify();
    columns_ = columns;
    activations_first_ = activations_first;
    for (int row = 0; row < 2; ++row) {
        for (int k = 0; k < 4; ++k) groups_[row]->addElement(k / columns, k % columns, panels_[panelAt(row, k)]->rect());
        grid_->addElement(gridRow(row), 0, groups_[row]);
        grid_->addElement(gridRow(row), 1, scales_[row]);
    }
    grid_->setColumnStretchFactor(1, 0.01);
}

void FusedProjectionsView::setActivationsFirst(bool first) {
    if (first == activations_first_) return;
    arrange(columns_, first);
    fitToRoom();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

int FusedProjectionsView::sizePage(double line, int scroll_bar, int* panels_seen) {
    // Laid out free (MatrixPanel::layOutFree): each rect's width is its room's, its margins are
    // the labels'. The title, then each row of panels: its labels, a line for a caption's
    // "drawn a:b, true c:d" where a panel will carry one, and its tallest panel. The page needs
    // the panels at their least; where even that scrolls, as large as their columns allow (the
    // page scrolls anyway). A page with room to spare gives it to the rows short of that first.
    const double fixed = title_->outerRect().height() + plot_->plotLayout()->rowSpacing() + grid_->rowSpacing();
    struct RowOfPanels {
        int group, index, panels;  // its group (0 weights, 1 activations), its row there, its panels
        double least, full;
        double sighted[2];  // least, full: its titles, block labels and matrices' top kMinSide px
    };
    QList<RowOfPanels> rows;  // top to bottom
    // The group shown first, then the other (gridRow is its own inverse).
    for (const int row : {gridRow(0), gridRow(1)}) {
        for (int first = 0; first < 4; first += columns_) {
            double labels = 0, above = 0, heights[2] = {0, 0}, notes[2] = {0, 0};
            const int last = std::min(4, first + columns_);
            for (int slot = first; slot < last; ++slot) {
                const Matrix m = panelAt(row, slot);
                const QCPAxisRect* rect = panels_[m]->rect();
                const QCPColorMapData* data = panels_[m]->map()->data();
                const double matrix_rows = data->valueSize(), cols = data->keySize();
                const bool tokens = token_rows_ && m >= X;
                labels = std::max(labels, double(rect->outerRect().height() - rect->rect().height()));
                above = std::max(above, double(rect->rect().top() - rect->outerRect().top()));
                const double width = rect->rect().width() - double(scroll_bar) / columns_;
                for (int k = 0; k < 2; ++k) {
                    const double height = panelHeight(matrix_rows, cols, tokens, width, line, k == 0);
                    const double drawn_width = k == 0 ? leastWidth(matrix_rows, cols, tokens) : width;
                    heights[k] = std::max(heights[k], height);
                    if (std::abs(drawn_width * matrix_rows / cols / height - 1) > 0.025) notes[k] = line;
                }
            }
            const double spacing = groups_[row]->rowSpacing();
            rows.append({row, first / columns_, last - first, labels + notes[0] + heights[0] + spacing,
                         labels + notes[1] + heights[1] + spacing,
                         {above + std::min(heights[0], kMinSide), above + std::min(heights[1], kMinSide)}});
        }
    }
    double least = fixed, full = fixed;
    for (const RowOfPanels& r : rows) least += r.least, full += r.full;
    const double room = scroll_->viewport()->height();
    const bool scrolls = least > room;
    if (panels_seen) {  // the panels of the rows in sight from the top (their matrices' tops at least)
        *panels_seen = 0;
        double top = fixed;
        for (const RowOfPanels& r : rows) {
            if (top + r.sighted[scrolls] > room + 0.5) break;
            *panels_seen += r.panels;
            top += scrolls ? r.full : r.least;
        }
    }
    // The spare room shared in proportion to what each row lacks of its full height, then to its full height.
    const double spare = room - least, lacking = full - least;
    double groups[2] = {0, 0};
    for (const RowOfPanels& r : rows) {
        double share = r.full;
        if (!scrolls)
            share = spare <= lacking ? r.least + (lacking > 0 ? spare * (r.full - r.least) / lacking : 0)
                                     : r.full * (room - fixed) / (full - fixed);
        share = std::max(1.0, share);
        groups_[r.group]->setRowStretchFactor(r.index, share);
        groups[r.group] += share;
    }
    for (int row = 0; row < 2; ++row) grid_->setRowStretchFactor(gridRow(row), groups[row]);
    return 8 * int(std::ceil((scrolls ? full : least) / 8));  // in steps of 8 px: a pixel's rounding leaves it alone
}

bool FusedProjectionsView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == plot_ && event->type() == QEvent::Resize && analysis_) {
        // Before QCustomPlot's own resize handling, which replots with these labels.
        plot_->setViewport(QRect(QPoint(0, 0), static_cast<QResizeEvent*>(event)->size()));
        fitToRoom();
    }
    return QWidget::eventFilter(watched, event);
}

}  // namespace headscope::ui
