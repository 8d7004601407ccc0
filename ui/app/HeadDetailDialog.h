#pragma once
// One head, large, in its own window (opened by clicking a head in the grid): its attention
// (tab 1) and its circuits W_QK,i and W_OV,i with their factors (tab 2). Shows the document's
// selected head and follows every new analysis, circuits and view option. On a rotary layer
// (setRotaryDelta: the window's shared RotaryDelta) the Circuits tab shows W_QK,i(Delta) at the
// same Delta as the main window's Circuits view and spectra, with its slider, and its tab says Δ.

#include <memory>

#include <QDialog>

class QTabWidget;

#include "Analysis.h"
#include "Circuits.h"
#include "ViewOptions.h"

namespace headscope::ui {

class HeadDetailView;
class CircuitView;
class RotaryDelta;

class HeadDetailDialog : public QDialog {
    Q_OBJECT

public:
    explicit HeadDetailDialog(QWidget* parent = nullptr);

    void setAnalysis(std::shared_ptr<const Analysis> analysis);
    void setHead(int head);
    void setCircuits(std::shared_ptr<const Circuits> circuits);
    void setOptions(const ViewOptions& options);
    void setRotaryDelta(RotaryDelta* delta);
    QString circuitsTabText() const;
    int head() const { return head_; }
    HeadDetailView* view() const { return view_; }
    CircuitView* circuits() const { return circuits_; }

private:
    void updateTitle();
    void updateCircuitsTab();

    HeadDetailView* view_ = nullptr;
    CircuitView* circuits_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    RotaryDelta* delta_ = nullptr;
    std::shared_ptr<const Analysis> analysis_;
    int head_ = 0;
};

}  // namespace headscope::ui
