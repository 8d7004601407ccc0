// One registry of views (issue 24): every view is listed once, with an id, a title, a file stem
// and a factory that builds and saves it; the window's tabs, export and lessons read it; a lesson
// naming a view it does not list fails to load with one sentence.

#include <QImage>
#include <QSet>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>
#include "QtTestGroup.h"

#include "Analysis.h"
#include "MainWindow.h"
#include "QueryKeyMapView.h"
#include "RotaryDelta.h"
#include "RotaryTestAnalysis.h"
#include "RotaryView.h"
#include "ScoreBreakdownView.h"
#include "Session.h"
#include "Teaching.h"
#include "ViewRegistry.h"
#include "WindowTestSupport.h"
#include "io/Checkpoint.h"
#include "model/Forward.h"
#include "train/SaveGpt2.h"

using namespace headscope;
using namespace headscope::ui;
using namespace headscope::ui::testing;

class TestViewRegistry : public QObject {
    Q_OBJECT

private slots:
    void everyViewIsListedOnceAndEveryExportKindHasAnEntry() {
        QSet<QString> ids, stems;
        for (const ViewEntry& e : viewRegistry()) {
            QVERIFY2(!ids.contains(QLatin1String(e.id)), e.id);
            QVERIFY2(!stems.contains(QLatin1String(e.file_stem)), e.file_stem);
            ids << QLatin1String(e.id), stems << QLatin1String(e.file_stem);
            QVERIFY(QByteArray(e.title).size() > 3);
            QVERIFY(e.save != nullptr);
            QCOMPARE(findView(e.id), &e);
        }
        QVERIFY(findView("pie") == nullptr);
        // Every kind Export draws is in the registry, in its order; the newest views are too.
        for (int k = 0; k <= int(ViewKind::QueryKeyMap); ++k) {
            const ViewEntry& e = viewEntry(ViewKind(k));
            QVERIFY2(e.kind == ViewKind(k), e.id);
            QCOMPARE(viewFileName(ViewKind(k), 3), fileStem(e, 3));
        }
        QCOMPARE(int(exportedViews().size()), int(ViewKind::QueryKeyMap) + 1);
        for (const char* id : {"score", "ablation", "training", "model", "token_lines", "qk_map"}) QVERIFY2(findView(id), id);
        QCOMPARE(fileStem(*findView("circuits"), 3), QStringLiteral("circuit_qk_head_3"));
    }

    // Each tab of the window is a registry entry's; showView brings forward the one it names.
    void theWindowsTabsAreTheRegistrys() {
        MainWindow window(noSettings());
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        QSet<QString> tab_titles;
        for (int i = 0; i < window.centralTabs()->count(); ++i) tab_titles << window.centralTabs()->tabText(i).remove('&');
        for (const ViewEntry& e : viewRegistry()) {
            if (e.place != ViewPlace::Tab) continue;
            QVERIFY2(tab_titles.contains(tabTitle(e)), e.id);
            window.showView(e.id);
            QCOMPARE(window.centralTabs()->tabText(window.centralTabs()->currentIndex()).remove('&'), tabTitle(e));
        }
    }

    // The window builds its central tabs from the registry (a new view = one class + one registry
    // line): one tab per tab label, in registry order, with the registry's label and tool tip; an
    // entry with a factory is the tab's page itself, bound to the session, and found by its id.
    void theWindowBuildsItsTabsFromTheRegistryInItsOrder() {
        MainWindow window(noSettings());
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        QTabWidget* tabs = window.centralTabs();
        QStringList labels;
        std::vector<const ViewEntry*> firsts;
        for (const ViewEntry& e : viewRegistry()) {
            if (e.place != ViewPlace::Tab || labels.contains(QString::fromUtf8(e.tab_label))) continue;
            labels << QString::fromUtf8(e.tab_label);
            firsts.push_back(&e);
        }
        QVERIFY(labels.size() >= 10);
        QCOMPARE(tabs->count(), labels.size());  // the RoPE tab is a registry entry too
        int built = 0;
        for (int i = 0; i < labels.size(); ++i) {
            const ViewEntry& e = *firsts[std::size_t(i)];
            QCOMPARE(tabs->tabText(i), labels[i]);
            QVERIFY2(e.tab_tip && tabs->tabToolTip(i) == QString::fromUtf8(e.tab_tip), e.id);
            if (!e.make_view) continue;
            ++built;
            QWidget* view = window.tabView(e.id);
            QVERIFY2(view && tabs->widget(i) == view, e.id);
            QCOMPARE(view->objectName(), QString::fromUtf8(e.id) + QStringLiteral("_view"));
        }
        QCOMPARE(built, 10);  // projections, twice, circuits, costs, model, looks at, score, token lines, Q-K map, RoPE
        // The RoPE view draws the shares of the window's Delta, shared with the spectra and circuits.
        auto* rope = qobject_cast<RotaryView*>(window.tabView("rope"));
        QVERIFY(rope);
        QVERIFY(window.session()->findChild<RotaryDelta*>(QStringLiteral("rotary_delta")));
        QVERIFY(window.tabView("pie") == nullptr);
        // The typed look-ups the tests use are the registry-built views.
        QCOMPARE(static_cast<QWidget*>(window.scoreBreakdownView()), window.tabView("score"));
        QCOMPARE(static_cast<QWidget*>(window.queryKeyMapView()), window.tabView("qk_map"));
        // Bound by its hooks both ways: the score view follows the session's head, and its clicks
        // select the session's cell.
        window.session()->setHead(2);
        QCOMPARE(window.scoreBreakdownView()->head(), 2);
        emit window.scoreBreakdownView()->cellClicked(3, 1);
        QCOMPARE(window.session()->cellRow(), 3);
        QCOMPARE(window.session()->cellColumn(), 1);
    }

    // Every entry's factory draws its view: from an analysis, a training run, a model's trace and
    // the effects of knocking a head out (a small model trained a few steps, saved and loaded).
    void everyEntryIsMadeAndExported() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const Analysis analysis = analyze(Config{}, true);
        train::TrainConfig settings;
        settings.eval_every = 2;
        train::Trainer trainer(settings);
        for (int i = 0; i < 4; ++i) trainer.step();
        TrainingRun run;
        run.evaluations = trainer.evaluations();
        for (const auto& s : trainer.snapshots()) run.snapshots.push_back(std::make_shared<const train::AttentionSnapshot>(s));
        run.layers = settings.layers, run.heads = settings.heads;
        train::saveGpt2Folder(settings, trainer.layout(), trainer.parameters(), dir.filePath("model").toStdString());
        const model::ModelPtr m = io::loadCheckpoint(dir.filePath("model").toStdString());
        const std::vector<int> ids = m->tokenizer->encode("abcabc");
        model::ForwardOptions options;
        options.all_logits = true;
        const auto intact = std::make_shared<const model::Trace>(model::runModel(*m, ids, options));
        options.ablation.add({1, 0});
        const auto ablated = std::make_shared<const model::Trace>(model::runModel(*m, ids, options));

        ViewInputs in;
        in.analysis = &analysis;
        in.head = 1;
        in.trace = ablated;
        in.effects = std::make_shared<const model::AblationEffects>(model::ablationEffects(*m, *intact, *ablated));
        in.training = &run;
        const auto rotary = test::rotaryAnalysis();  // the RoPE view draws a rotary layer
        for (const ViewEntry& e : viewRegistry()) {
            const QString path = dir.filePath(fileStem(e, 1) + ".png");
            QString error;
            ViewInputs entry_in = in;
            if (std::string_view(e.id) == "rope") entry_in.analysis = rotary.get();
            QVERIFY2(saveView(e, entry_in, path, ImageFormat::Png, 1.0, &error), qPrintable(QLatin1String(e.id) + ": " + error));
            const QImage image(path);
            QVERIFY2(image.width() > 300 && image.height() > 200, e.id);
        }
        // Without what it draws from, a view says so in one sentence.
        ViewInputs none;
        QString error;
        QVERIFY(!saveView(*findView("training"), none, dir.filePath("t.png"), ImageFormat::Png, 1.0, &error));
        QCOMPARE(error, QStringLiteral("The training view has nothing to draw: no training run."));
        QVERIFY(!saveView(*findView("ablation"), none, dir.filePath("a.png"), ImageFormat::Png, 1.0, &error));
        QCOMPARE(error, QStringLiteral("The ablation view has nothing to draw: no model is open to knock heads out of."));
        QVERIFY(!saveView(*findView("rope"), in, dir.filePath("r.png"), ImageFormat::Png, 1.0, &error));
        QCOMPARE(error, QStringLiteral("The rope view has nothing to draw: this layer has no rotary positions."));
    }

    // The RoPE view is a registry view like the others: found by its id, made by its factory,
    // and a lesson step may show it.
    void aLessonMayShowTheRopeView() {
        const ViewEntry* rope = findView("rope");
        QVERIFY(rope && rope->make_view && rope->place == ViewPlace::Tab);
        QCOMPARE(tabTitle(*rope), QStringLiteral("RoPE"));
        std::unique_ptr<AttentionView> view(rope->make_view(nullptr));
        QVERIFY(qobject_cast<RotaryView*>(view.get()));
        const QByteArray text = R"({"format": "headscope-lesson", "version": 1, "number": 9, "title": "t", "steps": [
            {"title": "a", "text": "x", "show": "rope"}]})";
        QString error;
        const auto lesson = lessonFromText(text, QStringLiteral("lesson-9.json"), &error);
        QVERIFY2(lesson, qPrintable(error));
        QCOMPARE(lesson->steps.front().show, std::string("rope"));
    }

    // exportImages writes the RoPE view for a rotary layer, and nothing of it for another.
    void exportWritesTheRopeViewForARotaryLayerOnly() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QString error;
        const QStringList rotary = exportImages(*test::rotaryAnalysis(), dir.filePath("r"), {ImageFormat::Png}, &error, {}, 1.0, 1);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(rotary.contains(dir.filePath("r/rope_head_1.png")));
        QVERIFY(QImage(dir.filePath("r/rope_head_1.png")).width() > 300);
        const QStringList plain = exportImages(*test::rotaryAnalysis(false), dir.filePath("p"), {ImageFormat::Png}, &error, {}, 1.0, 1);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(plain.size(), rotary.size() - 1);
        QVERIFY(!QFile::exists(dir.filePath("p/rope_head_1.png")));
    }

    void aLessonNamingAnUnknownViewFailsToLoad() {
        const QByteArray text = R"({"format": "headscope-lesson", "version": 1, "number": 9, "title": "t", "steps": [
            {"title": "a", "text": "x", "show": "score"}, {"title": "b", "text": "x", "show": "attention"}]})";
        QString error;
        QVERIFY(!lessonFromText(text, QStringLiteral("lesson-9.json"), &error));
        QString known;
        for (const std::string& id : viewIds()) known += (known.isEmpty() ? "" : ", ") + QString::fromStdString(id);
        QCOMPARE(error, QStringLiteral("lesson-9.json, step 2: \"show\" 'attention' is not a view (the views are: %1)").arg(known));
        QVERIFY(known.contains(QStringLiteral("training")) && known.contains(QStringLiteral("ablation")));
    }

    void everyLessonStepShowsARegisteredView() {
        int steps = 0;
        for (int n = 1; n <= kLessonCount; ++n) {
            QString error;
            const auto lesson = loadLesson(n, &error);
            QVERIFY2(lesson, qPrintable(error));
            for (const auto& step : lesson->steps) {
                QVERIFY2(findView(step.show), step.show.c_str());
                ++steps;
            }
        }
        QVERIFY(steps > 30);
    }
};

HEADSCOPE_QTEST_MAIN(TestViewRegistry)
#include "test_view_registry.moc"
