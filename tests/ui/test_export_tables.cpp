// Exports of the views that draw a table are whole (issue 21): the rank table and the costs.
// The rank table's PNG draws as many rows as the analysis has heads (counted from its ruled
// lines); its SVG keeps every row as text and embeds no bitmap (it embedded three widget-style
// bitmaps when the QTableWidget rendered itself); its PDF's text holds every row. The costs
// page's SVG and PDF hold the first cell of every row its HTML table has.
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTextDocument>
#include <QXmlStreamReader>
#include <QtTest>
#include "QtTestGroup.h"

#include "Analysis.h"
#include "CostView.h"
#include "Export.h"
#include "RankTable.h"

using namespace headscope;
using namespace headscope::ui;

namespace {

Analysis tablesAnalysis(int heads, int d_model) {
    Config config;
    config.heads = heads;
    config.d_model = d_model;
    return analyze(config, false);
}

// Every <text> of an SVG (joined) and the number of <image> elements.
QString svgText(const QString& path, int* images, bool* ok) {
    QFile file(path);
    *ok = file.open(QIODevice::ReadOnly);
    QStringList texts;
    *images = 0;
    if (!*ok) return {};
    QXmlStreamReader xml(&file);
    while (!xml.atEnd()) {
        xml.readNext();
        if (!xml.isStartElement()) continue;
        if (xml.name() == QLatin1String("image")) ++*images;
        if (xml.name() == QLatin1String("text")) texts << xml.readElementText(QXmlStreamReader::IncludeChildElements).trimmed();
    }
    *ok = !xml.hasError();
    return texts.join(QLatin1Char(' '));
}

// The PDF's text as pdftotext reads it (poppler-utils, installed by .ci/setup), whitespace simplified.
QString pdfText(const QString& path, QString* problem) {
    const QString tool = QStandardPaths::findExecutable(QStringLiteral("pdftotext"));
    if (tool.isEmpty()) {
        *problem = QStringLiteral("pdftotext is not installed (apt-get install poppler-utils)");
        return {};
    }
    QProcess process;
    process.start(tool, {path, QStringLiteral("-")});  // reading order: a wrapped cell's lines follow each other
    if (!process.waitForFinished(60000) || process.exitCode() != 0) {
        *problem = QStringLiteral("pdftotext failed on %1: %2").arg(path, QString::fromUtf8(process.readAllStandardError()));
        return {};
    }
    return QString::fromUtf8(process.readAllStandardOutput()).simplified();
}

// Whether the words of phrase occur in text in their order (pdftotext may put a neighbouring
// cell's wrapped line between the lines of a wrapped cell).
bool wordsInOrder(const QString& text, const QString& phrase) {
    qsizetype at = 0;
    for (const QString& word : phrase.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        at = text.indexOf(word, at);
        if (at < 0) return false;
        at += word.size();
    }
    return true;
}

// A cell's text as its runs read it ("factored W_i^Q" typeset -> "factored W i Q"): a sub- or
// superscript is a run of its own, in SVG and PDF as on screen.
QString typesetRuns(const QString& html) {
    QTextDocument doc;
    doc.setHtml(html);
    QStringList runs;
    for (QTextBlock block = doc.begin(); block.isValid(); block = block.next())
        for (auto it = block.begin(); !it.atEnd(); ++it) runs << it.fragment().text();
    return runs.join(QLatin1Char(' ')).remove(QChar(0x200B)).simplified();
}

// The ruled lines of a table drawn in grey across at least 90% of the picture's width.
int ruledLines(const QImage& image) {
    int lines = 0;
    for (int y = 0; y < image.height(); ++y) {
        int grey = 0;
        for (int x = 0; x < image.width(); ++x) grey += image.pixel(x, y) == qRgb(190, 190, 190) ? 1 : 0;
        lines += grey >= image.width() * 9 / 10 ? 1 : 0;
    }
    return lines;
}

}  // namespace

class TestExportTables : public QObject {
    Q_OBJECT

private slots:
    void rankTableHoldsEveryHead_data() {
        QTest::addColumn<int>("heads");
        QTest::addColumn<int>("d_model");
        QTest::newRow("4 heads") << 4 << 64;
        QTest::newRow("16 heads") << 16 << 64;
        QTest::newRow("64 heads") << 64 << 128;
    }
    void rankTableHoldsEveryHead() {
        QFETCH(int, heads);
        QFETCH(int, d_model);
        const Analysis a = tablesAnalysis(heads, d_model);
        const int rows = int(rankTable(a).size());
        QCOMPARE(rows, heads);
        QTemporaryDir dir;
        QString error;
        const QString png = dir.filePath(QStringLiteral("rank_table.png")), svg = dir.filePath(QStringLiteral("rank_table.svg")),
                      pdf = dir.filePath(QStringLiteral("rank_table.pdf"));
        QVERIFY2(exportView(ViewKind::RankTable, a, 0, {}, png, ImageFormat::Png, 1.0, &error), qPrintable(error));
        QVERIFY2(exportView(ViewKind::RankTable, a, 0, {}, svg, ImageFormat::Svg, 1.0, &error), qPrintable(error));
        QVERIFY2(exportView(ViewKind::RankTable, a, 0, {}, pdf, ImageFormat::Pdf, 1.0, &error), qPrintable(error));

        // PNG: a line above the header, one under it and one under each row.
        const QImage image(png);
        QVERIFY(!image.isNull());
        QCOMPARE(ruledLines(image), rows + 2);

        // SVG: vector, every head's row as text (its label and the header's bounds).
        bool ok = false;
        int images = -1;
        const QString texts = svgText(svg, &images, &ok);
        QVERIFY2(ok, "rank_table.svg does not parse");
        QCOMPARE(images, 0);
        // "W_QK" typeset (issue 21): W, then its subscript QK, as text runs of their own.
        for (const char* header : {"head", "W QK", "W OV", "logits"}) QVERIFY2(texts.contains(QLatin1String(header)), header);
        for (int h = 0; h < rows; ++h)
            QVERIFY2(texts.contains(QStringLiteral("■%1").arg(h)), qPrintable(QStringLiteral("no row of head %1 in the SVG").arg(h)));

        // PDF: the same rows in its text.
        QString problem;
        const QString text = pdfText(pdf, &problem);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        for (int h = 0; h < rows; ++h)
            QVERIFY2(text.contains(QRegularExpression(QStringLiteral("(^|\\D)%1 ").arg(h))) ,
                     qPrintable(QStringLiteral("no row of head %1 in the PDF's text: %2").arg(h).arg(text.left(400))));
        QVERIFY2(text.contains(QRegularExpression(QStringLiteral("W ?OV"))), qPrintable(text.left(400)));  // typeset
    }

    // The costs page: every row of its table (its first cell, typeset, and its count) in the SVG and the
    // PDF, and all three pictures as wide as the page is laid out for export (900 px at 1x): they
    // were cut to about 330 px when the page's scroll area sized it back to its viewport.
    void costsHoldEveryRow() {
        const Analysis a = tablesAnalysis(8, 64);
        CostView view;
        view.setAnalysis(std::shared_ptr<const Analysis>(std::shared_ptr<const Analysis>(), &a));
        view.replotNow();
        QStringList firsts, counts;
        const QRegularExpression cell(QStringLiteral("<tr><td>(.*?)</td><td><i>.*?</i></td><td align=right><b>(.*?)</b>"));
        for (auto it = cell.globalMatch(view.html()); it.hasNext();) {
            const QRegularExpressionMatch m = it.next();
            firsts << typesetRuns(m.captured(1));
            counts << m.captured(2);
        }
        QVERIFY2(firsts.size() >= 8, qPrintable(firsts.join(QStringLiteral(" | "))));
        QVERIFY2(firsts.contains(QStringLiteral("factored W i Q , W i K")), qPrintable(firsts.join(QStringLiteral(" | "))));
        QTemporaryDir dir;
        QString error;
        const QString png = dir.filePath(QStringLiteral("costs.png")), svg = dir.filePath(QStringLiteral("costs.svg")),
                      pdf = dir.filePath(QStringLiteral("costs.pdf"));
        for (const auto& [path, format] : {std::pair{png, ImageFormat::Png}, std::pair{svg, ImageFormat::Svg}, std::pair{pdf, ImageFormat::Pdf}})
            QVERIFY2(exportView(ViewKind::Costs, a, 0, {}, path, format, 1.0, &error), qPrintable(error));
        QVERIFY2(QImage(png).width() >= 900, qPrintable(QStringLiteral("costs.png is %1 px wide").arg(QImage(png).width())));
        QSvgRenderer rendered(svg);
        QVERIFY2(rendered.viewBox().width() >= 900, qPrintable(QStringLiteral("costs.svg is %1 px wide").arg(rendered.viewBox().width())));
        bool ok = false;
        int images = -1;
        const QString texts = svgText(svg, &images, &ok).simplified();
        QVERIFY(ok);
        QCOMPARE(images, 0);
        // The notation typeset (issue 21): "W_i^Q" is W, i, Q, each a text run; no raw mark left.
        QVERIFY2(!texts.contains(QRegularExpression(QStringLiteral("[_^][\\p{L}\\p{N}]"))), qPrintable(texts));
        QString problem;
        const QString text = pdfText(pdf, &problem);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        for (int row = 0; row < firsts.size(); ++row) {
            const QString& what = firsts[row];
            QVERIFY2(texts.contains(what) && texts.contains(counts[row]),
                     qPrintable(QStringLiteral("costs.svg lacks the row '%1' (%2)").arg(what, counts[row])));
            QVERIFY2(wordsInOrder(text, what) && text.contains(counts[row]),
                     qPrintable(QStringLiteral("costs.pdf lacks the row '%1' (%2): %3").arg(what, counts[row], text)));
        }
    }
};

HEADSCOPE_QTEST_MAIN(TestExportTables)
#include "test_export_tables.moc"
