#pragma once
// The main window only assembles: the controls dock (left), the head grid (centre), the
// spectrum dock, the status panel, menus and shortcuts. The Session computes; the views draw;
// ExportDialog, RecentFiles, HeadDetailDialog and AboutDialog do their own jobs.

#include <memory>
#include <string>
#include <vector>

#include <QMainWindow>
#include <QString>

#include "Analysis.h"
#include "Config.h"
#include "Export.h"
#include "ViewOptions.h"
#include "lessons/Lesson.h"

class QAction;
class QDockWidget;
class QSplitter;
class QUndoStack;
class QTabWidget;
class QCustomPlot;

namespace headscope::ui {

class AblationTab;
class AttentionView;
class CircuitView;
class ControlsDock;
class CostView;
class FusedProjectionsView;
class ProjectionProductView;
class ModelDock;
class ModelOverviewView;
class QueryKeyMapView;
class ScoreBreakdownView;
class TokenLinesView;
class HeadDetailDialog;
struct ExportRequest;
class HeadDetailView;
class HeadsTab;
class HeadGridView;
class LessonDock;
class RankTableView;
class RecentFiles;
class Session;
class SpectrumView;
class StatusPanel;

struct MainWindowOptions {
    // Restore geometry, view options and the last session at start; save them at close;
    // remember opened and saved files. Off for --screenshot, tests and benchmarks: they start
    // from the built-in demo and leave the user's settings untouched.
    bool use_settings = true;
};

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(const MainWindowOptions& options = MainWindowOptions(), QWidget* parent = nullptr);
    ~MainWindow() override;

    Session* session() const { return session_; }
    ControlsDock* controls() const { return controls_; }
    HeadGridView* headGrid() const { return grid_; }
    // The Heads tab: the selected head large (headFocus) beside the grid of every head.
    HeadsTab* headsTab() const { return heads_tab_; }
    HeadDetailView* headFocus() const { return focus_; }
    SpectrumView* spectrumView() const { return spectrum_; }
    RankTableView* rankTable() const { return rank_table_; }
    // The tabs' views, looked up by their registry id (tabView("score")); nullptr for an id whose
    // view the registry does not build.
    QWidget* tabView(const char* id) const;
    FusedProjectionsView* projectionsView() const;
    CircuitView* circuitView() const;
    ProjectionProductView* projectionProductView() const;
    CostView* costView() const;
    ScoreBreakdownView* scoreBreakdownView() const;
    TokenLinesView* tokenLinesView() const;
    QueryKeyMapView* queryKeyMapView() const;
    QTabWidget* centralTabs() const { return tabs_; }
    ModelOverviewView* modelOverview() const;
    ModelDock* modelDock() const { return model_dock_; }
    AblationTab* ablationTab() const { return ablation_; }
    StatusPanel* statusPanel() const { return status_; }
    HeadDetailDialog* headDetail() const { return detail_; }  // nullptr until a head is opened
    const ViewOptions& viewOptions() const { return options_; }  // as the views show them (the session's)

    // Shows config in the controls and hands it to the session: one step of Edit > Undo,
    // named after what changed, or step when given ("preset: Rank cliff").
    void setConfig(const Config& config, const QString& step = {});
    // Edit > Undo / Redo: the session's history (Session::undoStack).
    QUndoStack* undoStack() const;

    // Session files (.headscope.json), read and written by the Session. With error == nullptr a
    // failure is shown in a message box; otherwise it is written to *error. The window stays
    // usable either way.
    bool openSession(const QString& path, QString* error = nullptr);
    bool saveSession(const QString& path, QString* error = nullptr);
    // Opens a model directory (io::loadCheckpoint: gpt2, llama, mistral, qwen2, gpt_neox). With error == nullptr it loads in the background and a
    // failure is shown in a message box; otherwise it waits for the load and reports it.
    bool openModel(const QString& directory, QString* error = nullptr);
    // Replaces the input text (the controls and the session follow).
    void setText(const QString& text);
    QString sessionPath() const;  // Session::fileName

    void setViewOptions(const ViewOptions& options);  // to the session, which the views follow

    // Teaching (issue 7): presets, the lesson player, presentation mode.
    void applyPreset(const lessons::Preset& preset);       // its config and view settings
    void applyLessonStep(const lessons::LessonStep& step);  // config, view settings, head, tab
    bool openLesson(int number, QString* error = nullptr);  // shows the lesson dock at step 1
    LessonDock* lessonDock() const { return lesson_dock_; }  // nullptr until a lesson is opened
    // F5: full screen, fonts x1.75, high contrast, controls hidden (F6 shows them), hover in large type.
    void setPresentationMode(bool on);
    bool presentationMode() const { return presentation_; }
    // Shows the tab (and the spectrum dock) a lesson step's "show" names.
    void showView(const std::string& show);
    // A lesson step in a Compact or Small room (issue 21: lessons take the room): the controls and
    // the spectra close unless the step shows them, the lesson text is a column of at most 30% of
    // the width beside the view (Compact) or a strip below it (Small: 1024 x 768 at 2x). F6 and
    // View bring the docks back. A Wide room keeps its docks.
    void arrangeForLesson(const std::string& show);
    void arrangeForCurrentStep();  // arrangeForLesson for the open lesson's step, if one is shown
    std::string shownStepView() const;  // the view the shown lesson step names ("" without one)
    void showHead(int head);  // selects the head and opens it in the large detail window
    // Carries out what the Export dialog picked (File > Export); a rotary layer's W_QK views are
    // drawn at the window's current Delta. False with the reason on failure.
    bool exportRequest(const ExportRequest& request, QString* error);

    // Number of analyses applied to every view so far.
    int updatesShown() const { return updates_shown_; }
    // Runs the event loop until an analysis is on screen and the session is idle (the
    // equivalence residuals shown too). False, with the reason, when the config is invalid,
    // the engine failed or timeout_ms passed.
    bool waitForCompleteUpdate(int timeout_ms, QString* error = nullptr);
    // The window on the screen it is on (issue 21): 1400 x 900, centred, where that fits with a
    // frame; maximised to the available area where it does not (a projector, 2x scaling). A
    // restored geometry larger than the screen is clamped. The docks are arranged for the room
    // (arrangeDocks). Called before the first show and on leaving presentation mode.
    void fitToScreen();
    // How the docks share a window of this size (logical pixels). Wide: the controls on the
    // left, spectra below the views. Compact (under 1280 x 800): the spectra a tab beside the
    // controls, the controls at most 30% of the width, so the views keep the height. Small
    // (under 800 x 560: 1024 x 768 at 2x): the docks closed, the views take the window (F6
    // and View bring the docks back, as tabs on the left).
    enum class Room { Wide, Compact, Small };
    static Room roomFor(const QSize& size);
    void arrangeDocks(Room room);
    void fitRankTable();  // every head's row shown where the room allows
    void fitControls();   // the controls' fields whole where the room allows
    Room room() const { return room_; }
    // Lays the window out as it is shown, maximised, on a screen of screen_size device pixels
    // at the current device pixel ratio (QT_SCALE_FACTOR): for --screen and the README.
    void layOutAsOnScreen(const QSize& screen_size);
    // Draws the views now and saves the whole window (QWidget::grab) to path.
    bool saveScreenshot(const QString& path, QString* error = nullptr);
    // Brings the tab named name forward ("heads", "Q-K map": its title, any case, without the
    // shortcut's &). Returns false, with the names there are in *error, when none is called so.
    // While a model opens in the background (openModel without error), the tab stays forward
    // when the model arrives, instead of the Model tab (headscope --model DIR --tab NAME).
    bool showTab(const QString& name, QString* error = nullptr);

signals:
    // An analysis was applied to every view and the plots redrawn; ms since the change.
    void analysisShown(double ms);

protected:
    void closeEvent(QCloseEvent* event) override;
    // A layout whose minimum grew (a lesson step's view, a dock) makes Qt grow the window, past the
    // screen's edge too, and never shrink it back: once the minimum fits the screen again (a resize
    // or a layout request), a window larger than its screen is brought back.
    bool event(QEvent* event) override;

private:
    void buildDocks();
    void buildTabs();  // the central tabs, from the view registry
    QWidget* composedTab(const std::string& id);  // a tab the window composes (heads, training, ablation)
    void buildMenus();
    Config restoreSettings();  // geometry, dock state, view options; returns the last configuration
    void clampToScreen();
    void keepOnScreenOnceLaidOut();  // see event()
    void clampOnceLaidOut(QSize before);  // a window grown past `before` by a lesson step: back, once laid out
    void updateSpectrumTitle();  // long below the views, short as a tab  // a geometry larger than the available screen becomes the screen
    void saveSettings() const;
    void showAnalysis(std::shared_ptr<const Analysis> analysis);
    void onConfigEdited(const Config& config, const QString& step = {});  // from the controls, or setConfig
    void showConfig(const Config& config);  // the session replaced it (undo, redo, a file, new weights)
    void applyViewOptions(const ViewOptions& options);  // the session's view options to every view
    void redrawNow();
    void zoom(double factor);
    void applyFontScale();
    void showFileName(const QString& path);  // the title
    void rememberFile(const QString& path);  // recent files and last folder
    void openDialog();
    bool save();
    bool saveAs();
    void exportDialog();
    void copyView();
    void openModelDialog();
    void openCachedModelDialog();
    void openLayerDialog();
    void onSourceChanged();
    QCustomPlot* currentPlot() const;  // the plot of the visible tab, or nullptr
    bool saveCurrentTab(const QString& path, ImageFormat format, double scale, QString* error);

    static constexpr double kMinFontScale = 0.5, kMaxFontScale = 3.0;
    MainWindowOptions window_options_;
    Session* session_ = nullptr;
    ControlsDock* controls_ = nullptr;
    HeadGridView* grid_ = nullptr;
    HeadDetailView* focus_ = nullptr;
    HeadsTab* heads_tab_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    struct TabView {  // a tab's view that its registry entry built
        std::string id;
        AttentionView* widget;
    };
    std::vector<TabView> tab_views_;  // in registry order
    AblationTab* ablation_ = nullptr;  // knocking heads out (HeadMenus, AblationTab)
    ModelDock* model_dock_ = nullptr;
    SpectrumView* spectrum_ = nullptr;
    RankTableView* rank_table_ = nullptr;
    QDockWidget* spectrum_dock_ = nullptr;
    QSplitter* spectrum_split_ = nullptr;  // spectra | rank table; one above the other in a narrow dock
    Room room_ = Room::Wide;
    bool placed_ = false;  // a geometry restored, or the first fitToScreen done: the window not centred again
    bool on_screen_ = false;  // fitToScreen placed it: kept within the screen (not a --screenshot's size)
    bool keep_on_screen_queued_ = false;
    StatusPanel* status_ = nullptr;
    HeadDetailDialog* detail_ = nullptr;
    RecentFiles* recent_ = nullptr;
    QAction* full_screen_ = nullptr;
    QAction* presentation_action_ = nullptr;
    QAction* positions_action_ = nullptr;  // View > Token positions on labels
    LessonDock* lesson_dock_ = nullptr;
    bool presentation_ = false;
    ViewOptions options_before_presentation_;
    QByteArray state_before_presentation_;
    bool maximized_before_presentation_ = false;
    Room room_before_presentation_ = Room::Wide;
    QByteArray initial_state_;  // the docks as first arranged for the screen (View > Normal size)
    ViewOptions options_;  // the session's, as last applied to the views
    int updates_shown_ = 0;
    bool model_opening_ = false;  // openModel in the background, until the model or a failure arrives
    int tab_after_model_ = -1;    // the tab showTab brought forward meanwhile, or -1: the Model tab
    double base_point_size_ = 0;
};

}  // namespace headscope::ui
