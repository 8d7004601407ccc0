#pragma once
// The Training tab's settings (issue 23): the run's model, data and optimiser as labelled spin
// boxes and check boxes, "Save model..." and "Open in HeadScope" under them, and why the settings
// do not make a run where they do not. The rows stand in one column beside the plots or in two on
// a page of their own (TrainingTab chooses, from needs()). A change of any field emits changed().

#include <QWidget>
#include <utility>
#include <vector>

#include "train/Trainer.h"

class QCheckBox;
class QDoubleSpinBox;
class QGridLayout;
class QLabel;
class QPushButton;
class QSpinBox;

namespace headscope::ui {

class TrainingSettings : public QWidget {
    Q_OBJECT
public:
    explicit TrainingSettings(QWidget* parent = nullptr);

    // The settings the fields hold (may not validate).
    train::TrainConfig config() const;
    // Puts c in the fields without emitting changed().
    void setConfig(const train::TrainConfig& c);
    // Shows why the settings make no run ("" when they do).
    void setProblem(const QString& problem);

    // The rows as `columns` pairs of label and field side by side, in reading order down each column.
    void arrange(int columns);
    // What one column of the rows needs, from the widgets' own hints (a layout not shown yet
    // counts its widgets as hidden, and the rows may stand in two columns now).
    QSize needs() const;

    QSpinBox* seedBox() const { return seed_; }
    QPushButton* saveButton() const { return save_; }
    QPushButton* openButton() const { return open_; }

signals:
    void changed();

private:
    void fieldChanged();

    QSpinBox *layers_, *d_model_, *heads_, *vocab_, *context_, *min_repeat_, *max_repeat_, *batch_, *seed_, *warmup_;
    QDoubleSpinBox* learning_rate_;
    QCheckBox *mlp_, *fixed_repeat_, *random_start_, *two_copies_;
    QPushButton *save_, *open_;
    QLabel* problem_;
    QGridLayout* form_;
    std::vector<std::pair<QWidget*, QWidget*>> rows_;  // (label or null, field) in order
};

}  // namespace headscope::ui
