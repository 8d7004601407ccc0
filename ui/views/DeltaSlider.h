#pragma once
// A slider for the relative offset Delta = j - i of a rotary layer, over a shared RotaryDelta:
// "Δ = j − i = 3 (the selected cell)" while it follows the cell, "Δ = 3 (set here)" with a
// button back to the cell once the user moved it. Hidden for layers without rotary positions.

#include <QWidget>

class QLabel;
class QSlider;
class QToolButton;

namespace headscope::ui {

class RotaryDelta;

class DeltaSlider : public QWidget {
    Q_OBJECT

public:
    explicit DeltaSlider(QWidget* parent = nullptr);
    void setRotaryDelta(RotaryDelta* delta);
    QSlider* slider() const { return slider_; }
    QString text() const;

private:
    void sync();

    RotaryDelta* delta_ = nullptr;
    QLabel* label_ = nullptr;
    QSlider* slider_ = nullptr;
    QToolButton* follow_ = nullptr;
};

}  // namespace headscope::ui
