#include "TokenLinesView.h"

#include <QComboBox>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QResizeEvent>
#include <QRegularExpression>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <map>

#include "HeadColors.h"
#include "Heatmap.h"
#include "ResultStore.h"
#include "TextFit.h"
#include "TokenLinesLayer.h"
#include "TokenThinning.h"
#include "TypesetTitle.h"

namespace headscope::ui {
TokenLinesView::TokenLinesView(QWidget* parent) : AttentionView(FollowsAnalysis | FollowsHead | FollowsCell, parent) {
    drawsResults({ResultStore::Kind::TokenLines});
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(6, 4, 6, 0);
    bar->addWidget(new QLabel(tr("Lines of:"), this));
    mode_box_ = new QComboBox(this);
    mode_box_->setObjectName(QStringLiteral("token_lines_heads"));
    mode_box_->addItems({tr("all heads"), tr("the selected head"), tr("these heads:")});
    bar->addWidget(mode_box_);
    heads_edit_ = new QLineEdit(this);
    heads_edit_->setObjectName(QStringLiteral("token_lines_head_list"));
    heads_edit_->setPlaceholderText(tr("e.g. 0, 2, 5"));
    heads_edit_->setMaximumWidth(160);
    bar->addWidget(heads_edit_);
    sentences_box_ = new QComboBox(this);
    sentences_box_->setObjectName(QStringLiteral("token_lines_sentences"));
    sentences_box_->addItems({tr("both sentences"), tr("A → B"), tr("B → A")});
    sentences_box_->setToolTip(tr("A sentence pair: every line, or only those from the first sentence's queries to the "
                                  "second's keys, or back"));
    sentences_box_->setVisible(false);
    bar->addWidget(sentences_box_);
    connect(sentences_box_, &QComboBox::currentIndexChanged, this, [this](int index) { setSentences(Sentences(index)); });
    hint_ = new QLabel(this);
    hint_->setObjectName(QStringLiteral("token_lines_hint"));
    hint_->setWordWrap(true);  // at large fonts two lines, never the controls' width
    hint_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    hint_->installEventFilter(this);  // its wording follows its width
    bar->addWidget(hint_, 1);
    connect(mode_box_, &QComboBox::currentIndexChanged, this, [this](int index) {
        mode_ = static_cast<HeadMode>(index);
        applyHeadBox();
    });
    connect(heads_edit_, &QLineEdit::textEdited, this, [this]() {
        if (mode_box_->currentIndex() != int(HeadMode::Chosen)) mode_box_->setCurrentIndex(int(HeadMode::Chosen));
        applyHeadBox();
    });

    plot_ = new QCustomPlot(this);
    plot_->setObjectName(QStringLiteral("token_lines_plot"));
    // 1024 x 768 at 2x (512 x 384) has room for it beside the menu, the tabs, a lesson strip and
    // the status line (issue 21: 180 px high pushed the status line off the screen).
    plot_->setMinimumSize(240, 120);
    plot_->setInteractions(QCP::Interactions());
    plot_->setAutoAddPlottableToLegend(false);
    plot_->plotLayout()->clear();
    title_ = new TypesetTitle(plot_, QStringLiteral("No analysis yet"));
    plot_->plotLayout()->addElement(0, 0, title_);
    legend_ = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(1, 0, legend_);
    rect_ = new QCPAxisRect(plot_);
    rect_->setRangeDrag(Qt::Orientations());
    rect_->setRangeZoom(Qt::Orientations());
    for (QCPAxis* axis : rect_->axes()) axis->setVisible(false);
    rect_->axis(QCPAxis::atBottom)->setRange(0, 1);
    rect_->axis(QCPAxis::atLeft)->setRange(0, 1);
    rect_->axis(QCPAxis::atLeft)->setRangeReversed(true);
    rect_->setAutoMargins(QCP::msNone);
    rect_->setMargins(QMargins(4, 4, 4, 4));
    plot_->plotLayout()->addElement(2, 0, rect_);
    plot_->plotLayout()->setRowStretchFactor(0, 0.01);
    plot_->plotLayout()->setRowStretchFactor(1, 0.01);
    layer_ = new TokenLinesLayer(plot_, this);
    layer_->setClipAxisRect(rect_);
    plot_->setMouseTracking(true);
    plot_->installEventFilter(this);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(bar);
    layout->addWidget(plot_, 1);
}

QStringList TokenLinesView::tokenLabels(int side) const {
    QStringList texts;
    for (const QCPItemText* t : labels_[side == 0 ? 0 : 1]) texts << t->text();
    return texts;
}

QString TokenLinesView::title() const { return title_->text(); }

void TokenLinesView::setAnalysis(std::shared_ptr<const Analysis> analysis) {
    lines_stale_ = true;
    sentences_box_->setVisible(analysis && analysis->second_sentence > 0);
    AttentionView::setAnalysis(std::move(analysis));
}

void TokenLinesView::setSentences(Sentences sentences) {
    if (sentences == sentences_) return;
    sentences_ = sentences;
    const QSignalBlocker block(sentences_box_);
    sentences_box_->setCurrentIndex(int(sentences));
    lines_stale_ = true;
    requestRefresh();
}

void TokenLinesView::setHead(int head) {
    if (mode_ == HeadMode::Selected) lines_stale_ = true;
    AttentionView::setHead(head);
}

void TokenLinesView::setOptions(const ViewOptions& options) {
    QFont f = font();
    f.setPointSizeF(heatmap::font(9, options.font_scale).pointSizeF());
    for (QWidget* w : findChildren<QWidget*>(Qt::FindDirectChildrenOnly))
        if (w != plot_) w->setFont(f);
    AttentionView::setOptions(options);
}

void TokenLinesView::setHeadMode(HeadMode mode, const QList<int>& heads) {
    QSignalBlocker block_box(mode_box_), block_edit(heads_edit_);
    mode_ = mode;
    mode_box_->setCurrentIndex(int(mode));
    if (mode == HeadMode::Chosen) {
        QStringList parts;
        for (int h : heads) parts << QString::number(h);
        heads_edit_->setText(parts.join(QStringLiteral(", ")));
    }
    applyHeadBox();
}

void TokenLinesView::applyHeadBox() {
    chosen_.clear();
    const QStringList parts = heads_edit_->text().split(QRegularExpression(QStringLiteral("[^0-9]+")), Qt::SkipEmptyParts);
    for (const QString& p : parts) chosen_ << p.toInt();
    heads_edit_->setEnabled(true);
    lines_stale_ = true;
    requestRefresh();
}

QList<int> TokenLinesView::shownHeads() const {
    QList<int> heads;
    const int n = analysis_ ? static_cast<int>(analysis_->results.heads.size()) : 0;
    switch (mode_) {
        case HeadMode::All:
            for (int h = 0; h < n; ++h) heads << h;
            break;
        case HeadMode::Selected:
            if (n > 0) heads << std::clamp(head_, 0, n - 1);
            break;
        case HeadMode::Chosen:
            for (int h : chosen_)
                if (h >= 0 && h < n && !heads.contains(h)) heads << h;
            std::sort(heads.begin(), heads.end());
            break;
    }
    return heads;
}

bool TokenLinesView::rebuildLines() {
    lines_.clear();
    thin_omitted_ = false;
    lines_omitted_ = 0;
    choosing_ = false;
    if (!analysis_) return true;
    const QList<int> shown = shownHeads();
    const std::vector<int> heads(shown.begin(), shown.end());
    const double cells = double(heads.size()) * analysis_->nQuery() * analysis_->nKeyValue();
    std::shared_ptr<const TokenLineSet> set;
    if (cells <= kAtOnceCells) {
        set = std::make_shared<const TokenLineSet>(chooseTokenLines(*analysis_, heads, sentences_));
    } else {
        const ResultStore::Result<TokenLineSet> found = results().tokenLines(analysis_, heads, sentences_);
        if (!found) {  // on its way: ready() refreshes
            choosing_ = true;
            return false;
        }
        set = *found;  // null: it could not be computed (out of memory): no lines
    }
    if (set) {
        lines_ = set->lines;
        thin_omitted_ = set->thin_omitted;
        lines_omitted_ = set->omitted;
    }
    return true;
}

void TokenLinesView::waitForLines() {
    if (!lines_stale_) return;
    refresh();
    if (!choosing_) return;
    results().wait();
    refresh();
}

std::vector<TokenLinesView::Line> TokenLinesView::visibleLines() const {
    if (focus_index_ < 0) return lines_;
    std::vector<Line> out;
    for (const Line& l : lines_)
        if ((focus_side_ == 0 ? l.query : l.key) == focus_index_) out.push_back(l);
    return out;
}

QStringList TokenLinesView::focusLabels() const {
    QStringList out;
    for (QCPItemText* t : weight_labels_) out << t->text();
    return out;
}

double TokenLinesView::rowY(int side, int index) const {
    if (!analysis_) return 0;
    const int n = side == 0 ? analysis_->nQuery() : analysis_->nKeyValue();
    return (index + 0.5) / std::max(1, n);
}

void TokenLinesView::setFocusToken(int side, int index) {
    if (side == focus_side_ && index == focus_index_) return;
    focus_side_ = index >= 0 ? side : -1;
    focus_index_ = index;
    requestRefresh();
}

void TokenLinesView::replotNow() {
    refresh();
    plot_->replot(QCustomPlot::rpImmediateRefresh);
    refresh();  // labels thinned for the laid-out height
    plot_->replot(QCustomPlot::rpImmediateRefresh);
}

void TokenLinesView::refresh() {
    if (lines_stale_) lines_stale_ = !rebuildLines();
    for (auto& side : labels_) side.clear();
    weight_labels_.clear();
    // The lines layer stays; only the text items are re-made.
    for (int i = plot_->itemCount() - 1; i >= 0; --i)
        if (plot_->item(i) != layer_) plot_->removeItem(i);
    if (!analysis_ || analysis_->results.heads.empty()) {
        title_->setText(QStringLiteral("No analysis yet"));
        plot_->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    const Analysis& a = *analysis_;
    const double s = options_.font_scale;
    const QList<int> heads = shownHeads();
    const int n_heads = static_cast<int>(a.results.heads.size());
    QString which;
    if (mode_ == HeadMode::All) which = QStringLiteral("all %1 heads").arg(n_heads);
    else if (heads.isEmpty()) which = QStringLiteral("no head chosen (type head numbers above)");
    else {
        QStringList names;
        for (int h : heads) names << QString::number(h);
        which = QStringLiteral("head%1 %2").arg(heads.size() > 1 ? QLatin1String("s") : QLatin1String("")).arg(names.join(QStringLiteral(", ")));
    }
    // One coloured name per head (the same colours as the spectra).
    // Delete the old names cell by cell, then drop the empty cells. (QCPLayout::clear() of
    // QCustomPlot 2.1 never ends on a grid: removing an element leaves an empty cell, which it
    // keeps trying to remove.)
    legend_heads_ = heads.size() > 1 && heads.size() <= kMaxLegendHeads ? heads : QList<int>();
    const QString keys = a.input.cross ? QStringLiteral("source keys") : QStringLiteral("keys");
    QString omitted = thin_omitted_ ? QStringLiteral(" (over %1 hairlines: left out)").arg(kMaxThinLines) : QString();
    if (lines_omitted_ > 0)
        omitted += QStringLiteral(" · the %L1 heaviest lines drawn, %L2 lighter ones left out").arg(kMaxLines).arg(lines_omitted_);
    // Token labels, thinned to one per line height (the hovered and selected ones always), with
    // their positions ("12:the") so that a thinned column never reads as the sequence itself.
    const QFont token_font = heatmap::font(kTokenPt, s), bold_font = heatmap::font(kTokenPt, s, true);
    const int height = rect_->height() > 50 ? rect_->height() : std::max(200, plot_->height() - 80);
    const int line_px = QFontMetrics(token_font).height();
    int steps[2];
    for (int side = 0; side < 2; ++side) {
        const int n = int((side == 0 ? a.input.query.tokens : a.input.key_value.tokens).size());
        steps[side] = std::max(1, int(std::ceil(double(n) * line_px / std::max(1, height))));
    }
    const QString thinned = steps[0] == steps[1] ? everyKth(steps[0], QStringLiteral("token"))
                                                 : everyKth(steps[0], QStringLiteral("query")) + QStringLiteral(", ") +
                                                       everyKth(steps[1], QStringLiteral("key"));
    const QString labelled = std::max(steps[0], steps[1]) > 1 ? QStringLiteral(" · labels: %1").arg(thinned) : QString();
    title_lines_[0] = {QStringLiteral("Which words each head links: queries (left) → %1 (right), %2").arg(keys, which),
                       QStringLiteral("Queries (left) → %1 (right), %2").arg(keys, which), which};
    // Lines left out are said in every variant: the narrowest keeps "the 10,000 heaviest of 26,000 lines".
    const QString heaviest = lines_omitted_ > 0 ? QStringLiteral(" · the %L1 heaviest of %L2 lines").arg(kMaxLines)
                                                      .arg(kMaxLines + lines_omitted_)
                                                : QString();
    const QString last = heaviest + labelled;
    title_lines_[1] = {QStringLiteral("line opacity = softmax weight; lines under %1 are hairlines%2%3")
                           .arg(double(kThinWeight)).arg(omitted, labelled),
                       QStringLiteral("opacity = softmax weight%1%2").arg(thin_omitted_ ? QString() : omitted, last),
                       last.isEmpty() ? QString() : last.mid(3)};
    if (lines_omitted_ > 0)  // narrower still: the count alone
        title_lines_[1] << heaviest.mid(3) << QStringLiteral("%L1 of %L2 lines").arg(kMaxLines).arg(kMaxLines + lines_omitted_);
    if (choosing_)  // a long text's lines, chosen off the GUI thread
        title_lines_[1] = {QStringLiteral("choosing the heaviest of the lines of %L1 map cells…")
                               .arg(double(heads.size()) * a.nQuery() * a.nKeyValue(), 0, 'f', 0),
                           QStringLiteral("choosing the heaviest lines…"), QStringLiteral("choosing lines…")};
    if (a.rotary.enabled()) title_lines_[1][0] += QStringLiteral(" · RoPE: weights of the rotated q, k");
    title_->setFont(heatmap::font(kTitlePt, s, true));
    fitToWidth();
    title_->setTextColor(heads.size() == 1 ? headColor(heads.front()).darker(120) : Qt::black);

    for (int side = 0; side < 2; ++side) {
        const auto& tokens = side == 0 ? a.input.query.tokens : a.input.key_value.tokens;
        const int n = static_cast<int>(tokens.size());
        const int step = steps[side];
        const int selected = side == 0 ? cell_row_ : cell_col_;
        for (int i = 0; i < n; ++i) {
            const bool special = i == selected || (focus_side_ == side && i == focus_index_);
            if (i % step != 0 && !special) continue;
            auto* t = new QCPItemText(plot_);
            t->setClipToAxisRect(false);
            t->position->setAxes(rect_->axis(QCPAxis::atBottom), rect_->axis(QCPAxis::atLeft));
            t->position->setCoords(side == 0 ? kQueryX : kKeyX, rowY(side, i));
            t->setPositionAlignment((side == 0 ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter);
            const QString word = heatmap::drawable(QString::fromStdString(tokens[std::size_t(i)]));
            t->setText(step > 1 ? QStringLiteral("%1:%2").arg(i).arg(word) : word);
            t->setFont(special ? bold_font : token_font);
            if (i == selected) t->setColor(QColor(0xC0, 0x1C, 0x28));
            if (focus_side_ >= 0 && !(focus_side_ == side && i == focus_index_)) t->setColor(QColor(90, 90, 90));
            labels_[side].push_back(t);
        }
    }
    // Hover: the weights at the far ends of the focused token's lines.
    if (focus_index_ >= 0) {
        const int other = 1 - focus_side_;
        std::map<int, QStringList> text;  // far token -> "0.31" per head
        std::map<int, int> head_of;
        for (const Line& l : visibleLines()) {
            if (l.thin) continue;
            const int far = other == 0 ? l.query : l.key;
            text[far] << (heads.size() > 1 ? QStringLiteral("h%1 %2").arg(l.head).arg(l.weight, 0, 'f', 2)
                                           : QString::number(l.weight, 'f', 2));
            head_of[far] = l.head;
        }
        for (const auto& [far, parts] : text) {
            auto* t = new QCPItemText(plot_);
            t->setClipToAxisRect(false);
            t->position->setAxes(rect_->axis(QCPAxis::atBottom), rect_->axis(QCPAxis::atLeft));
            t->position->setCoords(other == 0 ? kQueryX + kGap : kKeyX - kGap, rowY(other, far));
            t->setPositionAlignment((other == 0 ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignBottom);
            t->setText(parts.join(QLatin1Char(' ')));
            t->setFont(heatmap::font(kWeightPt, s, true));
            t->setColor(heads.size() == 1 ? headColor(head_of[far]).darker(130) : Qt::black);
            weight_labels_.push_back(t);
        }
    }
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace headscope::ui
