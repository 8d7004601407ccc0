#pragma once
// One step of Edit > Undo: the configuration before and after a change the user made (a
// control, a preset, a lesson step), named in the controls' words ("heads 8 → 12").
// Undo and redo hand the configuration to apply(); the change itself was applied already
// when the step is pushed, so the first redo does nothing. Changes of the same knobs less
// than kMergeWindow apart (a slider drag, a typed word) merge into one step; a named step
// (a preset, a lesson step) never merges.

#include <QUndoCommand>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "Config.h"

namespace headscope::ui {

class ConfigCommand : public QUndoCommand {
public:
    using Apply = std::function<void(const Config&)>;
    using Clock = std::chrono::steady_clock;
    static constexpr std::chrono::milliseconds kMergeWindow{1000};

    // name: "" to describe the change from the configurations.
    ConfigCommand(Apply apply, Config before, Config after, const QString& name = {}, Clock::time_point at = Clock::now());

    void undo() override;
    void redo() override;
    int id() const override { return 1; }
    bool mergeWith(const QUndoCommand* other) override;

    const Config& before() const { return before_; }
    const Config& after() const { return after_; }

private:
    Apply apply_;
    Config before_, after_;
    std::vector<std::string> knobs_;  // changedKnobs(before_, after_) when first pushed
    bool named_ = false;
    bool applied_ = true;  // pushed after the change was made
    Clock::time_point last_;
};

}  // namespace headscope::ui
