#pragma once
// Singular values of every head's W_QK,i = W_i^Q (W_i^K)^T (left) and W_OV,i = W_i^V W_i^O
// (right): ALL d_model of them, index 1..d_model on x, a logarithmic y axis for the values above
// the rank tolerance, and a separate "= 0" band below the log range for the rest (the exact
// zeros past the factor width and the values under the tolerance). The cliff at
// min(d_k, d_model) (min(d_v, d_model)) is marked and labelled: it is the answer to "why two
// matrices". One head is selected: drawn bold, the others faint. Hover names head, index and
// value; clicking a curve asks for that head (headClicked).
// On a rotary layer (setRotaryDelta) the W_QK panel shows W_QK,i(Delta) = W_i^Q R(Delta) (W_i^K)^T
// at the shared Delta, with a slider above the plot and "Δ = 3" in the title; the spectra come
// from RotaryDelta's worker (until they arrive the title says so and the Delta = 0 ones stay).

#include <QWidget>
#include <memory>
#include <qcustomplot.h>

#include "Analysis.h"
#include "ViewOptions.h"

namespace headscope::ui {

class DeltaSlider;
class RotaryDelta;
struct RotaryDeltaResult;

class SpectrumView : public QWidget {
    Q_OBJECT

public:
    enum class Panels { Both, QK, OV };
    explicit SpectrumView(QWidget* parent = nullptr, Panels panels = Panels::Both);

    void setAnalysis(std::shared_ptr<const Analysis> analysis);
    std::shared_ptr<const Analysis> analysis() const { return analysis_; }
    void setOptions(const ViewOptions& options);  // uses font_scale
    // Smaller than is comfortable (kNarrow...), so that the dock fits beside the heads in a
    // small room (512 x 384 at 2x) rather than pushing the window off the screen.
    void setNarrowAllowed(bool narrow);
    static constexpr int kMinimumWidth = 320, kMinimumHeight = 220, kNarrowMinimumWidth = 180, kNarrowMinimumHeight = 180;
    void setHead(int head);                       // the bold curve
    void setRotaryDelta(RotaryDelta* delta);      // rotary layers: W_QK at the shared Delta
    // The W_QK spectrum drawn for a head: W_QK,i(Delta) on a rotary layer once computed.
    const Spectrum& qkSpectrum(int head) const;
    // "Δ = 3" when the W_QK panel shows W_QK,i(Delta), "" otherwise.
    QString deltaText() const;
    DeltaSlider* deltaSlider() const { return delta_slider_; }
    int head() const { return head_; }

    QCustomPlot* plot() const { return plot_; }
    QCPAxisRect* qkRect() const { return rects_[0]; }
    QCPAxisRect* ovRect() const { return rects_[1]; }
    QCPGraph* qkGraph(int head) const;  // one point per index 1..d_model, zeros on the band
    QCPGraph* ovGraph(int head) const;
    // The values a head's curve stands for (every index 1..d_model, zeros included), as the
    // engine computed them: what hovering shows.
    Eigen::VectorXd values(bool qk, int head) const;
    // The y coordinate the "= 0" band is drawn at (a graph point there means "counts as 0").
    double zeroBandY(bool qk) const { return band_y_[qk ? 0 : 1]; }
    // "60 of 64 singular values are 0" for the selected head.
    QString zeroText(bool qk) const;
    // What hovering pos shows ("head 2 · σ_5 of W_QK = 0 (exact)"), or "".
    QString describe(const QPoint& pos) const;
    // The head whose curve is nearest pos (within a few pixels), or -1.
    int headAt(const QPoint& pos) const;

    void replotNow();

    // How the two panels share the plot: side by side when each gets a readable width,
    // stacked when only the height allows, and W_QK alone when neither does (the title says
    // so). Chosen from the plot's size and the font scale on every resize.
    enum class Arrangement { SideBySide, Stacked, QKOnly };
    Arrangement arrangement() const { return arrangement_; }
    // "" when every panel is on screen; otherwise where the others went (for the dock title).
    QString hiddenPanelNote() const;

signals:
    void headClicked(int head);
    void hovered(const QString& text);
    void arrangementChanged(Arrangement arrangement);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    struct Hit {
        int head = -1, panel = -1, index = -1;
    };
    Hit hitAt(const QPoint& pos) const;
    void refresh();
    void rebuild(int heads);
    void fillPanel(int panel);
    void styleSelection();
    void applyFonts();
    void arrangePanels();
    void fitTexts();

    // A text shown in the longest of its variants that fits its room (variants longest first;
    // "" when none fits).
    struct FittedText {
        QStringList variants;
        QCPItemText* item = nullptr;
    };

    std::shared_ptr<const Analysis> analysis_;
    RotaryDelta* delta_ = nullptr;
    std::shared_ptr<const RotaryDeltaResult> rotated_;  // matches analysis_'s layer, or nullptr
    DeltaSlider* delta_slider_ = nullptr;
    ViewOptions options_;
    Panels panels_;
    int head_ = 0;
    QCustomPlot* plot_ = nullptr;
    QCPTextElement* title_ = nullptr;
    QCPAxisRect* rects_[2] = {};
    QVector<QCPGraph*> graphs_[2];
    double band_y_[2] = {0, 0};
    QString zero_text_[2];
    Arrangement arrangement_ = Arrangement::SideBySide;
    QCPLayoutGrid* panel_grid_ = nullptr;
    FittedText cliff_text_[2], zero_note_[2];
    double cliff_position_[2] = {0, 0};  // the cliff's x as a share of its panel's width
    bool cliff_on_left_[2] = {false, false};  // the label sits left of the line
};

}  // namespace headscope::ui
