// The W_QK story on screen: every view holds exactly the engine's numbers.
//  - spectra: every index 1..d_model, zeros on the "= 0" band, the right bound;
//  - rank table: the engine's ranks and bounds;
//  - fused projections: the fused matrices and Q, K, V, head boundaries at multiples of d_k;
//  - circuits: the document's W_QK,i / W_OV,i, formed on its worker, never in the view;
//  - the document: selecting a head in the grid selects it in every view;
//  - honest labels: fully masked rows hatched, "random, untrained weights", "nothing to compare";
//  - export: every view exists, is not blank, and SVG heatmap cells are vector rectangles.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTabWidget>
#include <QtTest>
#include "QtTestGroup.h"

#include "WindowTestSupport.h"
#include "Analysis.h"
#include "Circuits.h"
#include "CircuitView.h"
#include "CostView.h"
#include "Export.h"
#include "ViewRegistry.h"
#include "FusedProjectionsView.h"
#include "HeadGridView.h"
#include "MainWindow.h"
#include "RankTable.h"
#include "RankTableView.h"
#include "Session.h"
#include "SpectrumGraph.h"
#include "SpectrumView.h"
#include "StatusPanel.h"

using namespace headscope;
using namespace headscope::ui;
using namespace headscope::ui::testing;

namespace {

std::shared_ptr<const Analysis> equivalenceAnalysis(const Config& config) {
    return std::make_shared<const Analysis>(analyze(config, true));
}

Config geometry(int d_model, int heads, int d_k) {
    Config c;
    c.d_model = d_model;
    c.heads = heads;
    c.d_k = c.d_v = d_k;
    return c;
}

// The colour map's cells against a (rows, cols) matrix, exactly.
bool holds(QCPColorMap* map, const Eigen::MatrixXf& m) {
    QCPColorMapData* data = map->data();
    if (data->keySize() != m.cols() || data->valueSize() != m.rows()) return false;
    for (int r = 0; r < m.rows(); ++r)
        for (int c = 0; c < m.cols(); ++c)
            if (data->cell(c, r) != double(m(r, c))) return false;
    return true;
}

}  // namespace

class TestWqkViews : public QObject {
    Q_OBJECT

private slots:
    void spectrumShowsEveryIndexWithTheZerosOnTheBand() {
        const auto a = equivalenceAnalysis(geometry(64, 4, 4));
        SpectrumView view;
        view.resize(1000, 500);
        view.setAnalysis(a);
        for (int h = 0; h < 4; ++h) {
            for (bool qk : {true, false}) {
                QCPGraph* graph = qk ? view.qkGraph(h) : view.ovGraph(h);
                QVERIFY(graph);
                QCOMPARE(graph->data()->size(), 64);
                const Spectrum& s = qk ? a->spectra[h].qk : a->spectra[h].ov;
                int on_band = 0, above = 0;
                for (int i = 0; i < 64; ++i) {
                    const double y = graph->data()->at(i)->value;
                    if (y == view.zeroBandY(qk)) ++on_band;
                    else {
                        ++above;
                        QCOMPARE(y, s.singular_values(i));  // the engine's value, drawn as it is
                    }
                }
                QCOMPARE(above, 4);
                QCOMPARE(on_band, 60);
                QCOMPARE(view.values(qk, h).size(), 64);
            }
        }
        QCOMPARE(view.zeroText(true), QStringLiteral("60 of 64 singular values are 0"));
    }

    void curvesDrawTheirZerosAsOneSegment() {
        // Data keeps every index; the drawn polyline keeps the ends of each flat run only.
        auto line = [](std::initializer_list<double> values) {
            QVector<QCPGraphData> points;
            double key = 1;
            for (double v : values) points.append(QCPGraphData(key++, v));
            SpectrumGraph::dropInnerPointsOfFlatRuns(points);
            QVector<double> kept;
            for (const QCPGraphData& p : points) kept << p.key;
            return kept;
        };
        QCOMPARE(line({5, 4, 1, 1, 1, 1}), (QVector<double>{1, 2, 3, 6}));
        QCOMPARE(line({2, 1, 1, 1, 2}), (QVector<double>{1, 2, 4, 5}));
        QCOMPARE(line({3, 3}), (QVector<double>{1, 2}));
        QCOMPARE(line({3, 3, 3}), (QVector<double>{1, 3}));
        QCOMPARE(line({9, 8, 7}), (QVector<double>{1, 2, 3}));
        QCOMPARE(line({}), QVector<double>{});

        const auto a = equivalenceAnalysis(geometry(64, 4, 4));
        SpectrumView view;
        view.setAnalysis(a);
        for (int h = 0; h < 4; ++h) {
            QVERIFY(dynamic_cast<SpectrumGraph*>(view.qkGraph(h)));
            QVERIFY(dynamic_cast<SpectrumGraph*>(view.ovGraph(h)));
            QCOMPARE(view.qkGraph(h)->data()->size(), 64);
        }
    }

    void boundIsMinOfDkAndDModelEverywhere() {
        const auto a = equivalenceAnalysis(geometry(16, 1, 32));
        SpectrumView view;
        view.setAnalysis(a);
        view.resize(1000, 500);  // room for the whole cliff label (a narrow panel shortens it)
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.replotNow();
        bool labelled = false;
        for (int i = 0; i < view.plot()->itemCount(); ++i)
            if (auto* text = qobject_cast<QCPItemText*>(view.plot()->item(i)))
                labelled |= text->text() == QStringLiteral("rank ≤ 16 = min(d_k, d_model)");
        QVERIFY(labelled);
        StatusPanel status;
        status.showAnalysis(*a, 1.0);
        QVERIFY2(status.text().contains("min(d_k, d_model) = 16"), qPrintable(status.text()));
        QVERIFY(!status.text().contains("d_k 32"));
        RankTableView table;
        table.setAnalysis(a);
        QCOMPARE(table.item(0, 1)->text(), QStringLiteral("16"));
        QVERIFY(table.horizontalHeaderItem(1)->text().contains("≤ 16"));
    }

    void rankTableHoldsTheEnginesRanks() {
        Config c = geometry(32, 4, 4);
        c.text = "one two three four five six seven eight nine ten";  // 10 tokens > d_k: logits stop at 4
        const auto a = equivalenceAnalysis(c);
        RankTableView table;
        table.setAnalysis(a);
        const auto rows = rankTable(*a);
        QCOMPARE(table.rowCount(), 4);
        for (const RankRow& r : rows) {
            QCOMPARE(table.item(r.head, 1)->text().toInt(), r.qk);
            QCOMPARE(table.item(r.head, 2)->text().toInt(), r.ov);
            QCOMPARE(table.item(r.head, 3)->text().toInt(), r.logits);
            QCOMPARE(r.logits_bound, 4);
            QCOMPARE(r.logits, 4);
        }
        QSignalSpy clicked(&table, &RankTableView::headClicked);
        table.selectRow(2);
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(clicked.first().at(0).toInt(), 2);
    }

    void projectionsHoldTheFusedMatricesWithHeadBlocks() {
        Config c = geometry(24, 4, 3);
        c.kv_heads = 2;
        const auto a = equivalenceAnalysis(c);
        FusedProjectionsView view;
        view.setAnalysis(a);
        view.setHead(3);
        view.replotNow();  // hidden views refresh when shown
        using M = FusedProjectionsView;
        QVERIFY(holds(view.colorMap(M::WQ), a->weights().W_Q));
        QVERIFY(holds(view.colorMap(M::WK), a->weights().W_K));
        QVERIFY(holds(view.colorMap(M::WV), a->weights().W_V));
        QVERIFY(holds(view.colorMap(M::WO), a->weights().W_O));
        QVERIFY(holds(view.colorMap(M::X), a->input.query.X));
        QVERIFY(holds(view.colorMap(M::Q), a->results.Q));
        QVERIFY(holds(view.colorMap(M::K), a->results.K));
        QVERIFY(holds(view.colorMap(M::V), a->results.V));
        QCOMPARE(view.blockBoundaries(M::WQ), (QList<int>{3, 6, 9}));  // multiples of d_k
        QCOMPARE(view.blockBoundaries(M::WK), (QList<int>{3}));        // kv_heads blocks
        QCOMPARE(view.blockBoundaries(M::WO), (QList<int>{3, 6, 9}));  // rows of d_v
        QVERIFY(view.title().contains("Grouped-query attention"));
    }

    void circuitsComeFromTheDocumentsWorker() {
        Session session;
        Config c = geometry(20, 4, 5);
        session.setConfig(c);
        QVERIFY(session.waitForIdle(60000));
        QVERIFY(session.circuits());
        QCOMPARE(session.circuits()->head, 0);
        QSignalSpy ready(&session, &Session::circuitsReady);
        session.setHead(2);
        QVERIFY(session.waitForIdle(60000));
        QCOMPARE(ready.count(), 1);
        QCOMPARE(session.circuits()->head, 2);
        const Circuits expected = headCircuits(session.analysis()->weights(), 2);
        QVERIFY(session.circuits()->W_QK == expected.W_QK);

        CircuitView view;
        view.setAnalysis(session.analysis());
        view.setHead(2);
        view.replotNow();
        QVERIFY(!view.productShown(CircuitView::QK));  // nothing formed in the view itself
        view.setCircuits(session.circuits());
        view.replotNow();
        QVERIFY(view.productShown(CircuitView::QK));
        QVERIFY(holds(view.colorMap(CircuitView::QK), expected.W_QK));
        QVERIFY(holds(view.colorMap(CircuitView::OV), expected.W_OV));
        QVERIFY(holds(view.colorMap(CircuitView::Query), session.analysis()->weights().queryHead(2)));
        QVERIFY(view.title().contains("rank 5"));
    }

    void selectingAHeadInTheGridSelectsItEverywhere() {
        MainWindow window(noSettings());
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        HeadGridView* grid = window.headGrid();
        QTest::mouseClick(grid, Qt::LeftButton, {}, grid->headRect(3)->rect().center());
        QCOMPARE(window.session()->head(), 3);
        QCOMPARE(grid->head(), 3);
        QCOMPARE(window.spectrumView()->head(), 3);
        QCOMPARE(window.projectionsView()->head(), 3);
        QCOMPARE(window.circuitView()->head(), 3);
        QVERIFY(window.session()->hasCell());
        QVERIFY(window.session()->waitForIdle(60000));
        QCOMPARE(window.session()->circuits()->head, 3);
        // A hidden tab does no work until it is shown; then it shows the selected head's circuits.
        window.centralTabs()->setCurrentWidget(window.circuitView());
        QVERIFY(window.circuitView()->productShown(CircuitView::QK));
    }

    void honestLabels() {
        Config c = geometry(16, 2, 8);
        c.text = "one two three";
        c.mask = MaskKind::Causal;
        c.padded_keys = {0};  // query 0 sees only key 0, which is padded: nothing left
        const auto a = equivalenceAnalysis(c);
        HeadGridView grid;
        grid.resize(900, 600);
        grid.setAnalysis(a);
        QCOMPARE(grid.fullyMaskedRows(), (QList<int>{0}));
        grid.replotNow();
        QString texts;
        for (int i = 0; i < grid.plotLayout()->elementCount(); ++i)
            if (auto* t = qobject_cast<QCPTextElement*>(grid.plotLayout()->elementAt(i))) texts += t->text();
        QVERIFY2(texts.contains("PyTorch gives NaN"), qPrintable(texts));
        QVERIFY(texts.contains("random, untrained weights"));

        c.padded_keys = {0, 1, 2};
        c.mask = MaskKind::None;
        const auto all_masked = equivalenceAnalysis(c);
        StatusPanel status;
        status.showAnalysis(*all_masked, 1.0);
        QVERIFY2(status.text().contains("nothing to compare"), qPrintable(status.text()));
        QVERIFY(!status.text().contains("0 (exact)"));
    }

    void costViewShowsTheClosedForms() {
        const auto a = equivalenceAnalysis(geometry(512, 8, 64));
        CostView view;
        view.setAnalysis(a);
        view.replotNow();
        const QString text = view.plainText();
        QVERIFY(text.contains("2 · d_model · d_k"));
        QVERIFY(text.contains("65,536"));   // 2 * 512 * 64
        QVERIFY(text.contains("262,144"));  // 512^2
    }

    void everyViewExportsAndSvgCellsAreVectorShapes() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const auto a = equivalenceAnalysis(geometry(16, 2, 8));
        QString error;
        const QStringList files = exportImages(*a, dir.path(), {ImageFormat::Png, ImageFormat::Svg}, &error, {}, 1.0, 1);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(files.size(), 2 * int(exportedViews().size()));
        for (const char* name : {"spectrum_qk", "spectrum_ov", "rank_table", "projections", "circuit_qk_head_1",
                                 "circuit_ov_head_1", "costs", "attention_weights"}) {
            const QString png = dir.filePath(QString::fromLatin1(name) + ".png");
            QImage image(png);
            QVERIFY2(!image.isNull(), qPrintable(png));
            // Not blank: more than two colours.
            QSet<QRgb> colours;
            for (int y = 0; y < image.height(); y += 7)
                for (int x = 0; x < image.width(); x += 7) colours.insert(image.pixel(x, y));
            QVERIFY2(colours.size() > 2, qPrintable(png));
        }
        // Heatmap cells are rectangles in SVG: the only bitmaps left are the colour bars
        // (3 in the circuit view, 1 shared in the grid), and there is a shape per cell.
        const struct { const char* name; int colour_bars; int cells; } svgs[] = {
            {"circuit_qk_head_1.svg", 3, 16 * 8 + 16 * 8 + 16 * 16},
            {"attention_weights.svg", 1, 2 * 11 * 11},
        };
        for (const auto& expected : svgs) {
            QFile svg(dir.filePath(QString::fromLatin1(expected.name)));
            QVERIFY(svg.open(QIODevice::ReadOnly));
            const QByteArray xml = svg.readAll();
            QCOMPARE(int(xml.count("<image")), expected.colour_bars);
            QVERIFY2(xml.count("<rect") + xml.count("<path") >= expected.cells, expected.name);
        }
    }
};

HEADSCOPE_QTEST_MAIN(TestWqkViews)
#include "test_wqk_views.moc"
