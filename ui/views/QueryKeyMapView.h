#pragma once
// The selected head's queries and keys as points (AttentionViz's joint embedding, Yeh et al.
// 2023): every query vector q_i and key vector k_j, scaled so that q . k is the logit,
// projected together onto their first two principal components (core's queryKeyMap()).
// Queries and keys in two colours and shapes, each point labelled with its token (beside it,
// clear of the other words and points; left out and counted where there is no room), a line
// from each query to the key it attends to most; the share of variance the two components
// explain is written on the plot, above the points. Both axes have the same scale: distances on screen are distances in
// the plane. The selected cell's query and key are ringed.

#include <QWidget>
#include <memory>
#include <qcustomplot.h>

#include "Analysis.h"
#include "AttentionView.h"
#include "QueryKeyMap.h"
#include "ViewOptions.h"

namespace headscope::ui {

class QueryKeyMapView : public AttentionView {
    Q_OBJECT

public:
    explicit QueryKeyMapView(QWidget* parent = nullptr);

    const QueryKeyMap& map() const { return map_; }
    bool hasMap() const { return has_map_; }  // map() is drawn (it is computed off the GUI thread)
    QCustomPlot* plot() const override { return plot_; }
    // Curves without lines keep their points in order: point i = query i, point j = key j.
    QCPCurve* queryGraph() const { return queries_; }
    QCPCurve* keyGraph() const { return keys_; }
    // The query -> most-attended-key lines drawn: (query, key) pairs.
    QList<QPair<int, int>> links() const { return links_; }
    QStringList pointLabels() const;  // the token labels shown (placed clear of each other)
    QString leftOutText() const;      // how many labels had no room, or "" when none
    // Each word shown with the point it names (plot coordinates), in the order they were placed.
    QList<QPair<QString, QPointF>> shownLabels() const;
    QString varianceText() const;

    // More points than this: only the selected, hovered and most-attended points are labelled.
    static constexpr int kMaxLabels = 80;

    void replotNow() override;  // refresh now, shown or not (export, tests)

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void refresh() override;
    void equalScale();  // the axes' ranges and the labels' places for the plot's size
    void frame(double bottom_band);
    int placeLabels();  // each label beside its point, clear of the others; how many had no room
    QString leftOutWords(int count) const;
    void fitToRoom();  // the title, axis labels and variance note for the plot's size
    QueryKeyMap map_;
    bool has_map_ = false;
    QCustomPlot* plot_ = nullptr;
    QCPTextElement* title_ = nullptr;
    QCPCurve* queries_ = nullptr;
    QCPCurve* keys_ = nullptr;
    QCPCurve* ring_ = nullptr;
    QCPItemText* variance_ = nullptr;
    QCPItemText* left_out_ = nullptr;  // "3 words hidden for lack of room: hover a point to name it"
    // A point's word and what it claims room around: its marker (or the ring), in pixels.
    struct PointLabel {
        QCPItemText* text;
        QPointF at;  // the point, plot coordinates
        bool keep;   // the selected cell's words: shown even without a free place
        double marker;
    };
    struct Marker {
        QPointF at;
        double size;  // pixels across
    };
    std::vector<PointLabel> point_labels_;  // in the order they claim room
    std::vector<Marker> markers_;           // every point's
    static constexpr double kRingPx = 23;   // the selected cell's ring, pen included
    QStringList variance_variants_, title_lines_[2], axis_labels_[2];  // wordings, longest first
    QList<QPair<int, int>> links_;
    QCPRange x_data_, y_data_;
};

}  // namespace headscope::ui
