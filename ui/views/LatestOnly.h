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
// requesting thread. The destructor waits for a running job and drops its result, its
// previews and every job still waiting.
//
// Two additions serve the Session's analysis (ui/document/Session.h), which also reads files:
// - A preview: request(work, preview, ready) hands work a publish function it may call on the
//   worker (the heatmaps once the forward pass is done, before the spectra); the value is
//   handed to preview on the requesting thread, before the result, and only while the job is
//   still current (as its result would be); a stale job's previews are dropped.
// - An ordered job: enqueue(work, ready) (a model or layer load) is never replaced nor
//   dropped. Ordered jobs run one after another, in the order they were enqueued, on the same
//   single worker: after the running job, before the waiting request. Their ready always runs
//   (but not after the destructor), before the next job starts, so a request it makes replaces
//   the waiting one; they leave the latest-only requests current.
//
// Handover::EveryStarted (the Session's analysis) hands over the result and previews of every
// job that started, unless cancel() came after its request: a drag shows each analysis it
// computed (the first and the latest of a burst), while the requests in between still coalesce.

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

#include <QCoreApplication>
#include <QMetaObject>
#include <QObject>
#include <QThreadPool>

namespace headscope::ui {

template <typename T, typename Preview = T>
class LatestOnly {
public:
    using Work = std::function<T()>;
    using Ready = std::function<void(T)>;
    using Publish = std::function<void(Preview)>;  // called on the worker thread, any number of times
    using WorkWithPreview = std::function<T(const Publish&)>;
    using ShowPreview = std::function<void(Preview)>;

    enum class Handover {
        NewestRequest,  // a result or preview only while no newer request or cancel() was made
        EveryStarted,   // the result and previews of each job that started, unless cancel() came after its request
    };

    explicit LatestOnly(Handover handover = Handover::NewestRequest)
        : handover_(handover), context_(std::make_unique<QObject>()) {
        pool_.setMaxThreadCount(1);
    }
    ~LatestOnly() {
        pending_.reset();
        ordered_.clear();
        pool_.waitForDone();
        context_.reset();  // a result or preview posted back is discarded with its receiver
    }
    LatestOnly(const LatestOnly&) = delete;
    LatestOnly& operator=(const LatestOnly&) = delete;

    // Called after every job ends, its result handed over or dropped (e.g. to update a busy flag).
    void setFinished(std::function<void()> finished) { finished_ = std::move(finished); }

    void request(Work work, Ready ready) {
        request([work = std::move(work)](const Publish&) { return work(); }, ShowPreview{}, std::move(ready));
    }
    void request(WorkWithPreview work, ShowPreview preview, Ready ready) {
        const long long generation = ++generation_;
        ++requests_;
        pending_ = Job{[this, generation, work = std::move(work), preview = std::move(preview),
                        ready = std::move(ready)](QObject* context) -> std::function<void()> {
            // Worker thread: work reads what it captured; publish only posts to context.
            const Publish publish = [this, context, generation, preview](Preview value) {
                if (!preview) return;
                QMetaObject::invokeMethod(context, [this, generation, preview, value = std::move(value)]() {
                    if (current(generation)) preview(value);
                }, Qt::QueuedConnection);
            };
            T result = work(publish);
            return [this, generation, ready, result = std::move(result)]() {
                if (current(generation)) ready(result);
            };
        }, false};
        if (!running_) startNext();
    }

    // An ordered job (see above): work returns any copyable type U, ready takes it.
    template <typename OrderedWork, typename OrderedReady>
    void enqueue(OrderedWork work, OrderedReady ready) {
        using U = std::invoke_result_t<OrderedWork&>;
        ordered_.push_back(Job{[work = std::move(work), ready = std::move(ready)](QObject*) -> std::function<void()> {
            U result = work();  // worker thread
            return [ready, result = std::move(result)]() { ready(result); };
        }, true});
        if (!running_) startNext();
    }

    // Drops the waiting request and the result (and previews) of the running one; ordered jobs stay.
    void cancel() {
        cancelled_ = ++generation_;
        pending_.reset();
    }
    // Drops the waiting request only: the running job still hands its result over.
    void dropWaiting() { pending_.reset(); }
    // A job runs or waits (ordered jobs included).
    bool busy() const { return running_ || pending_.has_value() || !ordered_.empty(); }
    // Blocks until no job runs or waits, handing the latest result over before it returns: for
    // export and tests, which need the result now (never on the interactive path).
    void wait() {
        while (busy()) {
            pool_.waitForDone();
            QCoreApplication::sendPostedEvents(context_.get());  // onDone, which may start the waiting job
        }
    }
    // Requests made so far (request(), not enqueue()), and those started: started() < requests()
    // when a burst coalesced. The n-th request() call is request number n.
    long long requests() const { return requests_; }
    long long started() const { return started_; }

private:
    struct Job {
        // Runs on the worker; returns what hands the result over on the requesting thread.
        std::function<std::function<void()>(QObject* context)> run;
        bool ordered = false;
    };

    bool current(long long generation) const {
        return handover_ == Handover::EveryStarted ? generation > cancelled_ : generation == generation_;
    }

    void startNext() {
        std::optional<Job> next;
        if (!ordered_.empty()) {
            next = std::move(ordered_.front());
            ordered_.pop_front();
        } else if (pending_) {
            next = std::move(pending_);
            pending_.reset();
            ++started_;
        } else {
            return;
        }
        running_ = true;
        QObject* context = context_.get();
        pool_.start([this, context, run = std::move(next->run), ordered = next->ordered]() {
            // Worker thread: run reads only what its job captured.
            std::function<void()> hand_over = run(context);
            QMetaObject::invokeMethod(context, [this, hand_over = std::move(hand_over), ordered]() {
                onDone(hand_over, ordered);
            }, Qt::QueuedConnection);
        });
    }

    void onDone(const std::function<void()>& hand_over, bool ordered) {
        running_ = false;
        // After a latest-only job the next one starts first, so the worker never idles while the
        // result is shown. An ordered job's result comes first: what it changes (other weights)
        // may replace the waiting request before that one starts.
        if (!ordered) startNext();
        hand_over();  // may request again: that request waits or starts
        if (!running_) startNext();
        if (finished_) finished_();
    }

    const Handover handover_;
    QThreadPool pool_;
    std::unique_ptr<QObject> context_;  // lives in the requesting thread; results are posted to it
    std::optional<Job> pending_;
    std::deque<Job> ordered_;
    std::function<void()> finished_;
    long long generation_ = 0;  // requests and cancels: a job is current while nothing newer came
    long long cancelled_ = 0;   // the generation of the latest cancel()
    long long requests_ = 0;
    long long started_ = 0;
    bool running_ = false;
};

}  // namespace headscope::ui
