// The per-token views hold exactly the core's numbers and follow the document:
//  - score breakdown: its bars are scoreBreakdown()'s q, k, q*k and the engine's softmax row,
//    the marked bar is the cell's weight, the written logit and difference are the core's;
//    a masked cell shows its reason and no bars;
//  - token lines: exactly the weights of the chosen heads (all, the selected one, a subset),
//    hovering a token keeps only its lines;
//  - query-key map: the points are queryKeyMap()'s coordinates, the arrows its most-attended keys;
//  - the window: clicking a cell in the head grid updates the breakdown (and the other two);
//  - export: score_breakdown, token_lines, qk_map_head_<h> exist and are not blank;
//  - in a hidden tab the three views do no work (no replot) until shown, then show the
//    newest analysis.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <tuple>
#include "QtTestGroup.h"
#include <set>

#include "WindowTestSupport.h"
#include "Analysis.h"
#include "Circuits.h"
#include "Export.h"
#include "HeadGridView.h"
#include "LineRaster.h"
#include "HeadsTab.h"
#include "MainWindow.h"
#include "QueryKeyMap.h"
#include "QueryKeyMapView.h"
#include "ScoreBreakdown.h"
#include "ScoreBreakdownView.h"
#include "Session.h"
#include "TokenLinesView.h"
#include "TokenThinning.h"
#include "ViewTestSupport.h"

using namespace headscope;
using namespace headscope::ui;
using namespace headscope::ui::testing;

using headscope::ui::testing::analysisOf;
namespace {

Config biased() {
    Config c;
    c.d_model = 32;
    c.heads = 4;
    c.init = InitKind::Normal;
    c.init_sigma = 0.3;
    c.text = "the cat sat on the mat because it was warm";
    return c;
}

// The bars' values in key order.
std::vector<double> values(QCPBars* bars) {
    std::vector<double> out;
    for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it) out.push_back(it->value);
    return out;
}
std::vector<double> values(const Eigen::VectorXf& v) {
    std::vector<double> out;
    for (Eigen::Index i = 0; i < v.size(); ++i) out.push_back(v(i));
    return out;
}

int distinctColours(const QImage& image) {
    std::set<QRgb> colours;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2) colours.insert(image.pixel(x, y));
    return static_cast<int>(colours.size());
}

// Share of pixels that are not white (a view with only its title has almost none).
double inkShare(const QImage& image) {
    long long ink = 0, all = 0;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2, ++all) ink += image.pixel(x, y) != qRgb(255, 255, 255) ? 1 : 0;
    return all ? double(ink) / double(all) : 0.0;
}

using LineKey = std::tuple<int, int, int, float>;
std::set<LineKey> keysOf(const std::vector<TokenLinesView::Line>& lines) {
    std::set<LineKey> out;
    for (const auto& l : lines) out.insert({l.head, l.query, l.key, l.weight});
    return out;
}
std::set<LineKey> engineLines(const Analysis& a, const QList<int>& heads) {
    std::set<LineKey> out;
    for (int h : heads)
        for (int q = 0; q < a.nQuery(); ++q)
            for (int k = 0; k < a.nKeyValue(); ++k)
                if (a.results.allowed(q, k)) out.insert({h, q, k, a.results.heads[h].weights(q, k)});
    return out;
}

}  // namespace

class TestTokenViews : public QObject {
    Q_OBJECT

private slots:
    void breakdownHoldsTheCoresNumbers() {
        const auto a = analysisOf(biased());
        const auto circuits = std::make_shared<const Circuits>(headCircuits(a->weights(), 2));
        ScoreBreakdownView view;
        view.resize(1200, 800);
        view.setAnalysis(a);
        view.setHead(2);
        view.setCircuits(circuits);
        view.setCell(5, 1);
        view.replotNow();  // hidden views refresh when shown
        const ScoreBreakdown expected = scoreBreakdown(*a, 2, 5, 1, &circuits->W_QK);
        QVERIFY(view.hasBreakdown());
        QCOMPARE(view.breakdown().row, 5);
        QCOMPARE(view.breakdown().col, 1);
        QCOMPARE(values(view.bars(ScoreBreakdownView::Query)), values(expected.q));
        QCOMPARE(values(view.bars(ScoreBreakdownView::Key)), values(expected.k));
        QCOMPARE(values(view.bars(ScoreBreakdownView::Product)), values(expected.product));
        QCOMPARE(values(view.bars(ScoreBreakdownView::Softmax)), values(a->results.heads[2].weights.row(5).transpose().eval()));
        QCOMPARE(view.markedBar()->data()->size(), 1);
        QCOMPARE(view.markedBar()->data()->at(0)->key, 1.0);
        QCOMPARE(view.markedBar()->data()->at(0)->value, double(a->results.heads[2].weights(5, 1)));
        const QString text = view.arithmetic();
        QVERIFY2(text.contains(QString::number(expected.logit, 'g', 5)), qPrintable(text));
        QVERIFY2(text.contains(QString::number(expected.bilinear->logit, 'g', 5)), qPrintable(text));
        QVERIFY2(text.contains(QString::number(expected.bilinear->difference, 'g', 2)), qPrintable(text));
        QVERIFY2(text.contains("1/√8"), qPrintable(text));
        QVERIFY(view.title().contains("query 5 “mat”"));  // words, not only positions
        QVERIFY(view.title().contains("key 1 “cat”"));

        // Clicking a key's bar in the softmax row asks for that cell.
        QSignalSpy clicked(&view, &ScoreBreakdownView::cellClicked);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.replotNow();
        QCPAxisRect* row = view.bars(ScoreBreakdownView::Softmax)->keyAxis()->axisRect();
        const QPoint at(int(row->axis(QCPAxis::atBottom)->coordToPixel(3)), row->rect().center().y());
        QTest::mouseClick(view.plot(), Qt::LeftButton, {}, at);
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(clicked.first().at(0).toInt(), 5);
        QCOMPARE(clicked.first().at(1).toInt(), 3);
    }

    void breakdownOfAMaskedCellShowsTheReason() {
        Config c = biased();
        c.mask = MaskKind::Causal;
        const auto a = analysisOf(c);
        ScoreBreakdownView view;
        view.setAnalysis(a);
        view.setCell(1, 3);
        view.replotNow();
        QVERIFY(view.breakdown().masked);
        QVERIFY2(view.arithmetic().contains("key 3 is after query 1 (causal mask)"), qPrintable(view.arithmetic()));
        QVERIFY(!view.bars(ScoreBreakdownView::Query)->visible());
        QVERIFY(!view.arithmetic().contains("logit 0"));
        // No cell selected: the last query and its most-attended key.
        view.setCell(-1, -1);
        view.replotNow();
        const auto [row, col] = defaultCell(*a, 0);
        QCOMPARE(view.breakdown().row, row);
        QCOMPARE(view.breakdown().col, col);
        QVERIFY(view.title().contains("no cell selected"));
    }

    // Issue 35 item 4: a long text keeps the heaviest kMaxLines lines and says how many it leaves out.
    void aLongTextDrawsOnlyItsHeaviestLines() {
        Config c;
        c.d_model = 64, c.heads = 16, c.seq_len = 1200, c.mask = MaskKind::None;
        c.init = InitKind::Normal, c.init_sigma = 0.5;  // large logits: a few sharp keys per query
        c.text.clear();                                 // seq_len random tokens
        const auto a = analysisOf(c);
        TokenLinesView view;
        view.resize(900, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setAnalysis(a);
        // 16 heads x 1,200 x 1,200 cells: chosen off the GUI thread, the title saying so meanwhile.
        view.replotNow();
        QVERIFY(view.choosingLines() && view.lines().empty());
        QVERIFY2(view.title().contains(QStringLiteral("choosing")), qPrintable(view.title()));
        QTRY_VERIFY_WITH_TIMEOUT(!view.choosingLines(), 30000);
        view.replotNow();
        long long strong = 0;
        float lightest_kept = 1, heaviest_left = 0;
        for (const HeadResult& head : a->results.heads)
            strong += (head.weights.array() >= TokenLinesView::kThinWeight).count();
        QVERIFY2(view.thinLinesOmitted() && strong > TokenLinesView::kMaxLines, qPrintable(QString::number(strong)));
        QCOMPARE(int(view.lines().size()), TokenLinesView::kMaxLines);
        QCOMPARE(view.linesOmitted(), strong - TokenLinesView::kMaxLines);
        std::vector<Eigen::MatrixXf> left;  // each head's weights with the drawn lines' cells zeroed
        for (const HeadResult& head : a->results.heads) left.push_back(head.weights);
        for (const TokenLinesView::Line& line : view.lines()) {
            QCOMPARE(line.weight, a->results.heads[std::size_t(line.head)].weights(line.query, line.key));
            lightest_kept = std::min(lightest_kept, line.weight);
            left[std::size_t(line.head)](line.query, line.key) = 0;
        }
        for (const Eigen::MatrixXf& w : left) heaviest_left = std::max(heaviest_left, w.maxCoeff());
        QVERIFY2(lightest_kept >= heaviest_left, qPrintable(QStringLiteral("%1 kept, %2 left").arg(lightest_kept).arg(heaviest_left)));
        // Drawn lightest first (the strong on top), equal weights in head, query, key order.
        QVERIFY(std::is_sorted(view.lines().begin(), view.lines().end(), [](const TokenLinesView::Line& l, const TokenLinesView::Line& r) {
            return l.weight != r.weight ? l.weight < r.weight : std::tie(l.head, l.query, l.key) < std::tie(r.head, r.query, r.key);
        }));
        // Drawn (into one image, LineRaster.h): the lines' middle is inked in the heads' colours.
        const QImage drawn = view.plot()->toPixmap().toImage();
        QVERIFY2(inkShare(drawn.copy(drawn.width() / 3, drawn.height() / 3, drawn.width() / 3, drawn.height() / 3)) > 0.5,
                 "the lines are not drawn");
        const QString heaviest = QStringLiteral("of %L1 lines").arg(strong);
        QVERIFY2(view.title().contains(QStringLiteral("lighter ones left out")) || view.title().contains(heaviest),
                 qPrintable(view.title()));
        view.resize(420, 700);  // the narrowest title still says it
        view.replotNow();
        QVERIFY2(view.title().contains(heaviest), qPrintable(view.title()));
    }

    // LineRaster.h against closed forms: a horizontal opaque line on a pixel row covers that row
    // alone; half-way between two rows it covers each by half; a two-pixel line covers two rows.
    void rasterLinesCoverTheirPixels() {
        QImage image(20, 10, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::transparent);
        blendLines(image, {QLineF(2, 3, 17, 3)}, QColor(255, 0, 0), 1);
        QCOMPARE(image.pixel(10, 3), qRgba(255, 0, 0, 255));
        QCOMPARE(qAlpha(image.pixel(10, 2)), 0);
        QCOMPARE(qAlpha(image.pixel(10, 4)), 0);
        image.fill(Qt::transparent);
        blendLines(image, {QLineF(2, 5.5, 17, 5.5)}, QColor(0, 0, 255), 1);
        QCOMPARE(qAlpha(image.pixel(10, 5)), 128);
        QCOMPARE(qAlpha(image.pixel(10, 6)), 128);
        image.fill(Qt::transparent);
        blendLines(image, {QLineF(2, 5.5, 17, 5.5)}, QColor(0, 128, 0, 255), 2);  // rows 5 and 6 whole, by two half-pixel lines
        QVERIFY(qAlpha(image.pixel(10, 5)) >= 254 && qAlpha(image.pixel(10, 6)) >= 254);
        QCOMPARE(qAlpha(image.pixel(10, 3)), 0);
    }

    void tokenLinesCarryExactlyTheWeightsOfTheChosenHeads() {
        Config c = biased();
        c.mask = MaskKind::Causal;
        const auto a = analysisOf(c);
        TokenLinesView view;
        view.resize(900, 700);
        view.show();  // shown: every change refreshes at once
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setAnalysis(a);
        QVERIFY(!view.thinLinesOmitted());
        QCOMPARE(keysOf(view.lines()), engineLines(*a, {0, 1, 2, 3}));
        QCOMPARE(int(view.lines().size()), 4 * int(a->results.allowed.count()));
        view.setHeadMode(TokenLinesView::HeadMode::Chosen, {3, 1});
        QCOMPARE(view.shownHeads(), (QList<int>{1, 3}));
        QCOMPARE(keysOf(view.lines()), engineLines(*a, {1, 3}));
        view.setHeadMode(TokenLinesView::HeadMode::Selected);
        view.setHead(2);
        QCOMPARE(keysOf(view.lines()), engineLines(*a, {2}));
        // Hovering query 4 keeps only its lines, and writes their weights.
        view.setFocusToken(0, 4);
        const auto visible = view.visibleLines();
        QCOMPARE(int(visible.size()), 5);  // causal: keys 0..4
        for (const auto& l : visible) QCOMPARE(l.query, 4);
        int strong = 0;
        for (const auto& l : visible) strong += l.thin ? 0 : 1;
        QCOMPARE(int(view.focusLabels().size()), strong);
        view.setFocusToken(-1, -1);
        QCOMPARE(view.visibleLines().size(), view.lines().size());
    }

    // Issue 36 item 12: where the words do not fit one per line, every k-th is written with its
    // position ("12:the"), and the title says which; a few words are written as they are.
    void thinnedTokenLinesCarryTheirPositions() {
        Config c = biased();
        c.text.clear();
        c.seq_len = 80;
        TokenLinesView view;
        view.resize(700, 420);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setAnalysis(analysisOf(c));
        view.replotNow();
        const auto a = view.analysis();
        const QStringList queries = view.tokenLabels(0);
        QVERIFY2(queries.size() > 1 && queries.size() < 80, qPrintable(queries.join(' ')));
        const int every = queries[1].section(':', 0, 0).toInt();
        QVERIFY(every > 1);
        for (int i = 0; i < queries.size(); ++i)
            QCOMPARE(queries[i], QStringLiteral("%1:%2").arg(i * every).arg(QString::fromStdString(a->input.query.tokens[std::size_t(i * every)])));
        QVERIFY2(view.title().contains(everyKth(every, QStringLiteral("token"))), qPrintable(view.title()));
        view.setAnalysis(analysisOf(biased()));  // 11 words: each as it is, no note
        view.replotNow();
        QCOMPARE(view.tokenLabels(0).first(), QStringLiteral("the"));
        QVERIFY2(!view.title().contains(QStringLiteral("every")), qPrintable(view.title()));
    }

    void queryKeyMapHoldsTheCoresNumbers() {
        Config c = biased();
        c.source_text = "le chat dort";
        const auto a = analysisOf(c);
        QueryKeyMapView view;
        view.resize(1000, 800);
        view.show();  // the words are placed in the plot's pixels
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setAnalysis(a);
        view.setHead(1);
        view.replotNow();
        const QueryKeyMap expected = queryKeyMap(*a, 1);
        QCOMPARE(view.queryGraph()->data()->size(), a->nQuery());
        QCOMPARE(view.keyGraph()->data()->size(), a->nKeyValue());
        for (int i = 0; i < a->nQuery(); ++i) {
            QCOMPARE(view.queryGraph()->data()->at(i)->key, expected.query_points(i, 0));
            QCOMPARE(view.queryGraph()->data()->at(i)->value, expected.query_points(i, 1));
        }
        for (int j = 0; j < a->nKeyValue(); ++j) {
            QCOMPARE(view.keyGraph()->data()->at(j)->key, expected.key_points(j, 0));
            QCOMPARE(view.keyGraph()->data()->at(j)->value, expected.key_points(j, 1));
        }
        QList<QPair<int, int>> links;
        for (int i = 0; i < a->nQuery(); ++i) links << qMakePair(i, expected.most_attended[i]);
        QCOMPARE(view.links(), links);
        QVERIFY(view.pointLabels().contains("chat"));
        QVERIFY(view.pointLabels().contains("mat"));
        QVERIFY2(view.varianceText().contains(QString::number(100 * expected.explained_total, 'f', 1) + "%"),
                 qPrintable(view.varianceText()));
    }

    void clickingACellInTheGridUpdatesTheBreakdown() {
        MainWindow window(noSettings());
        window.resize(1024, 768);
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        HeadGridView* grid = window.headGrid();
        grid->replotNow();
        QCPAxisRect* rect = grid->headRect(2);
        const QPoint cell(int(rect->axis(QCPAxis::atBottom)->coordToPixel(1)),
                          int(rect->axis(QCPAxis::atLeft)->coordToPixel(6)));
        QTest::mouseClick(grid, Qt::LeftButton, {}, cell);
        QCOMPARE(window.session()->head(), 2);
        QCOMPARE(window.session()->cellRow(), 6);
        QCOMPARE(window.session()->cellColumn(), 1);
        ScoreBreakdownView* breakdown = window.scoreBreakdownView();
        window.centralTabs()->setCurrentWidget(window.queryKeyMapView());  // hidden tabs refresh when shown
        QTRY_COMPARE_WITH_TIMEOUT(window.queryKeyMapView()->map().head, 2,
                                  headscope::test::kBackgroundWaitMs);  // computed off the GUI thread
        window.centralTabs()->setCurrentWidget(breakdown);
        QTRY_COMPARE_WITH_TIMEOUT(breakdown->breakdown().head, 2, headscope::test::kBackgroundWaitMs);
        QCOMPARE(breakdown->breakdown().row, 6);
        QCOMPARE(breakdown->breakdown().col, 1);
        QCOMPARE(values(breakdown->bars(ScoreBreakdownView::Query)),
                 values(scoreBreakdown(*window.session()->analysis(), 2, 6, 1).q));
        // The document's W_QK,i arrives from its worker; then the bilinear form is written.
        QVERIFY(window.session()->waitForIdle(60000));
        QTRY_VERIFY_WITH_TIMEOUT(breakdown->breakdown().bilinear.has_value(), headscope::test::kBackgroundWaitMs);
        // A knob: temperature 2 halves the logit the breakdown shows.
        const double before = breakdown->breakdown().logit;
        Config c = window.session()->config();
        c.temperature = 2.0;
        window.setConfig(c);
        QVERIFY(window.session()->waitForIdle(60000));
        QTRY_VERIFY_WITH_TIMEOUT(
            std::abs(breakdown->breakdown().logit - before / 2) < 1e-6 * std::max(1.0, std::abs(before)),
            headscope::test::kBackgroundWaitMs);
        QCOMPARE(breakdown->breakdown().row, 6);
        QCOMPARE(breakdown->breakdown().engine_logit, double(window.session()->analysis()->results.heads[2].logits(6, 1)));
    }

    void hiddenViewsDoNoWorkUntilShown() {
        MainWindow window(noSettings());
        window.resize(1024, 768);
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        QCOMPARE(window.centralTabs()->currentWidget(), static_cast<QWidget*>(window.headsTab()));  // the grid (and the large head)
        ScoreBreakdownView* breakdown = window.scoreBreakdownView();
        TokenLinesView* lines = window.tokenLinesView();
        QueryKeyMapView* map = window.queryKeyMapView();
        QTest::qWait(20);  // anything queued before runs now
        QSignalSpy breakdown_replots(breakdown->plot(), &QCustomPlot::afterReplot);
        QSignalSpy lines_replots(lines->plot(), &QCustomPlot::afterReplot);
        QSignalSpy map_replots(map->plot(), &QCustomPlot::afterReplot);
        // Never shown: nothing computed, whatever changes (weights, temperature, head, cell).
        QVERIFY(!breakdown->hasBreakdown());
        QVERIFY(lines->lines().empty());
        QVERIFY(map->pointLabels().isEmpty());
        Config c = window.session()->config();
        c.seed += 1;
        window.setConfig(c);
        QVERIFY(window.session()->waitForIdle(60000));
        c.temperature = 1.5;
        window.setConfig(c);
        QVERIFY(window.session()->waitForIdle(60000));
        window.session()->setHead(1);
        window.session()->setCell(3, 2);
        QVERIFY(window.session()->waitForIdle(60000));
        QTest::qWait(20);
        QCOMPARE(breakdown_replots.count(), 0);
        QCOMPARE(lines_replots.count(), 0);
        QCOMPARE(map_replots.count(), 0);
        QVERIFY(!breakdown->hasBreakdown());
        QVERIFY(lines->lines().empty());
        QVERIFY(map->pointLabels().isEmpty());

        // Shown: the newest analysis, head and cell.
        auto a = window.session()->analysis();
        QList<int> all_heads;
        for (int h = 0; h < a->weights().heads; ++h) all_heads << h;
        window.centralTabs()->setCurrentWidget(breakdown);
        QTRY_VERIFY_WITH_TIMEOUT(breakdown->hasBreakdown(),
                                 headscope::test::kBackgroundWaitMs);  // computed off the GUI thread, then drawn
        QCOMPARE(breakdown->breakdown().head, 1);
        QCOMPARE(breakdown->breakdown().row, 3);
        QCOMPARE(breakdown->breakdown().col, 2);
        QCOMPARE(breakdown->breakdown().engine_logit, double(a->results.heads[1].logits(3, 2)));
        window.centralTabs()->setCurrentWidget(lines);
        QCOMPARE(keysOf(lines->lines()), engineLines(*a, all_heads));
        window.centralTabs()->setCurrentWidget(map);
        const QueryKeyMap expected = queryKeyMap(*a, 1);
        QTRY_VERIFY_WITH_TIMEOUT(map->hasMap(), headscope::test::kBackgroundWaitMs);
        QCOMPARE(map->map().head, 1);
        for (int i = 0; i < a->nQuery(); ++i)
            QCOMPARE(map->queryGraph()->data()->at(i)->key, expected.query_points(i, 0));

        // Hidden again: a change waits (the older lines stay), and is shown with the tab.
        window.centralTabs()->setCurrentWidget(window.headGrid());
        c.seed += 1;
        window.setConfig(c);
        QVERIFY(window.session()->waitForIdle(60000));
        const auto older = a;
        a = window.session()->analysis();
        QVERIFY(a != older);
        QCOMPARE(keysOf(lines->lines()), engineLines(*older, all_heads));
        window.centralTabs()->setCurrentWidget(lines);
        QCOMPARE(keysOf(lines->lines()), engineLines(*a, all_heads));
        window.centralTabs()->setCurrentWidget(breakdown);
        QTRY_COMPARE_WITH_TIMEOUT(breakdown->breakdown().engine_logit, double(a->results.heads[1].logits(3, 2)),
                                  headscope::test::kBackgroundWaitMs);
    }

    void aViewShowsTheLatestOfABurstOfRequests() {
        MainWindow window(noSettings());
        window.resize(1024, 768);
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        QueryKeyMapView* map = window.queryKeyMapView();
        ScoreBreakdownView* breakdown = window.scoreBreakdownView();
        window.centralTabs()->setCurrentWidget(map);
        QTRY_VERIFY_WITH_TIMEOUT(map->hasMap(), headscope::test::kBackgroundWaitMs);
        // Heads clicked faster than the maps are computed: the view ends on the last one asked,
        // and a result for an older head arriving late is never drawn over it.
        for (int head : {3, 5, 1, 6, 4}) window.session()->setHead(head);
        QTRY_COMPARE_WITH_TIMEOUT(map->map().head, 4, headscope::test::kBackgroundWaitMs);
        QTest::qWait(50);
        QCOMPARE(map->map().head, 4);
        const QueryKeyMap expected = queryKeyMap(*window.session()->analysis(), 4);
        for (int i = 0; i < expected.query_points.rows(); ++i)
            QCOMPARE(map->queryGraph()->data()->at(i)->key, expected.query_points(i, 0));

        window.centralTabs()->setCurrentWidget(breakdown);
        for (int row : {1, 5, 2, 7}) window.session()->setCell(row, 0);
        QTRY_COMPARE_WITH_TIMEOUT(breakdown->breakdown().row, 7, headscope::test::kBackgroundWaitMs);
        QTest::qWait(50);
        QCOMPARE(breakdown->breakdown().row, 7);
        QCOMPARE(breakdown->breakdown().head, 4);
    }

    void exportsExistAndAreNotBlank() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        Config c = biased();
        c.mask = MaskKind::Causal;
        const auto a = analysisOf(c);
        QString error;
        const QStringList files = exportImages(*a, dir.path(), {ImageFormat::Png}, &error, {}, 1.0, 1);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        for (const char* name : {"score_breakdown.png", "token_lines.png", "qk_map_head_1.png"}) {
            const QString path = dir.filePath(name);
            QVERIFY2(files.contains(path), name);
            const QImage image(path);
            QVERIFY2(!image.isNull(), name);
            QVERIFY2(distinctColours(image) > 30, name);
            qInfo("%s: %.1f%% of the pixels inked", name, 100 * inkShare(image));
            QVERIFY2(inkShare(image) > 0.02, name);
        }
        // At font scale 2 and as SVG too, with the selected cell.
        ViewOptions big;
        big.font_scale = 2;
        for (ViewKind kind : {ViewKind::ScoreBreakdown, ViewKind::TokenLines, ViewKind::QueryKeyMap}) {
            const QString path = dir.filePath(viewFileName(kind, 0) + "_2x.svg");
            QVERIFY2(exportView(kind, *a, 0, big, path, ImageFormat::Svg, 1.0, &error, nullptr, 4, 2), qPrintable(error));
            QVERIFY(QFileInfo(path).size() > 1000);
            QFile svg(path);
            QVERIFY(svg.open(QIODevice::ReadOnly));
            QVERIFY2(QString::fromUtf8(svg.readAll()).contains("mat"), qPrintable(path));  // the words are drawn
        }
    }
};

HEADSCOPE_QTEST_MAIN(TestTokenViews)
#include "test_token_views_ui.moc"
