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
#include <optional>

#include "Analysis.h"
#include "ViewOptions.h"

class QCustomPlot;

namespace headscope::ui {

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
// Singular values of W_QK,i and W_OV,i for every head.
bool exportSpectrum(const Analysis& analysis, const ViewOptions& options, const QString& path,
                    ImageFormat format, double scale, QString* error);

// Writes, for each format, attention_weights.<ext>, attention_logits.<ext> and
// qk_spectrum.<ext> into dir (created if missing) and returns the paths written. On failure
// *error is set and the list holds what was written before it.
QStringList exportImages(const Analysis& analysis, const QString& dir, const QList<ImageFormat>& formats,
                         QString* error, const ViewOptions& options = {}, double scale = 1.0);

// An image of the plot's current view on the clipboard.
void copyToClipboard(QCustomPlot* plot);

}  // namespace headscope::ui
