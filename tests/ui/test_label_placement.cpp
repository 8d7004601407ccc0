// Placing a scatter plot's words (LabelPlacement): every label shown lies beside its own
// point at the stated clearance, inside the bounds, clear of every other label and of every
// obstacle; the labels that come first win; a label with no free place is left out unless it
// must be kept, and then it takes the place that overlaps least.
#include <QtTest>
#include "QtTestGroup.h"
#include <cmath>
#include <random>

#include "LabelPlacement.h"

using namespace headscope::ui::placement;

namespace {

const QRectF kBounds(0, 0, 400, 300);
const QSizeF kWord(40, 14);

// True when box lies at clearance c from p along an axis or on a diagonal corner (give or
// take the half pixel of rounding to whole pixels): one of the places placeLabels offers.
bool besidePoint(const QRectF& box, const QPointF& p, double c) {
    const double tol = 0.5 + 1e-9, d = c * 0.7071;
    const bool centred_x = std::abs(box.center().x() - p.x()) < tol;
    const bool centred_y = std::abs(box.center().y() - p.y()) < tol;
    const bool above = std::abs(box.bottom() - (p.y() - c)) < tol, below = std::abs(box.top() - (p.y() + c)) < tol;
    const bool right = std::abs(box.left() - (p.x() + c)) < tol, left = std::abs(box.right() - (p.x() - c)) < tol;
    const bool x_edge = std::abs(box.left() - p.x()) < tol || std::abs(box.right() - p.x()) < tol;
    const bool corner_x = std::abs(box.left() - (p.x() + d)) < tol || std::abs(box.right() - (p.x() - d)) < tol;
    const bool corner_y = std::abs(box.bottom() - (p.y() - d)) < tol || std::abs(box.top() - (p.y() + d)) < tol;
    return ((above || below) && (centred_x || x_edge)) || ((left || right) && centred_y) || (corner_x && corner_y);
}

}  // namespace

class LabelPlacementTest : public QObject {
    Q_OBJECT

private slots:
    void aLoneLabelGoesAboveItsPoint() {
        const auto placed = placeLabels({{QPointF(200, 150), kWord, 5}}, {}, kBounds);
        QCOMPARE(placed.size(), std::size_t(1));
        QCOMPARE(placed[0], QRectF(180, 131, 40, 14));
    }

    void aSecondLabelAtTheSamePointGoesBelow() {
        const auto placed = placeLabels({{QPointF(200, 150), kWord, 5}, {QPointF(200, 150), kWord, 5}}, {}, kBounds);
        QCOMPARE(placed[1], QRectF(180, 155, 40, 14));
        QVERIFY(!placed[0].intersects(placed[1]));
    }

    void obstaclesAndTheEdgesAreAvoided() {
        // A note just above the point and a legend just below it: the word goes to the right.
        const std::vector<QRectF> obstacles{QRectF(185, 100, 30, 40), QRectF(185, 160, 30, 40)};
        const auto placed = placeLabels({{QPointF(200, 150), kWord, 5}}, obstacles, kBounds);
        QCOMPARE(placed[0], QRectF(205, 143, 40, 14));
        // At the top edge there is no room above: below instead.
        const auto at_top = placeLabels({{QPointF(200, 10), kWord, 5}}, {}, kBounds);
        QCOMPARE(at_top[0], QRectF(180, 15, 40, 14));
        // In the right-hand corner, the places that stay inside the bounds only.
        const auto in_corner = placeLabels({{QPointF(395, 5), kWord, 5}}, {}, kBounds);
        QVERIFY(kBounds.contains(in_corner[0]));
        QVERIFY(besidePoint(in_corner[0], QPointF(395, 5), 5));
    }

    void aLabelWithoutRoomIsLeftOutUnlessKept() {
        // Every place around the point is covered.
        const std::vector<QRectF> wall{QRectF(100, 80, 200, 140)};
        const QPointF p(200, 150);
        const auto placed = placeLabels({{p, kWord, 5, false}, {p, kWord, 5, true}}, wall, kBounds);
        QVERIFY(placed[0].isEmpty());
        QVERIFY(!placed[1].isEmpty());  // kept: inside the bounds, beside its point
        QVERIFY(kBounds.contains(placed[1]));
        QVERIFY(besidePoint(placed[1], p, 5));
        // A kept label overlapping least: with half the wall gone, it takes a free place.
        const auto half = placeLabels({{p, kWord, 5, true}}, {QRectF(100, 80, 200, 70)}, kBounds);
        QCOMPARE(half[0], QRectF(180, 155, 40, 14));
        // A label with nothing to show takes no room.
        QVERIFY(placeLabels({{p, QSizeF(), 5}}, {}, kBounds)[0].isEmpty());
    }

    void theFirstLabelsWin() {
        // Two points 10 px apart, each with one word: the first keeps its best place.
        const auto placed = placeLabels({{QPointF(200, 150), kWord, 5}, {QPointF(200, 140), kWord, 5}}, {}, kBounds);
        QCOMPARE(placed[0], QRectF(180, 131, 40, 14));
        QVERIFY(!placed[1].isEmpty() && !placed[1].intersects(placed[0]));
    }

    void placesAreWholePixels() {
        const auto placed = placeLabels({{QPointF(100.3, 80.6), QSizeF(41, 15), 4.5}, {QPointF(100.3, 80.6), kWord, 4.5}}, {}, kBounds);
        for (const QRectF& box : placed) {
            QVERIFY(!box.isEmpty());
            QCOMPARE(box.left(), std::round(box.left()));
            QCOMPARE(box.top(), std::round(box.top()));
        }
    }

    void aKeptLabelWithNoPlaceInsideIsPushedInside() {
        // A word wider than the plot is tall and near its corner: no place fits the bounds.
        const QRectF small(0, 0, 60, 30);
        const auto placed = placeLabels({{QPointF(55, 5), QSizeF(50, 14), 5, true}, {QPointF(55, 5), QSizeF(50, 14), 5}}, {}, small);
        QVERIFY(!placed[0].isEmpty());
        QVERIFY(small.contains(placed[0]));
        QVERIFY(placed[1].isEmpty());  // not kept: left out
    }

    void thousandsOfPointsArePlaced() {
        // The largest map: 8192 queries and keys; every point an obstacle, a word for each of
        // 2000 (the most-attended keys of a long text). Whatever is shown is clear of all else.
        std::mt19937 random(11);
        std::uniform_real_distribution<double> x(0, 6000), y(0, 3000);
        std::vector<QRectF> markers;
        std::vector<Wanted> wanted;
        for (int i = 0; i < 16384; ++i) {
            const QPointF p(x(random), y(random));
            markers.push_back(QRectF(p.x() - 4, p.y() - 4, 8, 8));
            if (i < 2000) wanted.push_back({p, QSizeF(50, 14), 6});
        }
        const QRectF bounds(0, 0, 6000, 3000);
        const auto placed = placeLabels(wanted, markers, bounds);
        int shown = 0;
        for (std::size_t i = 0; i < placed.size(); ++i) {
            if (placed[i].isEmpty()) continue;
            ++shown;
            QVERIFY(bounds.contains(placed[i]));
        }
        QVERIFY2(shown > 0 && shown < 2000, qPrintable(QString::number(shown)));
    }

    void aCrowdNeverOverlaps() {
        // 300 random points and words in a small plot: whatever is shown is clear of all else.
        std::mt19937 random(7);
        std::uniform_real_distribution<double> x(0, 400), y(0, 300), width(10, 80);
        std::vector<Wanted> wanted;
        std::vector<QRectF> markers;
        for (int i = 0; i < 300; ++i) {
            const QPointF p(x(random), y(random));
            wanted.push_back({p, QSizeF(width(random), 14), 6, i % 50 == 0});
            markers.push_back(QRectF(p.x() - 4, p.y() - 4, 8, 8));
        }
        const auto placed = placeLabels(wanted, markers, kBounds);
        int shown = 0;
        for (std::size_t i = 0; i < placed.size(); ++i) {
            if (placed[i].isEmpty()) continue;
            ++shown;
            QVERIFY(kBounds.contains(placed[i]));
            QVERIFY(besidePoint(placed[i], wanted[i].point, 6));
            if (wanted[i].keep) continue;  // may overlap; those after it must not
            for (const QRectF& m : markers) QVERIFY2(!placed[i].intersects(m), qPrintable(QString::number(i)));
            for (std::size_t j = 0; j < i; ++j) QVERIFY(!placed[i].intersects(placed[j]));
        }
        QVERIFY2(shown >= 60, qPrintable(QStringLiteral("%1 of 300 shown").arg(shown)));
        QVERIFY2(shown < 300, "the crowd is meant to be too large for every word");
    }
};

HEADSCOPE_QTEST_APPLESS_MAIN(LabelPlacementTest)
#include "test_label_placement.moc"
