#pragma once
// A result a view draws but must not compute on the GUI thread (the Q-K map, the score
// breakdown): ready(key) says whether the result for key is there, value() is it (nullptr when it
// could not be computed); request(key, work) computes it in the background (LatestOnly: the newest request
// wins, stale results are dropped) and calls arrived() on the GUI thread when it is there. The
// view keeps its last drawing until then. wait() finishes now (export and tests).

#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "LatestOnly.h"

namespace headscope::ui {

template <typename Key, typename T>
class ViewResult {
public:
    explicit ViewResult(std::function<void()> arrived) : arrived_(std::move(arrived)) {}

    bool ready(const Key& key) const { return key_ && *key_ == key; }
    const T* value() const { return value_.get(); }
    // work runs on a worker thread; when it throws (e.g. out of memory) value() is nullptr.
    void request(const Key& key, std::function<T()> work) {
        if (requested_ && *requested_ == key) return;  // on its way already
        requested_ = key;
        const auto guarded = [work = std::move(work)]() -> std::shared_ptr<const T> {
            try {
                return std::make_shared<const T>(work());
            } catch (const std::exception&) {
                return nullptr;
            }
        };
        jobs_.request(guarded, [this, key](std::shared_ptr<const T> value) {
            key_ = key;
            value_ = std::move(value);
            requested_.reset();
            arrived_();
        });
    }
    void wait() { jobs_.wait(); }
    bool busy() const { return jobs_.busy(); }

private:
    std::function<void()> arrived_;
    std::optional<Key> key_, requested_;
    std::shared_ptr<const T> value_;
    LatestOnly<std::shared_ptr<const T>> jobs_;  // last: destroyed (and waited for) first
};

}  // namespace headscope::ui
