// headscope: the GUI. Parses the command line and starts the main window.
//   headscope [FILE]                 opens the built-in demo, or the session FILE
//   headscope --screenshot OUT.png   renders the window after the first complete update
//                                    (analysis on every view, equivalence shown) and exits

#include <cstdio>

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>

#include "MainWindow.h"
#include "Resources.h"

namespace {

int fail(const QString& message) {
    std::fprintf(stderr, "headscope: %s\n", qPrintable(message));
    return 2;
}

}  // namespace

int main(int argc, char* argv[]) {
    QApplication app(argc, argv);
    headscope::ui::initResources();
    QApplication::setApplicationName(QStringLiteral("HeadScope"));
    QApplication::setOrganizationName(QStringLiteral("HeadScope"));
    QApplication::setApplicationVersion(QStringLiteral(HEADSCOPE_VERSION));
    QApplication::setApplicationDisplayName(QStringLiteral("HeadScope"));
    QApplication::setDesktopFileName(QStringLiteral("headscope"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/headscope.svg")));

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
    if (!parser.parse(app.arguments())) return fail(parser.errorText());
    if (parser.isSet(QStringLiteral("help-all"))) parser.process(app);  // prints Qt's options too, exits 0
    if (parser.isSet(QStringLiteral("help"))) parser.showHelp(0);
    if (parser.isSet(QStringLiteral("version"))) parser.showVersion();
    const QStringList files = parser.positionalArguments();
    if (files.size() > 1) return fail(QStringLiteral("give at most one session file"));

    const bool shoot = parser.isSet(screenshot);
    headscope::ui::MainWindowOptions options;
    options.use_settings = !shoot;  // screenshots start from the same state on every machine
    headscope::ui::MainWindow window(options);
    window.show();
    if (!files.isEmpty()) {
        QString error;  // interactive: a message box explains, the demo stays on screen
        if (!window.openSession(files.first(), shoot ? &error : nullptr) && shoot)
            return fail(files.first() + QStringLiteral(": ") + error);
    }
    if (!shoot) return app.exec();

    QString error;
    if (!window.waitForCompleteUpdate(120000, &error)) return fail(QStringLiteral("no picture: ") + error);
    if (!window.saveScreenshot(parser.value(screenshot), &error)) return fail(error);
    return 0;
}
