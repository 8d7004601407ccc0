// LatestOnly (ui/document/LatestOnly.h), the one background helper: a burst of requests runs
// the first and the last, only the last result is handed over, on the requesting thread;
// cancel() drops what is in flight; the destructor waits for a running job.
#include <atomic>
#include <memory>

#include <QSemaphore>
#include <QThread>
#include <QtTest>

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

QTEST_GUILESS_MAIN(TestLatestOnly)
#include "test_latest_only.moc"
