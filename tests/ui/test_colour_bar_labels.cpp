// The numbers of the colour bars (issue 21: "colour-bar numbers overlap their bars"), in every
// view with a colour bar: the head grid (a bar per head, or one shared bar), the large head,
// the circuits, the projections, the twice-projected product and the RoPE shares. At the
// sizes a view has in a 1024 x 768 and a 1280 x 720 window, at QT_SCALE_FACTOR 1 and 2 (the
// logical screen halved), and at font scale 1 and 2: for every bar shown, no two of its numbers
// overlap, none overlaps its bar, none leaves the plot, and (the grid) none runs into a head's
// map. The ticker's steps are checked on their own against the pixels they are given.
#include <QtTest>
#include "QtTestGroup.h"

#include "Analysis.h"
#include "CircuitView.h"
#include "Circuits.h"
#include "ColourBarLabel.h"
#include "ColourBarTicker.h"
#include "FusedProjectionsView.h"
#include "HeadDetailView.h"
#include "HeadGridView.h"
#include "ProjectionProductView.h"
#include "RotaryDelta.h"
#include "RotaryTestAnalysis.h"
#include "RotaryView.h"
#include "TextBoxes.h"
#include "ViewTestSupport.h"

using namespace headscope;
using namespace headscope::ui;
using testing::analysisOf;
using testing::describe;
using testing::showAt;

namespace {

// The room a central tab's view has, with its font scale: 1024 x 768 with and without the
// controls and 1280 x 720, at font scale 1 and 2; both screens at QT_SCALE_FACTOR 2 (512 x 384
// and 640 x 360 logical, the fonts doubled by Qt), at font scale 1.
struct Case {
    QSize size;
    double scale;
};
const QList<Case> kCases = {{QSize(700, 560), 1}, {QSize(700, 560), 2}, {QSize(1000, 620), 1}, {QSize(1000, 620), 2},
                            {QSize(950, 520), 1}, {QSize(950, 520), 2}, {QSize(500, 260), 1},  {QSize(620, 240), 1}};

// Every colour bar of the plot, each checked, its bar at least `least` pixels (width x length);
// returns how many bars were shown.
int checkBars(QCustomPlot* plot, const QString& where, const QList<QCPAxisRect*>& maps = {}, const QSize& least = {}) {
    int shown = 0;
    for (QCPLayoutElement* element : plot->plotLayout()->elements(true)) {
        auto* bar = qobject_cast<QCPColorScale*>(element);
        if (!bar || !bar->visible() || !bar->layout() || bar->rect().height() <= 0) continue;
        const QString at = QStringLiteral("%1, bar %2 (%3 px)").arg(where).arg(shown).arg(bar->axis()->axisRect()->rect().height());
        ++shown;
        QCPAxis* axis = bar->axis();
        const int numbers = testing::checkTickLabels(axis, plot->viewport(), at);
        if (QTest::currentTestFailed()) return -1;
        if (numbers < 1) {
            QTest::qFail(qPrintable(at + ": no number"), __FILE__, __LINE__);
            return -1;
        }
        // The label along the bar: every line within the bar's length (shortened or left out, never cut).
        const QString cut = testing::cutAxisLabel(axis);
        if (!cut.isEmpty()) {
            QTest::qFail(qPrintable(at + ": " + cut), __FILE__, __LINE__);
            return -1;
        }
        const QRect strip = axis->axisRect()->rect();
        if (strip.width() < least.width() || strip.height() < least.height()) {
            QTest::qFail(qPrintable(at + ": the bar " + describe(strip) + " is smaller than " + describe(QRect(QPoint(), least))),
                         __FILE__, __LINE__);
            return -1;
        }
        for (const QRectF& box : testing::tickLabelBoxes(axis)) {
            if (box.intersects(strip)) {
                QTest::qFail(qPrintable(at + ": a number " + describe(box) + " over its bar " + describe(strip)), __FILE__, __LINE__);
                return -1;
            }
            for (QCPAxisRect* map : maps)
                if (box.intersects(map->rect())) {
                    QTest::qFail(qPrintable(at + ": a number " + describe(box) + " runs into a map " + describe(map->rect())),
                                 __FILE__, __LINE__);
                    return -1;
                }
        }
    }
    return shown;
}

QString at(const char* view, const QSize& size, double scale) {
    return QStringLiteral("%1 %2 x %3 at %4x").arg(QLatin1String(view)).arg(size.width()).arg(size.height()).arg(scale);
}

}  // namespace

class TestColourBarLabels : public QObject {
    Q_OBJECT

private slots:
    // The steps: two lines apart at least, at most about six over the range; the ends where no
    // two steps fit; the upper end alone where the ends would touch.
    void ticksKeepALineApart() {
        const QCPRange range(-0.8, 0.8);
        for (const double length : {20.0, 40.0, 60.0, 100.0, 200.0, 400.0, 900.0}) {
            const QVector<double> ticks = ColourBarTicker::ticksFor(range, length, 20);
            QVERIFY2(!ticks.isEmpty(), qPrintable(QString::number(length)));
            for (int i = 1; i < ticks.size(); ++i)
                QVERIFY2((ticks[i] - ticks[i - 1]) * length / range.size() >= 1.25 * 20 - 1e-9,
                         qPrintable(QStringLiteral("%1 px: %2 and %3").arg(length).arg(ticks[i - 1]).arg(ticks[i])));
            QVERIFY(ticks.size() <= 8);
        }
        QCOMPARE(ColourBarTicker::ticksFor(range, 900, 20), (QVector<double>{-0.5, 0, 0.5}));  // at most about six steps
        QCOMPARE(ColourBarTicker::ticksFor(QCPRange(0, 0.37), 400, 20), (QVector<double>{0, 0.1, 0.2, 0.3}));
        QCOMPARE(ColourBarTicker::ticksFor(range, 40, 20), (QVector<double>{-0.8, 0.8}));  // no two steps: the ends
        QCOMPARE(ColourBarTicker::ticksFor(range, 20, 20), (QVector<double>{0.8}));        // the upper end alone
    }

    // The label gives way line by line: the parenthesis, the part after " · ", words from the
    // end; a parenthesised note whole or not at all; a line whose first word does not fit, left out.
    void barLabelGivesWay() {
        const QFont font(QStringLiteral("DejaVu Sans"), 10);
        const QFontMetricsF fm(font);
        const QString whole = QStringLiteral("attention weight (softmax)\n(grey = masked)");
        const auto at = [&](const QString& text) { return fm.horizontalAdvance(text) + 1; };  // just long enough
        QCOMPARE(ColourBarLabel::fitted(whole, fm, at(QStringLiteral("attention weight (softmax)"))), whole);
        QCOMPARE(ColourBarLabel::fitted(whole, fm, at(QStringLiteral("attention weight (softmax)")) - 2),
                 QStringLiteral("attention weight\n(grey = masked)"));
        QCOMPARE(ColourBarLabel::fitted(whole, fm, at(QStringLiteral("attention weight"))), QStringLiteral("attention weight"));
        QCOMPARE(ColourBarLabel::fitted(whole, fm, at(QStringLiteral("attention"))), QStringLiteral("attention"));
        QCOMPARE(ColourBarLabel::fitted(whole, fm, at(QStringLiteral("attention")) - 2), QString());
        QCOMPARE(ColourBarLabel::fitted(QStringLiteral("head 10 · weights"), fm, at(QStringLiteral("head 10 · weig"))),
                 QStringLiteral("head 10"));
        QCOMPARE(ColourBarLabel::fitted(QString(), fm, 100), QString());
    }

    void headGridBars_data() {
        QTest::addColumn<bool>("shared");
        QTest::addColumn<int>("heads");
        QTest::newRow("a bar per head, 4 heads") << false << 4;
        QTest::newRow("one shared bar, 8 heads") << true << 8;
        QTest::newRow("thumbnails, 8 heads") << true << -8;
    }
    void headGridBars() {
        QFETCH(bool, shared);
        QFETCH(int, heads);
        // Thumbnails (negative: beside the large head) are narrow and share one bar, whose label
        // must give way where the heads' titles leave it short (F5 cut "attention weight (softma").
        const bool thumbnails = heads < 0;
        heads = std::abs(heads);
        const auto analysis = analysisOf(64, heads);
        const QList<Case> cases = thumbnails ? QList<Case>{{QSize(200, 260), 1}, {QSize(240, 205), 1}, {QSize(260, 480), 1.75}, {QSize(300, 330), 2}, {QSize(200, 560), 1}}
                                             : kCases + QList<Case>{{QSize(420, 700), 1}, {QSize(420, 700), 2}, {QSize(1300, 520), 2}};
        for (const auto& [size, scale] : cases) {
            HeadGridView grid;
            grid.setThumbnails(thumbnails);
            ViewOptions options;
            options.shared_scale = shared;
            options.font_scale = scale;
            grid.setOptions(options);
            grid.setAnalysis(analysis);
            showAt(grid, size);
            QList<QCPAxisRect*> maps;
            for (int h = 0; h < heads; ++h) maps << grid.headRect(h);
            QVERIFY(checkBars(&grid, at("heads", size, scale), maps) >= 1);
        }
    }

    void headDetailBar() {
        const auto analysis = analysisOf(64, 4);
        for (const auto& [size, scale] : kCases) {
            HeadDetailView view;
            showAt(view, size, scale, analysis);
            QCustomPlot* plot = view.findChild<QCustomPlot*>();
            QVERIFY(plot);
            QCOMPARE(checkBars(plot, at("head", size, scale)), 1);
        }
    }

    void circuitBars() {
        const auto analysis = analysisOf(64, 8);
        for (const auto& [size, scale] : kCases) {
            CircuitView view;
            view.setCircuits(std::make_shared<const Circuits>(headCircuits(analysis->weights(), 0)));
            showAt(view, size, scale, analysis);
            QCOMPARE(checkBars(view.plot(), at("circuits", size, scale)), 6);
        }
    }

    void projectionBars() {
        const auto analysis = analysisOf(64, 8);
        for (const auto& [size, scale] : kCases) {
            FusedProjectionsView fused;
            ProjectionProductView twice;
            showAt(fused, size, scale, analysis);
            showAt(twice, size, scale, analysis);
            // The projections' page scrolls below the room its panels need, so every size is
            // checked, and each bar is seen as a bar: 10 px wide, as long as a panel's least side.
            QCOMPARE(checkBars(fused.plot(), at("projections", size, scale), {}, QSize(10, 60)), 2);
            QCOMPARE(checkBars(twice.plot(), at("twice", size, scale)), 2);
        }
    }

    void rotarySharesBar() {
        const auto analysis = test::rotaryAnalysis();
        for (const auto& [size, scale] : kCases) {
            RotaryDelta delta;
            RotaryView view;
            view.setRotaryDelta(&delta);
            showAt(view, size, scale, analysis);
            QCOMPARE(checkBars(view.sharesPlot(), at("rope shares", size, scale)), 1);
        }
    }
};

HEADSCOPE_QTEST_MAIN(TestColourBarLabels)
#include "test_colour_bar_labels.moc"
