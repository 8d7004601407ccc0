// LatestOnly (ui/views/LatestOnly.h), the one background helper: a burst of requests runs
// the first and the last, only the last result is handed over, on the requesting thread;
// cancel() drops what is in flight; the destructor waits for a running job. Previews reach the
// requesting thread before their result and only while their job is current; ordered jobs (loads)
// are never replaced and run before the waiting request; Handover::EveryStarted shows each
// started job (the Session's analysis).
#include <atomic>
#include <memory>
#include <string>

#include <QSemaphore>
#include <QThread>
#include <QtTest>
#include "QtTestGroup.h"

#include "LatestOnly.h"

using headscope::ui::LatestOnly;

class TestLatestOnly : public QObject {
    Q_OBJECT

private slots:
    void aResultArrivesOnTheRequestingThread() {
        LatestOnly<int> latest;
        QThread* worker = nullptr;
        QThread* receiver = nullptr;
        int got = -1;
        latest.request([&worker]() { worker = QThread::currentThread(); return 42; },
                       [&](int value) { receiver = QThread::currentThread(); got = value; });
        QVERIFY(latest.busy());
        QTRY_VERIFY(!latest.busy());
        QCOMPARE(got, 42);
        QCOMPARE(receiver, QThread::currentThread());
        QVERIFY(worker != nullptr && worker != QThread::currentThread());  // computed off this thread
    }

    void aBurstComputesTheFirstAndTheLatestAndShowsOnlyTheLatest() {
        LatestOnly<int> latest;
        QSemaphore gate;  // holds the first job until the burst is in
        QList<int> computed, shown;
        int finished = 0;
        latest.setFinished([&finished]() { ++finished; });
        for (int i = 1; i <= 5; ++i) {
            latest.request([&gate, &computed, i]() {
                if (i == 1) gate.acquire();
                computed << i;  // one job at a time: no race on the list
                return i * 10;
            }, [&shown](int value) { shown << value; });
        }
        gate.release();
        QTRY_VERIFY(!latest.busy());
        QCOMPARE(computed, (QList<int>{1, 5}));  // 2, 3 and 4 were replaced while 1 ran
        QCOMPARE(shown, (QList<int>{50}));       // 1's result was stale when it came
        QCOMPARE(latest.requests(), 5);
        QCOMPARE(latest.started(), 2);
        QCOMPARE(finished, 2);
    }

    void cancelDropsTheRunningResultAndTheWaitingRequest() {
        LatestOnly<int> latest;
        QSemaphore gate;
        QList<int> shown;
        latest.request([&gate]() { gate.acquire(); return 1; }, [&shown](int v) { shown << v; });
        latest.request([]() { return 2; }, [&shown](int v) { shown << v; });
        latest.cancel();
        gate.release();
        QTRY_VERIFY(!latest.busy());
        QVERIFY(shown.isEmpty());
        latest.request([]() { return 3; }, [&shown](int v) { shown << v; });  // usable again
        QTRY_VERIFY(!latest.busy());
        QCOMPARE(shown, (QList<int>{3}));
    }

    void aPreviewArrivesBeforeItsResultOnTheRequestingThread() {
        LatestOnly<int, QString> latest;
        QStringList events;
        QThread* receiver = nullptr;
        latest.request([](const auto& publish) {
            publish(QStringLiteral("forward"));
            return 7;
        }, [&](QString preview) { receiver = QThread::currentThread(); events << preview; },
           [&events](int value) { events << QString::number(value); });
        QTRY_VERIFY(!latest.busy());
        QCOMPARE(events, (QStringList{"forward", "7"}));
        QCOMPARE(receiver, QThread::currentThread());
    }

    void previewsOfAStaleJobAreDropped() {
        LatestOnly<int> latest;  // Handover::NewestRequest
        QSemaphore published, gate;
        QList<int> previews, shown;
        latest.request([&](const auto& publish) {
            publish(1);          // before the newer request: still current when it is posted...
            published.release();
            gate.acquire();
            publish(2);          // ...but it arrives after the newer request, like this one
            return 10;
        }, [&previews](int p) { previews << p; }, [&shown](int v) { shown << v; });
        published.acquire();     // the first preview is posted, not yet delivered
        latest.request([](const auto& publish) {
            publish(3);
            return 30;
        }, [&previews](int p) { previews << p; }, [&shown](int v) { shown << v; });
        gate.release();
        QTRY_VERIFY(!latest.busy());
        QCOMPARE(previews, (QList<int>{3}));  // 1 and 2 were stale when they came
        QCOMPARE(shown, (QList<int>{30}));
    }

    void aLoadFollowedByABurstRunsTheLoadThenOnlyTheNewest() {
        LatestOnly<int> latest;
        QSemaphore gate;
        QStringList computed;  // one job at a time: no race on the list
        QStringList handed;
        latest.enqueue([&]() {
            gate.acquire();
            computed << "load";
            return std::string("weights");
        }, [&handed](const std::string& loaded) { handed << QString::fromStdString(loaded); });
        for (int i = 1; i <= 5; ++i)
            latest.request([&computed, i]() { computed << QString::number(i); return i; },
                           [&handed](int v) { handed << QString::number(v); });
        const long long started_behind_load = latest.started();
        gate.release();  // before any check: a failed check must not leave the load blocked
        QTRY_VERIFY(!latest.busy());
        QCOMPARE(started_behind_load, 0);  // the burst waited behind the load
        QCOMPARE(computed, (QStringList{"load", "5"}));
        QCOMPARE(handed, (QStringList{"weights", "5"}));
        QCOMPARE(latest.requests(), 5);
        QCOMPARE(latest.started(), 1);
    }

    void orderedJobsRunInOrderAfterTheRunningOneAndBeforeTheWaitingOne() {
        LatestOnly<int> latest;
        QSemaphore gate;
        QStringList computed, handed;
        latest.request([&]() { gate.acquire(); computed << "a"; return 1; },
                       [&handed](int) { handed << "a"; });
        latest.request([&computed]() { computed << "b"; return 2; }, [&handed](int) { handed << "b"; });
        for (const QString& name : {QStringLiteral("load1"), QStringLiteral("load2")})
            latest.enqueue([&computed, name]() { computed << name; return name; },
                           [&handed](const QString& n) { handed << n; });
        latest.request([&computed]() { computed << "c"; return 3; }, [&handed](int) { handed << "c"; });
        latest.cancel();  // drops a, and c waiting; never a load
        latest.request([&computed]() { computed << "d"; return 4; }, [&handed](int) { handed << "d"; });
        gate.release();
        QTRY_VERIFY(!latest.busy());
        QCOMPARE(computed, (QStringList{"a", "load1", "load2", "d"}));
        QCOMPARE(handed, (QStringList{"load1", "load2", "d"}));
    }

    void aRequestMadeByALoadsReadyReplacesTheWaitingOne() {
        // The Session: a model opens while an analysis runs and another waits; the load's ready
        // asks for the analysis with the new weights, which must replace the one on the old ones.
        LatestOnly<int> latest;
        QSemaphore gate;
        QStringList computed;
        latest.request([&]() { gate.acquire(); computed << "old1"; return 1; }, [](int) {});
        latest.enqueue([&computed]() { computed << "load"; return 0; }, [&](int) {
            latest.request([&computed]() { computed << "new"; return 3; }, [](int) {});
        });
        latest.request([&computed]() { computed << "old2"; return 2; }, [](int) {});
        gate.release();
        QTRY_VERIFY(!latest.busy());
        QCOMPARE(computed, (QStringList{"old1", "load", "new"}));
    }

    void everyStartedHandsOverEachStartedJobUntilCancelled() {
        using Latest = LatestOnly<int>;
        Latest latest(Latest::Handover::EveryStarted);
        QSemaphore gate;
        QList<int> computed, previews, shown;
        const auto ask = [&](int i) {
            latest.request([&gate, &computed, i](const auto& publish) {
                if (i == 1) gate.acquire();
                computed << i;
                publish(i);
                return i * 10;
            }, [&previews](int p) { previews << p; }, [&shown](int v) { shown << v; });
        };
        for (int i = 1; i <= 5; ++i) ask(i);
        gate.release();
        QTRY_VERIFY(!latest.busy());
        QCOMPARE(computed, (QList<int>{1, 5}));  // still coalesced
        QCOMPARE(previews, (QList<int>{1, 5}));  // 1 was not cancelled: it is shown
        QCOMPARE(shown, (QList<int>{10, 50}));

        ask(1);  // waits on the gate again
        ask(6);
        latest.dropWaiting();  // 6 never runs; 1 is still shown
        gate.release();
        QTRY_VERIFY(!latest.busy());
        QCOMPARE(shown, (QList<int>{10, 50, 10}));

        ask(1);
        latest.cancel();  // 1's preview and result are dropped
        gate.release();
        QTRY_VERIFY(!latest.busy());
        QCOMPARE(computed, (QList<int>{1, 5, 1, 1}));
        QCOMPARE(previews, (QList<int>{1, 5, 1}));
        QCOMPARE(shown, (QList<int>{10, 50, 10}));
    }

    void theDestructorWaitsForARunningJobAndDropsItsResult() {
        auto done = std::make_shared<std::atomic<bool>>(false);
        bool shown = false;
        {
            LatestOnly<int> latest;
            latest.request([done]() {
                QThread::msleep(50);
                done->store(true);
                return 1;
            }, [&shown](int) { shown = true; });
        }
        QVERIFY(done->load());  // waited for
        QCoreApplication::processEvents();
        QVERIFY(!shown);
    }
};

HEADSCOPE_QTEST_GUILESS_MAIN(TestLatestOnly)
#include "test_latest_only.moc"
