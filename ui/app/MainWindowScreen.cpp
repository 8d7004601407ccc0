// MainWindow on the screen it is on (issue 21): its first geometry, the docks arranged for the
// room there is, a restored geometry clamped, and the settings that carry them between runs.
#include "MainWindow.h"

#include <algorithm>

#include <QDockWidget>
#include <QGuiApplication>
#include <QScreen>
#include <QSplitter>
#include <QStatusBar>

#include "ControlsDock.h"
#include "LessonDock.h"
#include "RankTableView.h"
#include "Session.h"
#include "Setting.h"
#include "SpectrumView.h"
#include "StatusPanel.h"
#include "io/SessionFile.h"

namespace headscope::ui {

namespace {

const Setting<QByteArray> kGeometry{"main_window/geometry", QByteArray()};
const Setting<QByteArray> kState{"main_window/state", QByteArray()};
const Setting<QString> kLastConfig{"session/last_config", QString()};  // JSON, as in session files
const Setting<QString> kLastPath{"session/last_path", QString()};
const Setting<bool> kShowLogits{"view/show_logits", false};
const Setting<bool> kSharedScale{"view/shared_scale", true};
const Setting<double> kFontScale{"view/font_scale", 1.0};

// The window HeadScope opens at where the screen has room for it and a window frame.
constexpr QSize kPreferredSize(1400, 900);
constexpr QSize kFrameAllowance(16, 48);  // a title bar and borders a window manager adds

}  // namespace

Config MainWindow::restoreSettings() {
    placed_ = restoreGeometry(kGeometry.get());  // where the user left it: not centred
    if (!placed_) resize(kPreferredSize);
    restoreState(kState.get());
    options_.show_logits = kShowLogits.get();
    options_.shared_scale = kSharedScale.get();
    options_.font_scale = std::clamp(kFontScale.get(), kMinFontScale, kMaxFontScale);
    if (kLastConfig.get().isEmpty()) return Config{};
    try {
        const Config config = io::configFromJson(kLastConfig.get().toStdString());
        session_->setFileName(kLastPath.get());
        return config;
    } catch (const std::exception&) {
        return Config{};  // a damaged setting must not stop the program
    }
}

void MainWindow::saveSettings() const {
    kGeometry.set(saveGeometry());
    kState.set(saveState());
    kLastConfig.set(QString::fromStdString(io::configToJson(session_->config())));
    kLastPath.set(session_->fileName());
    kShowLogits.set(options_.show_logits);
    kSharedScale.set(options_.shared_scale);
    kFontScale.set(options_.font_scale);
}

void MainWindow::updateSpectrumTitle() {
    if (room_ != Room::Wide) {
        spectrum_dock_->setWindowTitle(tr("Spectra and ranks"));  // a tab beside the controls: short
        return;
    }
    // When the dock is too small for both spectra (large fonts), its title says where W_OV went.
    const QString hidden = spectrum_->hiddenPanelNote();
    spectrum_dock_->setWindowTitle(hidden.isEmpty() ? tr("Spectra and ranks of W_QK and W_OV")
                                                    : tr("Spectrum of W_QK and ranks \u00B7 %1").arg(hidden));
}

MainWindow::Room MainWindow::roomFor(const QSize& size) {
    if (size.width() < 800 || size.height() < 560) return Room::Small;
    if (size.width() < 1280 || size.height() < 800) return Room::Compact;
    return Room::Wide;
}

void MainWindow::arrangeDocks(Room room) {
    const bool changed = room != room_;  // the docks the user opened or closed since stay so
    room_ = room;
    // A dock shown in a small room must not widen the window beyond the screen.
    rank_table_->setKeepsWholeWidth(room != Room::Small);
    spectrum_->setNarrowAllowed(room == Room::Small);
    if (room == Room::Wide) {
        spectrum_split_->setOrientation(Qt::Horizontal);
        if (dockWidgetArea(spectrum_dock_) != Qt::BottomDockWidgetArea || !tabifiedDockWidgets(spectrum_dock_).isEmpty())
            addDockWidget(Qt::BottomDockWidgetArea, spectrum_dock_);
        updateSpectrumTitle();  // its long title back
        return;
    }
    // The spectra and the rank table one above the other in a tab beside the controls: the
    // views keep the window's height, and the tab titles are short enough to be read whole.
    spectrum_split_->setOrientation(Qt::Vertical);
    updateSpectrumTitle();
    if (dockWidgetArea(controls_) != Qt::LeftDockWidgetArea) addDockWidget(Qt::LeftDockWidgetArea, controls_);
    if (!tabifiedDockWidgets(controls_).contains(spectrum_dock_)) tabifyDockWidget(controls_, spectrum_dock_);
    if (!changed) return;
    if (room == Room::Small) {
        // A quarter of a projector at 2x: the views first; F6 and View bring the docks back.
        controls_->hide();
        spectrum_dock_->hide();
        status_->showNote(tr("F6: the controls"));
    } else {
        controls_->show();
        controls_->raise();
    }
    initial_state_ = saveState();
}

// The rank table shows every head's row where the room allows. Below the heads (a wide room)
// its dock grows to the table's height, at most a third of the window; stacked under the
// spectra (a tab beside the controls) the table takes what the spectra leave, which is at
// least half the split and their minimum height (all of it on a lesson step about the spectra).
// Never shrinks a dock the user made larger.
void MainWindow::fitRankTable() {
    if (!rank_table_->isVisible() || !spectrum_->isVisible() || rank_table_->rowCount() == 0) return;
    const int needed = rank_table_->heightForEveryRow();
    if (spectrum_split_->orientation() == Qt::Vertical) {
        const int total = spectrum_split_->height() - spectrum_split_->handleWidth();
        const int spectra = shownStepView() == "spectra" ? total
                            : std::max({total - needed, total / 2, spectrum_->minimumSizeHint().height()});
        spectrum_split_->setSizes({spectra, total - spectra});
        return;
    }
    if (spectrum_dock_->isFloating() || dockWidgetArea(spectrum_dock_) != Qt::BottomDockWidgetArea) return;
    const int chrome = spectrum_dock_->height() - rank_table_->height();  // title bar and margins
    const int wanted = std::min(needed + chrome, height() / 3);
    if (wanted > spectrum_dock_->height()) resizeDocks({spectrum_dock_}, {wanted}, Qt::Vertical);
}

// A docked controls dock narrower than its fields (a small room's 30 % at 2x: "Heads 8" cut
// at the edge, behind a horizontal scroll bar) widens to show them whole, leaving the views at
// least two fifths of the window. Never narrows a dock the user made wider.
void MainWindow::fitControls() {
    if (!controls_->isVisible() || controls_->isFloating()) return;
    const int wanted = std::min(controls_->wholeWidth(), width() * 3 / 5);
    if (wanted > controls_->width()) resizeDocks({controls_}, {wanted}, Qt::Horizontal);
}

void MainWindow::clampToScreen() {
    const QScreen* shown_on = screen() ? screen() : QGuiApplication::primaryScreen();
    if (!shown_on) return;
    // The frame (title bar, borders) inside the available area too; none on Xvfb.
    const QRect frame = frameGeometry(), inner = geometry();
    const QMargins margins(inner.left() - frame.left(), inner.top() - frame.top(), frame.right() - inner.right(),
                           frame.bottom() - inner.bottom());
    const QRect available = shown_on->availableGeometry().marginsRemoved(margins);
    QRect g = inner;
    g.setSize(g.size().boundedTo(available.size()));
    // Slid back onto the screen where it hangs over an edge.
    g.moveLeft(std::clamp(g.left(), available.left(), available.right() + 1 - g.width()));
    g.moveTop(std::clamp(g.top(), available.top(), available.bottom() + 1 - g.height()));
    if (g != inner) setGeometry(g);
}

void MainWindow::clampOnceLaidOut(QSize before) {
    // While docks and views change, the layout's minimum passes through larger values and Qt grows
    // the window to them; it never shrinks it back. Once the queued layout requests ran: a window
    // that grew goes back to the size it had (as far as its minimum allows) and onto the screen.
    // A maximised window takes the available area again (no window manager does it on Xvfb).
    QMetaObject::invokeMethod(this, [this, before]() {
        if (isFullScreen()) return;
        const QScreen* shown_on = screen() ? screen() : QGuiApplication::primaryScreen();
        if (isMaximized() && shown_on) {
            if (geometry() != shown_on->availableGeometry()) setGeometry(shown_on->availableGeometry());
        } else if (width() > before.width() || height() > before.height()) {
            resize(size().boundedTo(before.expandedTo(minimumSizeHint())));
            clampToScreen();
        }
    }, Qt::QueuedConnection);
}

bool MainWindow::event(QEvent* event) {
    const bool handled = QMainWindow::event(event);
    if (event->type() == QEvent::Resize || event->type() == QEvent::LayoutRequest) keepOnScreenOnceLaidOut();
    return handled;
}

void MainWindow::keepOnScreenOnceLaidOut() {
    if (!on_screen_ || keep_on_screen_queued_ || !isVisible()) return;
    const QScreen* shown_on = screen() ? screen() : QGuiApplication::primaryScreen();
    if (!shown_on) return;
    const QRect available = shown_on->availableGeometry();
    const QSize minimum = minimumSizeHint().expandedTo(minimumSize());
    const bool fits = minimum.width() <= available.width() && minimum.height() <= available.height();
    // A minimum larger than the screen: nothing to gain (and no loop); a window within it: the user's.
    // Full screen: the whole screen again.
    const QRect screen_area = isFullScreen() ? shown_on->geometry() : available;
    if (!fits || (isFullScreen() ? geometry() == screen_area : available.contains(frameGeometry()))) return;
    keep_on_screen_queued_ = true;
    QMetaObject::invokeMethod(this, [this]() {
        keep_on_screen_queued_ = false;
        const QScreen* on = screen() ? screen() : QGuiApplication::primaryScreen();
        if (isFullScreen() && on) setGeometry(on->geometry());
        else if (!isFullScreen()) clampToScreen();
    }, Qt::QueuedConnection);
}

void MainWindow::fitToScreen() {
    const QScreen* shown_on = screen() ? screen() : QGuiApplication::primaryScreen();
    if (!shown_on) return;
    const QRect available = shown_on->availableGeometry();
    const QSize room = available.size() - kFrameAllowance;
    if (isFullScreen()) {
        // as it is
    } else if (isMaximized() || geometry().width() > room.width() || geometry().height() > room.height()) {
        // Too large for a frame around it: maximised. Without a window manager (Xvfb) nothing
        // maximises the window, so it also takes the available area itself.
        setGeometry(available);
        setWindowState(windowState() | Qt::WindowMaximized);
    } else {
        if (!placed_) {
            // The first window where it fits (full HD): in the middle of the screen, its frame too.
            QRect framed(QPoint(0, 0), size() + kFrameAllowance);
            framed.moveCenter(available.center());
            move(framed.topLeft());
        }
        clampToScreen();
    }
    placed_ = true;
    on_screen_ = true;
    arrangeDocks(roomFor(available.size()));
    if (room_ != Room::Wide) resizeDocks({controls_}, {std::min(360, available.width() * 3 / 10)}, Qt::Horizontal);
}

void MainWindow::layOutAsOnScreen(const QSize& screen_size) {
    const double ratio = devicePixelRatioF() > 0 ? devicePixelRatioF() : 1.0;
    const QSize logical(int(screen_size.width() / ratio), int(screen_size.height() / ratio));
    on_screen_ = false;  // the size of a screen it is not on
    arrangeDocks(roomFor(logical));
    resize(logical);
}

}  // namespace headscope::ui
