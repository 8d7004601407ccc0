// HeadGridView's texts and token labels: the title and subtitle (wrapped to the width), which
// words each axis shows and how (every k-th, rotated, or positions), and the label layout a new
// analysis keeps when nothing it depends on changed.
#include "HeadGridView.h"

#include <QFontMetrics>
#include <QTextStream>
#include <algorithm>
#include <cmath>

#include "GridShape.h"
#include "HeadNames.h"
#include "Heatmap.h"
#include "TextFit.h"
#include "TokenThinning.h"

namespace headscope::ui {
namespace {

QString maskWords(const Analysis& a) {
    QStringList parts;
    if (a.config.mask == MaskKind::Causal)
        parts << (a.config.source_text.empty() ? QStringLiteral("causal mask")
                                               : QStringLiteral("causal mask across two sentences (query i sees source 0..i)"));
    if (a.sliding_window > 0 && a.nQuery() > a.sliding_window)
        parts << QStringLiteral("sliding window of %1 keys").arg(a.sliding_window);
    if (!a.config.padded_keys.empty()) parts << QStringLiteral("padded keys");
    if (parts.isEmpty()) parts << QStringLiteral("mask");
    return parts.join(QStringLiteral(" + "));
}

}  // namespace

QString HeadGridView::labelInputs(const QSize& size) const {
    const Analysis& a = *analysis_;
    const QChar sep(0x1f);
    QString s;
    QTextStream out(&s);
    out << size.width() << 'x' << size.height() << ' ' << headCount() << ' ' << columns_ << ' ' << layout_shared_
        << ' ' << compact_texts_ << thumbnails_ << ' ' << options_.font_scale << options_.token_positions << options_.show_logits
        << options_.shared_scale << options_.cell_numbers << '|' << (shared_scale_ ? shared_scale_->label() : QString())
        << '|'
        << heatmap::queryLabels(a, 12, options_.token_positions).join(sep) << '|'
        << heatmap::keyLabels(a, 12, options_.token_positions).join(sep);
    return s;
}

std::vector<QSize> HeadGridView::cellSizes() const {
    std::vector<QSize> sizes;
    for (const Cell& cell : cells_) sizes.push_back(cell.rect->outerRect().size()), sizes.push_back(cell.rect->rect().size());
    return sizes;
}

bool HeadGridView::reuseLabelLayout(const QString& inputs) {
    if (!label_layout_ || label_layout_->inputs != inputs || label_layout_->cells.empty()) return false;
    const QString bar_label = shared_scale_ ? shared_scale_->label() : QString();
    if (shared_scale_) shared_scale_->setLabel(label_layout_->bar_label);
    setThinningNote(thinning_note_);  // the last layout's note under the new subtitle
    fit::layOut(this);  // with the new titles and the new numbers' colour bars
    if (cellSizes() != label_layout_->cells) {
        if (shared_scale_) shared_scale_->setLabel(bar_label);  // shortened again from the whole label
        return false;
    }
    ++label_layouts_reused_;
    return true;
}

void HeadGridView::updateTexts() {
    const Analysis& a = *analysis_;
    const bool logits = options_.show_logits;
    const bool masked = heatmap::anyMasked(a);
    const int heads = headCount();
    QString title = logits ? QStringLiteral("Attention logits (before softmax)")
                           : QStringLiteral("Attention weights (softmax)");
    if (compact_texts_) title = logits ? QStringLiteral("Attention logits") : QStringLiteral("Attention weights");
    title += QStringLiteral(" · %1 head%2").arg(heads).arg(heads == 1 ? "" : "s");
    if (a.input.cross) title += QStringLiteral(" · cross-attention");
    title_->setText(title);

    QString subtitle = QStringLiteral("rows: queries (top to bottom) · columns: keys · d_model %1, d_k %2")
                           .arg(a.config.d_model)
                           .arg(a.config.headDimK());
    if (masked) subtitle += QStringLiteral(" · %1: grey cells are masked").arg(maskWords(a));
    subtitle += QStringLiteral("\n") + heatmap::weightsOrigin(a);
    if (compact_texts_) {  // one line: where the weights come from (thumbnails: what a click does), what grey means
        subtitle = thumbnails_ ? QStringLiteral("click a head to see it large")
                               : heatmap::weightsOrigin(a).section(QStringLiteral(": no pattern"), 0, 0);
        if (masked) subtitle += QStringLiteral(" · grey = masked");
        if (a.config.mask == MaskKind::Causal && !a.config.source_text.empty())
            subtitle += QStringLiteral(" · causal across two sentences");
    }
    if (!fully_masked_rows_.isEmpty())
        subtitle += compact_texts_ ? QStringLiteral(" · hatched: every key masked (0/0), shown as 0")
                                   : QStringLiteral(" · hatched rows: every key masked, softmax would be 0/0 "
                                                    "(PyTorch gives NaN); HeadScope shows 0");
    // Thumbnails share one bar whatever the option says (the large head has its own).
    if (!thumbnails_ && !options_.shared_scale && layout_shared_)
        subtitle += QStringLiteral(" · one colour scale for all heads: a bar per head has no room here");
    else if (!thumbnails_ && !options_.shared_scale)
        subtitle += QStringLiteral(" · colour bar per head");
    subtitle_->setText(subtitle);

    QString bar = heatmap::valueName(a, logits);
    if (masked) bar += QStringLiteral("\n(grey = masked)");
    if (shared_scale_) shared_scale_->setLabel(bar);
}

void HeadGridView::wrapTitles(const QSize& laid_out) {
    // QCPTextElement does not wrap: long lines break at " · ", then at spaces, so that nothing
    // is cut at 2x fonts.
    const int width = (laid_out.width() < 200 ? 1920 : laid_out.width()) - 16;
    const QString title = title_ ? title_->text() : QString(), subtitle = subtitle_ ? subtitle_->text() : QString();
    for (QCPTextElement* element : {title_, subtitle_})
        if (element) element->setText(fit::wrapLines(element->text(), element->font(), width));
    if (thumbnails_ && title_ && subtitle_) fitThumbnailTexts(laid_out, width, title, subtitle);
    if (subtitle_) subtitle_text_ = subtitle_->text();
}

void HeadGridView::updateLabels(const QSize& laid_out) {
    // Not laid out yet: judge by the token count alone until the resize that follows.
    const QSize size = laid_out.width() < 200 || laid_out.height() < 150 ? QSize(1920, 1400) : laid_out;
    const Analysis& a = *analysis_;
    const int n_q = a.nQuery(), n_kv = a.nKeyValue();
    const bool positions = options_.token_positions;
    const QStringList q = heatmap::queryLabels(a, 12, positions), k = heatmap::keyLabels(a, 12, positions);
    const bool tokens_changed = q != query_labels_ || k != key_labels_;
    query_labels_ = q;
    key_labels_ = k;

    // Estimate the pixels one cell gets, then decide: token labels, horizontal or rotated
    // key labels, or bare positions when labels would overlap.
    const QFont tick = heatmap::font(kTickPt, options_.font_scale);
    const QFontMetrics fm(tick);
    const int text_h = fm.height();
    const int columns = std::max(1, columns_);
    const int rows = (headCount() + columns - 1) / columns;
    // Measured once per text and font: refresh() lays the labels out up to three times, and
    // shaping 2,042 words each time was most of a long text's refresh.
    if (tokens_changed || tick != label_width_font_ || query_labels_width_ < 0) {
        query_labels_width_ = heatmap::maxLabelWidth(q, tick);
        key_labels_width_ = heatmap::maxLabelWidth(k, tick);
        label_width_font_ = tick;
    }
    const int query_w = query_labels_width_;
    const int key_w = key_labels_width_;
    const int bar = layout_shared_ ? kBarSpace : 0;
    const int own_bar = layout_shared_ ? 0 : ownBarWidth();
    // Every head has the same query words, so only the first column carries them (small
    // multiples): the other columns give that width to their cells. Column 0 is stretched by
    // the labels' width so that every heatmap gets the same width.
    const double total_w = double(size.width() - bar) - columns * (own_bar + 10.0);
    const double inner_w = std::max(1.0, (total_w - query_w) / columns - 16);
    double px_col = inner_w / std::max(1, n_kv);
    const QFontMetrics head_fm(heatmap::font(kHeadTitlePt, options_.font_scale, true));
    const bool short_titles =
        head_fm.horizontalAdvance(QStringLiteral("▶ ") + gridHeadTitle(std::max(0, headCount() - 1), headCount(),
                                                                  analysis_ ? analysis_->weights().kv_heads : 0, false)) > inner_w + 8;
    if (short_titles != short_titles_) {
        short_titles_ = short_titles;
        markSelection();
    }
    // Shared bar: key words only under the last row, so only the last row pays
    // for their height (its row is stretched by it); with a bar per head every row pays.
    const bool share_keys = layout_shared_ && rows > 1;
    const bool rotate = key_w + 6 > px_col;
    const double key_h = rotate ? key_w : text_h;
    const double body_h = double(size.height() - 3 * text_h - 16);
    const double per_row = 1.8 * text_h + 18 + 6;  // head title, paddings (half a line above the words)
    const double inner_h = share_keys ? (body_h - key_h - rows * per_row) / rows : body_h / rows - per_row - key_h;
    double px_row = std::max(0.0, inner_h) / std::max(1, n_q);
    // Once laid out at this size, the cells' real height replaces the estimate.
    if (!cells_.empty() && cells_.front().rect->rect().height() > 1 && laid_out == viewport().size()) {
        int shortest = cells_.front().rect->rect().height(), narrowest = cells_.front().rect->rect().width();
        for (const Cell& cell : cells_) {
            shortest = std::min(shortest, cell.rect->rect().height());
            narrowest = std::min(narrowest, cell.rect->rect().width());
        }
        // Just equalised (equalizeRows laid the grid out as it will be drawn): the measurement
        // is exact. Otherwise the layout may still change, and the smaller figure is the safe one.
        px_row = rows_measured_ ? double(shortest) / std::max(1, n_q) : std::min(px_row, double(shortest) / std::max(1, n_q));
        px_col = std::min(px_col, double(narrowest) / std::max(1, n_kv));
    }
    // Words stay on the axes when they fit one per cell; when they do not, every k-th word is
    // shown with its position (while at least two words fit, however long the sequence) before
    // falling back to bare positions: a projector at 1024 x 768 and 2x fonts keeps words.
    using heatmap::TickMode;
    const auto stride = [&](double px_per_token) {
        // A full line apart, measured on the cells as laid out.
        return px_per_token <= 0 ? 1000 : std::max(1, static_cast<int>(std::ceil(1.0 * text_h / px_per_token)));
    };
    // Thinned words carry their positions ("8:was"), in every size and at every font scale
    // (issue 21 item 2: never a thinned list that reads like the sequence); longer, they take a
    // little of the cells' room once laid out, so thinned axes keep a sixth of a line to spare.
    // Bare positions only where not even every k-th word with its position fits.
    const auto spared = [&](double px_per_token) {
        const int k = stride(px_per_token);
        return k <= 1 ? k : stride(px_per_token / 1.15);
    };
    // Query words lie flat: their positions make them wider, not taller, and a line apart is enough.
    int x_stride = spared(px_col);
    const int y_stride = stride(px_row);
    // Words as long as at least two of them fit (stride < n): never numbers while words fit.
    const auto max_stride = [](int n) { return std::max(kMaxLabelStride, n - 1); };
    // Thinned key words stand (rotated), and their height is the heatmaps' loss: where the
    // widest would take more than a fifth of the grid's height (2x fonts in a small window), the
    // next strides are tried (other words, maybe shorter: "7:it" rather than "10:tired"), lying
    // flat where they fit so; else the words are elided to that fifth ("10:tir…").
    const double standing_max = std::max<double>(fm.horizontalAdvance(QStringLiteral("00:ab…")), body_h / 5);
    if (x_stride > 1 && x_stride <= max_stride(n_kv)) {
        for (int s = x_stride; s <= std::min(n_kv - 1, 2 * x_stride); ++s) {
            const int widest = heatmap::maxLabelWidth(thinnedWithPositions(k, s, positions), tick);
            if (widest <= standing_max || widest + 6 <= s * px_col) {
                x_stride = s;
                break;
            }
        }
    }
    const TickMode x_mode = x_stride > max_stride(n_kv) ? TickMode::Positions : TickMode::Tokens;
    const TickMode y_mode = y_stride > max_stride(n_q) ? TickMode::Positions : TickMode::Tokens;
    // Thinned: every k-th word with its position ("12:the"), and the axis title says so.
    // With their positions the thinned words are longer: in a small grid they take no more than
    // a fifth of its height (keys, standing) or width (queries), their words elided ("6:beca…").
    const auto thinned = [&](const QStringList& labels, int stride, double room) {
        const QStringList shown = thinnedWithPositions(labels, stride, positions);
        return stride > 1 ? elideWords(shown, tick, std::max(fm.horizontalAdvance(QStringLiteral("00:ab…")), int(room))) : shown;
    };
    const QStringList k_shown = thinned(k, x_stride, standing_max), q_shown = thinned(q, y_stride, std::min((size.width() - bar) / 5.0, 2 * inner_w));
    QString x_title = x_mode == TickMode::Tokens && x_stride > 1 ? everyKth(x_stride, QStringLiteral("key")) : QString();
    QString y_title = y_mode == TickMode::Tokens && y_stride > 1 ? everyKth(y_stride, QStringLiteral("query")) : QString();
    // The axis says so where its title fits along the heatmap; where it does not (small heads,
    // 2x fonts), the subtitle's last line says it once for every head.
    QStringList note;
    for (auto [title, length] : {std::pair{&x_title, px_col * n_kv}, std::pair{&y_title, px_row * n_q}})
        if (thumbnails_)  // no words on the thumbnails' axes: nothing to say
            title->clear();
        else if (!title->isEmpty() && fm.horizontalAdvance(*title) > length)
            note << *title, title->clear();
    setThinningNote(note.isEmpty() ? QString() : note.join(QStringLiteral(", ")) + QStringLiteral(" shown"));
    // Words with their positions are wider: horizontal only while each fits the cells up to the next.
    const bool rotate_shown = x_stride > 1 ? heatmap::maxLabelWidth(k_shown, tick) + 6 > px_col * x_stride : rotate;
    const bool strides_changed = x_stride != x_stride_ || y_stride != y_stride_;
    x_stride_ = x_stride;
    y_stride_ = y_stride;
    // Positions: about one number per four digit widths of axis.
    const double digits = fm.horizontalAdvance(QStringLiteral("0000"));
    const int x_ticks = static_cast<int>(px_col * n_kv / (1.5 * digits));
    const int y_ticks = static_cast<int>(px_row * n_q / (2.5 * text_h));
    // Not even two positions fit (dozens of heads in a small window): no numbers that would
    // run into the next head's ("10" + "0" reads "100").
    // Thumbnails carry no words: the large head beside them does.
    const TickMode x_shown = thumbnails_ || (x_mode == TickMode::Positions && x_ticks < 2) ? TickMode::None : x_mode;
    const TickMode y_shown = thumbnails_ || (y_mode == TickMode::Positions && y_ticks < 2) ? TickMode::None : y_mode;
    // The first column pays for the query words beside it, the last row for the key words under
    // it (when they are drawn at all).
    if (heads_grid_ && columns > 1) {
        const double words = y_shown == TickMode::None ? 0.0
                             : y_stride <= 1 ? query_w
                                                       : heatmap::maxLabelWidth(q_shown, tick) + (y_title.isEmpty() ? 0 : text_h + 4);
        for (int c = 0; c < columns; ++c)
            heads_grid_->setColumnStretchFactor(c, c == 0 ? (inner_w + 16 + words) / (inner_w + 16) : 1.0);
    }
    if (heads_grid_) {
        const double keys = x_shown == TickMode::None ? 0.0 : key_h;
        for (int r = 0; r < rows; ++r)
            heads_grid_->setRowStretchFactor(
                r, share_keys && r == rows - 1 && inner_h > 0 ? (inner_h + per_row + keys) / (inner_h + per_row) : 1.0);
        // Rotated words stand half a line beyond their heatmap's edge: the next column keeps clear.
        heads_grid_->setColumnSpacing(x_shown == TickMode::Tokens && rotate_shown ? std::max(10, text_h + 4) : 10);
    }
    for (std::size_t index = 0; index < cells_.size(); ++index) {
        Cell& cell = cells_[index];
        QCPAxis* x = cell.rect->axis(QCPAxis::atBottom);
        QCPAxis* y = cell.rect->axis(QCPAxis::atLeft);
        const bool x_was = qSharedPointerDynamicCast<QCPAxisTickerText>(x->ticker()) != nullptr;
        const bool y_was = qSharedPointerDynamicCast<QCPAxisTickerText>(y->ticker()) != nullptr;
        if (tokens_changed || strides_changed || x_was != (x_mode == TickMode::Tokens) || x_mode == TickMode::Positions)
            heatmap::setTicks(x, x_shown, k_shown, x_ticks);
        if (tokens_changed || strides_changed || y_was != (y_mode == TickMode::Tokens) || y_mode == TickMode::Positions)
            heatmap::setTicks(y, y_shown, q_shown, y_ticks);
        x->setTickLabelRotation(x_mode == TickMode::Tokens && rotate_shown ? -90 : 0);
        y->setTickLabels(y_shown != TickMode::None && index % std::size_t(columns) == 0);
        // Shared bar: key words under the last row only (the same words as every head's); a
        // short last row leaves the columns beside it without them rather than a second row
        // of words in the middle of the grid.
        x->setTickLabels(x_shown != TickMode::None && (!share_keys || index >= std::size_t((rows - 1) * columns)));
        x->setLabel(x->tickLabels() ? x_title : QString());
        // Rotated labels render a few pixels longer than QCustomPlot measures: room where drawn.
        x->setPadding(x->tickLabels() ? static_cast<int>(2 + 6 * options_.font_scale) : 2);
        y->setLabel(y->tickLabels() ? y_title : QString());
    }
}

void HeadGridView::setThinningNote(const QString& note) {
    // The subtitle as updateTexts() wrote it, then the note on its last line or a line of its own.
    const QString text = subtitle_text_;
    thinning_note_ = note;
    if (note.isEmpty()) return subtitle_->setText(text);
    // On the last line where it fits the width (a short window needs the height), else below it.
    // A short window (compact texts) drops the last line's parenthesis for it ("(Xavier uniform, seed 0)").
    const QFontMetrics metrics(subtitle_->font());
    const auto fits = [&](const QString& line) { return metrics.horizontalAdvance(line + QStringLiteral(" · ") + note) <= viewport().width() - 16; };
    QString last = text.section(QLatin1Char('\n'), -1);
    const QString head = text.left(text.size() - last.size());
    if (!fits(last) && compact_texts_ && last.contains(QStringLiteral(" (")) && fits(last.left(last.indexOf(QStringLiteral(" (")))))
        last = last.left(last.indexOf(QStringLiteral(" (")));
    subtitle_->setText(fits(last) ? head + last + QStringLiteral(" · ") + note : text + QLatin1Char('\n') + note);
}

}  // namespace headscope::ui
