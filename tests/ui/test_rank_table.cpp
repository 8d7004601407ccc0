// The rank table refreshes cheaply and still shows the engine's ranks:
//  - the same ranks and bounds again (a new temperature, a new seed of full-rank weights): no
//    item, header or selection is touched (no dataChanged at all);
//  - other ranks: the items are kept and only the texts that differ are set;
//  - behaviour: a row per head, selection = the document's head, tooltips on ranks below
//    their bound, every column inside the table's minimum width.
#include <QHeaderView>
#include <QSignalSpy>
#include <QtTest>
#include "QtTestGroup.h"
#include <set>

#include "Analysis.h"
#include "HeadColors.h"
#include "RankTable.h"
#include "RankTableView.h"
#include "ViewTestSupport.h"

using namespace headscope;
using namespace headscope::ui;

using headscope::ui::testing::analysisOf;
namespace {

// d_model 32, 4 heads of d_k 8; the text's length sets the logits' rank (n < d_k).
Config small(const std::string& text) {
    Config c;
    c.d_model = 32;
    c.heads = 4;
    c.text = text;
    return c;
}

void expectEngineRanks(const RankTableView& table, const Analysis& a) {
    const auto rows = rankTable(a);
    QCOMPARE(table.rowCount(), static_cast<int>(rows.size()));
    for (const RankRow& r : rows) {
        QCOMPARE(table.item(r.head, 0)->text(), QStringLiteral("■%1").arg(r.head));
        QCOMPARE(table.item(r.head, 1)->text().toInt(), r.qk);
        QCOMPARE(table.item(r.head, 2)->text().toInt(), r.ov);
        QCOMPARE(table.item(r.head, 3)->text().toInt(), r.logits);
    }
    QVERIFY(table.horizontalHeaderItem(3)->text().contains(QStringLiteral("≤ %1").arg(rows.front().logits_bound)));
}

}  // namespace

class TestRankTable : public QObject {
    Q_OBJECT

private slots:
    void sameRanksTouchNothing() {
        RankTableView table;
        table.setAnalysis(analysisOf(small("one two three")));
        table.setHead(1);
        QSignalSpy data(table.model(), &QAbstractItemModel::dataChanged);
        QSignalSpy header(table.model(), &QAbstractItemModel::headerDataChanged);
        QSignalSpy selection(table.selectionModel(), &QItemSelectionModel::selectionChanged);
        Config c = small("one two three");
        c.temperature = 2.0;
        table.setAnalysis(analysisOf(c));
        c.seed = 77;  // new random weights: full rank again
        table.setAnalysis(analysisOf(c));
        expectEngineRanks(table, *analysisOf(c));
        QCOMPARE(data.count(), 0);
        QCOMPARE(header.count(), 0);
        QCOMPARE(selection.count(), 0);
    }

    void otherRanksKeepTheItemsAndSetOnlyWhatDiffers() {
        RankTableView table;
        table.setAnalysis(analysisOf(small("one two three")));  // logits rank 3 of bound 3
        std::vector<QTableWidgetItem*> items;
        for (int r = 0; r < table.rowCount(); ++r)
            for (int c = 0; c < 4; ++c) items.push_back(table.item(r, c));
        QSignalSpy data(table.model(), &QAbstractItemModel::dataChanged);
        QSignalSpy header(table.model(), &QAbstractItemModel::headerDataChanged);
        const auto five = analysisOf(small("one two three four five"));  // logits rank 5 of bound 5
        table.setAnalysis(five);
        expectEngineRanks(table, *five);
        std::size_t k = 0;
        for (int r = 0; r < table.rowCount(); ++r)
            for (int c = 0; c < 4; ++c) QCOMPARE(table.item(r, c), items[k++]);  // the same items
        // Only the logits column changed: its four texts and its header.
        QCOMPARE(data.count(), 4);
        for (const auto& args : data) QCOMPARE(args.at(0).toModelIndex().column(), 3);
        QCOMPARE(header.count(), 1);
        QCOMPARE(header.first().at(1).toInt(), 3);

        // More heads: rows added, the old ones kept.
        Config eight = small("one two three four five");
        eight.heads = 8;
        const auto more = analysisOf(eight);
        table.setAnalysis(more);
        expectEngineRanks(table, *more);
        QCOMPARE(table.item(0, 1), items[1]);
    }

    void selectionTooltipsAndWidth() {
        Config c = small("one two three");
        c.init = InitKind::Identity;  // W_Q = W_K = I: head i's slices are orthogonal, ranks full
        const auto full = analysisOf(c);
        RankTableView table;
        table.setAnalysis(full);
        table.setHead(2);
        QCOMPARE(table.selectionModel()->selectedRows().size(), 1);
        QCOMPARE(table.selectionModel()->selectedRows().front().row(), 2);
        QSignalSpy clicked(&table, &RankTableView::headClicked);
        table.setHead(3);  // the document's head: no click back
        QCOMPARE(clicked.count(), 0);
        table.selectRow(1);  // a user's click
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(clicked.first().at(0).toInt(), 1);
        QVERIFY(!table.horizontalHeaderItem(1)->toolTip().isEmpty());
        QVERIFY(table.item(0, 1)->toolTip().isEmpty());  // full rank: no note
        // At its minimum width every column is whole; wider, the columns share the room (the
        // table alone on a lesson step in presentation mode).
        table.setAttribute(Qt::WA_DontShowOnScreen);
        table.show();
        const auto wholeAtMinimum = [&]() {
            table.resize(table.minimumWidth(), 400);
            QVERIFY(table.horizontalHeader()->length() <= table.viewport()->width());
            for (int col = 0; col < 4; ++col)
                QVERIFY(table.columnWidth(col) >= table.fontMetrics().horizontalAdvance(table.item(0, col)->text()));
        };
        wholeAtMinimum();
        const int narrow = table.minimumWidth();
        table.resize(1000, 400);
        QVERIFY2(table.horizontalHeader()->length() >= table.viewport()->width() - 4,
                 qPrintable(QStringLiteral("columns %1 px in %2").arg(table.horizontalHeader()->length()).arg(table.viewport()->width())));
        // Larger fonts: the columns are sized again.
        ViewOptions big;
        big.font_scale = 2;
        table.setOptions(big);
        QVERIFY(table.minimumWidth() > narrow);
        wholeAtMinimum();

        // A rank below its bound carries a tooltip (W_Q with two equal columns in every head).
        Analysis low = *full;
        Weights tied = low.weights();
        for (int h = 0; h < tied.heads; ++h) tied.W_Q.col(h * tied.d_k + 1) = tied.W_Q.col(h * tied.d_k);
        low.setWeights(std::move(tied));
        low.spectra = headSpectra(low.weights());
        table.setAnalysis(std::make_shared<const Analysis>(low));
        QCOMPARE(table.item(0, 1)->text().toInt(), 7);
        QVERIFY(table.item(0, 1)->toolTip().contains("below its bound"));
        QVERIFY(table.item(0, 2)->toolTip().isEmpty());
    }

    // Every head's number stands out from the table's background, on the light palette and on
    // presentation mode's near-black one (head 6 is Okabe & Ito's black: it vanished there).
    // WCAG's ratio from its closed form: black on white 21, a colour on itself 1.
    void headNumbersStandOutOnDarkAndLight() {
        QCOMPARE(contrastRatio(Qt::black, Qt::white), 21.0);
        QCOMPARE(contrastRatio(QColor(0, 114, 178), QColor(0, 114, 178)), 1.0);
        Config c = small("one two three");
        c.heads = 8;
        c.d_k = 4;
        RankTableView table;
        table.setAnalysis(analysisOf(c));
        for (const QColor& base : {QColor(255, 255, 255), QColor(16, 16, 16)}) {
            QPalette palette = table.palette();
            palette.setColor(QPalette::Base, base);
            palette.setColor(QPalette::Text, base.lightness() > 128 ? Qt::black : QColor(235, 235, 235));
            table.setPalette(palette);
            QCOMPARE(table.rowCount(), 8);
            for (int r = 0; r < table.rowCount(); ++r) {
                const QColor shown = table.item(r, 0)->foreground().color();
                QVERIFY2(contrastRatio(shown, base) >= 3.0,
                         qPrintable(QStringLiteral("head %1: %2 on %3, contrast %4").arg(r).arg(shown.name(), base.name())
                                        .arg(contrastRatio(shown, base))));
            }
        }
    }
};

HEADSCOPE_QTEST_MAIN(TestRankTable)
#include "test_rank_table.moc"
