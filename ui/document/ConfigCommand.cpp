#include "ConfigCommand.h"

#include "ConfigDiff.h"

namespace headscope::ui {

ConfigCommand::ConfigCommand(Apply apply, Config before, Config after, const QString& name, Clock::time_point at)
    : apply_(std::move(apply)), before_(std::move(before)), after_(std::move(after)),
      knobs_(changedKnobs(before_, after_)), named_(!name.isEmpty()), last_(at) {
    setText(named_ ? name : QString::fromStdString(describeChange(before_, after_)));
}

void ConfigCommand::undo() { apply_(before_); }

void ConfigCommand::redo() {
    if (!applied_) apply_(after_);
    applied_ = false;  // every later redo applies
}

bool ConfigCommand::mergeWith(const QUndoCommand* other) {
    const auto* next = static_cast<const ConfigCommand*>(other);
    if (named_ || next->named_ || next->knobs_ != knobs_ || next->last_ - last_ > kMergeWindow) return false;
    after_ = next->after_;
    last_ = next->last_;
    setText(QString::fromStdString(describeChange(before_, after_)));
    setObsolete(before_ == after_);  // dragged back to where it began: no step at all
    return true;
}

}  // namespace headscope::ui
