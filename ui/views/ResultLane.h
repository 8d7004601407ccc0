#pragma once
// One kind of result in the ResultStore (issue 24): results keyed by what they depend on, each
// computed once off the GUI thread through LatestOnly (the newest request wins, stale results
// are dropped) and cached, the latest `capacity` of them, until asked again.
//
//   find(key)        the cached result: nullopt when not computed (yet), a null pointer when the
//                    computation failed (e.g. out of memory)
//   get(key, work)   find(key), and when absent requests work (unless key is on its way already);
//                    arrived() runs on the GUI thread when the result is cached
//   dropCached(stale)  forgets the cached results whose keys stale(key) names
//
// work runs on a worker thread and reads only what it captured (immutable, shared data).

#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "LatestOnly.h"

namespace headscope::ui {

template <typename Key, typename T>
class ResultLane {
public:
    using Value = std::shared_ptr<const T>;

    ResultLane(std::function<void()> arrived, std::function<void()> finished, std::size_t capacity)
        : arrived_(std::move(arrived)), capacity_(capacity) {
        jobs_.setFinished(std::move(finished));
    }

    std::optional<Value> find(const Key& key) const {
        for (const auto& [cached, value] : cache_)
            if (cached == key) return value;
        return std::nullopt;
    }

    std::optional<Value> get(const Key& key, std::function<T()> work) {
        if (std::optional<Value> found = find(key)) return found;
        if (requested_ && *requested_ == key) return std::nullopt;  // on its way already
        requested_ = key;
        const auto guarded = [work = std::move(work)]() -> Value {
            try {
                return std::make_shared<const T>(work());
            } catch (const std::exception&) {
                return nullptr;  // cached as "could not be computed": the view says so
            }
        };
        jobs_.request(guarded, [this, key](Value value) {
            cache_.emplace_back(key, std::move(value));
            if (cache_.size() > capacity_) cache_.pop_front();  // the oldest goes (and its analysis with it)
            requested_.reset();
            arrived_();
        });
        return std::nullopt;
    }

    // Drops every cached result whose key `stale(key)` says is not worth its memory any more.
    template <typename Stale>
    void dropCached(Stale stale) {
        std::erase_if(cache_, [&stale](const std::pair<Key, Value>& entry) { return stale(entry.first); });
    }

    void clear() {
        jobs_.cancel();
        requested_.reset();
        cache_.clear();
    }
    void wait() { jobs_.wait(); }
    bool busy() const { return jobs_.busy(); }
    // Jobs started so far: each result computed once, and a burst of requests runs the first and the last.
    long long computed() const { return jobs_.started(); }
    long long requested() const { return jobs_.requests(); }  // computations asked for

private:
    std::function<void()> arrived_;
    std::size_t capacity_;
    std::deque<std::pair<Key, Value>> cache_;  // oldest first
    std::optional<Key> requested_;
    LatestOnly<Value> jobs_;  // last: destroyed (and waited for) first
};

}  // namespace headscope::ui
