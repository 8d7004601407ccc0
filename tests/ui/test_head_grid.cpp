// The head grid shows the engine's numbers: every cell of every head's colour map equals the
// engine's weight (or logit), masked cells are NaN and drawn grey, the head count and grid shape
// follow the config and the space, and hovering / clicking reports the right head, query and key.
#include <QSignalSpy>
#include <QtTest>
#include "QtTestGroup.h"
#include <cmath>

#include "Analysis.h"
#include "ColorMaps.h"
#include "GridShape.h"
#include "HeadGridTestSupport.h"
#include "HeadGridView.h"
#include "Heatmap.h"

using namespace headscope;
using namespace headscope::ui;
using headscope::ui::testing::gridAnalysis;

namespace {

// Widget pixel of the centre of cell (row, col) in head h.
QPoint cellCentre(const HeadGridView& view, int head, int row, int col) {
    QCPAxisRect* rect = view.headRect(head);
    return QPointF(rect->axis(QCPAxis::atBottom)->coordToPixel(col),
                   rect->axis(QCPAxis::atLeft)->coordToPixel(row))
        .toPoint();
}

}  // namespace

class TestHeadGrid : public QObject {
    Q_OBJECT

private slots:
    void colourMapsHoldTheEngineWeights() {
        const auto a = gridAnalysis(8, MaskKind::Causal);
        HeadGridView view;
        view.setAnalysis(a);
        QCOMPARE(view.headCount(), 8);
        const int n = a->nQuery();
        QCOMPARE(n, 11);
        int masked = 0;
        for (int h = 0; h < 8; ++h) {
            QCPColorMapData* data = view.colorMap(h)->data();
            QCOMPARE(data->keySize(), a->nKeyValue());
            QCOMPARE(data->valueSize(), n);
            for (int r = 0; r < n; ++r) {
                for (int c = 0; c < n; ++c) {
                    const double shown = data->cell(c, r);
                    if (c > r) {  // causal: query r cannot see key c
                        QVERIFY2(std::isnan(shown), qPrintable(QString("head %1 (%2, %3)").arg(h).arg(r).arg(c)));
                        ++masked;
                    } else {
                        QCOMPARE(shown, static_cast<double>(a->results.heads[h].weights(r, c)));
                    }
                }
            }
        }
        QCOMPARE(masked, 8 * n * (n - 1) / 2);
        // Shared scale: one colour bar, [0, 1], viridis; the label says grey means masked.
        QCPColorScale* bar = view.colorScale(0);
        QVERIFY(bar);
        QCOMPARE(view.colorScale(7), bar);
        QCOMPARE(bar->dataRange().lower, 0.0);
        QCOMPARE(bar->dataRange().upper, 1.0);
        QVERIFY(bar->label().contains("grey = masked"));
        QCOMPARE(view.colorMap(3)->gradient().nanColor(), viridisNanColor());
        QVERIFY(!view.colorMap(3)->interpolate());
    }

    // A new text shown before the previous layout was ever drawn (a column count set a moment
    // before): its panels have no size yet, which is no reason to pool a 40-token map to 32 cells.
    void aLayoutNotYetDrawnKeepsEveryCell() {
        HeadGridView view;
        view.resize(1000, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setAnalysis(gridAnalysis(4));
        view.setColumnCount(4);  // a new layout (it chose 2 columns), its replot queued
        Config config;
        config.heads = 4;
        QStringList words;
        for (int i = 0; i < 40; ++i) words << QStringLiteral("w%1").arg(i);
        config.text = words.join(QLatin1Char(' ')).toStdString();
        const auto long_text = std::make_shared<const Analysis>(analyze(config, false));
        QCOMPARE(long_text->nQuery(), 40);
        view.setAnalysis(long_text);
        const auto whole = [&]() {
            for (int h = 0; h < 4; ++h) {
                QCPColorMapData* data = view.colorMap(h)->data();
                if (data->keySize() != 40 || data->valueSize() != 40 ||
                    data->cell(7, 3) != double(long_text->results.heads[std::size_t(h)].weights(3, 7)))
                    return false;
            }
            return true;
        };
        QVERIFY(whole());
        QCoreApplication::processEvents();  // the queued replot lays the panels out: still whole maps
        QVERIFY(view.headRect(0)->width() > 40);
        QVERIFY(whole());
    }

    void logitsUseTheDivergingMapSymmetricAboutZero() {
        const auto a = gridAnalysis(4, MaskKind::Causal);
        HeadGridView view;
        view.setAnalysis(a);
        ViewOptions options;
        options.show_logits = true;
        view.setOptions(options);
        for (int h = 0; h < 4; ++h) {
            for (int r = 0; r < a->nQuery(); ++r) {
                for (int c = 0; c < a->nKeyValue(); ++c) {
                    const double shown = view.colorMap(h)->data()->cell(c, r);
                    if (a->results.allowed(r, c))
                        QCOMPARE(shown, static_cast<double>(a->results.heads[h].logits(r, c)));
                    else
                        QVERIFY(std::isnan(shown));  // not -inf: masked is not "very negative"
                }
            }
        }
        const QCPRange range = view.colorMap(0)->dataRange();
        QCOMPARE(range.lower, -range.upper);
        QVERIFY(range.upper > 0);
        QCOMPARE(view.colorMap(0)->gradient().nanColor(), redBlueNanColor());
        QVERIFY(view.title().contains("logits"));
    }

    void headCountFollowsTheConfigAndMapsAreReused() {
        HeadGridView view;
        view.setAnalysis(gridAnalysis(8));
        QCOMPARE(view.headCount(), 8);
        QCPColorMap* first = view.colorMap(0);
        view.setAnalysis(gridAnalysis(8, MaskKind::None, 7));  // same shape: reuse plottables
        QCOMPARE(view.colorMap(0), first);
        view.setAnalysis(gridAnalysis(4));
        QCOMPARE(view.headCount(), 4);
        QVERIFY(view.colorMap(3));
        QVERIFY(!view.colorMap(4));
        QCOMPARE(view.plottableCount(), 4);
        QCOMPARE(view.axisRects().size(), 4);
        view.replotNow();  // lays out and draws without crashing
        view.setAnalysis(nullptr);
        QCOMPARE(view.headCount(), 0);
        view.replotNow();
    }

    void perHeadScalesUseEachHeadsMaximum() {
        const auto a = gridAnalysis(4);
        HeadGridView view;
        ViewOptions options;
        options.shared_scale = false;
        view.setOptions(options);
        view.setAnalysis(a);
        QVERIFY(view.colorScale(0) != view.colorScale(1));
        for (int h = 0; h < 4; ++h)
            QCOMPARE(view.colorScale(h)->dataRange().upper,
                     static_cast<double>(a->results.heads[h].weights.maxCoeff()));
    }
    void crossAttentionHasDifferentQueryAndKeyLengths() {
        Config config;
        config.heads = 2;
        config.text = "le chat dort";
        config.source_text = "the cat is sleeping on the mat";
        HeadGridView view;
        const auto a = std::make_shared<const Analysis>(analyze(config, false));
        view.setAnalysis(a);
        QCOMPARE(view.colorMap(1)->data()->keySize(), a->nKeyValue());
        QCOMPARE(view.colorMap(1)->data()->valueSize(), a->nQuery());
        QVERIFY(a->nQuery() != a->nKeyValue());
        QCOMPARE(view.colorMap(1)->data()->cell(4, 2), static_cast<double>(a->results.heads[1].weights(2, 4)));
    }

    void masksAreDrawnGreyAndCellsInTheirColour() {
        const auto a = gridAnalysis(4, MaskKind::Causal);
        HeadGridView view;
        view.resize(900, 800);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setAnalysis(a);
        view.replotNow();
        const QImage image = view.toPixmap(0, 0, 1.0).toImage();
        // Masked cell (row 1, col 5) of head 2: the grey; unmasked (5, 1): its viridis colour.
        QCOMPARE(QColor(image.pixel(cellCentre(view, 2, 1, 5))), viridisNanColor());
        // Shared scale: 0 to the largest weight of any head.
        const double top = [&] {
            float m = 0;
            for (const auto& head : a->results.heads) m = std::max(m, head.weights.maxCoeff());
            return double(m);
        }();
        QVERIFY(view.colorScale(0));
        const double upper = view.colorScale(0)->dataRange().upper;
        QVERIFY(upper >= top && upper < top + heatmap::kWeightStep);
        const QRgb expected = viridisGradient().color(a->results.heads[2].weights(5, 1), QCPRange(0, upper));
        QCOMPARE(QColor(image.pixel(cellCentre(view, 2, 5, 1))), QColor(expected));
    }

    void gridShapeFitsTheSpace() {
        QCOMPARE(gridColumns(1, 11, 11, QSize(1000, 700), 1.0, kBarSpace), 1);
        QCOMPARE(gridColumns(8, 11, 11, QSize(1000, 480), 1.0, kBarSpace), 4);  // the demo: 4 x 2
        const int wide = gridColumns(12, 16, 16, QSize(2400, 600), 1.0, kBarSpace);
        const int tall = gridColumns(12, 16, 16, QSize(500, 2400), 1.0, kBarSpace);
        QVERIFY2(wide > tall, qPrintable(QStringLiteral("wide %1, tall %2").arg(wide).arg(tall)));
        for (int heads = 1; heads <= 40; ++heads) {
            const int columns = gridColumns(heads, 9, 9, QSize(1200, 800), 1.5, 0);
            const int rows = (heads + columns - 1) / columns;
            QVERIFY(columns >= 1 && columns <= heads);
            QVERIFY((rows - 1) * columns < heads);  // no empty last row
        }
    }

    void hoverDescribesTheCellAndClickActivatesTheHead() {
        const auto a = gridAnalysis(8, MaskKind::Causal);
        HeadGridView view;
        view.resize(1000, 900);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setAnalysis(a);
        view.replotNow();

        const QString text = view.describe(cellCentre(view, 5, 3, 1));
        QVERIFY2(text.startsWith("head 5 · query 'cross' (row 3) → key 'animal' (col 1)"), qPrintable(text));
        QVERIFY(text.contains(QString("weight %1").arg(double(a->results.heads[5].weights(3, 1)), 0, 'f', 3)));
        QVERIFY(text.contains("logit"));
        QVERIFY(view.describe(cellCentre(view, 5, 1, 3)).endsWith("masked"));
        QVERIFY(view.describe(QPoint(1, 1)).isEmpty());

        QSignalSpy hovered(&view, &HeadGridView::cellHovered);
        QMouseEvent move(QEvent::MouseMove, QPointF(cellCentre(view, 0, 2, 0)), view.mapToGlobal(QPointF(cellCentre(view, 0, 2, 0))),
                         Qt::NoButton, Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(&view, &move);
        QCOMPARE(hovered.count(), 1);
        QVERIFY(hovered.last().at(0).toString().startsWith("head 0 · query 'didn't' (row 2)"));

        QSignalSpy activated(&view, &HeadGridView::headActivated);
        QSignalSpy clicked(&view, &HeadGridView::headClicked);
        QSignalSpy cell(&view, &HeadGridView::cellClicked);
        QCOMPARE(view.headAt(cellCentre(view, 6, 0, 0)), 6);
        QTest::mouseClick(&view, Qt::LeftButton, {}, cellCentre(view, 6, 4, 3));
        QCOMPARE(clicked.count(), 1);  // a click selects the head and the cell
        QCOMPARE(clicked.first().at(0).toInt(), 6);
        QCOMPARE(cell.count(), 1);
        QCOMPARE(cell.first().at(1).toInt(), 4);
        QCOMPARE(cell.first().at(2).toInt(), 3);
        QCOMPARE(activated.count(), 0);
        QTest::mouseDClick(&view, Qt::LeftButton, {}, cellCentre(view, 6, 4, 4));
        QCOMPARE(activated.count(), 1);  // a double click opens it
        QCOMPARE(activated.first().at(0).toInt(), 6);
    }

    void fontsScale() {
        HeadGridView view;
        view.setAnalysis(gridAnalysis(2));
        const double base = view.headRect(0)->axis(QCPAxis::atLeft)->tickLabelFont().pointSizeF();
        QVERIFY(base >= 9);
        ViewOptions options;
        options.font_scale = 2.0;
        view.setOptions(options);
        QCOMPARE(view.headRect(0)->axis(QCPAxis::atLeft)->tickLabelFont().pointSizeF(), 2 * base);
        QVERIFY(view.headRect(0)->axis(QCPAxis::atTop)->labelFont().bold());
    }
};

HEADSCOPE_QTEST_MAIN(TestHeadGrid)
#include "test_head_grid.moc"
