#pragma once
// One head, large, in its own window (opened by clicking a head in the grid): its attention
// (tab 1) and its circuits W_QK,i and W_OV,i with their factors (tab 2). Shows the document's
// selected head and follows every new analysis, circuits and view option.

#include <memory>

#include <QDialog>

#include "Analysis.h"
#include "Circuits.h"
#include "ViewOptions.h"

namespace headscope::ui {

class HeadDetailView;
class CircuitView;

class HeadDetailDialog : public QDialog {
    Q_OBJECT

public:
    explicit HeadDetailDialog(QWidget* parent = nullptr);

    void setAnalysis(std::shared_ptr<const Analysis> analysis);
    void setHead(int head);
    void setCircuits(std::shared_ptr<const Circuits> circuits);
    void setOptions(const ViewOptions& options);
    int head() const { return head_; }
    HeadDetailView* view() const { return view_; }
    CircuitView* circuits() const { return circuits_; }

private:
    void updateTitle();

    HeadDetailView* view_ = nullptr;
    CircuitView* circuits_ = nullptr;
    std::shared_ptr<const Analysis> analysis_;
    int head_ = 0;
};

}  // namespace headscope::ui
