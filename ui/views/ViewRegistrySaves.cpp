#include "ViewRegistrySaves.h"

#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>

#include "AttributionView.h"
#include "HeadPatternsView.h"
#include "HeadScoresView.h"
#include "ModelOverviewView.h"
#include "ProbeAttentionView.h"
#include "RotaryView.h"
#include "TokenLogProbView.h"
#include "TrainingCurvesView.h"

namespace headscope::ui {

namespace {

bool missing(const ViewEntry& entry, const char* what, QString* error) {
    if (error) *error = QStringLiteral("The %1 view has nothing to draw: %2.").arg(QLatin1String(entry.id), QLatin1String(what));
    return false;
}

// Lays page out at size offscreen: shown without a screen, so that views which do no work while
// hidden (DeferredRefresh) draw, then saved whole.
bool savePage(QWidget& page, QSize size, const QString& path, ImageFormat format, double scale, QString* error) {
    page.setAttribute(Qt::WA_DontShowOnScreen);
    page.resize(size);
    page.show();
    if (page.layout()) page.layout()->activate();
    for (QCustomPlot* plot : page.findChildren<QCustomPlot*>()) plot->replot(QCustomPlot::rpImmediateRefresh);
    const bool ok = saveWidget(&page, path, format, scale, error);
    page.hide();
    return ok;
}

// A View filling page, with the export's options.
template <typename View>
View* pageView(QWidget& page, const ViewOptions& options) {
    auto* layout = new QVBoxLayout(&page);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* view = new View(&page);
    view->setOptions(options);
    layout->addWidget(view);
    return view;
}

}  // namespace

bool saveModelOverview(const ViewEntry& entry, const ViewInputs& in, const QString& path, ImageFormat format,
                       double scale, QString* error) {
    if (!in.trace) return missing(entry, "no model is open", error);
    const double s = in.options.font_scale > 0 ? in.options.font_scale : 1.0;
    QWidget page;
    auto* view = pageView<ModelOverviewView>(page, in.options);
    view->setTrace(in.trace);
    view->setSelection(in.layer, in.head);
    view->setAblation(in.trace->options.ablation);
    const int layers = int(in.trace->layers.size());
    const int heads = layers ? std::max(1, int(in.trace->layers.front().attention.heads.size())) : 1;
    const QSize size(int(std::clamp(220 * heads, 700, 1800) * s), int(std::clamp(200 * layers + 80, 400, 1600) * s));
    return savePage(page, size, path, format, scale, error);
}

bool saveHeadPatterns(const ViewEntry& entry, const ViewInputs& in, const QString& path, ImageFormat format,
                      double scale, QString* error) {
    // A model's trace, else the single layer's own (self-attention).
    std::shared_ptr<const model::Trace> trace = in.trace;
    if (!trace && in.analysis && !in.analysis->input.cross)
        trace = std::make_shared<const model::Trace>(model::layerPatterns(*in.analysis));
    if (!trace) return missing(entry, "no model is open and the layer attends to another text", error);
    const double s = in.options.font_scale > 0 ? in.options.font_scale : 1.0;
    QWidget page;
    auto* view = pageView<HeadPatternsView>(page, in.options);
    view->setForFile(true);
    view->setTrace(trace);
    view->setSelection(in.layer, in.head);
    const int layers = int(trace->layers.size());
    const int heads = layers ? std::max(1, int(trace->layers.front().attention.heads.size())) : 1;
    const QSize size(int(std::clamp(60 * heads + 200, 700, 1800) * s), int(std::clamp(36 * layers + 160, 400, 1400) * s));
    return savePage(page, size, path, format, scale, error);
}

bool saveRotary(const ViewEntry& entry, const ViewInputs& in, const QString& path, ImageFormat format, double scale,
                QString* error) {
    if (!in.analysis) return missing(entry, "no analysis", error);
    if (!in.analysis->rotary.enabled()) return missing(entry, "this layer has no rotary positions", error);
    const double s = in.options.font_scale > 0 ? in.options.font_scale : 1.0;
    QWidget page;
    auto* view = pageView<RotaryView>(page, in.options);
    // The view draws shared data: the export's analysis is borrowed for as long as the page lives.
    view->setAnalysis(std::shared_ptr<const Analysis>(std::shared_ptr<const Analysis>(), in.analysis));
    view->setHead(in.head);
    view->setCell(in.cell_row, in.cell_col);
    view->replotNow();  // the curve and the shares computed first
    return savePage(page, QSize(int(900 * s), int(760 * s)), path, format, scale, error);
}

bool saveTrainingRun(const ViewEntry& entry, const ViewInputs& in, const QString& path, ImageFormat format,
                     double scale, QString* error) {
    if (!in.training || in.training->evaluations.empty()) return missing(entry, "no training run", error);
    const TrainingRun& run = *in.training;
    const double s = in.options.font_scale > 0 ? in.options.font_scale : 1.0;
    // As the Training tab: the curves above the head scores, every head's attention on the probe beside them.
    // Placed by hand (a layout would let the probe's minimum sizes push it off the page).
    const QSize size(int(1500 * s), int(1000 * s));
    const int left = size.width() * 3 / 5;
    QWidget page;
    auto* curves = new TrainingCurvesView(&page);
    auto* scores = new HeadScoresView(&page);
    auto* attention = new ProbeAttentionView(&page);
    curves->setEvaluations(run.evaluations);
    scores->setEvaluations(run.evaluations, run.heads);
    attention->setRun(run.snapshots, run.evaluations, run.layers, run.heads);
    curves->setGeometry(0, 0, left, size.height() / 2);
    scores->setGeometry(0, size.height() / 2, left, size.height() / 2);
    attention->setGeometry(left, 0, size.width() - left, size.height());
    return savePage(page, size, path, format, scale, error);
}

bool saveAblation(const ViewEntry& entry, const ViewInputs& in, const QString& path, ImageFormat format,
                  double scale, QString* error) {
    if (!in.effects) return missing(entry, "no model is open to knock heads out of", error);
    const double s = in.options.font_scale > 0 ? in.options.font_scale : 1.0;
    // As the Ablation tab: the per-token strip above the heads' direct contributions.
    QWidget page;
    auto* layout = new QVBoxLayout(&page);
    auto* strip = new TokenLogProbView(&page);
    auto* attribution = new AttributionView(&page);
    strip->setOptions(in.options);
    attribution->setOptions(in.options);
    strip->setEffects(in.effects);
    attribution->setEffects(in.effects);
    layout->addWidget(strip, 3);
    layout->addWidget(attribution, 2);
    return savePage(page, QSize(int(1300 * s), int(900 * s)), path, format, scale, error);
}

}  // namespace headscope::ui
