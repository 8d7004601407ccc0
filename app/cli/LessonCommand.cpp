// headscope-cli lesson: slides and a handout of one guided lesson, headless.
//   lesson --list                         the lessons, one per line
//   lesson N --out DIR [--format png,svg,pdf] [--scale S]
// writes step-K.<format> for every step K (the step's title and text with its live numbers
// above the view the step shows, drawn by Export's exportView) and lesson-N.md, the handout.
#include <QApplication>
#include <algorithm>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <QTemporaryDir>
#include <QTextDocument>
#include <cstdio>

#include "Analysis.h"
#include "Export.h"
#include "Teaching.h"
#include "TeachingHeadless.h"
#include "ViewRegistry.h"
#include "cli/Arguments.h"
#include "cli/Commands.h"
#include "lessons/Lesson.h"
#include "lessons/Reparametrize.h"

namespace headscope::cli {

namespace {

// The step's text (rich text, numbers filled) on top, the view's image below; logical pixels.
void paintSlide(QPainter& painter, QTextDocument& text, const QImage& view, const QSizeF& view_size) {
    painter.fillRect(QRectF(QPointF(0, 0), QSizeF(view_size.width(), text.size().height() + view_size.height())), Qt::white);
    text.drawContents(&painter);
    painter.drawImage(QRectF(QPointF(0, text.size().height()), view_size), view);
}

bool writeSlide(const QString& html, const QImage& view, double scale, const QString& path, ui::ImageFormat format,
                QString* error) {
    const QSizeF view_size(view.width() / scale, view.height() / scale);
    QTextDocument text;
    QFont font = text.defaultFont();
    font.setPointSizeF(13);
    text.setDefaultFont(font);
    text.setDocumentMargin(16);
    text.setHtml(html);
    text.setTextWidth(std::max(640.0, view_size.width()));
    const QSizeF page(std::max(text.textWidth(), view_size.width()), text.size().height() + view_size.height());
    bool ok = true;
    switch (format) {
        case ui::ImageFormat::Png: {
            QImage image(QSize(int(page.width() * scale + 0.5), int(page.height() * scale + 0.5)), QImage::Format_RGB32);
            image.fill(Qt::white);
            QPainter painter(&image);
            painter.scale(scale, scale);
            paintSlide(painter, text, view, view_size);
            painter.end();
            ok = image.save(path, "PNG");
            break;
        }
        case ui::ImageFormat::Svg: {
            QSvgGenerator svg;
            svg.setFileName(path);
            svg.setSize(page.toSize());
            svg.setViewBox(QRectF(QPointF(0, 0), page));
            svg.setTitle(QStringLiteral("HeadScope lesson slide"));
            QPainter painter;
            ok = painter.begin(&svg);
            if (ok) paintSlide(painter, text, view, view_size);
            ok = ok && painter.end();
            break;
        }
        case ui::ImageFormat::Pdf: {
            QPdfWriter pdf(path);
            pdf.setResolution(96);
            pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
            pdf.setPageSize(QPageSize(QSizeF(page.width() * 0.75, page.height() * 0.75), QPageSize::Point));
            QPainter painter;
            ok = painter.begin(&pdf);
            if (ok) paintSlide(painter, text, view, view_size);
            ok = ok && painter.end();
            break;
        }
    }
    if (!ok || !QFile::exists(path)) {
        if (error) *error = QStringLiteral("cannot write %1").arg(path);
        return false;
    }
    return true;
}

}  // namespace

int runLesson(const QStringList& arguments, int argc, char** argv) {
    QCommandLineParser parser;
    parser.addPositionalArgument("N", "Lesson number, 1 to " + QString::number(ui::kLessonCount) + ".");
    parser.addOption({"list", "List the lessons."});
    parser.addOption({"out", "Directory to write into (created if missing).", "DIR"});
    parser.addOption({"format", "Comma-separated: png, svg, pdf (default png).", "LIST"});
    parser.addOption({"scale", "Pixel scale of PNG slides (default 1.5).", "S"});
    {
        QStringList argv = arguments;
        argv.prepend("headscope-cli");
        if (!parser.parse(argv)) throw UsageError(parser.errorText().toStdString());
    }

    if (parser.isSet("list")) {
        if (!parser.positionalArguments().isEmpty()) throw UsageError("lesson --list takes no lesson number");
        for (int n = 1; n <= ui::kLessonCount; ++n) {
            QString error;
            const auto lesson = ui::loadLesson(n, &error);
            if (!lesson) throw UsageError(error.toStdString());
            std::printf("%d  %s (%zu steps)\n", n, lessons::plainText(lesson->title).c_str(), lesson->steps.size());
        }
        return 0;
    }
    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1) throw UsageError("unexpected argument '" + positional[1].toStdString() + "'");
    if (positional.size() != 1)
        throw UsageError("lesson needs one lesson number (1 to " + std::to_string(ui::kLessonCount) + ") or --list");
    bool numeric = false;
    const int number = positional.front().trimmed().toInt(&numeric);
    if (!numeric || number < 1 || number > ui::kLessonCount)
        throw UsageError("there is no lesson '" + positional.front().toStdString() + "': choose 1 to " +
                         std::to_string(ui::kLessonCount) + " (headscope-cli lesson --list)");
    const std::string out = requireValue(parser, "out");
    QList<ui::ImageFormat> formats;
    for (const QString& raw : (parser.isSet("format") ? parser.value("format") : QStringLiteral("png")).split(',', Qt::SkipEmptyParts)) {
        const QString name = raw.trimmed().toLower();
        const auto format = ui::imageFormatFromSuffix(name);
        if (!format || (name != "png" && name != "svg" && name != "pdf"))
            throw UsageError("unknown slide format '" + raw.toStdString() + "': use png, svg or pdf");
        if (!formats.contains(*format)) formats << *format;
    }
    if (formats.isEmpty()) throw UsageError("--format lists no format");
    const double scale = parser.isSet("scale") ? parseDouble("scale", parser.value("scale")) : 1.5;
    if (!(scale >= 0.5 && scale <= 4))
        throw UsageError("--scale " + parser.value("scale").toStdString() + " is out of range: choose 0.5 to 4");

    QString error;
    const std::optional<lessons::Lesson> lesson = ui::loadLesson(number, &error);
    if (!lesson) throw UsageError(error.toStdString());
    const QString dir = QString::fromStdString(out);
    if (!QDir().mkpath(dir)) throw UsageError("cannot create the folder " + out);

    prepareHeadlessQt();
    QApplication app(argc, argv);
    QTemporaryDir scratch;
    if (!scratch.isValid()) throw UsageError("cannot create a temporary folder");

    std::string handout = "# Lesson " + std::to_string(number) + ": " + lessons::plainText(lesson->title) + "\n\n";
    int files = 0;
    // Steps that train, open the trained model or knock heads out do it here, headless and
    // deterministic for the lesson's seed: each slide shows the state its text talks about.
    ui::HeadlessLessonRun run;
    for (std::size_t k = 0; k < lesson->steps.size(); ++k) {
        const lessons::LessonStep& step = lesson->steps[k];
        const Analysis analysis = analyze(step.session.config, true);
        const auto values = lessons::placeholderValues(analysis, step.head);
        QString status;
        try {
            status = run.apply(step, scratch.path());
        } catch (const std::exception& e) {
            throw UsageError("lesson " + std::to_string(number) + ", step " + std::to_string(k + 1) + ": " + e.what());
        }
        // A step that applies something to the live weights is drawn with it applied, as in the window.
        const Analysis shown = step.apply == "reparametrize_qk" ? lessons::reparametrizedAnalysis(analysis) : analysis;
        const ui::ViewEntry* entry = ui::findView(step.show);  // loadLesson checked it is in the registry
        ui::ViewOptions options;
        options.show_logits = entry->show_logits;
        options = ui::applyViewSettings(options, step.session.view);
        const QString view_png = scratch.filePath(QStringLiteral("view-%1.png").arg(k + 1));
        if (!ui::saveView(*entry, run.inputs(&shown, step.head, options), view_png, ui::ImageFormat::Png, scale, &error))
            throw UsageError(error.toStdString());
        const QImage view(view_png);
        if (view.isNull()) throw UsageError("cannot read back the view of step " + std::to_string(k + 1));
        QString html = ui::stepHtml(*lesson, int(k), values);
        if (!status.isEmpty()) html += QStringLiteral("<p>%1</p>").arg(status);
        const QString base = QStringLiteral("step-%1").arg(k + 1);
        for (ui::ImageFormat format : formats) {
            const QString path = QDir(dir).filePath(base + "." + ui::suffix(format));
            if (!writeSlide(html, view, scale, path, format, &error)) throw UsageError(error.toStdString());
            ++files;
        }
        handout += "## Step " + std::to_string(k + 1) + ": " + lessons::plainText(lessons::fillTemplate(step.title, values)) + "\n\n";
        handout += lessons::plainText(lessons::fillTemplate(step.text, values)) + "\n\n";
        if (!status.isEmpty()) handout += lessons::plainText(status.toStdString()) + "\n\n";
        if (!step.look_at.empty())
            handout += "*Look at:* " + lessons::plainText(lessons::fillTemplate(step.look_at, values)) + "\n\n";
        handout += "![Step " + std::to_string(k + 1) + "](" + base.toStdString() + "." + ui::suffix(formats.front()).toStdString() + ")\n\n";
    }
    const QString md_path = QDir(dir).filePath(QStringLiteral("lesson-%1.md").arg(number));
    QFile md(md_path);
    if (!md.open(QIODevice::WriteOnly | QIODevice::Truncate) || md.write(handout.data(), qint64(handout.size())) != qint64(handout.size()))
        throw UsageError("cannot write " + md_path.toStdString());
    md.close();
    ++files;
    std::printf("wrote %d files to %s\n", files, out.c_str());
    return 0;
}

}  // namespace headscope::cli
