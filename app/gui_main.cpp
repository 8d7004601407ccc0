// headscope: the GUI. Parses the command line and starts the main window.
//   headscope [FILE]                 opens the built-in demo, or the session FILE
//   headscope --screenshot OUT.png   renders the window after the first complete update
//                                    (analysis on every view, equivalence shown) and exits
//   headscope --tab NAME             starts on that tab (with --screenshot: pictures of any view)
//   headscope --lesson 2[:5]         opens lesson 2 (at its step 5)
//   headscope --screenshot OUT.png --screen 1024x768
//                                    renders what a screen of that many pixels shows, the window
//                                    maximised on it (at QT_SCALE_FACTOR, QT_FONT_DPI)
//   headscope --bench [--runs N] [--quick] [--json]
//                                    the GUI's figures of `headscope-cli bench` (GuiBench.h),
//                                    offscreen; that command runs this and prints them in place
//   headscope --bench --model DIR [--text T] [--runs N] [--json]
//                                    a model in the window, timed: open, a new text, another layer

#include <cstdio>
#include <cstring>
#include <memory>

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QRegularExpression>

#include "GuiBench.h"
#include "LessonDock.h"
#include "MainWindow.h"
#include "Memory.h"
#include "Resources.h"
#include "ViewRegistry.h"

namespace {

int fail(const QString& message) {
    std::fprintf(stderr, "headscope: %s\n", qPrintable(message));
    return 2;
}

// --help and --version are answered before QApplication exists, which needs a display.
bool asksForHelpOrVersion(int argc, char* argv[]) {
    for (int i = 1; i < argc; ++i)
        for (const char* flag : {"-h", "-?", "--help", "--help-all", "-v", "--version"})
            if (std::strcmp(argv[i], flag) == 0) return true;
    return false;
}

// Whether Qt has a window system to start on. Without one (DISPLAY and WAYLAND_DISPLAY unset, no
// QT_QPA_PLATFORM, no -platform) Qt's xcb plugin aborts inside QApplication with a core dump,
// before HeadScope has read its arguments.
bool hasDisplay(int argc, char* argv[]) {
#if defined(Q_OS_UNIX) && !defined(Q_OS_DARWIN)
    for (const char* name : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"})
        if (!qEnvironmentVariableIsEmpty(name)) return true;
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "-platform") == 0 || std::strcmp(argv[i], "--platform") == 0 ||
            std::strncmp(argv[i], "-platform=", 10) == 0 || std::strncmp(argv[i], "--platform=", 11) == 0)
            return true;
    return false;
#else
    (void)argc, (void)argv;
    return true;  // Windows and macOS always have one
#endif
}

// "Heads, Projections, ...": the window's tabs, as --tab names them (the view registry's order).
QString tabNames() {
    QStringList names;
    for (const headscope::ui::ViewEntry& entry : headscope::ui::viewRegistry()) {
        if (entry.place != headscope::ui::ViewPlace::Tab) continue;
        const QString title = headscope::ui::tabTitle(entry);
        if (!names.contains(title)) names << title;
    }
    return names.join(QStringLiteral(", "));
}

bool asksForBench(int argc, char* argv[]) {
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--bench") == 0) return true;
    return false;
}

}  // namespace

int main(int argc, char* argv[]) {
    // Freed layers stay in the heap for the next analysis instead of being unmapped and faulted
    // back in page by page (Memory.h): a process-wide setting, so the program makes it, not core.
    headscope::keepFreedMemory();
    QCoreApplication::setApplicationName(QStringLiteral("HeadScope"));
    QCoreApplication::setOrganizationName(QStringLiteral("HeadScope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(HEADSCOPE_VERSION));
    std::unique_ptr<QCoreApplication> app;
    if (asksForHelpOrVersion(argc, argv)) {
        app = std::make_unique<QCoreApplication>(argc, argv);
    } else {
        if (asksForBench(argc, argv)) qputenv("QT_QPA_PLATFORM", "offscreen");  // the figures are offscreen ones
        else if (!hasDisplay(argc, argv))
            return fail(QStringLiteral("no display: set DISPLAY, or run with QT_QPA_PLATFORM=offscreen "
                                       "(e.g. for --screenshot); --help lists the options"));
        app = std::make_unique<QApplication>(argc, argv);
        headscope::ui::initResources();
        QApplication::setApplicationDisplayName(QStringLiteral("HeadScope"));
        QApplication::setDesktopFileName(QStringLiteral("headscope"));
        QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/headscope.svg")));
    }

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Multi-head attention, made visible."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("A session (.headscope.json) to open."),
                                 QStringLiteral("[FILE]"));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
        QStringLiteral("Render the main window after the first complete update, save it to FILE (PNG) and exit."),
        QStringLiteral("FILE"));
    parser.addOption(screenshot);
    const QCommandLineOption model_dir(QStringLiteral("model"),
        QStringLiteral("Open the model directory DIR (config.json, safetensors, tokenizer), or a repo id of the "
                       "Hugging Face cache: GPT-2, Llama, Mistral, Qwen2 and 3, Gemma 2 and 3, Phi-3, OLMo 2, SmolLM3, "
                       "GPT-NeoX, BERT, RoBERTa, DistilBERT, ModernBERT."),
        QStringLiteral("DIR"));
    parser.addOption(model_dir);
    const QCommandLineOption text(QStringLiteral("text"), QStringLiteral("Start with this input text."),
                                  QStringLiteral("TEXT"));
    parser.addOption(text);
    const QCommandLineOption tab(QStringLiteral("tab"),
        QStringLiteral("Start on the tab NAME (%1).").arg(tabNames()),
        QStringLiteral("NAME"));
    parser.addOption(tab);
    const QCommandLineOption screen_size(QStringLiteral("screen"),
        QStringLiteral("With --screenshot: lay the window out as it is shown, maximised, on a screen of WxH pixels "
                       "(e.g. 1024x768; QT_SCALE_FACTOR applies) and render exactly that."),
        QStringLiteral("WxH"));
    parser.addOption(screen_size);
    const QCommandLineOption bench(QStringLiteral("bench"),
        QStringLiteral("Print the GUI's update and training-stall figures (offscreen) and exit: the GUI section of "
                       "headscope-cli bench. With --model DIR (and --text): that model in the window, timed."));
    const QCommandLineOption bench_runs(QStringLiteral("runs"), QStringLiteral("With --bench: timed changes (default 21)."),
                                        QStringLiteral("N"));
    const QCommandLineOption bench_quick(QStringLiteral("quick"),
                                         QStringLiteral("With --bench: one smoke run, no Training tab figure."));
    const QCommandLineOption bench_json(QStringLiteral("json"), QStringLiteral("With --bench: print JSON."));
    for (const QCommandLineOption* option : {&bench, &bench_runs, &bench_quick, &bench_json}) parser.addOption(*option);
    const QCommandLineOption lesson(QStringLiteral("lesson"),
        QStringLiteral("Open lesson N (1 to 7), at its step S when N:S is given (e.g. 2:5)."), QStringLiteral("N[:S]"));
    parser.addOption(lesson);
    const QCommandLineOption present(QStringLiteral("present"),
        QStringLiteral("Start in presentation mode (F5 leaves it): full screen, larger fonts, the controls hidden."));
    parser.addOption(present);
    const bool parsed = parser.parse(app->arguments());
    if (parser.isSet(QStringLiteral("help-all"))) parser.process(*app);  // prints Qt's options too, exits 0
    if (parser.isSet(QStringLiteral("help"))) parser.showHelp(0);
    if (parser.isSet(QStringLiteral("version"))) parser.showVersion();
    if (!parsed) return fail(parser.errorText());
    const QStringList files = parser.positionalArguments();
    if (files.size() > 1) return fail(QStringLiteral("give at most one session file"));
    if (parser.isSet(bench)) {
        if (!files.isEmpty() || parser.isSet(screenshot) || parser.isSet(tab) || parser.isSet(lesson) || parser.isSet(present))
            return fail(QStringLiteral("--bench runs alone: give it no file, --screenshot, --tab, --lesson or --present"));
        if (parser.isSet(text) && !parser.isSet(model_dir)) return fail(QStringLiteral("--bench takes --text only with --model"));
        bool ok = true;
        const int runs = parser.isSet(bench_runs) ? parser.value(bench_runs).toInt(&ok)
                         : parser.isSet(bench_quick)  ? 1
                         : parser.isSet(model_dir)    ? 3
                                                      : 21;
        if (!ok || runs < 1 || runs > 1000) return fail(QStringLiteral("--runs expects a whole number from 1 to 1000"));
        if (parser.isSet(model_dir))
            return headscope::app::runModelWindowBench(parser.value(model_dir), parser.value(text), runs, parser.isSet(bench_json));
        return headscope::app::runGuiBench(runs, parser.isSet(bench_quick), parser.isSet(bench_json));
    }
    if (parser.isSet(bench_runs) || parser.isSet(bench_quick) || parser.isSet(bench_json))
        return fail(QStringLiteral("--runs, --quick and --json go with --bench"));

    const bool shoot = parser.isSet(screenshot);
    if (shoot && parser.isSet(present))
        return fail(QStringLiteral("--present shows the window full screen; it does not go with --screenshot"));
    QSize screen_pixels;
    if (parser.isSet(screen_size)) {
        const QRegularExpressionMatch m =
            QRegularExpression(QStringLiteral("^(\\d{3,5})x(\\d{3,5})$")).match(parser.value(screen_size));
        if (!m.hasMatch()) return fail(QStringLiteral("--screen wants WxH in pixels, e.g. 1024x768"));
        if (!shoot) return fail(QStringLiteral("--screen goes with --screenshot"));
        screen_pixels = QSize(m.captured(1).toInt(), m.captured(2).toInt());
    }
    int lesson_number = 0, lesson_step = 1;
    if (parser.isSet(lesson)) {
        const QRegularExpressionMatch m =
            QRegularExpression(QStringLiteral("^(\\d{1,2})(?::(\\d{1,2}))?$")).match(parser.value(lesson));
        if (!m.hasMatch()) return fail(QStringLiteral("--lesson wants N or N:S, e.g. 2 or 2:5"));
        lesson_number = m.captured(1).toInt();
        if (!m.captured(2).isEmpty()) lesson_step = m.captured(2).toInt();
    }
    QString error_text;
    headscope::ui::MainWindowOptions options;
    options.use_settings = !shoot;  // screenshots start from the same state on every machine
    headscope::ui::MainWindow window(options);
    if (screen_pixels.isValid()) window.layOutAsOnScreen(screen_pixels);
    else if (!shoot) window.fitToScreen();  // --screenshot alone renders the window at its own size
    window.show();
    if (!files.isEmpty()) {
        QString error;  // interactive: a message box explains, the demo stays on screen
        if (!window.openSession(files.first(), shoot ? &error : nullptr) && shoot)
            return fail(error);  // the message names the file
    }
    // The user's text before the model: a model opening (at once for a screenshot) keeps a text of the
    // user's, where it would replace the demo's with a note saying so.
    if (parser.isSet(text)) window.setText(parser.value(text));
    if (parser.isSet(model_dir)) {
        if (!window.openModel(parser.value(model_dir), shoot ? &error_text : nullptr) && shoot)
            return fail(error_text);
    }
    if (lesson_number > 0) {
        if (!window.openLesson(lesson_number, &error_text)) return fail(error_text);
        headscope::ui::LessonDock* dock = window.lessonDock();
        if (lesson_step < 1 || lesson_step > dock->stepCount())
            return fail(QStringLiteral("lesson %1 has steps 1 to %2, not %3").arg(lesson_number).arg(dock->stepCount()).arg(lesson_step));
        dock->goToStep(lesson_step - 1);
    }
    if (parser.isSet(tab) && !window.showTab(parser.value(tab), &error_text)) return fail(error_text);
    if (parser.isSet(present)) window.setPresentationMode(true);
    if (!shoot) return app->exec();

    QString error;
    if (!window.waitForCompleteUpdate(120000, &error)) return fail(QStringLiteral("no picture: ") + error);
    if (!window.saveScreenshot(parser.value(screenshot), &error)) return fail(error);
    return 0;
}
