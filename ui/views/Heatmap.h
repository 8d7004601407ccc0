#pragma once
// Building blocks shared by the heatmap views (HeadGridView, HeadDetailView) and by export:
// how one head's (n_q, n_kv) matrix becomes a QCPColorMap, which colours and range it gets,
// how its axes are labelled with tokens, and what a hovered cell says.
//
// Orientation (everywhere in HeadScope): key tokens along x (column c = key position c),
// query tokens down y with row 0 at the TOP (the value axis is reversed), so a view reads like
// the matrix printed by NumPy: colorMap->data()->cell(c, r) == matrix(r, c).
// Masked cells (Results::allowed false) hold NaN and are drawn in the gradient's grey.

#include <QFont>
#include <QRect>
#include <QString>
#include <QStringList>
#include <qcustomplot.h>

#include "Analysis.h"

namespace headscope::ui::heatmap {

// Token labels, elided to at most max_chars characters ("international…"), each character no
// installed font can draw named by its code point (drawable()); with positions each starts
// with its index ("3 street").
QStringList queryLabels(const Analysis& analysis, int max_chars = 12, bool positions = false);
QStringList keyLabels(const Analysis& analysis, int max_chars = 12, bool positions = false);
// text with each character that no installed font has a glyph for (an empty box on screen:
// CJK or emoji on a bare system, an unassigned code point) written as its code point, "U+6771".
// GUI thread only (it asks the font system, and remembers each answer).
QString drawable(const QString& text);

// A font of point_size * scale points (never below 6 pt).
// The family of every plot's text (and of exported tables): DejaVu Sans, installed by .ci/setup
// (fonts-dejavu-core) and named in SVG files, so text keeps its width wherever a file is opened.
constexpr const char* kTextFamily = "DejaVu Sans";
QFont font(double point_size, double scale, bool bold = false);

// Axis rect styled as a heatmap: no grid, no interactions, y reversed, ranges framing
// n_kv x n_q cells, all four sides framed by a thin box.
void styleAxes(QCPAxisRect* rect);
constexpr int kTickLengthOut = 3;  // pixels
void setCellRanges(QCPAxisRect* rect, int n_q, int n_kv);

// Axis labelling: tokens (one tick per cell; no tick marks where the words are thinned), positions (numbers, for long sequences) or none.
enum class TickMode { Tokens, Positions, None };
// position_ticks: about how many numbers Positions shows (fewer on small panels).
void setTicks(QCPAxis* axis, TickMode mode, const QStringList& labels, int position_ticks = 6);

// A map with more tokens than this on a side is drawn downsampled: each drawn cell the largest
// weight (the logit of largest magnitude) of its block of tokens, so one sharp key stays visible.
// The large head's; the grid's small panels take fewer.
constexpr int kMaxDrawnCells = kPooledCells;
constexpr int kMaxGridCells = kCoarseCells;  // 256: Analysis::pooled holds the maps pooled to it
// The cells a side a grid panel of `pixels` device pixels a side draws of a long input: the fewest of
// 32, 64, 128 and kMaxGridCells (divisors of kPooledCells, so the pooled maps pooled again are
// exactly the maps pooled to it) that still give every pixel a cell of its own. A cell smaller than
// a pixel is work for nothing, and its sharp key is left to the image's scaling to keep or drop.
int gridCells(int pixels);

// Copy head's weights or logits into map, masked cells NaN: the tokens of `window` (keys x from
// window.x(), queries y from window.y(); an empty window: every token), one cell per token, or
// downsampled (core's Downsample.h) to at most max_cells a side (from Analysis::pooled when the
// window is every token and max_cells divides kPooledCells: the same cells). Either way the map's cells
// cover exactly the window's tokens on the axes' token coordinates (cell c of key k at x = k).
void fill(QCPColorMap* map, const Analysis& analysis, int head, bool logits, QRect window = {},
          int max_cells = kMaxDrawnCells);

// Smallest of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 (times a power of ten) >= x.
double niceCeiling(double x);
// Shared colour bars for weights run from 0 to the largest weight rounded up to this step.
constexpr double kWeightStep = 0.05;

// The data range a head (or, for head < 0, every head) is drawn with, over unmasked cells:
// weights [0, max weight], logits symmetric about zero [-max |logit|, max |logit|]. Shared
// ranges are rounded up (weights to kWeightStep, logits to niceCeiling) so they stay still
// while a slider moves.
QCPRange dataRange(const Analysis& analysis, int head, bool logits, bool shared);

// viridis for weights, RdBu (blue negative, red positive) for logits; NaN grey.
QCPColorGradient gradient(bool logits);

// What the colour bar measures: "attention weight (softmax)" / "logit q·k / √d_k".
QString valueName(const Analysis& analysis, bool logits);

// The query rows whose keys are all masked (softmax would be 0/0; HeadScope shows 0), and a
// hatched frame over one of them on `rect` (owned by the plot), as the grid and the large head
// draw them.
QList<int> fullyMaskedRows(const Analysis& analysis);
QCPItemRect* hatchRow(QCustomPlot* plot, QCPAxisRect* rect, int row, int n_kv);
// A sentence pair's border (analysis.second_sentence): an orange line across the map before the
// second sentence's first query row and one before its first key column; none for one text.
QList<QCPAbstractItem*> sentenceBorder(QCustomPlot* plot, QCPAxisRect* rect, const Analysis& analysis);
// The colour of that border, named in the views' notes.
constexpr const char* kSentenceBorderName = "orange";

// Where the weights come from, for every picture of them: "trained weights: GPT-2 nano-sort,
// layer 1 of 3", "random, untrained weights (Xavier
// uniform, seed 3): patterns are not learned" or "identity weights: no projection".
QString weightsOrigin(const Analysis& analysis);

// True when some query may not attend to some key (causal mask, padding).
bool anyMasked(const Analysis& analysis);

// "head 3 · query 'cat' (row 1) → key 'The' (col 0) · logit 0.532 · weight 0.214"
// (or "... · masked"), then for a token that is a piece of a character split across tokens
// its bytes: " · 'é…' is a piece of é (UTF-8 0xC3 0xA9), split across tokens". Heads, rows and
// columns count from 0, as in the engine and the CLI.
QString cellText(const Analysis& analysis, int head, int row, int col);

// The (row, col) cell under a widget position inside rect, or false.
bool cellAt(const QCPAxisRect* rect, const QPointF& pos, int n_q, int n_kv, int* row, int* col);

// Widest / tallest label in pixels for font.
int maxLabelWidth(const QStringList& labels, const QFont& font);

}  // namespace headscope::ui::heatmap
