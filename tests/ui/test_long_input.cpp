// Long inputs in the window (issue 35 item 4): a text whose every map would not fit keeps the layer
// in view's maps alone (recomputed exactly from the trace), the Model tab draws each head from its
// thumbnail, and the large head draws a map larger than its panel downsampled (each cell its block's
// largest weight) with zoom and pan down to single tokens.
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QWheelEvent>
#include <QtTest>
#include "QtTestGroup.h"
#include <cmath>
#include <random>

#include "WindowTestSupport.h"
#include "Downsample.h"
#include "FreedMemory.h"
#include "HeadDetailView.h"
#include "HeadGridView.h"
#include "HeadPatternsView.h"
#include "Heatmap.h"
#include "MainWindow.h"
#include "ModelOverviewView.h"
#include "Session.h"
#include "io/Checkpoint.h"
#include "io/Safetensors.h"
#include "model/Forward.h"
#include "model/HeadPatterns.h"
#include "train/SaveGpt2.h"

using namespace headscope;
using namespace headscope::ui;
using namespace headscope::ui::testing;

namespace {

constexpr int kPositions = 2048;

// A random GPT-2 folder of 4 layers x 8 heads (d_model 64) reading 2,048 positions: saved as a
// trained model is (context 512), then its position embeddings and config widened.
bool writeLongGpt2(const QString& path) {
    train::TrainConfig settings;
    settings.layers = 4, settings.heads = 8, settings.d_model = 64, settings.context = 512;
    const train::ParameterLayout layout(settings);
    std::srand(7);
    const Eigen::VectorXf parameters = Eigen::VectorXf::Random(layout.size()) * 0.5f;
    train::saveGpt2Folder(settings, layout, parameters, path.toStdString());
    const std::string file = QDir(path).filePath(QStringLiteral("model.safetensors")).toStdString();
    auto tensors = io::readSafetensors(file);
    io::Tensor& wpe = tensors.at("transformer.wpe.weight");
    wpe.shape = {kPositions, settings.d_model};
    wpe.data.resize(std::size_t(kPositions) * settings.d_model);
    std::mt19937 random(3);
    std::uniform_real_distribution<float> uniform(-0.5f, 0.5f);
    for (float& v : wpe.data) v = uniform(random);
    io::writeSafetensors(file, tensors);
    QFile config(QDir(path).filePath(QStringLiteral("config.json")));
    if (!config.open(QIODevice::ReadOnly)) return false;
    QJsonObject json = QJsonDocument::fromJson(config.readAll()).object();
    config.close();
    json["n_positions"] = kPositions;
    json["n_ctx"] = kPositions;
    if (!config.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
    return config.write(QJsonDocument(json).toJson()) > 0;
}

// The text of n single-letter tokens (no spaces: one pre-token, no merges: a token a letter).
QString letters(int n) {
    QString text;
    std::mt19937 random(11);
    for (int i = 0; i < n; ++i) text += QChar(char('a' + random() % 26));
    return text;
}

}  // namespace

class TestLongInput : public QObject {
    Q_OBJECT

private slots:
    // A long input's finished layers keep their masks' last rows alone: the Model tab still names
    // a sliding window from them (Mistral, 5 keys), as it does from a whole mask.
    void theModelTabNamesASlidingWindowFromADroppedMask() {
        QTemporaryDir dir;
        const QDir from(QStringLiteral(HEADSCOPE_TEST_DATA_DIR "/rotary/llama3_scaled"));
        for (const QString& file : from.entryList(QDir::Files)) QVERIFY(QFile::copy(from.filePath(file), dir.filePath(file)));
        QFile config(dir.filePath(QStringLiteral("config.json")));
        QVERIFY(config.open(QIODevice::ReadOnly));
        QJsonObject json = QJsonDocument::fromJson(config.readAll()).object();
        config.close();
        json["model_type"] = "mistral";
        json["sliding_window"] = 5;
        QVERIFY(config.open(QIODevice::WriteOnly | QIODevice::Truncate));
        config.write(QJsonDocument(json).toJson());
        config.close();
        const model::ModelPtr m = io::loadCheckpoint(dir.path().toStdString());
        model::ForwardOptions options;
        options.keep_maps = false;
        const auto trace = std::make_shared<const model::Trace>(model::runModel(*m, {1, 5, 9, 2, 7, 5, 9, 3, 1, 5, 9}, options));
        QCOMPARE(int(trace->layers[0].attention.allowed.rows()), 1);
        ModelOverviewView overview;
        overview.resize(900, 600);
        overview.show();
        overview.setTrace(trace);
        overview.replotNow();
        const QString label = overview.colorMap(0, 0)->keyAxis()->axisRect()->axis(QCPAxis::atTop)->label();
        QVERIFY2(label.contains(QStringLiteral("window 5")) || label.contains(QStringLiteral("w5")), qPrintable(label));
    }

    void aLongTextKeepsOneLayersMapsDrawnDownsampledWithZoom() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("model"));
        QVERIFY(writeLongGpt2(path));
        MainWindow window(noSettings());
        window.resize(1400, 1000);
        window.show();
        QVERIFY(window.waitForCompleteUpdate(60000));
        QString error;
        const int hand_backs = freedMemoryHandBacks();
        QVERIFY2(window.openModel(path, &error), qPrintable(error));
        QVERIFY(window.session()->waitForIdle(60000));
        QThreadPool::globalInstance()->waitForDone();
        QCOMPARE(freedMemoryHandBacks().load(), hand_backs);  // the model's sample text: small maps, nothing to hand back
        constexpr int kTokens = 1500;  // 4 x 8 maps of 1500 x 1500, with their logits: 576 MB, over the window's 512 MiB
        Config c = window.session()->config();
        c.text = letters(kTokens).toStdString();
        window.session()->setConfig(c);
        QVERIFY(window.session()->waitForIdle(120000));
        // The forward's freed maps go back to the system once the window shows it (FreedMemory.h).
        QTRY_COMPARE_WITH_TIMEOUT(freedMemoryHandBacks().load(), hand_backs + 1, headscope::test::kBackgroundWaitMs);

        // Every layer's maps dropped but for small copies; the layer in view's recomputed, exactly.
        const auto trace = window.session()->trace();
        const model::Model& m = *window.session()->source().model;
        QCOMPARE(trace->n(), kTokens);
        QVERIFY(model::traceBytes(m.config, kTokens) > kMaxKeptMapsBytes);
        for (const model::LayerTrace& layer : trace->layers) {
            QVERIFY(!layer.keptMaps());
            QCOMPARE(int(layer.thumbnails.size()), 8);
            QCOMPARE(int(layer.thumbnails.front().rows()), model::kThumbnailCells);
        }
        const auto analysis = window.session()->analysis();
        const Results expected = model::layerAttention(m, *trace, 0);
        for (int h = 0; h < 8; ++h) QVERIFY(analysis->results.heads[std::size_t(h)].weights == expected.heads[std::size_t(h)].weights);

        // The Model tab: each panel is its head's thumbnail.
        ModelOverviewView* overview = window.modelOverview();
        QVERIFY(window.showTab(QStringLiteral("Model")));
        overview->replotNow();
        QCPColorMap* panel = overview->colorMap(3, 5);
        QVERIFY(panel);
        const Eigen::MatrixXf& thumbnail = trace->layers[3].thumbnails[5];
        QCOMPARE(panel->data()->keySize(), model::kThumbnailCells);
        for (int r = 0; r < model::kThumbnailCells; r += 7)
            for (int col = 0; col < model::kThumbnailCells; col += 5) QCOMPARE(panel->data()->cell(col, r), double(thumbnail(r, col)));

        // The large head: 1500 tokens in at most kMaxDrawnCells cells a side, each its block's largest
        // weight (masked blocks NaN), the subtitle saying so.
        QVERIFY(window.showTab(QStringLiteral("Heads")));
        HeadDetailView* focus = window.headFocus();
        QVERIFY(focus);
        focus->replotNow();
        const int head = focus->head();
        const Eigen::MatrixXf& w = analysis->results.heads[std::size_t(head)].weights;  // (n, n)
        const Eigen::MatrixXf drawn = downsample(w, heatmap::kMaxDrawnCells, heatmap::kMaxDrawnCells, Pool::Max,
                                                 analysis->results.allowed);
        QCPColorMapData* data = focus->colorMap()->data();
        QCOMPARE(data->keySize(), heatmap::kMaxDrawnCells);
        QCOMPARE(data->valueSize(), heatmap::kMaxDrawnCells);
        for (int r = 0; r < heatmap::kMaxDrawnCells; r += 13)
            for (int col = 0; col < heatmap::kMaxDrawnCells; col += 11) {
                const double cell = data->cell(col, r);
                QVERIFY2(std::isnan(drawn(r, col)) ? std::isnan(cell) : cell == double(drawn(r, col)),
                         qPrintable(QStringLiteral("cell %1, %2: %3 drawn, %4 expected").arg(r).arg(col).arg(cell).arg(drawn(r, col))));
            }
        QVERIFY(analysis->pooled);  // pooled on the worker: the grid's panels read these, not the maps
        HeadGridView* grid = window.headGrid();
        grid->replotNow();
        // A panel draws a cell per device pixel at most, pooled again from the worker's maps: the same
        // cells as the whole map pooled to that many.
        const int cells = grid->drawnCells();
        const QCPAxisRect* panel_rect = grid->colorMap(head)->keyAxis()->axisRect();
        const double pixels = std::max(panel_rect->width(), panel_rect->height()) * grid->devicePixelRatioF();
        QVERIFY2(cells >= std::min<double>(pixels, heatmap::kMaxGridCells) && cells <= heatmap::kMaxGridCells &&
                     heatmap::kMaxDrawnCells % cells == 0,
                 qPrintable(QStringLiteral("%1 cells for a panel of %2 pixels").arg(cells).arg(pixels)));
        const Eigen::MatrixXf small = downsample(w, cells, cells, Pool::Max, analysis->results.allowed);
        QCPColorMapData* cell_data = grid->colorMap(head)->data();
        QCOMPARE(cell_data->keySize(), cells);
        QCOMPARE(cell_data->valueSize(), cells);
        for (int r = 0; r < cells; r += 9)
            for (int col = 0; col < cells; col += 7) {
                const double cell = cell_data->cell(col, r);
                QVERIFY(std::isnan(small(r, col)) ? std::isnan(cell) : cell == double(small(r, col)));
            }
        // A thinned axis carries no tick marks (a tick on each of 1,500 tokens was a solid band).
        QCPAxis* keys = focus->colorMap()->keyAxis();
        QVERIFY(keys->tickLabels() && keys->label().contains(QStringLiteral("every")));
        QCOMPARE(keys->tickLengthOut(), 0);
        // The drawn cells span exactly the tokens: the first cell's centre half a block in.
        const double step = double(kTokens) / heatmap::kMaxDrawnCells;
        QVERIFY(std::abs(data->keyRange().lower - (step / 2 - 0.5)) < 1e-9);
        QVERIFY(std::abs(data->keyRange().upper - (kTokens - 0.5 - step / 2)) < 1e-9);
        QString subtitle;
        for (int i = 0; i < focus->plot()->plotLayout()->elementCount(); ++i)
            if (auto* text = qobject_cast<QCPTextElement*>(focus->plot()->plotLayout()->elementAt(i))) subtitle += text->text();
        QVERIFY2(subtitle.contains(QStringLiteral("largest of 2.9 × 2.9 tokens")), qPrintable(subtitle));

        // Zoomed to 300 tokens a side: one cell per token, the engine's weights, the words of the window.
        focus->setTokenWindow(QRect(100, 400, 300, 300));
        focus->replotNow();
        QCOMPARE(data->keySize(), 300);
        QCOMPARE(data->valueSize(), 300);
        QCOMPARE(data->cell(0, 0), double(w(400, 100)));
        QCOMPARE(data->cell(299, 299), double(w(699, 399)));
        QVERIFY(std::abs(focus->colorMap()->keyAxis()->range().lower - 99.5) < 1e-9);
        // The wheel zooms in about the pointer; a double-click shows every token again.
        QCPAxisRect* rect = focus->colorMap()->keyAxis()->axisRect();
        const QPointF centre = rect->rect().center();
        QWheelEvent wheel(centre, focus->plot()->mapToGlobal(centre), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
        QApplication::sendEvent(focus->plot(), &wheel);
        QTRY_VERIFY_WITH_TIMEOUT(
            focus->tokenWindow().width() < 300 && focus->tokenWindow().width() >= HeadDetailView::kMinZoomTokens,
            headscope::test::kBackgroundWaitMs);
        QTest::mouseDClick(focus->plot(), Qt::LeftButton, Qt::NoModifier, centre.toPoint());
        QTRY_VERIFY_WITH_TIMEOUT(focus->tokenWindow().isEmpty(), headscope::test::kBackgroundWaitMs);
        QCOMPARE(data->keySize(), heatmap::kMaxDrawnCells);

        // The logits of the layer in view: not kept (its weights are), computed again where a picture
        // or a number needs them, equal to those of a run that kept every map.
        model::ForwardOptions keep;
        keep.attention = trace->options.attention;
        keep.all_logits = trace->options.all_logits;
        const model::Trace kept = model::runModel(m, trace->ids, keep);
        const Eigen::MatrixXf& logits = kept.layers[0].attention.heads[std::size_t(head)].logits;  // (n, n)
        QCOMPARE(analysis->results.heads[std::size_t(head)].logits.size(), Eigen::Index(0));
        ViewOptions show_logits = focus->options();
        show_logits.show_logits = true;
        focus->setOptions(show_logits);
        focus->setTokenWindow(QRect(100, 400, 300, 300));
        focus->replotNow();
        QCOMPARE(data->cell(0, 0), double(logits(400, 100)));
        QCOMPARE(data->cell(299, 299), double(logits(699, 399)));
        QVERIFY2(heatmap::cellText(*analysis, head, 700, 650)
                     .contains(QStringLiteral("logit %1").arg(double(logits(700, 650)), 0, 'f', 3)),
                 qPrintable(heatmap::cellText(*analysis, head, 700, 650)));
        // Both from the tiles under the window and the cell (Analysis::logitsWindow): the head's whole
        // map, 1,500 x 1,500 logits, was not computed on the GUI thread for them.
        QVERIFY(!analysis->recomputed_logits.find(head));
        show_logits = grid->options();
        show_logits.show_logits = true;
        grid->setOptions(show_logits);
        grid->replotNow();
        QCOMPARE(grid->drawnCells(), cells);
        const Eigen::MatrixXf small_logits = downsample(logits, cells, cells, Pool::Extreme, analysis->results.allowed);
        for (int r = 0; r < cells; r += 9)
            for (int col = 0; col < cells; col += 7) {
                const double cell = grid->colorMap(head)->data()->cell(col, r);
                QVERIFY(std::isnan(small_logits(r, col)) ? std::isnan(cell) : cell == double(small_logits(r, col)));
            }

        // Another layer: its maps recomputed from the trace, equal to a run that kept them.
        window.session()->setLayer(2);
        QVERIFY(window.session()->waitForIdle(60000));
        QTRY_COMPARE_WITH_TIMEOUT(freedMemoryHandBacks().load(), hand_backs + 2,
                                  headscope::test::kBackgroundWaitMs);  // layer 0's maps, replaced
        const auto layer2 = window.session()->analysis();
        for (int h = 0; h < 8; ++h)
            QVERIFY(layer2->results.heads[std::size_t(h)].weights == kept.layers[2].attention.heads[std::size_t(h)].weights);

        // The "Looks at" tab: every head's shares, taken from its map before the forward dropped it,
        // equal to those of the run that kept every map.
        auto* patterns = qobject_cast<HeadPatternsView*>(window.tabView("head_patterns"));
        QVERIFY(patterns);
        window.centralTabs()->setCurrentWidget(patterns);
        for (const model::HeadPattern p : {model::HeadPattern::PreviousToken, model::HeadPattern::FirstToken}) {
            patterns->setPattern(p);
            patterns->replotNow();
            QCOMPARE(patterns->shares().rows(), 4);
            QVERIFY(patterns->shares() == model::headPatternShares(kept, p));
            QVERIFY(patterns->shares().allFinite());
        }
    }
};

HEADSCOPE_QTEST_MAIN(TestLongInput)
#include "test_long_input.moc"
