#pragma once
// Per head: the rank of W_QK,i, of W_OV,i and of the logits Q_i K_i^T, each against the largest
// rank it can have (core's rankTable). A row is the head; selecting a row asks for that head
// (headClicked); the selected head's row is highlighted. The head column carries the head's
// colour, as in the spectra.

#include <memory>

#include <QTableWidget>

#include "Analysis.h"
#include "ViewOptions.h"

namespace headscope::ui {

class RankTableView : public QTableWidget {
    Q_OBJECT

public:
    explicit RankTableView(QWidget* parent = nullptr);

    void setAnalysis(std::shared_ptr<const Analysis> analysis);
    void setHead(int head);
    void setOptions(const ViewOptions& options);

signals:
    void headClicked(int head);

private:
    void refresh();

    std::shared_ptr<const Analysis> analysis_;
    ViewOptions options_;
    int head_ = 0;
    bool updating_ = false;
};

}  // namespace headscope::ui
