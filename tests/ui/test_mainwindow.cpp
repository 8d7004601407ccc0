// MainWindow driven through its real controls, asserting on the numbers the head grid holds.

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include "QtTestGroup.h"
#include <cmath>

#include "WindowTestSupport.h"
#include "Analysis.h"
#include "ControlsDock.h"
#include "ExportDialog.h"
#include "SpectrumView.h"
#include "HeadDetailDialog.h"
#include "HeadDetailView.h"
#include "HeadGridView.h"
#include "MainWindow.h"
#include "Session.h"
#include "StatusPanel.h"
#include "common/SessionFixtures.h"

using namespace headscope;
using namespace headscope::ui;
using namespace headscope::ui::testing;

namespace {

// Largest |grid cell - engine number| over all heads; masked cells must be NaN in the grid.
// Returns -1 (and fails) when the shapes differ.
double maxGridDifference(const HeadGridView* grid, const Analysis& expected, bool logits = false) {
    if (grid->headCount() != expected.config.heads) return -1;
    double worst = 0;
    for (int h = 0; h < grid->headCount(); ++h) {
        const HeadResult& head = expected.results.heads[h];
        const Eigen::MatrixXf& m = logits ? head.logits : head.weights;
        QCPColorMapData* data = grid->colorMap(h)->data();
        if (data->keySize() != m.cols() || data->valueSize() != m.rows()) return -1;
        for (int r = 0; r < m.rows(); ++r)
            for (int c = 0; c < m.cols(); ++c) {
                const double shown = data->cell(c, r);
                if (!expected.results.allowed(r, c)) {
                    if (!std::isnan(shown)) return -1;
                    continue;
                }
                worst = std::max(worst, std::abs(shown - double(m(r, c))));
            }
    }
    return worst;
}

template <typename T>
T* findControl(MainWindow& window, const char* name) {
    T* widget = window.findChild<T*>(QLatin1String(name));
    if (!widget) qFatal("no control named %s", name);
    return widget;
}

}  // namespace

class TestMainWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);  // settings go to a test location
        QCoreApplication::setOrganizationName(QStringLiteral("HeadScopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_mainwindow"));
        QSettings().clear();
    }

    void startsWithTheDemoSentenceInEveryHead() {
        MainWindow window(noSettings());
        window.show();
        QString error;
        QVERIFY2(window.waitForCompleteUpdate(60000, &error), qPrintable(error));
        QCOMPARE(window.windowTitle().remove(QLatin1String("[*]")), QStringLiteral("HeadScope"));
        QVERIFY(!window.isWindowModified());  // the start is not a change
        const Analysis expected = analyze(Config{}, false);
        QCOMPARE(window.headGrid()->headCount(), 8);
        QCOMPARE(maxGridDifference(window.headGrid(), expected), 0.0);
        const QString status = window.statusPanel()->text();
        QVERIFY2(status.contains(QLatin1String("rank W_QK: 8 8 8 8 8 8 8 8")), qPrintable(status));
        QVERIFY2(status.contains(QLatin1String("fused vs per-head")), qPrintable(status));
    }

    void typingAndChangingHeadsShowsTheNewNumbers() {
        MainWindow window(noSettings());
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));

        auto* text = findControl<QPlainTextEdit>(window, "text");
        text->setFocus();
        QTest::keyClick(text, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClick(text, Qt::Key_Delete);
        QTest::keyClicks(text, QStringLiteral("The cat sat on the mat ."));
        auto* heads = findControl<QSpinBox>(window, "heads");
        QCOMPARE(heads->value(), 8);
        typeIntoSpinBox(heads, QStringLiteral("4"));
        QCOMPARE(heads->value(), 4);
        QVERIFY(window.waitForCompleteUpdate(60000));

        Config expected_config;
        expected_config.text = "The cat sat on the mat .";
        expected_config.heads = 4;
        QCOMPARE(window.session()->config(), expected_config);
        QCOMPARE(window.controls()->config(), expected_config);
        const Analysis expected = analyze(expected_config, false);
        QCOMPARE(window.headGrid()->headCount(), 4);
        QCOMPARE(window.headGrid()->colorMap(0)->data()->keySize(), 7);
        QCOMPARE(maxGridDifference(window.headGrid(), expected), 0.0);
        // Locked dimensions follow: d_k = d_v = 64 / 4.
        QCOMPARE(findControl<QSpinBox>(window, "d_k")->value(), 16);
        const QString status = window.statusPanel()->text();
        QVERIFY2(status.contains(QStringLiteral("rank W_QK: 16 16 16 16 (\u2264 min(d_k, d_model) = 16)")), qPrintable(status));
    }

    void impossibleCombinationShowsTheProblemAndKeepsTheNumbers() {
        MainWindow window(noSettings());
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        const Analysis before = analyze(Config{}, false);
        QCOMPARE(maxGridDifference(window.headGrid(), before), 0.0);
        auto* problems = findControl<QLabel>(window, "problems");
        QVERIFY(problems->isHidden());

        auto* heads = findControl<QSpinBox>(window, "heads");
        QVERIFY(findControl<QCheckBox>(window, "lock_dims")->isChecked());
        typeIntoSpinBox(heads, QStringLiteral("3"));  // 64 / 3 with d_k locked to d_model / heads
        QVERIFY(!problems->isHidden());
        QVERIFY2(problems->text().contains(QLatin1String("d<sub>model</sub> 64 is not divisible by 3 heads")),  // typeset
                 qPrintable(problems->text()));
        QTest::qWait(100);
        QVERIFY(!window.session()->busy());
        QCOMPARE(window.headGrid()->headCount(), 8);
        QCOMPARE(maxGridDifference(window.headGrid(), before), 0.0);

        // Unlocking makes d_k and d_v explicit (21 each): valid again, three heads shown.
        findControl<QCheckBox>(window, "lock_dims")->click();
        QVERIFY(window.waitForCompleteUpdate(60000));
        QVERIFY(problems->isHidden());
        QCOMPARE(window.headGrid()->headCount(), 3);
        QCOMPARE(window.session()->config().d_k, 21);
        QCOMPARE(maxGridDifference(window.headGrid(), analyze(window.session()->config(), false)), 0.0);
    }

    void paddingKeyZeroUnderACausalMaskGivesAZeroRowNotNaN() {
        MainWindow window(noSettings());
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        auto* mask = findControl<QComboBox>(window, "mask");
        mask->setCurrentIndex(mask->findData(int(MaskKind::Causal)));
        QVERIFY(window.waitForCompleteUpdate(60000));
        auto* padded = findControl<QLineEdit>(window, "padded_keys");
        padded->setFocus();
        QTest::keyClicks(padded, QStringLiteral("0"));
        QVERIFY(window.waitForCompleteUpdate(60000));

        Config expected_config;
        expected_config.mask = MaskKind::Causal;
        expected_config.padded_keys = {0};
        QCOMPARE(window.session()->config(), expected_config);
        const Analysis expected = analyze(expected_config, false);
        QCOMPARE(maxGridDifference(window.headGrid(), expected), 0.0);
        // Query 0 attends to nothing: every cell of its row is masked (grey), none is NaN-as-number.
        for (int c = 0; c < expected.nKeyValue(); ++c) QVERIFY(std::isnan(window.headGrid()->colorMap(0)->data()->cell(c, 0)));
        QVERIFY(expected.results.heads[0].weights.row(0).isZero(0));

        // A key that does not exist: the problem in words, the last valid numbers kept. (Typing
        // "99" passes through "9", a valid key, so the last valid result is whichever came last.)
        padded->selectAll();
        QTest::keyClicks(padded, QStringLiteral("99"));
        QVERIFY(window.session()->waitForIdle(60000));
        QTest::qWait(50);
        auto* problems = findControl<QLabel>(window, "problems");
        QVERIFY2(problems->text().contains(QLatin1String("Padded key 99 does not exist")), qPrintable(problems->text()));
        const auto shown = window.session()->analysis();
        QCOMPARE(shown->config.padded_keys.size(), std::size_t(1));
        QVERIFY(shown->config.padded_keys[0] != 99);
        QCOMPARE(maxGridDifference(window.headGrid(), analyze(shown->config, false)), 0.0);
    }

    void viewTogglesAndZoom() {
        MainWindow window(noSettings());
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        window.controls()->logitsAction()->trigger();
        QVERIFY(window.headGrid()->options().show_logits);
        QVERIFY(findControl<QCheckBox>(window, "show_logits")->isChecked());
        QCOMPARE(maxGridDifference(window.headGrid(), analyze(Config{}, false), true), 0.0);
        findControl<QCheckBox>(window, "shared_scale")->click();
        QVERIFY(!window.headGrid()->options().shared_scale);

        QTest::keySequence(&window, QKeySequence(Qt::CTRL | Qt::Key_Equal));
        QCOMPARE(window.headGrid()->options().font_scale, 1.25);
        QTest::keySequence(&window, QKeySequence(Qt::CTRL | Qt::Key_0));
        QCOMPARE(window.headGrid()->options().font_scale, 1.0);
    }

    void clickingAHeadOpensItLarge() {
        MainWindow window(noSettings());
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        QVERIFY(!window.headDetail());
        HeadGridView* grid = window.headGrid();
        const QPoint centre = grid->headRect(5)->rect().center();
        QCOMPARE(grid->headAt(centre), 5);
        QTest::mouseClick(grid, Qt::LeftButton, {}, centre);
        QCOMPARE(window.session()->head(), 5);  // a click selects it everywhere
        QCOMPARE(window.spectrumView()->head(), 5);
        QVERIFY(!window.headDetail());
        QTest::mouseDClick(grid, Qt::LeftButton, {}, centre);
        QVERIFY(window.headDetail() && window.headDetail()->isVisible());
        QCOMPARE(window.headDetail()->view()->head(), 5);
        const Analysis expected = analyze(Config{}, false);
        const Eigen::MatrixXf& weights = expected.results.heads[5].weights;
        QCPColorMapData* data = window.headDetail()->view()->colorMap()->data();
        for (int r = 0; r < weights.rows(); ++r)
            for (int c = 0; c < weights.cols(); ++c) QCOMPARE(data->cell(c, r), double(weights(r, c)));

        // The open head follows the controls: 2 heads left, so it shows head 1 of the new layer.
        typeIntoSpinBox(findControl<QSpinBox>(window, "heads"), QStringLiteral("2"));
        QVERIFY(window.waitForCompleteUpdate(60000));
        QCOMPARE(window.headDetail()->view()->head(), 1);
    }

    void exportDialogOnlyPicks() {
        ExportDialog dialog(8, 3);
        dialog.setPath(QStringLiteral("/tmp/heads.png"));
        auto* format = dialog.findChild<QComboBox*>(QStringLiteral("export_format"));
        auto* scale = dialog.findChild<QComboBox*>(QStringLiteral("export_scale"));
        QVERIFY(format && scale);
        format->setCurrentIndex(format->findData(int(ImageFormat::Svg)));
        QCOMPARE(dialog.request().format, ImageFormat::Svg);
        QCOMPARE(dialog.request().path, QStringLiteral("/tmp/heads.svg"));  // the suffix follows
        QVERIFY(!scale->isEnabled());                                       // no pixel scale for SVG
        format->setCurrentIndex(format->findData(int(ImageFormat::Png)));
        scale->setCurrentIndex(scale->findData(4.0));
        const ExportRequest r = dialog.request();
        QCOMPARE(r.path, QStringLiteral("/tmp/heads.png"));
        QCOMPARE(r.scale, 4.0);
        QCOMPARE(r.head, 3);
    }

    void sessionFileReopensWithIdenticalNumbers() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("causal.headscope.json"));
        const Config config = test::roundTripConfig();
        {
            MainWindow window(noSettings());
            window.show();
            window.setConfig(config);
            QVERIFY(window.waitForCompleteUpdate(60000));
            QString error;
            QVERIFY2(window.saveSession(path, &error), qPrintable(error));
        }
        MainWindow fresh(noSettings());
        fresh.show();
        QString error;
        QVERIFY2(fresh.openSession(path, &error), qPrintable(error));
        QVERIFY(fresh.waitForCompleteUpdate(60000));
        QCOMPARE(fresh.session()->config(), config);
        QCOMPARE(fresh.controls()->config(), config);
        QCOMPARE(fresh.sessionPath(), path);
        QCOMPARE(maxGridDifference(fresh.headGrid(), analyze(config, false)), 0.0);

        // A broken file: an error, and the window keeps what it showed.
        const QString broken = test::writeBrokenSession(dir, "{\"d_model\": 64, \"hedas\": 8}");
        QVERIFY(!broken.isEmpty());
        QVERIFY(!fresh.openSession(broken, &error));
        QVERIFY(!error.isEmpty());
        QCOMPARE(fresh.session()->config(), config);
    }

    void lastSessionIsRestoredFromTheSettings() {
        Config config;
        config.heads = 2;
        config.seed = 99;
        {
            MainWindow window;  // with settings
            window.setConfig(config);
            QVERIFY(window.waitForCompleteUpdate(60000));
            window.close();  // saves geometry, view options and the config
        }
        MainWindow again;
        QCOMPARE(again.session()->config(), config);
        QCOMPARE(again.controls()->config(), config);
        QSettings().clear();
    }

    void screenshotFunctionWritesThePicture() {
        MainWindow window(noSettings());
        window.show();
        QString error;
        QVERIFY2(window.waitForCompleteUpdate(60000, &error), qPrintable(error));
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("shot.png"));
        QVERIFY2(window.saveScreenshot(path, &error), qPrintable(error));
        QImage image(path);
        QVERIFY(!image.isNull());
        QCOMPARE(image.size(), window.size() * window.devicePixelRatio());
        QVERIFY(!window.saveScreenshot(dir.filePath(QStringLiteral("missing/dir/shot.png")), &error));
        QVERIFY(error.contains(QLatin1String("cannot write")));
    }

    void headscopeBinaryScreenshot() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("binary.png"));
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        process.setProcessEnvironment(env);
        process.start(QStringLiteral(HEADSCOPE_GUI_BINARY), {QStringLiteral("--screenshot"), path});
        QVERIFY(process.waitForFinished(120000));
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        const QImage image(path);
        QVERIFY(!image.isNull());
        QVERIFY(image.width() >= 800 && image.height() >= 600);

        // An unwritable path: exit status 2 and one line on stderr.
        process.start(QStringLiteral(HEADSCOPE_GUI_BINARY),
                      {QStringLiteral("--screenshot"), dir.filePath(QStringLiteral("no/such/dir/x.png"))});
        QVERIFY(process.waitForFinished(120000));
        QCOMPARE(process.exitCode(), 2);
        // Qt may print its own diagnostics first; HeadScope says what went wrong in one line.
        const QList<QByteArray> lines = process.readAllStandardError().trimmed().split('\n');
        QVERIFY2(lines.last().startsWith("headscope: cannot write"), lines.last().constData());
        int ours = 0;
        for (const QByteArray& line : lines) ours += line.startsWith("headscope:");
        QCOMPARE(ours, 1);

        // A session file that does not exist: exit status 2 too.
        process.start(QStringLiteral(HEADSCOPE_GUI_BINARY),
                      {dir.filePath(QStringLiteral("nope.headscope.json")), QStringLiteral("--screenshot"), path});
        QVERIFY(process.waitForFinished(120000));
        QCOMPARE(process.exitCode(), 2);

        // --tab: a picture of any view; an unknown tab names the ones there are.
        process.start(QStringLiteral(HEADSCOPE_GUI_BINARY),
                      {QStringLiteral("--tab"), QStringLiteral("q-k MAP"), QStringLiteral("--screenshot"), path});
        QVERIFY(process.waitForFinished(120000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        process.start(QStringLiteral(HEADSCOPE_GUI_BINARY),
                      {QStringLiteral("--tab"), QStringLiteral("Spectra"), QStringLiteral("--screenshot"), path});
        QVERIFY(process.waitForFinished(120000));
        QCOMPARE(process.exitCode(), 2);
        const QByteArray said = process.readAllStandardError();
        QVERIFY2(said.contains("no tab called \"Spectra\"") && said.contains("Projections") && said.contains("Q-K map"),
                 said.constData());
    }
};

HEADSCOPE_QTEST_MAIN(TestMainWindow)
#include "test_mainwindow.moc"
