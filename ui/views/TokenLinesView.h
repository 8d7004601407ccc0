#pragma once
// Which words each head links (BertViz's head view): two columns of tokens, queries on the
// left and keys on the right (the source tokens for cross-attention), and a line from every
// query to every key it may see, its opacity the head's softmax weight, one colour per head
// (headColor). All heads, the selected head only, or a chosen subset. Hovering a token shows
// only its lines, with the weights written at their far ends. Lines under kThinWeight are drawn
// as hairlines (and left out above kMaxThinLines lines), so a few hundred tokens stay usable; past
// kMaxLines lines (a long text) only the heaviest are drawn, and the title says how many are not.
// The selected cell's query and key are written in bold. The weights are the engine's
// (Results::heads[h].weights), read, never recomputed; a long text's lines are chosen off the
// GUI thread (TokenLineChoice.h, ResultStore::tokenLines).

#include <QWidget>
#include <memory>
#include <qcustomplot.h>
#include <vector>

#include "Analysis.h"
#include "AttentionView.h"
#include "TokenLineChoice.h"
#include "ViewOptions.h"

class QComboBox;
class QLineEdit;
class QLabel;

namespace headscope::ui {

class TokenLinesView : public AttentionView {
    Q_OBJECT

public:
    enum class HeadMode { All, Selected, Chosen };
    // A sentence pair (Analysis::second_sentence): every line, or only those from A's queries to B's
    // keys, or from B's to A's (BertViz's head view). The choice shows only for a pair.
    using Sentences = TokenLineSentences;
    using Line = TokenLine;
    static constexpr float kThinWeight = TokenLineSet::kThinWeight;
    static constexpr int kMaxThinLines = TokenLineSet::kMaxThinLines;
    static constexpr int kMaxLines = TokenLineSet::kMaxLines;
    // Up to this many map cells (shown heads x queries x keys, ~3 ms) the lines are chosen at once;
    // past it (a long text) off the GUI thread, the title saying so meanwhile.
    static constexpr double kAtOnceCells = 1 << 20;

    explicit TokenLinesView(QWidget* parent = nullptr);

    void setAnalysis(std::shared_ptr<const Analysis> analysis) override;
    void setHead(int head) override;
    void setOptions(const ViewOptions& options) override;
    // Which heads draw lines; Chosen uses `heads` (also typed in the box as "0, 2, 5").
    void setHeadMode(HeadMode mode, const QList<int>& heads = {});
    HeadMode headMode() const { return mode_; }
    void setSentences(Sentences sentences);
    Sentences sentences() const { return sentences_; }
    QList<int> shownHeads() const;
    // Hover a token: side 0 = query column, 1 = key column; index -1 clears.
    void setFocusToken(int side, int index);

    QCustomPlot* plot() const override { return plot_; }
    // Every line the view draws (thin ones too, unless left out: see thinLinesOmitted()).
    const std::vector<Line>& lines() const { return lines_; }
    bool thinLinesOmitted() const { return thin_omitted_; }
    long long linesOmitted() const { return lines_omitted_; }  // past kMaxLines: the lightest, left out
    // Whether a long text's lines are being chosen off the GUI thread (none drawn meanwhile).
    bool choosingLines() const { return choosing_; }
    // Waits until they are chosen, and draws them (export, tests; never on the interactive path).
    void waitForLines();
    // The lines drawn in full colour now (those of the hovered token, or all).
    std::vector<Line> visibleLines() const;
    // The weights written beside the other column while a token is hovered.
    QStringList focusLabels() const;
    QString title() const;
    // The token labels written (side 0: queries, 1: keys), top to bottom: every word, or where
    // they do not fit one per line every k-th as "12:the" (the title says "labels: every 2nd token").
    QStringList tokenLabels(int side) const;

    void replotNow() override;  // refresh now, shown or not (export, tests)

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    friend class TokenLinesLayer;
    static constexpr double kTitlePt = 12.5, kTokenPt = 10.5, kWeightPt = 8.5, kLegendPt = 10;
    // Horizontal layout in plot coordinates [0, 1]: labels end / start here, lines between.
    static constexpr double kQueryX = 0.30, kKeyX = 0.70, kGap = 0.012;
    static constexpr int kMaxLegendHeads = 16;
    bool rebuildLines();  // false while a long text's lines are chosen off the GUI thread
    void refresh() override;  // rebuilds the lines first when they are stale
    void fitToWidth();  // title wording and legend rows for the plot's width
    bool lines_stale_ = false;             // analysis or heads changed since rebuildLines()
    void applyHeadBox();
    void fitHint();
    // Token index under pos on side 0 / 1, or -1.
    int tokenAt(const QPointF& pos, int* side) const;
    double rowY(int side, int index) const;  // 0 at the top, 1 at the bottom
    HeadMode mode_ = HeadMode::All;
    Sentences sentences_ = Sentences::All;
    QComboBox* sentences_box_ = nullptr;  // shown for a sentence pair only
    QList<int> chosen_;
    int focus_side_ = -1, focus_index_ = -1;
    std::vector<Line> lines_;
    bool thin_omitted_ = false;
    long long lines_omitted_ = 0;
    bool choosing_ = false;
    QComboBox* mode_box_ = nullptr;
    QLineEdit* heads_edit_ = nullptr;
    QLabel* hint_ = nullptr;  // "Hover a word ...", worded for its width
    QCustomPlot* plot_ = nullptr;
    QCPTextElement* title_ = nullptr;
    QCPLayoutGrid* legend_ = nullptr;  // "head 0  head 1 ..." each in its colour
    QList<int> legend_heads_;          // the heads named in the legend
    QStringList title_lines_[2];       // each line's wordings, longest first
    QCPAxisRect* rect_ = nullptr;
    QCPAbstractItem* layer_ = nullptr;
    std::vector<QCPItemText*> labels_[2];
    std::vector<QCPItemText*> weight_labels_;
};

}  // namespace headscope::ui
