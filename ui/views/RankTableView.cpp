#include "RankTableView.h"

#include <QHeaderView>
#include <QScrollBar>

#include "HeadColors.h"
#include "Heatmap.h"
#include "RankTable.h"

namespace headscope::ui {

RankTableView::RankTableView(QWidget* parent) : QTableWidget(parent) {
    setObjectName(QStringLiteral("rank_table"));
    setColumnCount(4);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::SingleSelection);
    verticalHeader()->setVisible(false);
    horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    horizontalHeader()->setStretchLastSection(false);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    setToolTip(tr("Numerical rank of each head's products against the largest rank they can have. "
                  "Type more tokens than d_k and the logits' rank stops at d_k: the low-rank bottleneck."));
    connect(this, &QTableWidget::itemSelectionChanged, this, [this]() {
        if (updating_) return;
        const auto rows = selectionModel()->selectedRows();
        if (!rows.isEmpty()) emit headClicked(rows.front().row());
    });
}

void RankTableView::setAnalysis(std::shared_ptr<const Analysis> analysis) {
    analysis_ = std::move(analysis);
    refresh();
}

void RankTableView::setHead(int head) {
    head_ = head;
    updating_ = true;
    if (head >= 0 && head < rowCount()) selectRow(head);
    updating_ = false;
}

void RankTableView::setOptions(const ViewOptions& options) {
    options_ = options;
    setFont(heatmap::font(10, options.font_scale));
    horizontalHeader()->setFont(heatmap::font(10, options.font_scale, true));
}

void RankTableView::refresh() {
    updating_ = true;
    if (!analysis_) {
        setRowCount(0);
        updating_ = false;
        return;
    }
    const std::vector<RankRow> rows = rankTable(*analysis_);
    const RankRow bounds = rows.empty() ? RankRow{} : rows.front();
    setHorizontalHeaderLabels({tr("head"), tr("W_QK\n≤ %1").arg(bounds.qk_bound), tr("W_OV\n≤ %1").arg(bounds.ov_bound),
                               tr("logits\n≤ %1").arg(bounds.logits_bound)});
    horizontalHeaderItem(1)->setToolTip(tr("rank of W_QK,i = W_i^Q (W_i^K)ᵀ ≤ min(d_k, d_model)"));
    horizontalHeaderItem(2)->setToolTip(tr("rank of W_OV,i = W_i^V W_i^O ≤ min(d_v, d_model)"));
    horizontalHeaderItem(3)->setToolTip(tr("rank of the logits Q_i K_iᵀ ≤ min(d_k, n_q, n_kv)"));
    setRowCount(static_cast<int>(rows.size()));
    for (const RankRow& r : rows) {
        auto* head = new QTableWidgetItem(QStringLiteral("■%1").arg(r.head));
        head->setForeground(headColor(r.head));
        setItem(r.head, 0, head);
        const int values[][2] = {{r.qk, r.qk_bound}, {r.ov, r.ov_bound}, {r.logits, r.logits_bound}};
        for (int c = 0; c < 3; ++c) {
            auto* cell = new QTableWidgetItem(QString::number(values[c][0]));  // the bound is in the header
            cell->setTextAlignment(Qt::AlignCenter);
            if (values[c][0] < values[c][1]) cell->setToolTip(tr("below its bound: the factors are not full rank"));
            setItem(r.head, c + 1, cell);
        }
    }
    if (head_ >= 0 && head_ < rowCount()) selectRow(head_);
    resizeColumnsToContents();
    // Every column visible: the table keeps the width of its contents.
    setMinimumWidth(horizontalHeader()->length() + verticalScrollBar()->sizeHint().width() + 2 * frameWidth());
    updating_ = false;
}

}  // namespace headscope::ui
