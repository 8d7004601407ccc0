#pragma once
// One head, large: its weights or logits heatmap with every token label and a colour bar,
// and beside it the numbers that explain it: d_k, d_v, the rank of W_QK,i = W_i^Q (W_i^K)^T
// (at most d_k), its largest singular values, the rank of W_OV,i and of the logits.
// Opened by the main window when a head of the HeadGridView is activated.

#include <QWidget>
#include <memory>
#include <qcustomplot.h>

#include "Analysis.h"
#include "ViewOptions.h"

class QLabel;
class QScrollArea;

namespace headscope::ui {

class HeadDetailView : public QWidget {
    Q_OBJECT

public:
    explicit HeadDetailView(QWidget* parent = nullptr);

    void setAnalysis(std::shared_ptr<const Analysis> analysis);
    std::shared_ptr<const Analysis> analysis() const { return analysis_; }
    void setHead(int head);  // clamped to the heads there are
    int head() const { return head_; }
    void setOptions(const ViewOptions& options);
    const ViewOptions& options() const { return options_; }

    QCPColorMap* colorMap() const { return map_; }
    QCPColorScale* colorScale() const { return scale_; }
    QCustomPlot* plot() const { return plot_; }  // the heatmap, with a title and the key numbers
    QString infoText() const;                    // the side panel, as plain text
    void setInfoShown(bool on);                  // the side panel (off in the Heads tab's large head)

    void replotNow();

signals:
    void cellHovered(QString text);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void refresh();
    void updateLabels();
    void applyFonts();
    void fitInfoWidth();
    void onMouseMove(QMouseEvent* event);

    std::shared_ptr<const Analysis> analysis_;
    ViewOptions options_;
    int head_ = 0;
    QCustomPlot* plot_ = nullptr;
    QCPTextElement* title_ = nullptr;
    QCPTextElement* subtitle_ = nullptr;
    QCPAxisRect* rect_ = nullptr;
    QCPColorMap* map_ = nullptr;
    QCPColorScale* scale_ = nullptr;
    QLabel* info_ = nullptr;
    QScrollArea* info_scroll_ = nullptr;
    QString hover_text_;
};

}  // namespace headscope::ui
