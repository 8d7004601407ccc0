// Knocking heads out in the window (issue 23), with the trained induction model
// (../shared/models; skipped without it): the document runs the model with the heads off on its
// worker, its trace, next tokens and effects change and the strip draws them; restoring brings
// the original numbers back exactly; the heads' menus and the dock's list drive it; on generated
// weights the layer's output changes, against its closed form, and the heads grid and rank table mark the head.
#include <QTabWidget>
#include <QComboBox>
#include <QDir>
#include <QListWidget>
#include <QMenu>
#include <QPushButton>
#include <QtTest>
#include "QtTestGroup.h"

#include "AblationList.h"
#include "AblationTab.h"
#include "AttributionView.h"
#include "HeadGridView.h"
#include "HeadMenus.h"
#include "MainWindow.h"
#include "ModelDock.h"
#include "ModelOverviewView.h"
#include "OutputChangeView.h"
#include "RankTableView.h"
#include "Session.h"
#include "TokenLogProbView.h"
#include "WindowTestSupport.h"

using namespace headscope;
using namespace headscope::ui;
using namespace headscope::ui::testing;

namespace {

// Shows the tab whose page is `page` or holds it (the Ablation tab sits in a scroll area).
void showPage(QTabWidget* tabs, QWidget* page) {
    for (int i = 0; i < tabs->count(); ++i)
        if (tabs->widget(i) == page || tabs->widget(i)->isAncestorOf(page)) tabs->setCurrentIndex(i);
}

const QString kInductionFolder = QStringLiteral(HEADSCOPE_SHARED_MODELS_DIR "/induction");
const QString kAblationText = QStringLiteral("hdu tarlq hdu tarlq hdu tarlq hdu tarlq");

#define SKIP_WITHOUT_INDUCTION()          \
    if (!QDir(kInductionFolder).exists()) \
    QSKIP("../shared/models/induction is absent: the trained checkpoint is needed")

// The bars' values by key.
std::vector<double> barValues(QCPBars* bars) {
    std::vector<double> values;
    for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it) values.push_back(it->value);
    return values;
}

QAction* actionNamed(QMenu& menu, const QString& name) {
    for (QAction* action : menu.actions())
        if (action->objectName() == name) return action;
    return nullptr;
}

}  // namespace

class TestAblationUi : public QObject {
    Q_OBJECT

private slots:
    void knockingOutChangesTheTraceAndTheStripAndRestoringBringsItBackExactly() {
        SKIP_WITHOUT_INDUCTION();
        MainWindow window(noSettings());
        window.resize(1200, 800);
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        QString error;
        QVERIFY2(window.openModel(kInductionFolder, &error), qPrintable(error));
        window.setText(kAblationText);
        QVERIFY(window.waitForCompleteUpdate(60000));
        Session* session = window.session();
        AblationTab* tab = window.ablationTab();
        showPage(window.centralTabs(), tab);
        QVERIFY(session->canAblate());

        const auto intact_trace = session->trace();
        const auto intact = session->effects();
        QVERIFY(intact && intact->has_logprobs);
        QCOMPARE(intact->before.tokens.size(), std::size_t(38));
        QVERIFY(!tab->strip()->afterBars()->visible());
        const std::vector<double> intact_bars = barValues(tab->strip()->beforeBars());
        QCOMPARE(intact_bars.size(), std::size_t(38));
        QCOMPARE(intact_bars[20], intact->before.tokens[20].logprob);

        // Right-click menu of head 1.0 on the grid's layer... through the same actions the menus show.
        session->setLayer(1);
        QVERIFY(session->waitForIdle(60000));
        showPage(window.centralTabs(), tab);  // a new layer shows the Model tab
        QCOMPARE(window.headGrid()->contextMenuPolicy(), Qt::CustomContextMenu);
        for (int h = 0; h < 4; ++h) {
            QMenu menu;
            addHeadActions(&menu, session, 1, h);
            QAction* knock = actionNamed(menu, QStringLiteral("knock_out_zero"));
            QVERIFY(knock);
            QVERIFY(knock->text().contains(QStringLiteral("1.%1").arg(h)));
            knock->trigger();
        }
        QVERIFY(session->waitForIdle(60000));
        QCOMPARE(session->ablation().heads.size(), std::size_t(4));
        const auto ablated = session->effects();
        QVERIFY(ablated != intact);
        // The document's trace is the ablated run: layer 1 writes only its bias, the logits moved.
        const auto trace = session->trace();
        QCOMPARE(trace->options.ablation.heads.size(), std::size_t(4));
        QCOMPARE(trace->layers[1].attention.heads[2].output.cwiseAbs().maxCoeff(), 0.0f);
        QVERIFY((trace->logits - intact_trace->logits).cwiseAbs().maxCoeff() > 1.0f);
        QVERIFY(session->intactTrace() == intact_trace);  // the intact run was reused, not recomputed
        // The analysis every single-layer view reads is layer 1 of the ablated run.
        QCOMPARE(session->analysis()->results.heads[2].output.cwiseAbs().maxCoeff(), 0.0f);
        // The strip: two bars per token, after = the ablated log-probabilities, the loss change in the title.
        QVERIFY(tab->strip()->afterBars()->visible());
        const std::vector<double> after_bars = barValues(tab->strip()->afterBars());
        QCOMPARE(after_bars.size(), std::size_t(38));
        QCOMPARE(after_bars[25], ablated->after.tokens[25].logprob);
        QCOMPARE(barValues(tab->strip()->beforeBars()), intact_bars);
        qInfo("induction, layer 1 off: loss %.3f -> %.3f", ablated->before.loss, ablated->after.loss);
        QVERIFY(ablated->lossChange() > 2.0);
        QVERIFY2(tab->strip()->title().contains(QStringLiteral("1.0, 1.1, 1.2, 1.3")), qPrintable(tab->strip()->title()));
        QVERIFY(window.modelOverview()->ablation().contains(1, 3));  // framed in red, named "off"
        // The heatmap marks the heads off and they contribute nothing.
        QCOMPARE(tab->attribution()->colorMap()->data()->cell(2, 1), 0.0);
        if (!qEnvironmentVariableIsEmpty("HEADSCOPE_SHOT_DIR")) {  // for looking at it (and the README)
            AblationTab shot(session);
            shot.resize(900, 600);
            shot.show();
            QTest::qWait(50);
            shot.grab().save(QDir(qEnvironmentVariable("HEADSCOPE_SHOT_DIR")).filePath("ablation.png"));
            window.centralTabs()->setCurrentWidget(window.modelOverview());
            QTest::qWait(50);
            window.grab().save(QDir(qEnvironmentVariable("HEADSCOPE_SHOT_DIR")).filePath("ablation_window.png"));
            showPage(window.centralTabs(), tab);
        }

        // The dock lists the four heads; one click restores one.
        AblationList* list = window.modelDock()->findChild<AblationList*>();
        QVERIFY(list);
        QCOMPARE(list->list()->count(), 4);
        QVERIFY(list->list()->item(0)->text().contains(QStringLiteral("1.0")));
        emit list->list()->itemClicked(list->list()->item(0));
        QVERIFY(session->waitForIdle(60000));
        QCOMPARE(session->ablation().heads.size(), std::size_t(3));
        QCOMPARE(list->list()->count(), 3);
        // Mean mode for all of them, from the dock.
        list->mode()->setCurrentIndex(list->mode()->findData(static_cast<int>(model::AblationMode::Mean)));
        QVERIFY(session->waitForIdle(60000));
        QCOMPARE(session->ablation().mode, model::AblationMode::Mean);
        QVERIFY(session->trace()->layers[1].attention.heads[2].output.cwiseAbs().maxCoeff() > 0.0f);

        // Restore all: the original numbers, exactly.
        list->findChild<QPushButton*>(QStringLiteral("restore_all"))->click();
        QVERIFY(session->waitForIdle(60000));
        QVERIFY(session->ablation().empty());
        QCOMPARE(list->list()->count(), 0);
        const auto restored = session->effects();
        QVERIFY(session->trace() == session->intactTrace());
        QCOMPARE(session->trace()->logits, intact_trace->logits);
        for (std::size_t i = 0; i < restored->after.tokens.size(); ++i)
            QCOMPARE(restored->after.tokens[i].logprob, intact->before.tokens[i].logprob);
        QCOMPARE(restored->after.loss, intact->before.loss);
        QCOMPARE(barValues(tab->strip()->beforeBars()), intact_bars);
        QVERIFY(!tab->strip()->afterBars()->visible());
        QVERIFY(window.modelOverview()->ablation().empty());
        QCOMPARE(session->analysis()->results.heads[2].output, intact_trace->layers[1].attention.heads[2].output);
    }

    void aHeadOffIsRestoredFromItsMenu() {
        SKIP_WITHOUT_INDUCTION();
        Session session;
        session.openModel(kInductionFolder);
        QVERIFY(session.waitForIdle(60000));
        Config config = session.config();
        config.text = kAblationText.toStdString();
        config.mask = MaskKind::Causal;  // as GPT-2 was trained (the window sets it when a model opens)
        session.setConfig(config);
        QVERIFY(session.waitForIdle(60000));
        const auto before = session.trace();
        session.knockOut(0, 0);  // the previous-token head
        QVERIFY(session.waitForIdle(60000));
        QVERIFY(session.effects()->lossChange() > 1.0);
        // Layer 1 reads what layer 0 wrote: its attention changed too, though no layer-1 head is off.
        QVERIFY((session.trace()->layers[1].attention.heads[1].weights - before->layers[1].attention.heads[1].weights)
                    .cwiseAbs().maxCoeff() > 0.1f);
        QMenu menu;
        addHeadActions(&menu, &session, 0, 0);
        QVERIFY(!actionNamed(menu, QStringLiteral("knock_out_zero")));
        actionNamed(menu, QStringLiteral("restore_head"))->trigger();
        QVERIFY(session.waitForIdle(60000));
        QCOMPARE(session.trace()->layers[1].attention.heads[1].weights, before->layers[1].attention.heads[1].weights);
        session.setAblation({{{7, 0}}, model::AblationMode::Zero});  // a head the model lacks: dropped
        QVERIFY(session.ablation().empty());
    }

    // Generated weights (one layer, no vocabulary): knocking a head out changes the layer's output,
    // drawn per token; the grid and the rank table mark the head; restoring brings it all back.
    void generatedWeightsKnockOutChangesTheLayerOutput() {
        MainWindow window(noSettings());
        window.resize(1200, 800);
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        Session* session = window.session();
        QVERIFY(session->source().generated());
        QVERIFY(session->canAblate());
        const auto intact = session->analysis();
        const Weights& w = intact->weights();
        QVERIFY(w.heads >= 3);
        QMenu menu;
        addHeadActions(&menu, session, 0, 1);
        QAction* zero = actionNamed(menu, QStringLiteral("knock_out_zero"));
        QVERIFY(zero && zero->isEnabled());
        QVERIFY(zero->text().contains(QStringLiteral("head 1 ")));
        zero->trigger();
        QVERIFY(window.waitForCompleteUpdate(60000));
        auto off = session->layerAblation();
        QVERIFY(off);
        QCOMPARE(off->heads, std::vector<int>{1});
        // Closed form: the other heads' outputs through their rows of W_O, plus b_O.
        const auto analysis = session->analysis();  // held: the next update replaces the session's
        const Results& r = analysis->results;
        Eigen::MatrixXf expected = Eigen::MatrixXf::Zero(r.output.rows(), w.dModel());
        for (int h = 0; h < w.heads; ++h)
            if (h != 1) expected += r.heads[std::size_t(h)].output * w.outputHead(h);
        if (w.hasBias()) expected.rowwise() += w.b_O;
        QVERIFY((off->after - expected).cwiseAbs().maxCoeff() < 1e-5f);
        QCOMPARE(off->before, r.output);
        // The grid, the rank table and the Ablation tab show it.
        QTRY_VERIFY_WITH_TIMEOUT(window.headGrid()->headOff(1), headscope::test::kBackgroundWaitMs);
        QVERIFY(!window.headGrid()->headOff(0));
        QVERIFY(window.headGrid()->headRect(1)->axis(QCPAxis::atTop)->label().contains(QStringLiteral("off")));
        QVERIFY(!window.headGrid()->headRect(0)->axis(QCPAxis::atTop)->label().contains(QStringLiteral("off")));
        QVERIFY(window.rankTable()->item(1, 0)->text().endsWith(QStringLiteral("off")));
        QVERIFY(!window.rankTable()->item(0, 0)->text().endsWith(QStringLiteral("off")));
        AblationTab* tab = window.ablationTab();
        showPage(window.centralTabs(), tab);
        QTRY_COMPARE_WITH_TIMEOUT(barValues(tab->outputChange()->changeBars()).size(), std::size_t(off->change.size()),
                                  headscope::test::kBackgroundWaitMs);
        const std::vector<double> change = barValues(tab->outputChange()->changeBars());
        for (std::size_t p = 0; p < change.size(); ++p) QCOMPARE(change[p], off->change(Eigen::Index(p)));
        QVERIFY(tab->outputChange()->isVisibleTo(tab) && !tab->strip()->isVisibleTo(tab));
        QVERIFY(tab->outputChange()->title().contains(QStringLiteral("off")));
        // Mean mode: head 1's rows replaced by their mean.
        session->setAblationMode(model::AblationMode::Mean);
        QVERIFY(window.waitForCompleteUpdate(60000));
        off = session->layerAblation();
        QVERIFY(off && off->mode == model::AblationMode::Mean);
        const Eigen::RowVectorXf mean = r.heads[1].output.colwise().mean();
        Eigen::MatrixXf with_mean = expected;
        with_mean.rowwise() += mean * w.outputHead(1);
        QVERIFY((off->after - with_mean).cwiseAbs().maxCoeff() < 1e-5f);
        // Restore: nothing off, nothing marked.
        QMenu again;
        addHeadActions(&again, session, 0, 1);
        actionNamed(again, QStringLiteral("restore_head"))->trigger();
        QVERIFY(window.waitForCompleteUpdate(60000));
        QVERIFY(!session->layerAblation());
        QTRY_VERIFY_WITH_TIMEOUT(!window.headGrid()->headOff(1), headscope::test::kBackgroundWaitMs);
        QVERIFY(!window.rankTable()->item(1, 0)->text().endsWith(QStringLiteral("off")));
        QCOMPARE(session->analysis()->results.output, intact->results.output);
    }
};

HEADSCOPE_QTEST_MAIN(TestAblationUi)
#include "test_ablation_ui.moc"
