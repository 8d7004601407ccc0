// Edit > Undo and Redo: every configuration change is a step named in the controls' words;
// undoing puts back the controls, the session and the views; a slider drag or a typed word
// is one step, a preset, a lesson step or an opened session a named one; other weights
// start a new history. ConfigCommand's merging is tested with explicit times.
#include <QAction>
#include <QDir>
#include <QPlainTextEdit>
#include <QSlider>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>
#include "QtTestGroup.h"

#include "ConfigCommand.h"
#include "ControlsDock.h"
#include "HeadGridView.h"
#include "MainWindow.h"
#include "Session.h"
#include "Teaching.h"
#include "WindowTestSupport.h"
#include "common/SessionFixtures.h"

using namespace headscope;
using namespace headscope::ui;
using namespace headscope::ui::testing;
using namespace std::chrono_literals;

namespace {

using test::withHeads;

// The undo action's text as the Edit menu shows it, without the shortcut's &.
QString undoText(MainWindow& window) {
    for (QAction* action : window.findChildren<QAction*>())
        if (action->shortcuts().contains(QKeySequence(QKeySequence::Undo))) return action->text().remove('&');
    return {};
}

void trigger(MainWindow& window, QKeySequence::StandardKey key) {
    for (QAction* action : window.findChildren<QAction*>())
        if (action->shortcuts().contains(QKeySequence(key)) && action->isEnabled()) return action->trigger();
    QFAIL("no enabled action for the key");
}

}  // namespace

class TestUndo : public QObject {
    Q_OBJECT

private slots:
    void aStepIsAppliedOnlyByUndoAndRedo() {
        QList<int> applied;
        QUndoStack stack;
        const auto apply = [&](const Config& c) { applied << c.heads; };
        stack.push(new ConfigCommand(apply, withHeads(8), withHeads(4)));
        QVERIFY(applied.isEmpty());  // the change was made before it was pushed
        QCOMPARE(stack.undoText(), QStringLiteral("heads 8 → 4"));
        stack.undo();
        stack.redo();
        stack.undo();
        QCOMPARE(applied, (QList<int>{8, 4, 8}));
    }

    void oneKnobWithinASecondIsOneStep() {
        QUndoStack stack;
        const auto apply = [](const Config&) {};
        const auto t0 = ConfigCommand::Clock::now();
        stack.push(new ConfigCommand(apply, withHeads(8), withHeads(9), {}, t0));
        stack.push(new ConfigCommand(apply, withHeads(9), withHeads(10), {}, t0 + 400ms));
        stack.push(new ConfigCommand(apply, withHeads(10), withHeads(11), {}, t0 + 800ms));  // a drag
        QCOMPARE(stack.count(), 1);
        QCOMPARE(stack.undoText(), QStringLiteral("heads 8 → 11"));
        stack.push(new ConfigCommand(apply, withHeads(11), withHeads(12), {}, t0 + 2500ms));  // a pause
        QCOMPARE(stack.count(), 2);
        Config wider = withHeads(12);
        wider.d_model = 96;
        stack.push(new ConfigCommand(apply, withHeads(12), wider, {}, t0 + 2600ms));  // another knob
        QCOMPARE(stack.count(), 3);
        QCOMPARE(stack.undoText(), QStringLiteral("d_model 64 → 96"));
    }

    void aDragBackToWhereItBeganLeavesNoStep() {
        QUndoStack stack;
        const auto apply = [](const Config&) {};
        const auto t0 = ConfigCommand::Clock::now();
        stack.push(new ConfigCommand(apply, withHeads(8), withHeads(9), {}, t0));
        stack.push(new ConfigCommand(apply, withHeads(9), withHeads(8), {}, t0 + 200ms));
        QCOMPARE(stack.count(), 0);
    }

    void namedStepsNeverMerge() {
        QUndoStack stack;
        const auto apply = [](const Config&) {};
        const auto t0 = ConfigCommand::Clock::now();
        stack.push(new ConfigCommand(apply, withHeads(8), withHeads(4), QStringLiteral("preset: Rank cliff"), t0));
        stack.push(new ConfigCommand(apply, withHeads(4), withHeads(2), {}, t0 + 100ms));
        stack.push(new ConfigCommand(apply, withHeads(2), withHeads(1), QStringLiteral("lesson step: one head"), t0 + 200ms));
        QCOMPARE(stack.count(), 3);
        QCOMPARE(stack.text(0), QStringLiteral("preset: Rank cliff"));
    }

    void undoPutsBackTheControlsTheSessionAndTheViews() {
        MainWindow window(noSettings());
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        QCOMPARE(window.undoStack()->count(), 0);  // the start is not a step
        auto* heads = window.controls()->findChild<QSpinBox*>("heads");
        QVERIFY(heads);
        typeIntoSpinBox(heads, QStringLiteral("4"));
        QVERIFY(window.waitForCompleteUpdate(60000));
        QCOMPARE(window.headGrid()->headCount(), 4);
        QCOMPARE(undoText(window), QStringLiteral("Undo heads 8 → 4"));

        trigger(window, QKeySequence::Undo);
        QCOMPARE(window.session()->config().heads, 8);
        QCOMPARE(heads->value(), 8);
        QVERIFY(window.waitForCompleteUpdate(60000));
        QCOMPARE(window.headGrid()->headCount(), 8);
        QCOMPARE(window.undoStack()->count(), 1);  // undoing is not a new step

        trigger(window, QKeySequence::Redo);
        QCOMPARE(heads->value(), 4);
        QVERIFY(window.waitForCompleteUpdate(60000));
        QCOMPARE(window.headGrid()->headCount(), 4);
    }

    void aTypedWordAndASliderDragAreOneStepEach() {
        MainWindow window(noSettings());
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        auto* text = window.controls()->findChild<QPlainTextEdit*>("text");
        QVERIFY(text);
        const std::string before = window.session()->config().text;
        text->moveCursor(QTextCursor::End);
        QTest::keyClicks(text, QStringLiteral(" again"));
        QCOMPARE(window.undoStack()->count(), 1);
        QCOMPARE(undoText(window), QStringLiteral("Undo text"));
        auto* slider = window.controls()->findChild<QSlider*>("d_model_slider");
        QVERIFY(slider);
        const int d_model = window.session()->config().d_model;
        for (int step = 1; step <= 3; ++step) slider->setValue(slider->value() + slider->pageStep() / 2);  // a drag
        QVERIFY(window.session()->config().d_model != d_model);
        QCOMPARE(window.undoStack()->count(), 2);
        trigger(window, QKeySequence::Undo);
        QCOMPARE(window.session()->config().d_model, d_model);
        trigger(window, QKeySequence::Undo);
        QCOMPARE(window.session()->config().text, before);
        QCOMPARE(text->toPlainText().toStdString(), before);
    }

    void presetsAreNamedStepsAndSessionsStartAHistory() {
        MainWindow window(noSettings());
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        Config mine = window.session()->config();
        mine.text = "my own sentence";
        mine.seed = 42;
        window.setConfig(mine);
        const QList<lessons::Preset> presets = loadPresets();
        QVERIFY(!presets.isEmpty());
        window.applyPreset(presets.front());
        QCOMPARE(undoText(window), QStringLiteral("Undo preset: ") + QString::fromStdString(presets.front().name));
        trigger(window, QKeySequence::Undo);
        QVERIFY(window.session()->config() == mine);  // a preset click loses nothing

        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("other.headscope.json"));
        Config other = mine;
        other.heads = 2;
        window.setConfig(other);
        QVERIFY(window.saveSession(path));
        window.setConfig(mine);
        QVERIFY(window.undoStack()->count() > 0);
        QVERIFY(window.openSession(path));
        // Another document, its own history: undoing into the previous one would let Ctrl+S
        // write it over this file.
        QCOMPARE(window.undoStack()->count(), 0);
        QCOMPARE(window.session()->config().heads, 2);
    }

    void otherWeightsStartANewHistory() {
        MainWindow window(noSettings());
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        Config c = window.session()->config();
        c.seed = 9;
        window.setConfig(c);
        QCOMPARE(window.undoStack()->count(), 1);
        QSignalSpy changed(window.session(), &Session::sourceChanged);
        window.session()->openLayer(QStringLiteral(HEADSCOPE_TEST_DATA_DIR "/mha/self_small/weights.safetensors"), 2, QString());
        QVERIFY(changed.wait(30000));
        QCOMPARE(window.undoStack()->count(), 0);
        QVERIFY(undoText(window).isEmpty() || undoText(window) == QStringLiteral("Undo"));
    }

    void anotherLayerOfTheSameModelKeepsTheHistory() {
        const QString model = QStringLiteral(HEADSCOPE_SHARED_MODELS_DIR "/induction");
        if (!QDir(model).exists()) QSKIP("../shared/models/induction is absent: a trained two-layer model is needed");
        MainWindow window(noSettings());
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        QString error;
        QVERIFY2(window.openModel(model, &error), qPrintable(error));
        QVERIFY(window.waitForCompleteUpdate(60000));
        QCOMPARE(window.undoStack()->count(), 0);  // other weights: a new history
        Config c = window.session()->config();
        c.temperature = 2.0;
        c.d_model = 4 * c.d_model;  // fixed by the model: not part of the step
        window.setConfig(c);
        QCOMPARE(undoText(window), QStringLiteral("Undo temperature 1 → 2"));
        QSignalSpy changed(window.session(), &Session::sourceChanged);
        window.session()->setLayer(1);
        QVERIFY(changed.count() > 0 || changed.wait(30000));
        QCOMPARE(window.undoStack()->count(), 1);
        trigger(window, QKeySequence::Undo);
        QCOMPARE(window.session()->config().temperature, 1.0);
    }
};

HEADSCOPE_QTEST_MAIN(TestUndo)
#include "test_undo.moc"
