// The rest of the export module (Export.h): every view by its kind, and all of them to a folder.
#include <QCoreApplication>
#include <QDir>
#include <QResizeEvent>
#include <QHeaderView>
#include <QScrollArea>
#include <algorithm>
#include <memory>
#include <qcustomplot.h>

#include "CircuitView.h"
#include "CostView.h"
#include "Export.h"
#include "ExportChecks.h"
#include "FusedProjectionsView.h"
#include "Heatmap.h"
#include "ProjectionProductView.h"
#include "QueryKeyMapView.h"
#include "RankTableView.h"
#include "ResultStore.h"
#include "RotaryDelta.h"
#include "ScoreBreakdownView.h"
#include "SpectrumView.h"
#include "TokenLinesView.h"
#include "ViewRegistry.h"

namespace headscope::ui {

QString viewFileName(ViewKind kind, int head) { return fileStem(viewEntry(kind), head); }

QString viewTitle(ViewKind kind) { return QString::fromUtf8(viewEntry(kind).title); }

namespace {

// Lays a plot-based view out at size and saves its plot.
template <typename View>
bool savePlotView(View& view, QCustomPlot* plot, QSize size, const QString& path, ImageFormat format, double scale,
                  QString* error) {
    view.resize(size);
    plot->resize(size);
    plot->setViewport(QRect(QPoint(0, 0), size));
    view.replotNow();
    return savePlot(plot, path, format, size.width(), size.height(), scale, error);
}

// W_QK,i(delta) of a rotary layer for the views that show W_QK, computed now; nullptr when
// delta is not given or the layer has no rotary positions.
std::unique_ptr<RotaryDelta> rotatedAt(ResultStore& results, const Analysis& analysis, int head,
                                       std::optional<int> delta) {
    if (!delta || !analysis.rotary.enabled()) return nullptr;
    auto rotated = std::make_unique<RotaryDelta>();
    rotated->setResultStore(&results);
    rotated->setProductLimit(analysis.weights().dModel());
    rotated->setHead(head);
    rotated->setAnalysis(exporting::borrow(analysis));
    rotated->setDelta(*delta);
    rotated->waitForResult();
    return rotated;
}

// The circuits an export draws: the given ones when they are the head's (the window's, from the
// Session's store), else the store's, formed now.
std::shared_ptr<const Circuits> circuitsOf(ResultStore& results, const Analysis& analysis, int head,
                                           const Circuits* given) {
    if (given && given->head == head && given->W_QK.rows() == analysis.weights().dModel())
        return std::shared_ptr<const Circuits>(std::shared_ptr<const Circuits>(), given);
    const std::shared_ptr<const Analysis> shared = exporting::borrow(analysis);
    if (const ResultStore::Result<Circuits> formed = results.circuits(shared, head)) return *formed;
    results.wait();
    return results.circuits(shared, head).value_or(nullptr);
}

// exportView with the results (circuits, Q-K map, score breakdown, products, W_QK,i(Delta)) read
// from results, which lives no longer than analysis (its keys borrow it).
bool exportViewWith(ResultStore& results, ViewKind kind, const Analysis& analysis, int head,
                    const ViewOptions& options, const QString& path, ImageFormat format, double scale, QString* error,
                    const Circuits* circuits, int cell_row, int cell_col, std::optional<int> delta) {
    if (!exporting::checkAnalysis(analysis, error) || !exporting::checkTarget(path, error) ||
        !exporting::checkHead(analysis, head, error))
        return false;
    const double s = options.font_scale > 0 ? options.font_scale : 1.0;
    const bool shows_qk = kind == ViewKind::SpectrumQK || kind == ViewKind::RankTable || kind == ViewKind::CircuitQK;
    const std::unique_ptr<RotaryDelta> rotated = shows_qk ? rotatedAt(results, analysis, head, delta) : nullptr;
    switch (kind) {
        case ViewKind::AttentionWeights:
        case ViewKind::AttentionLogits: {
            ViewOptions o = options;
            o.show_logits = kind == ViewKind::AttentionLogits;
            return exportHeadGrid(analysis, o, path, format, scale, error);
        }
        case ViewKind::SpectrumQK:
        case ViewKind::SpectrumOV: {
            SpectrumView view(nullptr, kind == ViewKind::SpectrumQK ? SpectrumView::Panels::QK : SpectrumView::Panels::OV);
            view.setOptions(options);
            view.setHead(head);
            if (rotated) view.setRotaryDelta(rotated.get());
            view.setAnalysis(exporting::borrow(analysis));
            return savePlotView(view, view.plot(), QSize(int(900 * s), int(560 * s)), path, format, scale, error);
        }
        case ViewKind::RankTable: {
            RankTableView view;
            view.setFont(QFont(QString::fromLatin1(heatmap::kTextFamily), view.font().pointSize()));
            view.setOptions(options);
            if (rotated) view.setRotaryDelta(rotated.get());
            view.setAnalysis(exporting::borrow(analysis));
            view.setHead(head);
            // Drawn whole as text and lines (RankTableView::paintWhole): every head's row, vector in SVG and PDF.
            const int min_width = int(420 * s);  // as wide as a slide's column at least
            return savePainted(view.wholeSize(min_width), [&view, min_width](QPainter& painter) { view.paintWhole(painter, min_width); },
                               viewTitle(kind), path, format, scale, error);
        }
        case ViewKind::Projections: {
            FusedProjectionsView view;
            view.setOptions(options);
            view.setHead(head);
            view.setAnalysis(exporting::borrow(analysis));
            return savePlotView(view, view.plot(), QSize(int(1600 * s), int(1000 * s)), path, format, scale, error);
        }
        case ViewKind::ProjectionProduct: {
            ProjectionProductView view;
            view.setResultStore(&results);
            view.setOptions(options);
            view.setHead(head);
            view.setAnalysis(exporting::borrow(analysis));
            const int n = analysis.nQuery();
            const QSize size(int(1400 * s), std::clamp(int((200 + 22 * n) * s), int(480 * s), 4000));
            return savePlotView(view, view.plot(), size, path, format, scale, error);
        }
        case ViewKind::CircuitQK:
        case ViewKind::CircuitOV: {
            CircuitView view(nullptr, kind == ViewKind::CircuitQK ? CircuitView::Rows::QK : CircuitView::Rows::OV);
            view.setOptions(options);
            if (rotated) view.setRotaryDelta(rotated.get());
            view.setAnalysis(exporting::borrow(analysis));
            view.setHead(head);
            view.setCircuits(circuitsOf(results, analysis, head, circuits));
            return savePlotView(view, view.plot(), QSize(int(1500 * s), int(640 * s)), path, format, scale, error);
        }
        case ViewKind::Costs: {
            CostView view;
            view.setFont(QFont(QString::fromLatin1(heatmap::kTextFamily), view.font().pointSize()));
            view.setOptions(options);
            view.setAnalysis(exporting::borrow(analysis));
            view.replotNow();
            // The whole page (issue 21): a width for the formulas, and the height its wrapped text
            // needs at that width (sizeHint() guesses the height for another width and cut the
            // attention and layer rows).
            // The page alone, out of the view's scroll area: the area sizes its widget to its viewport
            // on every resize event, which cut the page to about 330 px (costs.pdf, costs.svg).
            QWidget* page = view.page();
            auto* scroll = view.findChild<QScrollArea*>();
            if (scroll && scroll->widget() == page) scroll->takeWidget();
            const int width = std::max(page->sizeHint().width(), int(900 * s));
            page->resize(width, page->hasHeightForWidth() ? page->heightForWidth(width) : page->sizeHint().height());
            // A hidden label lays its text out again only on a resize event: send it, or the
            // text keeps the narrow layout sizeHint() gave it.
            QResizeEvent resized(page->size(), QSize());
            QCoreApplication::sendEvent(page, &resized);
            const bool saved = saveWidget(page, path, format, scale, error);
            if (scroll && !scroll->widget()) scroll->setWidget(page);  // back where the view owns it
            return saved;
        }
        case ViewKind::ScoreBreakdown: {
            ScoreBreakdownView view;
            view.setForFile(true);  // no hover or click hints in a picture
            view.setResultStore(&results);
            view.setOptions(options);
            view.setAnalysis(exporting::borrow(analysis));
            view.setHead(head);
            view.setCell(cell_row, cell_col);
            view.setCircuits(circuitsOf(results, analysis, head, circuits));
            return savePlotView(view, view.plot(), QSize(int(1400 * s), int(820 * s)), path, format, scale, error);
        }
        case ViewKind::TokenLines: {
            TokenLinesView view;
            view.setResultStore(&results);
            view.setOptions(options);
            view.setAnalysis(exporting::borrow(analysis));
            view.setHead(head);
            view.setCell(cell_row, cell_col);
            view.waitForLines();  // a long text's, chosen off the GUI thread
            const int n = std::max(analysis.nQuery(), analysis.nKeyValue());
            const QSize size(int(900 * s), std::clamp(int((170 + 24 * n) * s), int(600 * s), 4000));
            return savePlotView(view, view.plot(), size, path, format, scale, error);
        }
        case ViewKind::QueryKeyMap: {
            QueryKeyMapView view;
            view.setForFile(true);  // no hover or click hints in a picture
            view.setResultStore(&results);
            view.setOptions(options);
            view.setAnalysis(exporting::borrow(analysis));
            view.setHead(head);
            view.setCell(cell_row, cell_col);
            return savePlotView(view, view.plot(), QSize(int(1100 * s), int(820 * s)), path, format, scale, error);
        }
    }
    return false;
}

}  // namespace

bool exportView(ViewKind kind, const Analysis& analysis, int head, const ViewOptions& options, const QString& path,
                ImageFormat format, double scale, QString* error, const Circuits* circuits, int cell_row,
                int cell_col, std::optional<int> delta) {
    ResultStore results;  // what this view needs, computed once
    return exportViewWith(results, kind, analysis, head, options, path, format, scale, error, circuits, cell_row,
                          cell_col, delta);
}

QStringList exportImages(const Analysis& analysis, const QString& dir, const QList<ImageFormat>& formats,
                         QString* error, const ViewOptions& options, double scale, int head,
                         std::optional<int> delta, ResultStore* results) {
    QStringList written;
    if (!exporting::checkAnalysis(analysis, error)) return written;
    if (dir.isEmpty() || !QDir().mkpath(dir)) {
        exporting::fail(error, QStringLiteral("Cannot create the output directory '%1'.").arg(dir));
        return written;
    }
    const QDir out(dir);
    // Every result (the head's circuits, its Q-K map, ...) is computed once for every view and format.
    ResultStore own;
    ResultStore& store = results ? *results : own;
    for (ImageFormat format : formats) {
        for (ViewKind kind : exportedViews()) {
            const QString path = out.filePath(viewFileName(kind, head) + QLatin1Char('.') + suffix(format));
            if (!exportViewWith(store, kind, analysis, head, options, path, format, scale, error, nullptr, -1, -1, delta))
                return written;
            written << path;
        }
        // A rotary layer's RoPE view too (a layer without rotary positions has nothing to show there).
        const ViewEntry* rope = findView("rope");
        if (rope && analysis.rotary.enabled()) {
            const QString path = out.filePath(fileStem(*rope, head) + QLatin1Char('.') + suffix(format));
            ViewInputs inputs;
            inputs.analysis = &analysis;
            inputs.head = head;
            inputs.options = options;
            if (!saveView(*rope, inputs, path, format, scale, error)) return written;
            written << path;
        }
    }
    return written;
}

}  // namespace headscope::ui
