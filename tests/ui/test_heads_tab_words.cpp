// The Heads tab's words in every size (issue 21 item 2): where words must thin, every k-th word
// is written WITH its position ("6:because"), never a thinned list that reads like the sequence
// ("The ... because"); a whole list of words only where every word has its row or column.
// Checked on the large head and on the grid beside or instead of it, at the sizes a projector
// gives: 1024 x 768 at QT_SCALE_FACTOR=2 (a 512 x 384 logical window: fonts twice the size
// relative to the pixels), 1024 x 768 at View > Larger (font scale 2), and grids of 16 heads.
// The thumbnails beside the large head (issue 21, thumbnails that read at full HD): near square
// and at least kMinThumbnail pixels, in as many columns as that takes.
#include <QSignalSpy>
#include <QSplitter>
#include <QTextDocument>
#include <QtTest>
#include "QtTestGroup.h"

#include "Analysis.h"
#include "GridShape.h"
#include "HeadDetailView.h"
#include "HeadGridView.h"
#include "HeadsTab.h"
#include "Heatmap.h"
#include "ModelDock.h"
#include "Session.h"

using namespace headscope;
using namespace headscope::ui;

namespace {

std::shared_ptr<const Analysis> makeAnalysis(int heads) {
    Config config;  // the demo sentence, 11 words
    config.heads = heads;
    return std::make_shared<const Analysis>(analyze(config, false));
}

// Every word-carrying axis of `plot` that shows its labels: the shown labels are the whole word
// list (n labels, none empty) or each non-empty label at tick i reads "i:...". Returns how many
// axes were thinned (so that a scenario can require that thinning happened at all); each label
// that breaks the rule is added to problems.
int checkAxes(QCustomPlot* plot, const QString& where, QStringList* problems) {
    int thinned = 0;
    for (QCPAxisRect* rect : plot->axisRects()) {
        for (QCPAxis* axis : {rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft)}) {
            if (!axis || !axis->visible() || !axis->tickLabels()) continue;
            const auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(axis->ticker());
            if (!ticker) continue;  // bare positions (numbers), allowed where no word fits
            const QMap<double, QString> ticks = ticker->ticks();
            int shown = 0;
            for (const QString& label : ticks) shown += label.isEmpty() ? 0 : 1;
            if (shown == ticks.size()) continue;  // every word: a whole list
            ++thinned;
            for (auto it = ticks.cbegin(); it != ticks.cend(); ++it) {
                if (it.value().isEmpty()) continue;
                const QString prefix = QString::number(int(it.key())) + QLatin1Char(':');
                if (!it.value().startsWith(prefix))
                    *problems << QStringLiteral("%1: thinned label '%2' at position %3 carries no position")
                                     .arg(where, it.value())
                                     .arg(it.key());
            }
        }
    }
    return thinned;
}

}  // namespace

class TestHeadsTabWords : public QObject {
    Q_OBJECT

private slots:
    // The Heads tab as the window gives it room: (tab size, font scale, heads).
    void everyLabelIsAWholeListOrPositionWord_data() {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<double>("font_scale");
        QTest::addColumn<int>("heads");
        QTest::addColumn<bool>("must_thin");
        // 1024 x 768 at QT_SCALE_FACTOR=2: the tab gets about 512 x 280 logical pixels.
        QTest::newRow("512x384 window (2x), 8 heads") << QSize(512, 280) << 1.0 << 8 << true;
        QTest::newRow("1024x768 window, 2x fonts, 8 heads") << QSize(1024, 560) << 2.0 << 8 << true;
        QTest::newRow("1024x768 window, 16 heads") << QSize(1024, 640) << 1.0 << 16 << true;
        QTest::newRow("1024x768 window, 2x fonts, 16 heads") << QSize(1024, 560) << 2.0 << 16 << true;
        QTest::newRow("1920x1080 window, 8 heads") << QSize(1600, 880) << 1.0 << 8 << false;
    }
    void everyLabelIsAWholeListOrPositionWord() {
        QFETCH(QSize, size);
        QFETCH(double, font_scale);
        QFETCH(int, heads);
        QFETCH(bool, must_thin);
        const auto a = makeAnalysis(heads);
        ViewOptions options;
        options.font_scale = font_scale;
        const QString where = QStringLiteral("%1x%2 at %3x fonts, %4 heads").arg(size.width()).arg(size.height()).arg(font_scale).arg(heads);
        int thinned = 0;
        QStringList problems;
        for (const bool focus : {true, false}) {  // the large head with thumbnails, and the grid alone
            auto* grid = new HeadGridView;
            auto* large = new HeadDetailView;
            HeadsTab tab(grid, large);
            tab.setFocusWanted(focus);
            grid->setOptions(options);
            large->setOptions(options);
            grid->setAnalysis(a);
            large->setAnalysis(a);
            tab.resize(size);
            tab.show();
            QVERIFY(QTest::qWaitForWindowExposed(&tab));
            grid->replotNow();
            large->replotNow();
            grid->replotNow();
            const QString w = where + (tab.focusShown() ? QStringLiteral(", large head") : QStringLiteral(", grid alone"));
            if (tab.focusShown()) thinned += checkAxes(large->plot(), w + QStringLiteral(" (large head)"), &problems);
            if (!grid->thumbnails()) thinned += checkAxes(grid, w + QStringLiteral(" (grid)"), &problems);
        }
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
        // The scenarios that must thin do (else the check above saw only whole lists).
        if (must_thin) QVERIFY2(thinned > 0, qPrintable(where + QStringLiteral(": no axis thinned")));
    }

    // Sixteen heads alone in a 1024 x 768 window: the grid's words thinned with positions.
    // Issue 36 item 20: a character no installed font draws (an empty box) is named by its code
    // point in every token label; one the text font has stays itself.
    void aCharacterNoFontDrawsIsNamedByItsCodePoint() {
        QCOMPARE(heatmap::drawable(QStringLiteral("café ␣…")), QStringLiteral("café ␣…"));
        const char32_t unassigned[] = {U'a', 0x0378, 0x0379, U'b'};  // no font has a glyph for an unassigned code point
        QCOMPARE(heatmap::drawable(QString::fromUcs4(unassigned, 4)), QStringLiteral("aU+0378 U+0379b"));
        Config c;
        Analysis a = analyze(c, true);
        a.input.query.tokens[1] = QString::fromUcs4(unassigned + 1, 1).toStdString();
        QCOMPARE(heatmap::queryLabels(a)[1], QStringLiteral("U+0378"));
        QCOMPARE(heatmap::queryLabels(a)[0], QStringLiteral("The"));
        // Issue 36 item 19: a piece of a character split across tokens ("é…", text::joinSplitCharacters)
        // gives its bytes where the cell under the mouse is described; a word and an ellipsis do not.
        a.input.query.tokens[2] = "é…";
        a.input.key_value.tokens[3] = "…東";
        a.input.key_value.tokens[4] = "so…";
        const QString cell = heatmap::cellText(a, 0, 2, 3);
        QVERIFY2(cell.contains(QStringLiteral("'é…' is a piece of é (UTF-8 0xC3 0xA9)")) &&
                     cell.contains(QStringLiteral("'…東' is a piece of 東 (UTF-8 0xE6 0x9D 0xB1)")),
                 qPrintable(cell));
        QVERIFY2(!heatmap::cellText(a, 0, 5, 4).contains(QStringLiteral("piece")), qPrintable(heatmap::cellText(a, 0, 5, 4)));
    }

    void sixteenHeadsGrid() {
        HeadGridView view;
        view.resize(1024, 768);
        view.setViewport(QRect(0, 0, 1024, 768));
        view.setAnalysis(makeAnalysis(16));
        view.replotNow();
        view.replotNow();
        QVERIFY(view.keyLabelStride() > 1 || view.queryLabelStride() > 1);
        QStringList problems;
        QVERIFY(checkAxes(&view, QStringLiteral("16 heads at 1024 x 768"), &problems) > 0);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    }

    // Where the heads go beside the large head at full HD (the grid about 350 x 540 pixels
    // less its titles and bar): two columns of near-square thumbnails, not a column of strips.
    void thumbnailColumnsAreNearSquare() {
        QCOMPARE(thumbnailColumns(8, QSize(240, 480), 30, 10), 2);  // 110 x 80 each; one column: 30 px
        QVERIFY(thumbnailSide(8, 1, QSize(240, 480), 30, 10) < kMinThumbnail);
        QVERIFY(thumbnailSide(8, 2, QSize(240, 480), 30, 10) >= kMinThumbnail);
        QCOMPARE(thumbnailColumns(4, QSize(800, 200), 30, 10), 4);  // a wide strip: one row
        QCOMPARE(thumbnailColumns(1, QSize(100, 100), 30, 10), 1);
    }

    // The Heads tab at the sizes full HD gives it: every thumbnail at least kMinThumbnail pixels
    // both ways and near square (sides within 2:1), and a click on one selects it.
    void thumbnailsReadAtFullHd_data() {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<int>("heads");
        QTest::newRow("1400x900 window, 8 heads") << QSize(1040, 540) << 8;
        QTest::newRow("1920x1080 maximised, 8 heads") << QSize(1500, 760) << 8;
        QTest::newRow("1920x1080 maximised, 12 heads") << QSize(1500, 760) << 12;
        QTest::newRow("1920x1080 window with docks, 8 heads") << QSize(1040, 560) << 8;
    }
    void thumbnailsReadAtFullHd() {
        QFETCH(QSize, size);
        QFETCH(int, heads);
        auto* grid = new HeadGridView;
        auto* large = new HeadDetailView;
        HeadsTab tab(grid, large);
        grid->setAnalysis(makeAnalysis(heads));
        large->setAnalysis(grid->analysis());
        tab.resize(size);
        tab.show();
        QVERIFY(QTest::qWaitForWindowExposed(&tab));
        QTRY_VERIFY_WITH_TIMEOUT(tab.focusShown() && grid->thumbnails(), 10000);
        QApplication::processEvents();  // the queued arrangement for the head count
        grid->replotNow();
        for (int h = 0; h < heads; ++h) {
            const QRect r = grid->headRect(h)->rect();
            QVERIFY2(grid->viewport().contains(r), qPrintable(QStringLiteral("head %1's thumbnail (%2,%3 %4 x %5) leaves the grid (%6 x %7)")
                                                                 .arg(h).arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height()).arg(grid->width()).arg(grid->height())));
            QVERIFY2(r.width() >= kMinThumbnail && r.height() >= kMinThumbnail && std::max(r.width(), r.height()) <= 2 * std::min(r.width(), r.height()),
                     qPrintable(QStringLiteral("head %1's thumbnail is %2 x %3 (grid %4 x %5, %6 columns)")
                                    .arg(h).arg(r.width()).arg(r.height()).arg(grid->width()).arg(grid->height()).arg(grid->columnCount())));
        }
        QSignalSpy clicked(grid, &HeadGridView::headClicked);
        QTest::mouseClick(grid, Qt::LeftButton, Qt::NoModifier, grid->headRect(heads - 1)->rect().center());
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(clicked.first().first().toInt(), heads - 1);
    }

    // The split the user drags stays through every resize (issue 21): the default (two fifths for
    // the thumbnails, or what keeps them square) only until the handle is moved.
    void splitterKeepsTheUsersRatio() {
        auto* grid = new HeadGridView;
        auto* large = new HeadDetailView;
        HeadsTab tab(grid, large);
        grid->setAnalysis(makeAnalysis(4));
        large->setAnalysis(grid->analysis());
        tab.resize(1400, 800);
        tab.show();
        QVERIFY(QTest::qWaitForWindowExposed(&tab));
        QTRY_VERIFY_WITH_TIMEOUT(tab.focusShown(), 10000);
        QApplication::processEvents();  // the queued arrangement for the head count
        QSplitter* split = tab.splitter();
        QCOMPARE(split->orientation(), Qt::Horizontal);
        const int before = split->sizes().at(0);
        QCOMPARE(tab.userRatio(), -1.0);
        // The handle dragged 150 px to the left, as a mouse does it: the large head narrower.
        QSplitterHandle* handle = split->handle(1);
        const QPoint from = handle->rect().center(), to = from - QPoint(150, 0);
        const auto send = [handle](QEvent::Type type, QPoint at, Qt::MouseButton button, Qt::MouseButtons buttons) {
            QMouseEvent event(type, QPointF(at), QPointF(handle->mapToGlobal(at)), button, buttons, Qt::NoModifier);
            QApplication::sendEvent(handle, &event);
        };
        send(QEvent::MouseButtonPress, from, Qt::LeftButton, Qt::LeftButton);
        send(QEvent::MouseMove, to, Qt::NoButton, Qt::LeftButton);
        send(QEvent::MouseButtonRelease, to, Qt::LeftButton, Qt::NoButton);
        const QList<int> dragged = split->sizes();
        QVERIFY2(std::abs(dragged.at(0) - (before - 150)) <= 2,
                 qPrintable(QStringLiteral("the drag left the large head %1 px wide, from %2").arg(dragged.at(0)).arg(before)));
        const double ratio = double(dragged.at(0)) / double(dragged.at(0) + dragged.at(1));
        // Resized wider, narrower, back, and the head count changed: the ratio stays (within a pixel's rounding).
        const QSize sizes[] = {QSize(1800, 950), QSize(1200, 700), QSize(1400, 800)};
        for (const QSize& size : sizes) {
            tab.resize(size);
            QApplication::processEvents();
            const QList<int> now = split->sizes();
            const double kept = double(now.at(0)) / double(now.at(0) + now.at(1));
            QVERIFY2(std::abs(kept - ratio) < 2.0 / (now.at(0) + now.at(1)),
                     qPrintable(QStringLiteral("at %1 x %2 the large head has %3 of the split, the user left it at %4")
                                    .arg(size.width()).arg(size.height()).arg(kept).arg(ratio)));
        }
        grid->setAnalysis(makeAnalysis(8));
        QApplication::processEvents();  // the queued arrangement for the head count
        const QList<int> now = split->sizes();
        QVERIFY2(std::abs(double(now.at(0)) / double(now.at(0) + now.at(1)) - ratio) < 2.0 / (now.at(0) + now.at(1)),
                 "a new head count put the default split back");
    }

    // The model dock at 2x fonts (1024 x 768 at QT_SCALE_FACTOR=2 gives it about 240 logical
    // pixels): the model's path wraps at its slashes, no label is wider than the dock.
    void modelDockWrapsItsPath() {
        const QString dir = QStringLiteral(HEADSCOPE_SHARED_MODELS_DIR "/llama-induction");
        if (!QDir(dir).exists()) QSKIP("../shared/models/llama-induction is absent: a model directory is needed");
        Session session;
        ModelDock dock(&session);
        QSignalSpy opened(&session, &Session::sourceChanged);
        session.openModel(dir);
        QVERIFY(opened.wait(60000));
        dock.resize(240, 600);
        dock.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dock));
        QApplication::processEvents();
        auto* name = dock.findChild<QLabel*>(QStringLiteral("model_name"));
        QVERIFY(name && name->text().contains(QStringLiteral("llama")));
        QCOMPARE(name->toolTip(), QFileInfo(dir).filePath());
        for (QLabel* label : dock.findChildren<QLabel*>()) {
            if (!label->isVisible()) continue;
            // The text laid out at the label's width: its widest line (an unbreakable path
            // overflows, and QLabel cuts it) within the label, the label within the dock.
            QTextDocument text;
            text.setDefaultFont(label->font());
            text.setDocumentMargin(0);
            text.setHtml(label->text());
            text.setTextWidth(label->contentsRect().width());
            const int right = label->mapTo(&dock, QPoint(label->width(), 0)).x();
            QVERIFY2(text.idealWidth() <= label->contentsRect().width() + 1 && right <= dock.width(),
                     qPrintable(QStringLiteral("'%1' is %2 px wide in a label %3 px wide reaching %4 px of a dock %5 px wide")
                                    .arg(label->text())
                                    .arg(text.idealWidth())
                                    .arg(label->contentsRect().width())
                                    .arg(right)
                                    .arg(dock.width())));
        }
    }
};

HEADSCOPE_QTEST_MAIN(TestHeadsTabWords)
#include "test_heads_tab_words.moc"
