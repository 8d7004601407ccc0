#pragma once
// How a view reads the ResultStore: the document's store once the window gives it
// (setResultStore), else one of the view's own (a view built alone: export, tests), and a
// callback when a result of the kinds the view draws arrives (the view asks again and draws).

#include <QObject>
#include <QPointer>
#include <functional>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

#include "ResultStore.h"

namespace headscope::ui {

class ResultStoreLink {
public:
    ResultStoreLink(QObject* receiver, std::initializer_list<ResultStore::Kind> kinds, std::function<void()> arrived)
        : receiver_(receiver), kinds_(kinds), arrived_(std::move(arrived)) {}
    ResultStoreLink(const ResultStoreLink&) = delete;
    ResultStoreLink& operator=(const ResultStoreLink&) = delete;

    void setKinds(std::initializer_list<ResultStore::Kind> kinds) { kinds_ = kinds; }
    void set(ResultStore* store) {
        if (store == store_) return;
        QObject::disconnect(connection_);
        store_ = store;
        if (store_) connect();
    }
    ResultStore& operator*() {
        if (!store_) {
            own_ = std::make_unique<ResultStore>();
            store_ = own_.get();
            connect();
        }
        return *store_;
    }
    ResultStore* operator->() { return &**this; }

private:
    void connect() {
        connection_ = QObject::connect(store_, &ResultStore::ready, receiver_, [this](ResultStore::Kind kind) {
            for (ResultStore::Kind k : kinds_)
                if (k == kind) return arrived_();
        });
    }

    QObject* receiver_;
    std::vector<ResultStore::Kind> kinds_;
    std::function<void()> arrived_;
    QPointer<ResultStore> store_;  // the document's may go first at shutdown
    std::unique_ptr<ResultStore> own_;
    QMetaObject::Connection connection_;
};

}  // namespace headscope::ui
