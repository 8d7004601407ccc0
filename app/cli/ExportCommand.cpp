// headscope-cli export: every matrix as CSV/.npy and the views as PNG/SVG/PDF, headless.
#include <QApplication>
#include <QDir>
#include <cstdio>

#include "Analysis.h"
#include "Export.h"
#include "cli/Arguments.h"
#include "cli/Commands.h"
#include "cli/DeltaOption.h"
#include "io/IoError.h"
#include "io/MatrixExport.h"

namespace headscope::cli {

int runExport(const QStringList& arguments, int argc, char** argv) {
    QCommandLineParser parser;
    addConfigOptions(parser);
    parser.addOption({"out", "Directory to write into (created if missing).", "DIR"});
    parser.addOption({"format", "Comma-separated: png, svg, pdf, csv, npy (default csv,npy).", "LIST"});
    parser.addOption({"scale", "Pixel scale of PNG images (default 2).", "S"});
    parser.addOption({"head", "Head whose circuits are drawn (circuit_qk_head_H, circuit_ov_head_H; default 0).", "H"});
    parser.addOption(deltaOption());
    parseOrThrow(parser, arguments);
    const std::string out = requireValue(parser, "out");
    const Config config = configFromOptions(parser);

    std::vector<io::MatrixFormat> matrix_formats;
    QList<ui::ImageFormat> image_formats;
    const QString list = parser.isSet("format") ? parser.value("format") : QStringLiteral("csv,npy");
    for (const QString& raw : list.split(',', Qt::SkipEmptyParts)) {
        const QString name = raw.trimmed().toLower();
        if (name == "csv")
            matrix_formats.push_back(io::MatrixFormat::Csv);
        else if (name == "npy")
            matrix_formats.push_back(io::MatrixFormat::Npy);
        else if (const auto image = ui::imageFormatFromSuffix(name); image && (name == "png" || name == "svg" || name == "pdf"))
            image_formats.push_back(*image);
        else
            throw UsageError("unknown export format '" + raw.toStdString() + "': use png, svg, pdf, csv or npy");
    }
    if (matrix_formats.empty() && image_formats.empty()) throw UsageError("--format lists no format");
    const double scale = parser.isSet("scale") ? parseDouble("scale", parser.value("scale")) : 2.0;
    if (!(scale >= 0.25 && scale <= 8))
        throw UsageError("--scale " + parser.value("scale").toStdString() + " is out of range: choose 0.25 to 8");

    // Every head's W_QK is d_model x d_model: refuse to fill a disk by surprise.
    constexpr double kMaxExportBytes = 2.0 * 1024 * 1024 * 1024;
    double bytes = 0;
    for (io::MatrixFormat f : matrix_formats)
        bytes += (f == io::MatrixFormat::Csv ? 16.0 : 4.0) * config.heads * double(config.d_model) * config.d_model;
    if (bytes > kMaxExportBytes)
        throw UsageError("this export would write about " + std::to_string(int(bytes / (1 << 30))) +
                         " GiB (one d_model x d_model W_QK per head); choose fewer heads, a smaller d_model or --format npy");
    const int head = parser.isSet("head") ? parseInt("head", parser.value("head"), 0, config.heads - 1) : 0;
    const Analysis analysis = analyze(config, false);
    const std::optional<int> delta = parseDelta(parser, analysis);  // W_QK,i(Delta) of a rotary layer
    int files = 0;
    try {
        if (!matrix_formats.empty())
            files += static_cast<int>(io::exportMatrices(analysis, out, matrix_formats).size());
        if (delta) files += static_cast<int>(writeRotatedQK(analysis, *delta, out, matrix_formats).size());
    } catch (const io::IoError& e) {
        throw UsageError(e.what());
    }
    if (!image_formats.isEmpty()) {
        // Headless by design: never needs a display.
        prepareHeadlessQt();
        QApplication app(argc, argv);
        QString error;
        const QStringList images = ui::exportImages(analysis, QString::fromStdString(out), image_formats, &error,
                                                    ui::ViewOptions{}, scale, head, delta);
        if (!error.isEmpty()) throw UsageError(error.toStdString());
        files += static_cast<int>(images.size());
    }
    std::printf("wrote %d files to %s\n", files, out.c_str());
    return 0;
}

}  // namespace headscope::cli
