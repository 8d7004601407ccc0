// The view base class (issue 24): a view on AttentionView follows the document through the
// binding's calls of its virtual setters (the analysis, the head, the cell, the head's circuits
// and the view options), only for what it says it follows; its clicks and hovers reach the
// selection; and hidden, it does no work until it is shown, then refreshes once.

#include <QSignalSpy>
#include <QtTest>
#include "QtTestGroup.h"

#include "AttentionView.h"
#include "Session.h"
#include "ViewBinding.h"

using namespace headscope;
using namespace headscope::ui;

namespace {

// A view that counts its refreshes and keeps what the document gave it (the base class's state).
class CountingView : public AttentionView {
public:
    explicit CountingView(Inputs follows) : AttentionView(follows, nullptr) { resize(200, 120); }
    int refreshes = 0;

protected:
    void refresh() override { ++refreshes; }
};

constexpr AttentionView::Inputs kEverything = AttentionView::FollowsAnalysis | AttentionView::FollowsHead |
                                              AttentionView::FollowsCell | AttentionView::FollowsCircuits;

Config threeWordConfig(std::uint64_t seed) {
    Config c;
    c.d_model = 8;
    c.heads = 2;
    c.text = "one two three";
    c.seed = seed;
    return c;
}

}  // namespace

class TestAttentionView : public QObject {
    Q_OBJECT

private slots:
    void followsTheDocumentThroughTheBaseClass() {
        Session session;
        session.setConfig(threeWordConfig(1));
        QVERIFY(session.waitForIdle(60000));
        CountingView view(kEverything);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        bindView(&session, &view);
        QCOMPARE(view.analysis(), session.analysis());  // what the document has when the view is bound

        session.setHead(1);
        QCOMPARE(view.head(), 1);
        QTRY_VERIFY_WITH_TIMEOUT(view.circuits() && view.circuits()->head == 1, 60000);
        session.setCell(2, 1);
        QCOMPARE(view.cellRow(), 2);
        QCOMPARE(view.cellColumn(), 1);
        ViewOptions options = session.viewOptions();
        options.font_scale = 1.75;
        options.show_logits = !options.show_logits;
        session.setViewOptions(options);
        QCOMPARE(view.options().font_scale, 1.75);
        QCOMPARE(view.options().show_logits, options.show_logits);
        QSignalSpy changed(&session, &Session::changed);
        session.setConfig(threeWordConfig(2));
        QVERIFY(changed.wait(60000));
        QVERIFY(view.analysis());
        QCOMPARE(view.analysis()->config.seed, std::uint64_t(2));  // (the session's may since carry residuals)

        // The view -> the selection.
        emit view.headClicked(0);
        QCOMPARE(session.head(), 0);
        emit view.cellClicked(1, 2);
        QCOMPARE(session.cellRow(), 1);
        QCOMPARE(session.cellColumn(), 2);
        QSignalSpy hover(&session, &Session::hoverChanged);
        emit view.hovered(QStringLiteral("head 0 · one -> two"));
        QCOMPARE(hover.count(), 1);
        QCOMPARE(hover.at(0).at(0).toString(), QStringLiteral("head 0 · one -> two"));
    }

    void followsOnlyWhatItSays() {
        Session session;
        session.setConfig(threeWordConfig(1));
        QVERIFY(session.waitForIdle(60000));
        CountingView view(AttentionView::FollowsAnalysis);  // as the costs view
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        bindView(&session, &view);
        QCOMPARE(view.analysis(), session.analysis());
        const int before = view.refreshes;
        session.setHead(1);
        session.setCell(2, 1);
        QVERIFY(session.waitForIdle(60000));  // the head's circuits formed too
        QCOMPARE(view.head(), 0);
        QCOMPARE(view.cellRow(), -1);
        QVERIFY(!view.circuits());
        QCOMPARE(view.refreshes, before);  // nothing it does not follow costs it a refresh
    }

    void aHiddenViewRefreshesOnceWhenShown() {
        Session session;
        session.setConfig(threeWordConfig(1));
        QVERIFY(session.waitForIdle(60000));
        CountingView view(kEverything);
        bindView(&session, &view);  // hidden: given everything, draws nothing
        session.setHead(1);
        session.setCell(2, 0);
        QSignalSpy changed(&session, &Session::changed);
        session.setConfig(threeWordConfig(3));
        QVERIFY(changed.wait(60000));
        QVERIFY(session.waitForIdle(60000));
        QCOMPARE(view.refreshes, 0);
        QCOMPARE(view.head(), 1);
        QVERIFY(view.analysis());
        QCOMPARE(view.analysis()->config.seed, std::uint64_t(3));

        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCOMPARE(view.refreshes, 1);  // all that changed while hidden, drawn once
        session.setCell(1, 1);
        QCOMPARE(view.refreshes, 2);  // shown: at once
        view.hide();
        session.setCell(0, 0);
        session.setHead(0);
        QVERIFY(session.waitForIdle(60000));  // head 0's circuits delivered, still hidden
        QCOMPARE(view.refreshes, 2);
        view.show();
        QCOMPARE(view.refreshes, 3);
    }
};

HEADSCOPE_QTEST_MAIN(TestAttentionView)
#include "test_attention_view.moc"
