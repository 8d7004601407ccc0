#pragma once
// THE list of HeadScope's views (issue 24): one line per view says its id (what a lesson step's
// "show" and the command line name it by), its title, the stem its exported file is named by,
// the window tab that shows it, and its factory (builds it offscreen from ViewInputs and saves
// it). The window's tabs, the export dialog and exportImages, the lessons (a step naming a view
// not listed here fails to load) and headscope-cli all read this table; nothing else spells a
// view's identity. A new view is one line in ViewRegistry.cpp and one class.

#include <QString>
#include <QStringList>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "Analysis.h"
#include "AttentionView.h"
#include "Circuits.h"
#include "Export.h"
#include "ViewOptions.h"
#include "model/AblationEffects.h"
#include "model/Model.h"
#include "train/Trainer.h"

namespace headscope::ui {

// A training run as the Training tab shows it (oldest evaluation and snapshot first).
struct TrainingRun {
    std::vector<train::Evaluation> evaluations;
    std::vector<std::shared_ptr<const train::AttentionSnapshot>> snapshots;
    int layers = 0, heads = 0;
};

// What a view is drawn from; each view reads the part it needs and fails with one sentence when
// it is missing (the training view without a run, the ablation view without a model).
struct ViewInputs {
    const Analysis* analysis = nullptr;  // the layer on screen (every view of one layer)
    int layer = 0, head = 0;             // the model's layer on screen (the model view) and the head
    ViewOptions options;
    const Circuits* circuits = nullptr;  // the head's W_QK / W_OV already formed, or nullptr
    int cell_row = -1, cell_col = -1;    // the selected cell, (-1, -1): the default
    std::shared_ptr<const model::Trace> trace;              // a loaded model's run (the model view)
    std::shared_ptr<const model::AblationEffects> effects;  // what knocked-out heads changed (ablation)
    const TrainingRun* training = nullptr;                  // the training view
};

// Where the window shows a view: a central tab (tab_label names it), or the spectrum dock below.
enum class ViewPlace { Tab, SpectrumDock };

struct ViewEntry {
    const char* id;         // "heads", "spectra", "score", "training" ...
    const char* title;      // "Spectra of W_QK": menus, dialogs, error messages
    const char* file_stem;  // "spectrum_qk", "circuit_qk_head_%1" (%1: the head)
    std::optional<ViewKind> kind;  // the kind Export's exportView draws from an Analysis, if it is one
    ViewPlace place;
    const char* tab_label;  // the window's tab, with its & shortcut ("C&ircuits"); for the dock its title
    bool show_logits;       // the heads tab showing logits instead of weights
    // The factory: builds the view offscreen from inputs and saves it at path.
    bool (*save)(const ViewEntry& entry, const ViewInputs& inputs, const QString& path, ImageFormat format,
                 double scale, QString* error);
    // The window's tab: its tool tip (marked for translation: read it through tabTip), and the factory that builds its view (makeView<View>), which
    // the window binds to the document through the base class (bindView). nullptr for an entry
    // that shares the tab before it ("logits", "circuit_ov"), the dock's entries, and the tabs the
    // window composes of several parts over the document (heads, training, ablation:
    // MainWindow::composedTab).
    const char* tab_tip;
    AttentionView* (*make_view)(QWidget* parent);
};

// A registry line's factory (ViewEntry::make_view): a View in parent.
template <typename View>
AttentionView* makeView(QWidget* parent) {
    return new View(parent);
}

// Every view, in the order of the window's tabs and the documentation.
const std::vector<ViewEntry>& viewRegistry();

// The entry called id ("spectra"), or nullptr.
const ViewEntry* findView(const std::string& id);
// The entry of an exportView kind (every kind has exactly one).
const ViewEntry& viewEntry(ViewKind kind);
// Every id, in registry order ("heads", "logits", ...).
std::vector<std::string> viewIds();
// The kinds exportImages writes: every entry drawn from an Analysis alone, in registry order.
std::vector<ViewKind> exportedViews();

// "attention_weights", "circuit_qk_head_3": the entry's file stem for head.
QString fileStem(const ViewEntry& entry, int head);
// The tab label of the view called id, with its & ("C&ircuits"); empty for an unknown id.
QString tabLabel(const char* id);
// The entry's tab tool tip, translated; empty for an entry without one.
QString tabTip(const ViewEntry& entry);
// The tab label without its & ("Circuits").
QString tabTitle(const ViewEntry& entry);

// Builds entry's view from inputs and saves it (entry.save), after checking the path's folder.
bool saveView(const ViewEntry& entry, const ViewInputs& inputs, const QString& path, ImageFormat format, double scale,
              QString* error);

}  // namespace headscope::ui
