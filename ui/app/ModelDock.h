#pragma once
// The loaded weights, when they are not generated: which model or layer is open, the layer
// shown (Page Up / Page Down in the spin box), the next-token list of a GPT-2 model with its
// probabilities, and the way back to generated weights. Reads the Session; edits only its source.

#include <QDockWidget>

class QLabel;
class QListWidget;
class QPushButton;
class QSpinBox;

namespace headscope::ui {

class Session;

class ModelDock : public QDockWidget {
    Q_OBJECT

public:
    ModelDock(Session* session, QWidget* parent = nullptr);

    QSpinBox* layerBox() const { return layer_; }
    QListWidget* nextTokens() const { return next_; }

private:
    void refreshSource();
    void refreshNextTokens();

    Session* session_;
    QLabel* name_ = nullptr;
    QSpinBox* layer_ = nullptr;
    QListWidget* next_ = nullptr;
    QLabel* next_label_ = nullptr;  // "Next token:", or an encoder's masked position
    QPushButton* generated_ = nullptr;
};

}  // namespace headscope::ui
