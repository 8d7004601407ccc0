#pragma once
// THE export module: pure functions from a plot (or an Analysis) to image files, used by the
// GUI (dialogs only pick the path), the command line (headscope-cli export) and the tests.
// Needs a QApplication (QGuiApplication is not enough: the views are widgets); the CLI
// creates one on the offscreen platform. Every function returns false (or an empty list) and
// sets *error to one clear sentence on failure; nothing throws.

#include <QList>
#include <QSize>
#include <QString>
#include <QStringList>
#include <functional>
#include <optional>

#include "Analysis.h"
#include "Circuits.h"
#include "ViewOptions.h"

class QCustomPlot;
class QPainter;
class QWidget;

namespace headscope::ui {

class ResultStore;

enum class ImageFormat { Png, Svg, Pdf };

// "png", ".PNG", "figure.svg", "/tmp/a/b.pdf" -> the format; anything else -> nullopt.
std::optional<ImageFormat> imageFormatFromSuffix(const QString& suffixOrName);
QString suffix(ImageFormat format);  // "png", "svg", "pdf"

// Save plot as it would look at width x height logical pixels (0 = its current size).
// PNG: raster, width*scale x height*scale pixels. SVG: vector (QSvgGenerator) with title and
// description metadata, text kept as <text>. PDF: vector, via QCustomPlot::savePdf.
bool savePlot(QCustomPlot* plot, const QString& path, ImageFormat format, int width, int height,
              double scale, QString* error);

// Pixel size the head grid is exported at (about 320 px per head panel plus titles and bar).
QSize headGridExportSize(const Analysis& analysis, const ViewOptions& options);

// All heads as a grid (weights or logits per options.show_logits), built offscreen.
bool exportHeadGrid(const Analysis& analysis, const ViewOptions& options, const QString& path,
                    ImageFormat format, double scale, QString* error);
// One head, large, with its rank and singular values in the subtitle.
bool exportHead(const Analysis& analysis, int head, const ViewOptions& options, const QString& path,
                ImageFormat format, double scale, QString* error);
// Every view HeadScope draws, exported alone. File names say what they show.
enum class ViewKind {
    AttentionWeights,  // attention_weights: every head's softmax weights
    AttentionLogits,   // attention_logits: every head's logits
    SpectrumQK,        // spectrum_qk: all d_model singular values of each head's W_QK
    SpectrumOV,        // spectrum_ov: the same for W_OV
    RankTable,         // rank_table: ranks of W_QK, W_OV, logits against their bounds
    Projections,       // projections: fused W_Q, W_K, W_V, W_O and X, Q, K, V with head blocks
    ProjectionProduct, // projection_product_head_<h>: X W_i^Q, (X W_i^Q) (W_i^K)^T and X W_QK,i with their difference
    CircuitQK,         // circuit_qk_head_<h>: W_i^Q, W_i^K and W_QK,i
    CircuitOV,         // circuit_ov_head_<h>: W_i^V, W_i^O and W_OV,i
    Costs,             // costs: parameters and multiply-adds with their formulas
    ScoreBreakdown,    // score_breakdown: how one score is made (q, k, q*k, scale, softmax row, W_QK form)
    TokenLines,        // token_lines: every head's weights as lines between query and key tokens
    QueryKeyMap,       // qk_map_head_<h>: the head's queries and keys on their first two principal components
};
// Their ids, titles, file names and order are in ViewRegistry.h (exportedViews(): every kind).

// "attention_weights", "spectrum_qk", "circuit_qk_head_3", ... (no suffix).
QString viewFileName(ViewKind kind, int head);
// "Spectra of W_QK", ... for menus and dialogs.
QString viewTitle(ViewKind kind);

// Builds the view offscreen for analysis (head: the selected head for the views that show one)
// and saves it. circuits: the head's already formed W_QK / W_OV, or nullptr to form them here.
// (cell_row, cell_col): the cell the score breakdown explains (the selected cell); (-1, -1), the
// default, takes the last query and the key it attends to most (defaultCell in ScoreBreakdown.h).
// delta: on a rotary layer the spectra, the rank table and the W_QK circuit show W_QK,i(delta) =
// W_i^Q R(delta) (W_i^K)^T and say so in their titles (nullopt, or no rotary positions: W_i^Q (W_i^K)^T).
bool exportView(ViewKind kind, const Analysis& analysis, int head, const ViewOptions& options, const QString& path,
                ImageFormat format, double scale, QString* error, const Circuits* circuits = nullptr,
                int cell_row = -1, int cell_col = -1, std::optional<int> delta = std::nullopt);

// Any widget (tables, text) as PNG (raster at scale), SVG or PDF (vector) at its current size.
bool saveWidget(QWidget* widget, const QString& path, ImageFormat format, double scale, QString* error);
// Whatever paint draws in size (logical pixels) on a white page: PNG (raster at scale), SVG or
// PDF (vector: the text stays text). title: the SVG's <title>.
bool savePainted(const QSize& size, const std::function<void(QPainter&)>& paint, const QString& title,
                 const QString& path, ImageFormat format, double scale, QString* error);

// Writes, for each format, every view of exportedViews() into dir (created if missing), named by
// viewFileName (circuits and query-key map of `head`; the score breakdown of its default cell;
// W_QK at delta as exportView draws it),
// and returns the paths written. On failure *error is set
// and the list holds what was written before it. The views' results (circuits, Q-K map, score
// breakdown, ...) come from results (ResultStore.h), computed once for all views and formats; a
// store of its own when null. A store given must not outlive analysis: its keys borrow it.
QStringList exportImages(const Analysis& analysis, const QString& dir, const QList<ImageFormat>& formats,
                         QString* error, const ViewOptions& options = {}, double scale = 1.0, int head = 0,
                         std::optional<int> delta = std::nullopt, ResultStore* results = nullptr);

// An image of the plot's current view on the clipboard.
void copyToClipboard(QCustomPlot* plot);

}  // namespace headscope::ui
