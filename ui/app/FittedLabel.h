#pragma once
// A one-line label that says as much as its width allows: given variants of a text, longest
// first, it shows the longest that fits, and the shortest elided with "…" when none does. It
// never widens its window, and the whole first variant stays in fullText() and the tooltip.
// Notation in the text ("W_Q+W_K", "min(d_k, d_model)") is drawn typeset, as plot titles are
// (TypesetText); text() stays the notation, and the fitting measures it (never narrower).

#include <QLabel>
#include <QStringList>

namespace headscope::ui {

class FittedLabel : public QLabel {
    Q_OBJECT

public:
    explicit FittedLabel(QWidget* parent = nullptr);

    // The first variant is the whole text; later ones say the same in fewer words.
    void setVariants(const QStringList& variants);
    QString fullText() const { return variants_.isEmpty() ? QString() : variants_.front(); }
    // The explanation shown on hover, above the whole text when a shorter one is on screen.
    void setExplanation(const QString& explanation);

    QSize minimumSizeHint() const override;

protected:
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;

private:
    void fit();

    QStringList variants_;
    QString explanation_;
};

}  // namespace headscope::ui
