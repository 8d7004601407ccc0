// The head grid shows the engine's numbers: every cell of every head's colour map equals the
// engine's weight (or logit), masked cells are NaN and drawn grey, the head count follows the
// config, and hovering / clicking reports the right head, query and key.
#include <QSignalSpy>
#include <QtTest>
#include "QtTestGroup.h"
#include <cmath>

#include "Analysis.h"
#include "ColorMaps.h"
#include "GridShape.h"
#include "HeadGridView.h"
#include "Heatmap.h"
#include "TokenThinning.h"

using namespace headscope;
using namespace headscope::ui;

namespace {

std::shared_ptr<const Analysis> gridAnalysis(int heads, MaskKind mask = MaskKind::None, std::uint64_t seed = 0) {
    Config config;
    config.heads = heads;
    config.mask = mask;
    config.seed = seed;
    return std::make_shared<const Analysis>(analyze(config, false));
}

// Widget pixel of the centre of cell (row, col) in head h.
QPoint cellCentre(const HeadGridView& view, int head, int row, int col) {
    QCPAxisRect* rect = view.headRect(head);
    return QPointF(rect->axis(QCPAxis::atBottom)->coordToPixel(col),
                   rect->axis(QCPAxis::atLeft)->coordToPixel(row))
        .toPoint();
}

// The axes that carry words in view (column 0's queries, the last head's keys) thinned to
// every k-th word (k > 1) written "i:word", the others blank, and titled "every kth ...".
void checkThinned(const HeadGridView& view, const Analysis& a, const QString& when) {
    const int last = view.headCount() - 1;
    const struct {
        QCPAxis* axis;
        int stride;
        const std::vector<std::string>* tokens;
        QString noun;
    } sides[] = {{view.headRect(0)->axis(QCPAxis::atLeft), view.queryLabelStride(), &a.input.query.tokens, QStringLiteral("query")},
                 {view.headRect(last)->axis(QCPAxis::atBottom), view.keyLabelStride(), &a.input.key_value.tokens, QStringLiteral("key")}};
    for (const auto& side : sides) {
        const QString what = when + QStringLiteral(", ") + side.noun + QStringLiteral(" axis");
        const auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(side.axis->ticker());
        QVERIFY2(ticker && side.axis->tickLabels(), qPrintable(what + QStringLiteral(": positions alone, no words")));
        QVERIFY2(side.stride > 1, qPrintable(what + QStringLiteral(": not thinned")));
        const QStringList shown = ticker->ticks().values();
        QCOMPARE(shown.size(), int(side.tokens->size()));
        for (int i = 0; i < shown.size(); ++i) {
            const QString expected =
                i % side.stride == 0 ? QStringLiteral("%1:%2").arg(i).arg(QString::fromStdString((*side.tokens)[std::size_t(i)])) : QString();
            QVERIFY2(shown[i] == expected, qPrintable(QStringLiteral("%1: label %2 is '%3', not '%4'").arg(what).arg(i).arg(shown[i], expected)));
        }
        QCOMPARE(side.axis->label(), everyKth(side.stride, side.noun));
    }
}

}  // namespace

class TestHeadGrid : public QObject {
    Q_OBJECT

private slots:
    void keptLabelLayoutsAreWhatAFreshViewWouldMake() {
        Config config;
        config.d_model = 768;
        config.heads = 12;
        config.text = "The quick brown fox jumps over the lazy dog while the cat sleeps on the mat";
        const auto first = std::make_shared<const Analysis>(analyze(config, false));
        config.temperature = 1.0001;  // the same words, geometry and (to the bars' ticks) ranges
        const auto warmer = std::make_shared<const Analysis>(analyze(config, false, first.get()));
        config.seed = 5;  // new weights, other titles ("seed 5"), the same words
        const auto reseeded = std::make_shared<const Analysis>(analyze(config, false, warmer.get()));
        // The same 16 words in another order: the same widths, so only the words say it changed.
        config.text = "the mat The quick brown fox jumps over the lazy dog while the cat sleeps on";
        const auto other_words = std::make_shared<const Analysis>(analyze(config, false, reseeded.get()));

        HeadGridView kept;
        kept.resize(1000, 700);
        kept.show();
        QVERIFY(QTest::qWaitForWindowExposed(&kept));
        kept.setAnalysis(first);
        const int reused = kept.labelLayoutsReused();
        // Whatever was kept is what the label work would have given.
        const auto sameAsFresh = [&](const std::shared_ptr<const Analysis>& a) {
            HeadGridView fresh;
            fresh.resize(1000, 700);
            fresh.show();
            QVERIFY(QTest::qWaitForWindowExposed(&fresh));
            fresh.setAnalysis(a);
            QCOMPARE(fresh.labelLayoutsReused(), 0);
            QCOMPARE(kept.titleElement()->text(), fresh.titleElement()->text());
            QCOMPARE(kept.subtitleElement()->text(), fresh.subtitleElement()->text());
            for (int h = 0; h < 12; ++h) {
                for (auto type : {QCPAxis::atBottom, QCPAxis::atLeft, QCPAxis::atTop}) {
                    const QCPAxis* x = kept.headRect(h)->axis(type);
                    const QCPAxis* y = fresh.headRect(h)->axis(type);
                    QCOMPARE(x->tickLabels(), y->tickLabels());
                    QCOMPARE(x->tickLabelRotation(), y->tickLabelRotation());
                    QCOMPARE(x->label(), y->label());
                    const auto tx = qSharedPointerDynamicCast<QCPAxisTickerText>(x->ticker());
                    const auto ty = qSharedPointerDynamicCast<QCPAxisTickerText>(y->ticker());
                    QCOMPARE(bool(tx), bool(ty));
                    if (tx) QCOMPARE(tx->ticks(), ty->ticks());
                }
                QCOMPARE(kept.headRect(h)->rect(), fresh.headRect(h)->rect());
            }
        };
        kept.setAnalysis(warmer);
        QCOMPARE(kept.labelLayoutsReused(), reused + 1);
        sameAsFresh(warmer);
        kept.setAnalysis(reseeded);  // kept when the bars' numbers keep their widths
        sameAsFresh(reseeded);
        const int before_words = kept.labelLayoutsReused();
        kept.setAnalysis(other_words);  // other words: laid out again
        QCOMPARE(kept.labelLayoutsReused(), before_words);
        sameAsFresh(other_words);
        const auto ticks = qSharedPointerDynamicCast<QCPAxisTickerText>(kept.headRect(0)->axis(QCPAxis::atLeft)->ticker());
        QVERIFY(ticks);
        // The first word is always shown (with its position where the words are thinned).
        QCOMPARE(ticks->ticks().first(), kept.queryLabelStride() > 1 ? QStringLiteral("0:the") : QStringLiteral("the"));
    }

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

    void axesAreLabelledWithTokensRowZeroOnTop() {
        const auto a = gridAnalysis(2);
        HeadGridView view;
        view.setAnalysis(a);
        QCPAxisRect* rect = view.headRect(1);
        QVERIFY(rect->axis(QCPAxis::atLeft)->rangeReversed());
        auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(rect->axis(QCPAxis::atBottom)->ticker());
        QVERIFY(ticker);
        QCOMPARE(ticker->ticks().size(), a->nKeyValue());
        QCOMPARE(ticker->ticks().value(1), QString("animal"));
        auto rows = qSharedPointerDynamicCast<QCPAxisTickerText>(rect->axis(QCPAxis::atLeft)->ticker());
        QVERIFY(rows);
        QCOMPARE(rows->ticks().value(0), QString("The"));
        QCOMPARE(rect->axis(QCPAxis::atTop)->label(), QString("head 1"));
    }

    // Long sequences keep words (issue 21): every k-th word with its position, never bare
    // positions while two words fit; 64 random tokens included.
    void longSequencesShowEveryKthWordWithItsPosition() {
        Config config;
        config.heads = 2;
        config.text.clear();
        config.seq_len = 64;
        HeadGridView view;
        view.resize(1024, 768);
        view.setViewport(QRect(0, 0, 1024, 768));
        view.setAnalysis(std::make_shared<const Analysis>(analyze(config, false)));
        view.replotNow();
        view.replotNow();
        QCOMPARE(view.colorMap(0)->data()->keySize(), 64);
        checkThinned(view, *view.analysis(), QStringLiteral("64 random tokens"));
    }

    // The 41-token sentence and the induction model's 45 letters at 1024 x 768 in a grid of 4
    // heads: words thin to every k-th WITH its position ("12:the", "3:d"), so that a thinned
    // axis never reads like the sequence, and the axis title says "every kth key"; in a view
    // large enough, every word without positions.
    void thinnedWordsCarryTheirPositions_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("tokens");
        const QStringList words = QStringLiteral("The animal didn't cross the street because it was too tired to "
                                                 "walk any further in the rain").split(QLatin1Char(' '));
        QString sentence;
        for (int i = 0; i < 41; ++i) sentence += words[i % words.size()] + QLatin1Char(' ');
        QTest::newRow("41 words") << sentence.trimmed() << 41;
        QString letters;
        for (int i = 0; i < 45; ++i) letters += QChar(QLatin1Char(char('a' + (i * 7) % 26))) + QLatin1Char(' ');
        QTest::newRow("45 letters (induction input)") << letters.trimmed() << 45;
    }
    void thinnedWordsCarryTheirPositions() {
        QFETCH(QString, text);
        QFETCH(int, tokens);
        Config config;
        config.heads = 4;
        config.text = text.toStdString();
        const auto a = std::make_shared<const Analysis>(analyze(config, false));
        QCOMPARE(a->nQuery(), tokens);
        HeadGridView view;
        view.resize(1024, 768);
        view.setViewport(QRect(0, 0, 1024, 768));
        view.setAnalysis(a);
        view.replotNow();
        view.replotNow();
        checkThinned(view, *a, QStringLiteral("4 heads at 1024 x 768"));

        HeadGridView large;  // one head on a large canvas: every word, no positions, no "every"
        Config one = config;
        one.heads = 1;
        const auto b = std::make_shared<const Analysis>(analyze(one, false));
        large.resize(2400, 2400);
        large.setViewport(QRect(0, 0, 2400, 2400));
        large.setAnalysis(b);
        large.replotNow();
        large.replotNow();
        QCOMPARE(large.keyLabelStride(), 1);
        QCOMPARE(large.queryLabelStride(), 1);
        for (QCPAxis* axis : {large.headRect(0)->axis(QCPAxis::atLeft), large.headRect(0)->axis(QCPAxis::atBottom)}) {
            const auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(axis->ticker());
            QVERIFY(ticker);
            QStringList words;
            for (const std::string& t : b->input.query.tokens) words << QString::fromStdString(t);
            QCOMPARE(QStringList(ticker->ticks().values()), words);
            QVERIFY(axis->label().isEmpty());
        }
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
