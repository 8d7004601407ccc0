#include "ProbeAttentionView.h"

#include <QEvent>
#include <QFontMetricsF>
#include <QLabel>
#include <QSlider>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "CellColorMap.h"
#include "Heatmap.h"
#include "TypesetTitle.h"

namespace headscope::ui {

ProbeAttentionView::ProbeAttentionView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("probe_attention"));
    plot_ = new QCustomPlot(this);
    // Low where the room is (the Training tab's compact room at 2x): the heads then stand in one row.
    plot_->setMinimumSize(240, 80);
    plot_->installEventFilter(this);
    slider_ = new QSlider(Qt::Horizontal, this);
    slider_->setObjectName(QStringLiteral("snapshot_slider"));
    slider_->setToolTip(tr("Scrub back through the saved snapshots of the attention on the probe"));
    slider_->setRange(0, 0);
    label_ = new QLabel(tr("attention on the probe: no snapshot yet"), this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_, 1);
    layout->addWidget(label_);
    layout->addWidget(slider_);
    connect(slider_, &QSlider::valueChanged, this, &ProbeAttentionView::show);
}

const train::AttentionSnapshot* ProbeAttentionView::shown() const {
    return snapshots_.empty() ? nullptr : snapshots_[std::size_t(slider_->value())].get();
}

void ProbeAttentionView::rebuild(int layers, int heads, int n) {
    plot_->plotLayout()->clear();
    plot_->clearPlottables();
    maps_.clear(), titles_.clear(), rects_.clear();
    layers_ = layers, heads_ = heads, n_ = n;
    for (int l = 0; l < layers; ++l)
        for (int h = 0; h < heads; ++h) {
            auto* title = new TypesetTitle(plot_, QString(), heatmap::font(8, 1.0, true));
            auto* rect = new QCPAxisRect(plot_);
            heatmap::styleAxes(rect);
            heatmap::setCellRanges(rect, n, n);
            for (QCPAxis* axis : rect->axes()) axis->setTickLabels(false), axis->setTicks(false);
            auto* map = new CellColorMap(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
            map->data()->setSize(n, n);
            map->data()->setRange(QCPRange(0, n - 1), QCPRange(0, n - 1));
            map->setGradient(heatmap::gradient(false));
            map->setDataRange(QCPRange(0, 1));
            map->setInterpolate(false);
            maps_.push_back(map);
            titles_.push_back(title);
            rects_.push_back(rect);
        }
    placeMaps(true);
}

// The heads as a grid of layers by heads, or in one row where the plot is wide and low: whichever
// draws each map larger.
void ProbeAttentionView::placeMaps(bool force) {
    const int count = int(maps_.size());
    if (count == 0 || heads_ <= 0 || layers_ <= 0) return;
    const double title = 2.4 * QFontMetricsF(titles_.front()->font()).height();
    const double w = plot_->width(), h = plot_->height();
    const double grid = std::min(w / heads_, h / layers_ - title), row = std::min(w / count, h - title);
    const bool one_row = layers_ > 1 && row > grid;
    if (one_row == one_row_ && !force) return;
    one_row_ = one_row;
    QCPLayoutGrid* layout = plot_->plotLayout();
    for (int k = 0; k < count && !force; ++k) {
        layout->take(titles_[std::size_t(k)]);
        layout->take(rects_[std::size_t(k)]);
    }
    layout->simplify();
    for (int k = 0; k < count; ++k) {
        const int r = one_row ? 0 : 2 * (k / heads_), c = one_row ? k : k % heads_;
        layout->addElement(r, c, titles_[std::size_t(k)]);
        layout->addElement(r + 1, c, rects_[std::size_t(k)]);
    }
}

bool ProbeAttentionView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == plot_ && event->type() == QEvent::Resize) {
        placeMaps(false);
        plot_->replot(QCustomPlot::rpQueuedReplot);
    }
    return QWidget::eventFilter(watched, event);
}

void ProbeAttentionView::setRun(const std::vector<std::shared_ptr<const train::AttentionSnapshot>>& snapshots,
                                const std::vector<train::Evaluation>& evaluations, int layers, int heads) {
    const bool following = snapshots_.empty() || slider_->value() == slider_->maximum();
    const long long shown_step = snapshots_.empty() ? -1 : snapshots_[std::size_t(slider_->value())]->step;
    snapshots_ = snapshots;
    evaluations_ = evaluations;
    const int n = snapshots.empty() || snapshots.front()->weights.empty() ? 0 : int(snapshots.front()->weights.front().rows());
    if (layers != layers_ || heads != heads_ || n != n_) rebuild(layers, heads, n);
    int index = int(snapshots_.size()) - 1;
    if (!following)  // keep the snapshot the user scrubbed to, or the nearest one after thinning
        for (int i = 0; i < int(snapshots_.size()); ++i)
            if (snapshots_[std::size_t(i)]->step >= shown_step) {
                index = i;
                break;
            }
    const QSignalBlocker block(slider_);
    slider_->setRange(0, std::max(0, int(snapshots_.size()) - 1));
    slider_->setValue(std::max(0, index));
    show(slider_->value());
}

void ProbeAttentionView::show(int index) {
    if (snapshots_.empty() || index < 0 || index >= int(snapshots_.size())) {
        label_->setText(tr("attention on the probe: no snapshot yet"));
        plot_->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    const train::AttentionSnapshot& s = *snapshots_[std::size_t(index)];
    const train::Evaluation* e = nullptr;
    for (const train::Evaluation& candidate : evaluations_)
        if (candidate.step == s.step) e = &candidate;
    for (std::size_t k = 0; k < maps_.size() && k < s.weights.size(); ++k) {
        const Eigen::MatrixXf& w = s.weights[k];  // (n queries, n keys)
        for (int q = 0; q < n_; ++q)
            for (int key = 0; key < n_; ++key)
                maps_[k]->data()->setCell(key, q, key <= q ? double(w(q, key)) : qQNaN());
        QString title = QStringLiteral("L%1H%2").arg(int(k) / heads_).arg(int(k) % heads_);
        if (e) title += tr("\nprev %1 · ind %2").arg(e->previous_token[k], 0, 'f', 2).arg(e->prefix_matching[k], 0, 'f', 2);
        titles_[k]->setText(title);
    }
    label_->setText(tr("attention on the probe at step %1 (snapshot %2 of %3)")
                        .arg(s.step).arg(index + 1).arg(snapshots_.size()));
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace headscope::ui
