// The colour maps match their published stops, and the heatmaps use them as documented:
// viridis on [0, 1] for weights, RdBu (blue < 0 < red) on a range symmetric about zero for
// logits, grey for masked (NaN) cells.
#include <QtTest>
#include "QtTestGroup.h"
#include <cmath>

#include "Analysis.h"
#include "ColorMaps.h"
#include "Heatmap.h"

using namespace headscope;
using namespace headscope::ui;

namespace {

constexpr double kTol = 1.0 / 255 + 1e-9;

// Compare a gradient colour with published 0..1 RGB values, reporting the worst channel.
bool near(QRgb rgb, double r, double g, double b, double tolerance = kTol) {
    const QColor c = QColor::fromRgb(rgb);
    const double err = std::max({std::abs(c.redF() - r), std::abs(c.greenF() - g), std::abs(c.blueF() - b)});
    if (err > tolerance)
        qWarning("colour (%d, %d, %d) vs published (%.1f, %.1f, %.1f): max diff %.2f/255", c.red(), c.green(),
                 c.blue(), r * 255, g * 255, b * 255, err * 255);
    return err <= tolerance;
}

bool near(QRgb rgb, unsigned hex) {
    return near(rgb, ((hex >> 16) & 0xff) / 255.0, ((hex >> 8) & 0xff) / 255.0, (hex & 0xff) / 255.0);
}

bool isGrey(const QColor& c) { return c.red() == c.green() && c.green() == c.blue(); }

}  // namespace

class TestColorMaps : public QObject {
    Q_OBJECT

private slots:
    void viridisMatchesPublishedStops() {
        QCPColorGradient g = viridisGradient();
        const QCPRange unit(0, 1);
        // matplotlib _viridis_data[0], [64], [128], [192], [255]
        QVERIFY(near(g.color(0.0, unit), 0.267004, 0.004874, 0.329415));
        QVERIFY(near(g.color(64 / 255.0, unit), 0.229739, 0.322361, 0.545706));
        QVERIFY(near(g.color(128 / 255.0, unit), 0.127568, 0.566949, 0.550556));
        QVERIFY(near(g.color(192 / 255.0, unit), 0.369214, 0.788888, 0.382914));
        QVERIFY(near(g.color(1.0, unit), 0.993248, 0.906157, 0.143936));
        // Between stops, linear interpolation stays close to the table: entry 100.
        QVERIFY(near(g.color(100 / 255.0, unit), 0.166617, 0.463708, 0.558119, 2.0 / 255));
    }

    void magmaMatchesPublishedStops() {
        QCPColorGradient g = magmaGradient();
        const QCPRange unit(0, 1);
        QVERIFY(near(g.color(0.0, unit), 0.001462, 0.000466, 0.013866));
        QVERIFY(near(g.color(128 / 255.0, unit), 0.716387, 0.214982, 0.475290));
        QVERIFY(near(g.color(1.0, unit), 0.987053, 0.991438, 0.749504));
    }

    void redBlueIsBlueNegativeWhiteZeroRedPositive() {
        QCPColorGradient g = redBlueGradient();
        const QCPRange range = symmetricRange(2.5);
        QCOMPARE(range.lower, -2.5);
        QCOMPARE(range.upper, 2.5);
        QVERIFY(near(g.color(-2.5, range), 0x053061));  // ColorBrewer RdBu blue end
        QVERIFY(near(g.color(0.0, range), 0xf7f7f7));   // white-ish middle
        QVERIFY(near(g.color(2.5, range), 0x67001f));   // red end
        const QColor zero = QColor::fromRgb(g.color(0.0, range));
        QVERIFY(zero.red() >= 240 && zero.green() >= 240 && zero.blue() >= 240);
        const QColor pos = QColor::fromRgb(g.color(1.5, range)), neg = QColor::fromRgb(g.color(-1.5, range));
        QVERIFY(pos.red() > pos.blue());
        QVERIFY(neg.blue() > neg.red());
    }

    void degenerateSymmetricRangeIsUnit() {
        QCOMPARE(symmetricRange(0).upper, 1.0);
        QCOMPARE(symmetricRange(std::nan("")).lower, -1.0);
    }

    void nanCellsAreGreyAndDistinct() {
        for (const QCPColorGradient& g : {viridisGradient(), redBlueGradient(), magmaGradient()}) {
            QCOMPARE(g.nanHandling(), QCPColorGradient::nhNanColor);
            QVERIFY(isGrey(g.nanColor()));
        }
        // The diverging map's grey must not look like its near-white zero.
        QVERIFY(redBlueNanColor().lightness() < 200);
        // Colorize a NaN the way QCPColorMap does.
        QCPColorGradient g = viridisGradient();
        const double data[2] = {std::nan(""), 0.5};
        QRgb line[2];
        g.colorize(data, QCPRange(0, 1), line, 2);
        QCOMPARE(QColor::fromRgb(line[0]).rgb(), viridisNanColor().rgb());
        QVERIFY(QColor::fromRgb(line[1]).rgb() != viridisNanColor().rgb());
    }

    void heatmapRangesFollowTheRules() {
        Config config;
        config.heads = 4;
        config.mask = MaskKind::Causal;
        const Analysis a = analyze(config, false);
        // Weights: [0, max] per head; shared, [0, max of all heads rounded up to 0.05].
        QCOMPARE(heatmap::dataRange(a, -1, false, true).lower, 0.0);
        QCOMPARE(heatmap::dataRange(a, -1, false, true).upper, 1.0);  // causal: row 0 weighs 1
        config.mask = MaskKind::None;
        const Analysis open = analyze(config, false);
        double top = 0;
        for (const auto& head : open.results.heads) top = std::max(top, double(head.weights.maxCoeff()));
        const double shared_top = heatmap::dataRange(open, -1, false, true).upper;
        QVERIFY(shared_top >= top && shared_top < top + heatmap::kWeightStep);
        QCOMPARE(std::round(shared_top / heatmap::kWeightStep) * heatmap::kWeightStep, shared_top);
        QCOMPARE(heatmap::niceCeiling(2.45), 2.5);
        QCOMPARE(heatmap::niceCeiling(0.031), 0.04);
        QCOMPARE(heatmap::niceCeiling(3.0), 3.0);
        const QCPRange head2 = heatmap::dataRange(a, 2, false, false);
        QCOMPARE(head2.upper, static_cast<double>(a.results.heads[2].weights.maxCoeff()));
        // Logits: symmetric about zero, reaching the largest |logit| of unmasked cells.
        double extreme = 0;
        for (int h = 0; h < 4; ++h)
            for (int r = 0; r < a.nQuery(); ++r)
                for (int c = 0; c <= r; ++c)
                    extreme = std::max(extreme, std::abs(double(a.results.heads[h].logits(r, c))));
        const QCPRange logits = heatmap::dataRange(a, -1, true, true);
        QCOMPARE(logits.lower, -logits.upper);
        QCOMPARE(logits.upper, heatmap::niceCeiling(extreme));
        QVERIFY(logits.upper >= extreme && logits.upper <= 1.25 * extreme);
        QVERIFY(std::isfinite(logits.upper));  // the -inf of masked cells is left out
        const QCPRange one = heatmap::dataRange(a, 1, true, false);
        QCOMPARE(one.lower, -one.upper);
        QVERIFY(one.upper <= extreme);
        // The same ranges from the extremes the window's worker computes with its analysis
        // (MapExtremes), which spare the GUI thread the scans.
        Analysis known = a;
        known.extremes = std::make_shared<const MapExtremes>(mapExtremes(a.results, nullptr, a.attentionOptions()));
        for (int head = -1; head < 4; ++head)
            for (bool logit : {false, true})
                for (bool shared : {false, true}) {
                    const QCPRange scanned = heatmap::dataRange(a, head, logit, shared);
                    const QCPRange read = heatmap::dataRange(known, head, logit, shared);
                    QCOMPARE(read.lower, scanned.lower);
                    QCOMPARE(read.upper, scanned.upper);
                }
    }
};

HEADSCOPE_QTEST_MAIN(TestColorMaps)
#include "test_color_maps.moc"
