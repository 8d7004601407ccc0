// Real weights in the window: a trained GPT-2 directory and a PyTorch attention layer open
// through the document, every view shows the chosen layer's numbers (those of core's exact
// forward pass), the knobs a model fixes are read-only, the layer and head follow clicks in
// the model overview, and a bad directory is one clear message with the window still usable.
#include <QComboBox>
#include <QDir>
#include <QFormLayout>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>
#include "QtTestGroup.h"
#include <cmath>

#include "WindowTestSupport.h"
#include "ControlsDock.h"
#include "HeadGridView.h"
#include "HeadPatternsView.h"
#include "Heatmap.h"
#include "LoadProgressRelay.h"
#include "MainWindow.h"
#include "ModelDock.h"
#include "ModelOverviewView.h"
#include "NoModelNote.h"
#include "Session.h"
#include "SpectrumView.h"
#include "StatusPanel.h"
#include "io/Gpt2Checkpoint.h"
#include "io/MhaLoader.h"
#include "model/Forward.h"
#include "train/SaveGpt2.h"
#include "train/Trainer.h"

using namespace headscope;
using namespace headscope::ui;
using namespace headscope::ui::testing;

namespace {

const QString kInduction = QStringLiteral(HEADSCOPE_SHARED_MODELS_DIR "/induction");
const QString kRepeated = QStringLiteral("qxvkzjwbpfmy qxvkzjwbpfmy qxvkzjwbpfmy");

// The map's cells equal the matrix; in the head grid masked cells (causal: key after query)
// hold NaN, drawn grey, where the engine's weight is 0.
bool mapHolds(QCPColorMap* map, const Eigen::MatrixXf& m, bool causal_nan = false) {
    QCPColorMapData* data = map->data();
    if (data->keySize() != m.cols() || data->valueSize() != m.rows()) return false;
    for (int r = 0; r < m.rows(); ++r)
        for (int c = 0; c < m.cols(); ++c) {
            const double cell = data->cell(c, r);
            if (causal_nan && c > r) {
                if (!std::isnan(cell) || m(r, c) != 0) return false;
            } else if (cell != double(m(r, c))) {
                return false;
            }
        }
    return true;
}

}  // namespace

class TestModelWindow : public QObject {
    Q_OBJECT

private slots:
    // Issue 35: the worker computes a model layer's weight spectra once; a new text, the heads
    // knocked out or a return to the layer reuse them; another model starts afresh.
    void weightSpectraAreComputedOncePerLayer() {
        if (!QDir(kInduction).exists()) QSKIP("../shared/models/induction is absent: the trained checkpoint is needed");
        WeightSource source;
        source.model = io::loadGpt2Checkpoint(kInduction.toStdString());
        Config config;
        config.text = kRepeated.toStdString();
        const SourceResult first = computeAnalysis(constrained(config, source), source, {});
        QVERIFY(first.weight_spectra);
        QCOMPARE(first.weight_spectra->computed(), 1LL);
        config.text = "abc abc";
        const SourceResult second = computeAnalysis(constrained(config, source), source, first);
        QCOMPARE(second.weight_spectra, first.weight_spectra);
        QCOMPARE(second.weight_spectra->computed(), 1LL);
        QCOMPARE(second.analysis->spectra[3].qk.singular_values, first.analysis->spectra[3].qk.singular_values);
        QVERIFY(second.analysis->nQuery() != first.analysis->nQuery());  // the new text's own analysis
        source.ablation.add({0, 1});
        source.layer = 1;
        const SourceResult third = computeAnalysis(constrained(config, source), source, second);
        QCOMPARE(third.weight_spectra->computed(), 2LL);  // layer 1's
        source.layer = 0;
        const SourceResult fourth = computeAnalysis(constrained(config, source), source, third);
        QCOMPARE(fourth.weight_spectra->computed(), 2LL);  // layer 0's again
        QCOMPARE(fourth.analysis->spectra[2].ov.singular_values, first.analysis->spectra[2].ov.singular_values);
        source.model = io::loadGpt2Checkpoint(kInduction.toStdString());  // another model object
        const SourceResult other = computeAnalysis(constrained(config, source), source, fourth);
        QVERIFY(other.weight_spectra != fourth.weight_spectra);
        QCOMPARE(other.weight_spectra->computed(), 1LL);
    }

    // Issue 35 item 3: a real-size model (16 layers x 32 heads) in a small room. The panels in view
    // each name their layer and head, the title says which are in view, the scroll bars and a
    // selection bring the rest; a 100-token map is drawn in 64 x 64 cells, each its block's largest.
    void realSizeModelScrollsWithItsNumbersInView() {
        constexpr int kLayers = 16, kHeads = 32, kTokens = 100;
        auto trace = std::make_shared<model::Trace>();
        trace->ids.assign(kTokens, 0);
        trace->options.attention.mask = MaskKind::Causal;
        for (int l = 0; l < kLayers; ++l) {
            model::LayerTrace& layer = trace->layers.emplace_back();
            for (int h = 0; h < kHeads; ++h) {
                Eigen::MatrixXf w = Eigen::MatrixXf::Zero(kTokens, kTokens);  // (n, n): one sharp key per query
                for (int q = 0; q < kTokens; ++q) w(q, (q * (h + 1) + l) % (q + 1)) = 1.0f;
                layer.attention.heads.push_back({Eigen::MatrixXf(), w, Eigen::MatrixXf(), Eigen::MatrixXf()});
            }
        }
        ModelOverviewView view;
        view.resize(420, 560);
        view.show();
        view.setTrace(trace);
        view.replotNow();
        QCOMPARE(view.layers(), kLayers);
        QCOMPARE(view.heads(), kHeads);
        QVERIFY2(view.shownHeads() < kHeads && view.shownLayers() < kLayers,
                 qPrintable(QStringLiteral("%1 x %2 in view").arg(view.shownLayers()).arg(view.shownHeads())));
        QVERIFY(view.layerScrollBar()->isVisible() && view.headScrollBar()->isVisible());
        QCOMPARE(view.headScrollBar()->maximum(), kHeads - view.shownHeads());
        QString title;
        for (int i = 0; i < view.plot()->plotLayout()->elementCount(); ++i)
            if (auto* text = qobject_cast<QCPTextElement*>(view.plot()->plotLayout()->elementAt(i))) title = text->text();
        QVERIFY2(title.contains(QStringLiteral("of 16")) && title.contains(QStringLiteral("of 32")), qPrintable(title));
        const auto check_panels = [&] {
            for (int l = view.firstLayer(); l < view.firstLayer() + view.shownLayers(); ++l)
                for (int h = view.firstHead(); h < view.firstHead() + view.shownHeads(); ++h) {
                    QCPColorMap* map = view.colorMap(l, h);
                    if (!map) return QStringLiteral("no panel for L%1 H%2").arg(l).arg(h);
                    const QString name = map->keyAxis()->axisRect()->axis(QCPAxis::atTop)->label();
                    if (name != QStringLiteral("L%1 H%2").arg(l).arg(h) && name != QStringLiteral("%1.%2").arg(l).arg(h))
                        return QStringLiteral("L%1 H%2 is named '%3'").arg(l).arg(h).arg(name);
                    int layer = -1, head = -1;
                    const QPoint centre = map->keyAxis()->axisRect()->rect().center();
                    if (!view.panelAt(centre, &layer, &head) || layer != l || head != h)
                        return QStringLiteral("the panel of L%1 H%2 answers L%3 H%4").arg(l).arg(h).arg(layer).arg(head);
                    const Eigen::MatrixXf& w = trace->layers[std::size_t(l)].attention.heads[std::size_t(h)].weights;
                    QCPColorMapData* data = map->data();
                    if (data->keySize() != 64 || data->valueSize() != 64) return QStringLiteral("not 64 x 64 cells");
                    for (int r = 0; r < 64; ++r)
                        for (int c = 0; c < 64; ++c) {
                            const int r0 = r * kTokens / 64, r1 = (r + 1) * kTokens / 64;
                            const int c0 = c * kTokens / 64, c1 = (c + 1) * kTokens / 64;
                            if (data->cell(c, r) != double(w.block(r0, c0, r1 - r0, c1 - c0).maxCoeff()))
                                return QStringLiteral("L%1 H%2 cell (%3, %4) is not its block's largest").arg(l).arg(h).arg(r).arg(c);
                        }
                }
            return QString();
        };
        QString wrong = check_panels();
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong));
        QVERIFY(!view.colorMap(kLayers - 1, kHeads - 1));  // out of view
        view.setSelection(kLayers - 1, kHeads - 1);         // chosen elsewhere: scrolled into view
        QVERIFY(view.colorMap(kLayers - 1, kHeads - 1));
        QCOMPARE(view.headScrollBar()->value(), kHeads - view.shownHeads());
        wrong = check_panels();
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong));
        view.layerScrollBar()->setValue(0);  // the bar itself
        QCOMPARE(view.firstLayer(), 0);
        QVERIFY(view.colorMap(0, kHeads - 1));
        view.resize(1200, 450);  // a wide, low room (the Model tab at full HD): still named
        view.replotNow();
        wrong = check_panels();
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong));
        view.resize(2400, 1600);  // room for every panel: no bars
        view.replotNow();
        QCOMPARE(view.shownLayers(), kLayers);
        QCOMPARE(view.shownHeads(), kHeads);
        QVERIFY(!view.layerScrollBar()->isVisible() && !view.headScrollBar()->isVisible());
    }

    // Between a model's opening and the first text run on it (a forward under way, or a text its
    // tokenizer refuses), the Model and Looks at tabs say a model is open instead of asking for one.
    void modelViewsSayAModelIsOpenUntilItsFirstTrace() {
        if (!QDir(kInduction).exists()) QSKIP("../shared/models/induction is absent: the trained checkpoint is needed");
        MainWindow window(noSettings());
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        auto* patterns = qobject_cast<HeadPatternsView*>(window.tabView("head_patterns"));
        QVERIFY(patterns);
        const std::vector<NoModelNote*> notes = {window.modelOverview()->noModelNote(), patterns->noModelNote()};
        const auto said = [&notes]() {
            QStringList sentences;
            for (NoModelNote* note : notes)
                sentences << note->sentence()->text() + (note->links()->isVisibleTo(note) ? QStringLiteral(" + links") : QString());
            return sentences;
        };
        const QStringList asking = said();
        for (const QString& sentence : asking) QVERIFY2(sentence.startsWith("Open a model") && sentence.endsWith(" + links"), qPrintable(sentence));
        QStringList at_open;  // as the weights arrive, before any text has run on them
        connect(window.session(), &Session::sourceChanged, &window, [&]() {
            if (at_open.isEmpty()) at_open = said();
        });
        QString error;
        QVERIFY2(window.openModel(kInduction, &error), qPrintable(error));
        const QString open = QStringLiteral("A model is open: its heads appear here once a text has run on it");
        QCOMPARE(at_open, QStringList({open, open}));
        QVERIFY(window.waitForCompleteUpdate(60000));
        for (const QString& tab : {QStringLiteral("Model"), QStringLiteral("Looks at")}) {  // a hidden tab refreshes when shown
            QVERIFY(window.showTab(tab));
            auto* view = qobject_cast<AttentionView*>(window.tabView(tab == QLatin1String("Model") ? "model" : "head_patterns"));
            QTRY_VERIFY_WITH_TIMEOUT(
                view->plot()->isVisibleTo(view) && !view->findChild<NoModelNote*>()->isVisibleTo(view),
                headscope::test::kBackgroundWaitMs);
        }
        window.session()->useGeneratedWeights();
        QVERIFY(window.waitForCompleteUpdate(60000));
        QCOMPARE(said(), asking);
    }

    void trainedModelShowsItsLayersHeads() {
        if (!QDir(kInduction).exists()) QSKIP("../shared/models/induction is absent: the trained checkpoint is needed");
        MainWindow window(noSettings());
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        QString error;
        QVERIFY2(window.openModel(kInduction, &error), qPrintable(error));
        window.setText(kRepeated);
        QVERIFY(window.waitForCompleteUpdate(60000));

        // The reference: core's forward pass on the same ids.
        const model::ModelPtr model = io::loadGpt2Checkpoint(kInduction.toStdString());
        const model::Trace trace = model::runModel(*model, model->tokenizer->encode(kRepeated.toStdString()));
        const auto shown = window.session()->analysis();
        QCOMPARE(shown->nQuery(), 38);
        for (int h = 0; h < 4; ++h)
            QVERIFY(mapHolds(window.headGrid()->colorMap(h), trace.layers[0].attention.heads[h].weights, true));
        QVERIFY(heatmap::weightsOrigin(*shown).startsWith("trained weights"));
        QVERIFY(!window.controls()->findChild<QSpinBox*>("d_model")->isEnabled());  // fixed by the model
        QVERIFY(window.controls()->findChild<QComboBox*>("mask")->isEnabled());    // live

        // Layer 1 through the overview: every view follows, the spectra are the layer's own.
        ModelOverviewView* overview = window.modelOverview();
        QCOMPARE(overview->layers(), 2);
        QCOMPARE(overview->heads(), 4);
        QVERIFY(mapHolds(overview->colorMap(1, 2), trace.layers[1].attention.heads[2].weights));
        // Legible on a projector: at font scale 2 every title and panel name fits its room.
        ViewOptions large;
        large.font_scale = 2.0;
        QVERIFY(window.showTab(QStringLiteral("Model")));
        overview->setOptions(large);
        overview->resize(600, 380);
        overview->plot()->replot();
        for (int i = 0; i < overview->plot()->plotLayout()->elementCount(); ++i)
            if (auto* title = qobject_cast<QCPTextElement*>(overview->plot()->plotLayout()->elementAt(i)))
                for (const QString& line : title->text().split(QLatin1Char('\n')))  // wrapped where no wording fits one line
                    QVERIFY2(QFontMetricsF(title->font()).horizontalAdvance(line) <= overview->plot()->viewport().width(),
                             qPrintable(title->text()));
        for (int l = 0; l < 2; ++l)
            for (int h = 0; h < 4; ++h) {
                QCPAxis* top = overview->colorMap(l, h)->keyAxis()->axisRect()->axis(QCPAxis::atTop);
                QVERIFY2(QFontMetricsF(top->labelFont()).horizontalAdvance(top->label()) <=
                             top->axisRect()->outerRect().width(), qPrintable(top->label()));
            }
        emit overview->panelClicked(1, 2);
        QVERIFY(window.waitForCompleteUpdate(60000));
        QCOMPARE(window.session()->source().layer, 1);
        QCOMPARE(window.session()->head(), 2);
        QVERIFY(mapHolds(window.headGrid()->colorMap(2), trace.layers[1].attention.heads[2].weights, true));
        const Spectrum expected = headSpectra(*model->attentionWeights(1))[2].qk;
        QCOMPARE(window.spectrumView()->qkGraph(2)->data()->at(0)->value, expected.singular_values(0));

        // The next-token list: after "...fmy" the model expects the space.
        QListWidget* next = window.modelDock()->nextTokens();
        QCOMPARE(next->count(), 10);
        const auto top = model::topNextTokens(*model, trace, 1).front();
        QVERIFY2(next->item(0)->text().contains(QString::fromStdString(top.token)), qPrintable(next->item(0)->text()));

        // Back to generated weights: the knobs come back.
        window.session()->useGeneratedWeights();
        QVERIFY(window.waitForCompleteUpdate(60000));
        QVERIFY(window.controls()->findChild<QSpinBox*>("d_model")->isEnabled());
        QVERIFY(window.session()->analysis()->model_name.empty());
    }

    // headscope --model DIR --tab NAME: the model opens in the background and the tab is asked
    // for at once; the tab stays forward when the model arrives. Without one, the Model tab comes.
    void aTabAskedForWhileAModelOpensStaysForward() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("model"));
        train::TrainConfig settings;  // a small untrained GPT-2, written as a checkpoint folder
        train::Trainer trainer(settings);
        train::saveGpt2Folder(settings, trainer.layout(), trainer.parameters(), path.toStdString());
        MainWindow window(noSettings());
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        QTabWidget* tabs = window.centralTabs();

        QVERIFY(window.openModel(path));  // no error pointer: in the background, as the GUI does
        QVERIFY(window.showTab(QStringLiteral("Score")));
        QTRY_VERIFY_WITH_TIMEOUT(window.session()->source().model != nullptr, 60000);
        QCOMPARE(tabs->tabText(tabs->currentIndex()).remove('&'), QStringLiteral("Score"));
        QVERIFY(window.waitForCompleteUpdate(60000));

        QVERIFY(window.showTab(QStringLiteral("Heads")));
        const auto first = window.session()->source().model;
        QVERIFY(window.openModel(path));
        QTRY_VERIFY_WITH_TIMEOUT(window.session()->source().model != first, 60000);
        QCOMPARE(tabs->currentWidget(), static_cast<QWidget*>(window.modelOverview()));
        QVERIFY(window.waitForCompleteUpdate(60000));
    }

    // Issue 33: a folder saved without a tokenizer opens on ids; the next tokens name each id once,
    // and the input box says it takes ids (and says text again for a model with a tokenizer).
    void aModelWithoutATokenizerListsItsNextTokensById() {
        const QString folder = QStringLiteral(HEADSCOPE_TEST_DATA_DIR "/hf_extra/phi3_partial");
        MainWindow window(noSettings());
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        QString error;
        QVERIFY2(window.openModel(folder, &error), qPrintable(error));
        QVERIFY(window.session()->waitForIdle(60000));
        auto* next = window.findChild<QListWidget*>("next_tokens");
        QVERIFY(next && next->count() > 0);
        const QString first = next->item(0)->text();
        QVERIFY2(first.contains(QStringLiteral("   id ")) && !first.contains(QStringLiteral("(id")), qPrintable(first));
        auto* text = window.controls()->findChild<QPlainTextEdit*>(QStringLiteral("text"));
        auto* form = qobject_cast<QFormLayout*>(text->parentWidget()->layout());
        auto* label = qobject_cast<QLabel*>(form->labelForField(text));
        QCOMPARE(label->text(), QStringLiteral("&Input token ids"));
        QVERIFY(text->placeholderText().contains(QStringLiteral("17 4 9")));
        QVERIFY(text->toolTip().contains(QStringLiteral("no tokenizer")));
        QVERIFY2(window.openModel(QStringLiteral(HEADSCOPE_TEST_DATA_DIR "/gpt2/f32_prefix_tied"), &error), qPrintable(error));
        QVERIFY(window.session()->waitForIdle(60000));
        QCOMPARE(label->text(), QStringLiteral("&Input text"));
        QVERIFY(text->placeholderText().isEmpty());
    }

    void badDirectoryIsOneMessageAndTheWindowStaysUsable() {
        MainWindow window(noSettings());
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        QTemporaryDir dir;
        QString error;
        QVERIFY(!window.openModel(dir.path(), &error));
        QVERIFY2(error.contains("config.json"), qPrintable(error));
        QVERIFY(!error.contains('\n'));
        QVERIFY(window.session()->source().generated());
        QVERIFY(window.controls()->findChild<QSpinBox*>("d_model")->isEnabled());
    }

    // Cancel pressed while a model opens: reported as a cancellation (the status says so), not as a
    // failure, and the previous weights stay. The cancel comes from the loading thread at the load's
    // first stage (a direct connection to the relay), so the load always stops there.
    void cancelledOpeningIsNoFailure() {
        MainWindow window(noSettings());
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        LoadProgressRelay& relay = LoadProgressRelay::instance();
        const auto cancelling = connect(&relay, &LoadProgressRelay::progress, &relay, &LoadProgressRelay::cancel, Qt::DirectConnection);
        QSignalSpy failed(window.session(), &Session::failed);
        QSignalSpy cancelled(window.session(), &Session::openingCancelled);
        QString error;
        QVERIFY(!window.openModel(QStringLiteral(HEADSCOPE_TEST_DATA_DIR "/gpt2/f32_prefix_tied"), &error));
        disconnect(cancelling);
        QCOMPARE(error, QStringLiteral("Opening cancelled"));
        QCOMPARE(cancelled.count(), 1);
        QCOMPARE(failed.count(), 0);
        QVERIFY2(window.statusPanel()->text().contains("Opening cancelled"), qPrintable(window.statusPanel()->text()));
        QVERIFY(!window.statusPanel()->text().contains("failed"));
        QVERIFY(window.session()->source().generated());
    }

    void pytorchLayerOpensInTheWindow() {
        const QString file = QStringLiteral(HEADSCOPE_TEST_DATA_DIR "/mha/self_small/weights.safetensors");
        MainWindow window(noSettings());
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        QSignalSpy changed(window.session(), &Session::sourceChanged);
        window.session()->openLayer(file, 2, QString());
        QVERIFY(changed.wait(30000));
        QVERIFY(window.waitForCompleteUpdate(60000));
        const Weights expected = io::loadMultiheadAttention(file.toStdString(), 2);
        const auto shown = window.session()->analysis();
        QVERIFY(shown->weights().W_Q == expected.W_Q);
        QCOMPARE(shown->config.d_model, expected.dModel());
        QCOMPARE(window.headGrid()->headCount(), 2);
        QVERIFY(heatmap::weightsOrigin(*shown).contains("PyTorch layer weights.safetensors"));
    }
};

HEADSCOPE_QTEST_MAIN(TestModelWindow)
#include "test_model_window.moc"
