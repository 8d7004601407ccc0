#pragma once
// Core types that travel through Qt signals (queued across threads, stored by QSignalSpy).
// Include this header wherever such a signal is declared.

#include <memory>

#include <QMetaType>

#include "Analysis.h"
#include "Circuits.h"
#include "Config.h"

Q_DECLARE_METATYPE(headscope::Config)
Q_DECLARE_METATYPE(std::shared_ptr<const headscope::Analysis>)
Q_DECLARE_METATYPE(std::shared_ptr<const headscope::Circuits>)

namespace headscope::ui {

// Registers the types above with Qt's type system; cheap, call as often as you like.
inline void registerMetaTypes() {
    qRegisterMetaType<headscope::Config>("headscope::Config");
    qRegisterMetaType<std::shared_ptr<const headscope::Analysis>>("std::shared_ptr<const headscope::Analysis>");
    qRegisterMetaType<std::shared_ptr<const headscope::Circuits>>("std::shared_ptr<const headscope::Circuits>");
}

}  // namespace headscope::ui
