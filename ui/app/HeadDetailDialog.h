#pragma once
// One head, large, in its own window (opened by clicking a head in the grid): its attention
// (tab 1) and its projection matrices W_i^Q, W_i^K and W_QK,i (tab 2). Follows the session:
// every new analysis and every view option change is shown here too.

#include <memory>

#include <QDialog>

#include "Analysis.h"
#include "ViewOptions.h"

namespace headscope::ui {

class HeadDetailView;
class ProjectionView;

class HeadDetailDialog : public QDialog {
    Q_OBJECT

public:
    explicit HeadDetailDialog(QWidget* parent = nullptr);

    void setAnalysis(std::shared_ptr<const Analysis> analysis);
    void setHead(int head);
    void setOptions(const ViewOptions& options);
    int head() const { return head_; }
    HeadDetailView* view() const { return view_; }
    ProjectionView* projections() const { return projections_; }

private:
    void updateTitle();

    HeadDetailView* view_ = nullptr;
    ProjectionView* projections_ = nullptr;
    std::shared_ptr<const Analysis> analysis_;
    int head_ = 0;
};

}  // namespace headscope::ui
