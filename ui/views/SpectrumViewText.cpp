// SpectrumView's texts and interaction: titles and labels fitted to the room, hover and clicks.
#include "SpectrumView.h"

#include <QMouseEvent>
#include <QResizeEvent>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "Heatmap.h"
#include "RotaryDelta.h"
#include "Spectrum.h"
#include "SpectrumAxes.h"
#include "SpectrumViewStyle.h"
#include "TextFit.h"

namespace headscope::ui {

void SpectrumView::fitTexts() {
    const double s = options_.font_scale;
    const QRect viewport = plot_->viewport();
    const double f = QFontMetricsF(heatmap::font(spectrum_style::kTickPt, s)).height();
    // The title row goes first when the plot is short: the dock's title names the view.
    const bool title_fits = viewport.height() >= (arrangement_ == Arrangement::Stacked ? 16 : 9) * f;
    QStringList titles;
    if (analysis_ && !analysis_->spectra.empty()) {
        titles = QStringList{QStringLiteral("Singular values σᵢ of each head · head %1 bold").arg(head_),
                             QStringLiteral("σᵢ of each head · head %1 bold").arg(head_),
                             QStringLiteral("head %1 bold").arg(head_)};
        // A rotary layer: the W_QK panel is drawn at one Delta, and the title says which.
        const bool pending = delta_ && analysis_->rotary.enabled() && !rotated_;
        const QString delta = pending ? QStringLiteral("W_QK at Δ = %1: computing…").arg(delta_->delta()) : deltaText();
        if (!delta.isEmpty())
            for (QString& t : titles) t = delta + QStringLiteral(" · ") + t;
    } else {
        titles = QStringList{QStringLiteral("No analysis yet")};
    }
    const QString title = title_fits ? fit::longestThatFits(titles, title_->font(), viewport.width() - 8) : QString();
    title_->setText(title);
    const bool title_in_layout = plot_->plotLayout()->hasElement(0, 0) && plot_->plotLayout()->element(0, 0) == title_;
    if (title.isEmpty() && title_in_layout) {
        plot_->plotLayout()->take(title_);
        plot_->plotLayout()->simplify();
        title_->setVisible(false);
    } else if (!title.isEmpty() && !title_in_layout) {
        plot_->plotLayout()->insertRow(0);
        plot_->plotLayout()->addElement(0, 0, title_);
        title_->setVisible(true);
    }

    // Axis labels at their longest, one layout pass, then each text in the room it has.
    QStringList top_labels[] = {rotated_ ? QStringList{QStringLiteral("W_QK,i(Δ) = W_i^Q R(Δ) (W_i^K)ᵀ, %1").arg(deltaText()),
                                                   QStringLiteral("W_QK,i(%1)").arg(deltaText())}
                                        : QStringList{QStringLiteral("W_QK,i = W_i^Q (W_i^K)ᵀ"), QStringLiteral("W_QK,i")},
                                {QStringLiteral("W_OV,i = W_i^V W_i^O"), QStringLiteral("W_OV,i")}};
    if (arrangement_ == Arrangement::QKOnly && panels_ == Panels::Both)  // say where W_OV went
        top_labels[spectrum_style::kQK] = {QStringLiteral("W_QK,i = W_i^Q (W_i^K)ᵀ · W_OV: widen the dock"),
                           QStringLiteral("W_QK,i · W_OV: widen the dock"), QStringLiteral("W_QK,i · W_OV: widen"),
                           QStringLiteral("W_QK,i")};
    const QStringList y_labels{QStringLiteral("singular value σᵢ (log)"), QStringLiteral("σᵢ (log)"),
                               QStringLiteral("σᵢ")};
    const QStringList x_labels{QStringLiteral("index i, largest first"), QStringLiteral("index i")};
    for (int p : {spectrum_style::kQK, spectrum_style::kOV}) {
        rects_[p]->axis(QCPAxis::atTop)->setLabel(top_labels[p].front());
        rects_[p]->axis(QCPAxis::atLeft)->setLabel(y_labels.front());
        rects_[p]->axis(QCPAxis::atBottom)->setLabel(x_labels.front());
    }
    fit::layOut(plot_);
    const int d = analysis_ ? analysis_->weights().dModel() : 1;
    for (int p : {spectrum_style::kQK, spectrum_style::kOV}) {
        QCPAxisRect* rect = rects_[p];
        const QRect r = rect->rect();
        QCPAxis* x = rect->axis(QCPAxis::atBottom);
        QCPAxis* y = rect->axis(QCPAxis::atLeft);
        QCPAxis* top = rect->axis(QCPAxis::atTop);
        top->setLabel(fit::longestThatFits(top_labels[p], top->labelFont(), r.width()));
        y->setLabel(fit::longestThatFits(y_labels, y->labelFont(), r.height()));
        x->setLabel(fit::longestThatFits(x_labels, x->labelFont(), r.width()));
        // Ticks far enough apart for their labels: x labels are numbers up to d_model, y
        // labels are one line each.
        const double x_label = QFontMetricsF(x->tickLabelFont()).horizontalAdvance(QString::number(d));
        x->ticker().dynamicCast<QCPAxisTickerFixed>()->setTickStep(
            fit::tickStep(d, r.width() / (d + 1.0), x_label + 1.5 * f));
        y->ticker()->setTickCount(std::clamp(int(r.height() / (2.5 * f)), 1, 6));
        const double margin = 10;  // the label's padding and a gap to the axis
        if (cliff_text_[p].item) {
            const double left = cliff_position_[p] * r.width();
            const double room = (cliff_on_left_[p] ? left : r.width() - left) - margin;
            cliff_text_[p].item->setText(fit::longestThatFits(cliff_text_[p].variants, cliff_text_[p].item->font(), room));
        }
        if (zero_note_[p].item)
            zero_note_[p].item->setText(
                fit::longestThatFits(zero_note_[p].variants, zero_note_[p].item->font(), 0.98 * r.width() - margin));
    }
}

SpectrumView::Hit SpectrumView::hitAt(const QPoint& pos) const {
    Hit best;
    if (!analysis_) return best;
    double best_distance = 8.0;  // pixels
    for (int p : {spectrum_style::kQK, spectrum_style::kOV}) {
        if (!rects_[p]->visible() || !rects_[p]->rect().contains(pos)) continue;
        QCPAxis* x = rects_[p]->axis(QCPAxis::atBottom);
        QCPAxis* y = rects_[p]->axis(QCPAxis::atLeft);
        const int index = static_cast<int>(std::lround(x->pixelToCoord(pos.x())));
        for (int h = 0; h < graphs_[p].size(); ++h) {
            const auto data = graphs_[p][h]->data();
            if (index < 1 || index > data->size()) continue;
            const double py = y->coordToPixel(data->at(index - 1)->value);
            const double px = x->coordToPixel(index);
            const double distance = std::hypot(px - pos.x(), py - pos.y()) - (h == head_ ? 2 : 0);
            if (distance < best_distance) {
                best_distance = distance;
                best = Hit{h, p, index};
            }
        }
    }
    return best;
}

int SpectrumView::headAt(const QPoint& pos) const { return hitAt(pos).head; }

QString SpectrumView::describe(const QPoint& pos) const {
    const Hit hit = hitAt(pos);
    if (hit.head < 0) return {};
    const Eigen::VectorXd all = values(hit.panel == spectrum_style::kQK, hit.head);
    const double v = all(hit.index - 1);
    const Spectrum& s = hit.panel == spectrum_style::kQK ? qkSpectrum(hit.head) : analysis_->spectra[std::size_t(hit.head)].ov;
    QString text = QStringLiteral("head %1 · σ_%2 of %3 = %4")
                       .arg(hit.head).arg(hit.index).arg(hit.panel == spectrum_style::kQK ? "W_QK" : "W_OV", spectrum_style::formatValue(v));
    if (v > 0 && v <= s.tolerance) text += QStringLiteral(" (under the tolerance: counts as 0)");
    return text;
}

bool SpectrumView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == plot_) {
        if (event->type() == QEvent::Resize) {
            // Before QCustomPlot's own resize handling, which replots with these texts.
            plot_->setViewport(QRect(QPoint(0, 0), static_cast<QResizeEvent*>(event)->size()));
            arrangePanels();
            fitTexts();
        } else if (event->type() == QEvent::MouseMove) {
            const QPoint pos = static_cast<QMouseEvent*>(event)->pos();
            const QString text = describe(pos);
            emit hovered(text);
            if (text.isEmpty()) QToolTip::hideText();
            else QToolTip::showText(plot_->mapToGlobal(pos), text, plot_);
        } else if (event->type() == QEvent::MouseButtonRelease) {
            const int head = headAt(static_cast<QMouseEvent*>(event)->pos());
            if (head >= 0) emit headClicked(head);
        } else if (event->type() == QEvent::Leave) {
            emit hovered(QString());
        }
    }
    return QWidget::eventFilter(watched, event);
}

void SpectrumView::applyFonts() {
    const double s = options_.font_scale;
    title_->setFont(heatmap::font(spectrum_style::kTitlePt, s, true));
    for (QCPAxisRect* rect : rects_) {
        for (QCPAxis* axis : rect->axes()) {
            axis->setTickLabelFont(heatmap::font(spectrum_style::kTickPt, s));
            axis->setLabelFont(heatmap::font(spectrum_style::kAxisPt, s, axis->axisType() == QCPAxis::atTop));
        }
    }
}

}  // namespace headscope::ui
