#include "Export.h"
#include "ExportChecks.h"

#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFileInfo>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <algorithm>
#include <cmath>
#include <memory>
#include <qcustomplot.h>

#include "HeadDetailView.h"
#include "HeadGridView.h"

namespace headscope::ui {
namespace exporting {

void fail(QString* error, const QString& message) {
    if (error) *error = message;
}

// A non-owning shared_ptr: the views below live shorter than the caller's Analysis.
std::shared_ptr<const Analysis> borrow(const Analysis& analysis) {
    return std::shared_ptr<const Analysis>(std::shared_ptr<const Analysis>(), &analysis);
}

// The first text element of the plot's layout (the views put their title there).
QString plotTitle(QCustomPlot* plot) {
    QCPLayoutGrid* layout = plot->plotLayout();
    for (int i = 0; i < layout->elementCount(); ++i) {
        if (auto* text = qobject_cast<QCPTextElement*>(layout->elementAt(i)))
            if (!text->text().isEmpty()) return text->text();
    }
    return QStringLiteral("HeadScope");
}

bool checkTarget(const QString& path, QString* error) {
    if (path.isEmpty()) {
        fail(error, QStringLiteral("No file name given for the export."));
        return false;
    }
    const QFileInfo info(path);
    if (info.isDir()) {
        fail(error, QStringLiteral("Cannot export to '%1': it is a directory, not a file.").arg(path));
        return false;
    }
    const QDir dir = info.absoluteDir();
    if (!dir.exists()) {
        fail(error, QStringLiteral("Cannot export to '%1': the directory '%2' does not exist.")
                        .arg(path, dir.absolutePath()));
        return false;
    }
    if (!QFileInfo(dir.absolutePath()).isWritable()) {
        fail(error, QStringLiteral("Cannot export to '%1': the directory '%2' is not writable.")
                        .arg(path, dir.absolutePath()));
        return false;
    }
    return true;
}

bool checkAnalysis(const Analysis& analysis, QString* error) {
    if (analysis.results.heads.empty()) {
        fail(error, QStringLiteral("Nothing to export: the analysis has no heads."));
        return false;
    }
    return true;
}

bool checkHead(const Analysis& analysis, int head, QString* error) {
    const int heads = static_cast<int>(analysis.results.heads.size());
    if (head >= 0 && head < heads) return true;
    fail(error, QStringLiteral("There is no head %1: heads are numbered 0 to %2.").arg(head).arg(heads - 1));
    return false;
}

}  // namespace exporting

namespace {

bool saveSvg(QCustomPlot* plot, const QString& path, int width, int height, QString* error) {
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setSize(QSize(width, height));
    generator.setViewBox(QRect(0, 0, width, height));
    generator.setResolution(96);  // the point sizes of the fonts mean what they mean on screen
    generator.setTitle(exporting::plotTitle(plot));
    generator.setDescription(
        QStringLiteral("HeadScope %1: multi-head attention, made visible").arg(QStringLiteral(HEADSCOPE_VERSION)));
    QCPPainter painter;
    if (!painter.begin(&generator)) {
        exporting::fail(error, QStringLiteral("Could not write the SVG file '%1'.").arg(path));
        return false;
    }
    painter.setMode(QCPPainter::pmVectorized);  // heatmap cells as rectangles (CellColorMap)
    plot->toPainter(&painter, width, height);
    painter.end();
    if (QFileInfo(path).size() <= 0) {
        exporting::fail(error, QStringLiteral("Could not write the SVG file '%1'.").arg(path));
        return false;
    }
    return true;
}

int ceilSqrt(int n) { return std::max(1, static_cast<int>(std::ceil(std::sqrt(double(n)) - 1e-9))); }

}  // namespace

std::optional<ImageFormat> imageFormatFromSuffix(const QString& suffixOrName) {
    QString s = suffixOrName.trimmed().toLower();
    const qsizetype dot = s.lastIndexOf(QLatin1Char('.'));
    if (dot >= 0) s = s.mid(dot + 1);
    if (s == QLatin1String("png")) return ImageFormat::Png;
    if (s == QLatin1String("svg")) return ImageFormat::Svg;
    if (s == QLatin1String("pdf")) return ImageFormat::Pdf;
    return std::nullopt;
}

QString suffix(ImageFormat format) {
    switch (format) {
        case ImageFormat::Png: return QStringLiteral("png");
        case ImageFormat::Svg: return QStringLiteral("svg");
        case ImageFormat::Pdf: return QStringLiteral("pdf");
    }
    return {};
}

bool savePlot(QCustomPlot* plot, const QString& path, ImageFormat format, int width, int height,
              double scale, QString* error) {
    if (!plot) {
        exporting::fail(error, QStringLiteral("Nothing to export: no plot."));
        return false;
    }
    if (!exporting::checkTarget(path, error)) return false;
    if (width <= 0 || height <= 0) {
        width = plot->viewport().width();
        height = plot->viewport().height();
    }
    if (width <= 0 || height <= 0 || !(scale > 0) || !std::isfinite(scale)) {
        exporting::fail(error, QStringLiteral("Cannot export '%1' at %2 x %3 pixels, scale %4.")
                        .arg(path).arg(width).arg(height).arg(scale));
        return false;
    }
    bool ok = false;
    switch (format) {
        case ImageFormat::Png:
            ok = plot->savePng(path, width, height, scale);
            if (!ok) exporting::fail(error, QStringLiteral("Could not write the PNG file '%1'.").arg(path));
            break;
        case ImageFormat::Pdf:
            ok = plot->savePdf(path, width, height, QCP::epNoCosmetic, QStringLiteral("HeadScope"),
                               exporting::plotTitle(plot));
            if (!ok) exporting::fail(error, QStringLiteral("Could not write the PDF file '%1'.").arg(path));
            break;
        case ImageFormat::Svg:
            ok = saveSvg(plot, path, width, height, error);
            break;
    }
    // Exporting lays the plot out at the export size; lay it out again for the screen.
    plot->replot(QCustomPlot::rpQueuedReplot);
    return ok;
}

QSize headGridExportSize(const Analysis& analysis, const ViewOptions& options) {
    const int heads = std::max(1, static_cast<int>(analysis.results.heads.size()));
    const int columns = ceilSqrt(heads);
    const int rows = (heads + columns - 1) / columns;
    const double s = options.font_scale > 0 ? options.font_scale : 1.0;
    const int n = std::max(analysis.nQuery(), analysis.nKeyValue());
    // 320 px a panel; long labelled sequences get 15 px a token (labels hide past 40 tokens).
    const int shown = n > HeadGridView::kMaxTokenLabels ? 24 : n;
    const int panel = static_cast<int>(std::max(320.0, 15.0 * shown + 150 * s) * std::max(1.0, s));
    const int width = columns * panel + (options.shared_scale ? int(140 * s) : columns * int(80 * s)) + 20;
    const int height = rows * panel + int(70 * s);
    return {width, height};
}

bool exportHeadGrid(const Analysis& analysis, const ViewOptions& options, const QString& path,
                    ImageFormat format, double scale, QString* error) {
    if (!exporting::checkAnalysis(analysis, error) || !exporting::checkTarget(path, error)) return false;
    const QSize size = headGridExportSize(analysis, options);
    HeadGridView view;
    view.resize(size);
    view.setViewport(QRect(QPoint(0, 0), size));
    view.setOptions(options);
    view.setColumnCount(ceilSqrt(static_cast<int>(analysis.results.heads.size())));
    view.setAnalysis(exporting::borrow(analysis));
    view.replotNow();
    return savePlot(&view, path, format, size.width(), size.height(), scale, error);
}

bool exportHead(const Analysis& analysis, int head, const ViewOptions& options, const QString& path,
                ImageFormat format, double scale, QString* error) {
    if (!exporting::checkAnalysis(analysis, error) || !exporting::checkTarget(path, error) ||
        !exporting::checkHead(analysis, head, error))
        return false;
    const double s = options.font_scale > 0 ? options.font_scale : 1.0;
    const int n = std::max(analysis.nQuery(), analysis.nKeyValue());
    const int side = static_cast<int>(std::clamp(22.0 * n, 420.0, 1400.0) * std::max(1.0, s));
    const QSize size(side + int(330 * s), side + int(200 * s));
    HeadDetailView view;
    view.setOptions(options);
    view.setAnalysis(exporting::borrow(analysis));
    view.setHead(head);
    view.plot()->resize(size);
    view.plot()->setViewport(QRect(QPoint(0, 0), size));
    view.replotNow();
    return savePlot(view.plot(), path, format, size.width(), size.height(), scale, error);
}


bool saveWidget(QWidget* widget, const QString& path, ImageFormat format, double scale, QString* error) {
    if (!widget) return false;
    return savePainted(widget->size(), [widget](QPainter& painter) { widget->render(&painter); }, widget->windowTitle(),
                       path, format, scale, error);
}

bool savePainted(const QSize& size, const std::function<void(QPainter&)>& paint, const QString& title,
                 const QString& path, ImageFormat format, double scale, QString* error) {
    if (!exporting::checkTarget(path, error)) return false;
    if (size.isEmpty() || !(scale > 0)) {
        exporting::fail(error, QStringLiteral("Cannot export '%1': the view has no size.").arg(path));
        return false;
    }
    bool ok = false;
    switch (format) {
        case ImageFormat::Png: {
            QImage image(size * scale, QImage::Format_ARGB32);
            image.setDevicePixelRatio(scale);
            image.fill(Qt::white);
            QPainter painter;
            ok = painter.begin(&image);
            if (ok) paint(painter);
            painter.end();
            ok = ok && image.save(path, "PNG");
            break;
        }
        case ImageFormat::Svg: {
            QSvgGenerator generator;
            generator.setFileName(path);
            generator.setSize(size);
            generator.setViewBox(QRect(QPoint(0, 0), size));
            generator.setResolution(96);
            generator.setTitle(title);
            QPainter painter;
            ok = painter.begin(&generator);
            if (ok) paint(painter);
            painter.end();
            ok = ok && QFileInfo(path).size() > 0;
            break;
        }
        case ImageFormat::Pdf: {
            QPdfWriter writer(path);
            writer.setResolution(96);
            writer.setPageSize(QPageSize(QSizeF(size) * 72.0 / 96.0, QPageSize::Point));
            writer.setPageMargins(QMarginsF(0, 0, 0, 0));
            QPainter painter;
            ok = painter.begin(&writer);
            if (ok) paint(painter);
            painter.end();
            ok = ok && QFileInfo(path).size() > 0;
            break;
        }
    }
    if (!ok) exporting::fail(error, QStringLiteral("Could not write the %1 file '%2'.").arg(suffix(format).toUpper(), path));
    return ok;
}

void copyToClipboard(QCustomPlot* plot) {
    if (!plot) return;
    const QPixmap pixmap = plot->toPixmap();
    plot->replot(QCustomPlot::rpQueuedReplot);
    if (QClipboard* clipboard = QApplication::clipboard()) clipboard->setPixmap(pixmap);
}

}  // namespace headscope::ui
