#pragma once
// The one way HeadScope runs a result in the background (issue 24): at most one job runs, on a
// thread of its own pool; a request made while one runs replaces the single waiting request,
// so a burst (a slider drag, a run of clicks) computes the latest value next and not every
// value in between. A result is handed over, on the thread that made the requests, only when
// no newer request was made after its own: stale results are dropped, never shown.
//
//   LatestOnly<std::shared_ptr<const Circuits>> circuits_;
//   circuits_.request([analysis, head] { return formCircuits(*analysis, head); },
//                     [this](std::shared_ptr<const Circuits> c) { show(c); });
//
// work runs on the worker thread and must only read what it captured (immutable, shared
// data); it must not throw (catch inside and return an empty result). ready runs on the
// requesting thread. The destructor waits for a running job and drops its result.

#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include <QCoreApplication>
#include <QMetaObject>
#include <QObject>
#include <QThreadPool>

namespace headscope::ui {

template <typename T>
class LatestOnly {
public:
    using Work = std::function<T()>;
    using Ready = std::function<void(T)>;

    LatestOnly() : context_(std::make_unique<QObject>()) { pool_.setMaxThreadCount(1); }
    ~LatestOnly() {
        pending_.reset();
        pool_.waitForDone();
        context_.reset();  // a result posted back is discarded with its receiver
    }
    LatestOnly(const LatestOnly&) = delete;
    LatestOnly& operator=(const LatestOnly&) = delete;

    // Called after every job ends, its result handed over or dropped (e.g. to update a busy flag).
    void setFinished(std::function<void()> finished) { finished_ = std::move(finished); }

    void request(Work work, Ready ready) {
        ++generation_;
        pending_ = Job{std::move(work), std::move(ready), generation_};
        if (!running_) startPending();
    }
    // Drops the waiting request and the result of the running one.
    void cancel() {
        ++generation_;
        pending_.reset();
    }
    // A job runs or waits.
    bool busy() const { return running_ || pending_.has_value(); }
    // Blocks until no job runs or waits, handing the latest result over before it returns: for
    // export and tests, which need the result now (never on the interactive path).
    void wait() {
        while (busy()) {
            pool_.waitForDone();
            QCoreApplication::sendPostedEvents(context_.get());  // onDone, which may start the waiting job
        }
    }
    // Requests made so far, and jobs started: started() < requests() when a burst coalesced.
    long long requests() const { return generation_; }
    long long started() const { return started_; }

private:
    struct Job {
        Work work;
        Ready ready;
        long long generation = 0;
    };

    void startPending() {
        Job job = std::move(*pending_);
        pending_.reset();
        running_ = true;
        ++started_;
        QObject* context = context_.get();
        pool_.start([this, context, job = std::move(job)]() mutable {
            // Worker thread: job.work reads only what it captured.
            T result = job.work();
            QMetaObject::invokeMethod(context, [this, job = std::move(job), result = std::move(result)]() mutable {
                onDone(std::move(job), std::move(result));
            }, Qt::QueuedConnection);
        });
    }

    void onDone(Job job, T result) {
        running_ = false;
        if (job.generation == generation_) job.ready(std::move(result));  // nothing newer was asked
        if (pending_ && !running_) startPending();  // ready may have requested again
        if (finished_) finished_();
    }

    QThreadPool pool_;
    std::unique_ptr<QObject> context_;  // lives in the requesting thread; results are posted to it
    std::optional<Job> pending_;
    std::function<void()> finished_;
    long long generation_ = 0;
    long long started_ = 0;
    bool running_ = false;
};

}  // namespace headscope::ui
