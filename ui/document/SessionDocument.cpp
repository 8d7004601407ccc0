// Session as the document (Session.h): the undo stack of config changes, the file name and
// modified flag, the view options, session files, and the policy for a new weight source.
#include "Session.h"

#include <exception>

#include <QUndoStack>

#include "ConfigCommand.h"
#include "ViewSettings.h"  // applyViewSettings / viewSettings: ViewOptions <-> a file's view settings
#include "io/SessionFile.h"

namespace headscope::ui {

void Session::editConfig(const Config& config, const QString& step) {
    // As setConfig() will hold it: with trained weights their geometry wins.
    const Config effective = constrained(config, source_);
    if (!restoring_ && !(effective == config_))
        undo_->push(new ConfigCommand([this](const Config& c) { restoreConfig(c); }, config_, effective, step));
    setConfig(config);
}

void Session::restoreConfig(const Config& config) {
    restoring_ = true;
    setConfig(config);
    restoring_ = false;
    emit configReplaced(config_);
}

void Session::setFileName(const QString& path) {
    if (path == file_name_) return;
    file_name_ = path;
    emit fileNameChanged(path);
}

void Session::startNewHistory() {
    undo_->clear();
    options_modified_ = false;
    updateModified();
}

void Session::updateModified() {
    const bool now = options_modified_ || !undo_->isClean();
    if (now == modified_) return;
    modified_ = now;
    emit modifiedChanged(now);
}

void Session::setViewOptions(const ViewOptions& options) {
    if (!(options == view_options_)) options_modified_ = true;
    view_options_ = options;
    emit viewOptionsChanged(view_options_);
    updateModified();
}

bool Session::load(const QString& path, QString* error) {
    io::SessionData data;
    try {
        data = io::loadSessionData(path.toStdString());  // view settings too, when saved
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());  // the message names the file
        return false;
    }
    setViewOptions(applyViewSettings(view_options_, data.view));
    setConfig(data.config);
    emit configReplaced(config_);
    setFileName(path);
    startNewHistory();  // another document: its own history (undoing into it would save over it)
    return true;
}

bool Session::save(const QString& path, QString* error) {
    try {
        io::saveSession(path.toStdString(), io::SessionData{config_, viewSettings(view_options_)});
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    setFileName(path);
    undo_->setClean();
    options_modified_ = false;
    updateModified();
    return true;
}

void Session::adoptSource() {
    ++source_generation_;  // the analysis on screen is of other weights from now on
    emit sourceChanged();
    Config config = config_;
    if (source_.model) {
        // The demo's text is the program's, not the user's: one the vocabulary encodes replaces
        // it, and a note says so. A text of the user's stays; while it cannot be drawn the model
        // is shown on its sample text and the status line says why (Session::fallBack).
        if (config.text == Config{}.text) {
            try {
                source_.model->tokenizer->encode(config.text);
            } catch (const std::exception&) {
                config.text = sampleText(*source_.model);
                // Short: the status line's note has one line (the text box shows the new text).
                emit noted(tr("Demo text replaced: not in this model's vocabulary"));
            }
        }
        config.source_text.clear();  // a new model starts on one text
        // A decoder was trained causal; an encoder attends both ways (constrained() keeps it so).
        config.mask = source_.model->config.encoder ? MaskKind::None : MaskKind::Causal;
        config.padded_keys.clear();
    }
    editConfig(constrained(config, source_));
    // Steps taken with other weights (another model or layer file, or none) cannot be undone
    // into these; another layer of the same model keeps the history.
    const std::shared_ptr<const void> weights = source_.model ? std::shared_ptr<const void>(source_.model)
                                                               : std::shared_ptr<const void>(source_.loaded);
    if (weights.owner_before(undo_weights_) || undo_weights_.owner_before(weights)) undo_->clear();
    undo_weights_ = weights;
    emit configReplaced(config_);
}

}  // namespace headscope::ui
