#include "LoadProgressRelay.h"

namespace headscope::ui {

LoadProgressRelay& LoadProgressRelay::instance() {
    static LoadProgressRelay* relay = new LoadProgressRelay;  // lives as long as the application
    return *relay;
}

io::LoadProgress LoadProgressRelay::reporter() {
    cancelled_ = false;
    return [this](double fraction, const std::string& stage) {
        emit progress(fraction, QString::fromStdString(stage));  // queued to the GUI thread's receivers
        return !cancelled_.load();
    };
}

}  // namespace headscope::ui
