// TokenLinesView, part 2: fitting the title and legend to the width, and the mouse over words
// (the lines and labels are built in TokenLinesView.cpp).
#include <QFontMetrics>
#include <QLabel>
#include <QMouseEvent>
#include <QResizeEvent>
#include <cmath>

#include "HeadColors.h"
#include "Heatmap.h"
#include "TextFit.h"
#include "TokenLinesView.h"

namespace headscope::ui {

int TokenLinesView::tokenAt(const QPointF& pos, int* side) const {
    if (!analysis_ || !rect_->rect().contains(pos.toPoint())) return -1;
    const double x = rect_->axis(QCPAxis::atBottom)->pixelToCoord(pos.x());
    const double y = rect_->axis(QCPAxis::atLeft)->pixelToCoord(pos.y());
    *side = x < 0.5 ? 0 : 1;
    if (std::abs(x - (*side == 0 ? kQueryX : kKeyX)) > 0.28) return -1;
    const int n = *side == 0 ? analysis_->nQuery() : analysis_->nKeyValue();
    const int i = static_cast<int>(std::floor(y * n));
    return i >= 0 && i < n ? i : -1;
}

void TokenLinesView::fitToWidth() {
    // The title's two lines in the longest wording that fits, the heads' names in as many rows
    // as the width needs: the view never demands more width than the window has.
    const double room = plot_->viewport().width() - 8;
    QStringList lines;
    for (const QStringList& variants : title_lines_) {
        if (variants.isEmpty()) continue;
        const QString line = fit::longestThatFits(variants, title_->font(), room);
        if (!line.isEmpty()) lines << line;
    }
    title_->setText(lines.join(QLatin1Char('\n')));
    for (int i = legend_->elementCount() - 1; i >= 0; --i)  // cell by cell: see refresh()
        if (legend_->elementAt(i)) legend_->removeAt(i);
    legend_->simplify();
    const QFont name_font = heatmap::font(kLegendPt, options_.font_scale, true);
    const QFontMetricsF metrics(name_font);
    int row = 0, column = 0;
    double used = 0;
    for (int h : legend_heads_) {
        const QString name = QStringLiteral("━ head %1").arg(h);
        const double width = metrics.horizontalAdvance(name) + 12;
        if (column > 0 && used + width > room) {
            ++row;
            column = 0;
            used = 0;
        }
        auto* element = new QCPTextElement(plot_, name, name_font);
        element->setTextColor(headColor(h));
        legend_->addElement(row, column++, element);
        used += width;
    }
}

// The hint in the longest wording that fits two lines of the room the controls leave it.
void TokenLinesView::fitHint() {
    static const QStringList variants{tr("Hover a word to see only its lines and their weights."),
                                      tr("Hover a word: its lines only.")};
    const QString text = fit::longestThatFits(variants, hint_->font(), 1.8 * hint_->width());
    hint_->setText(text);
    hint_->setToolTip(variants.front());
}

bool TokenLinesView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == hint_ && (event->type() == QEvent::Resize || event->type() == QEvent::FontChange)) fitHint();
    if (watched == plot_) {
        if (event->type() == QEvent::Resize && analysis_) {
            plot_->setViewport(QRect(QPoint(0, 0), static_cast<QResizeEvent*>(event)->size()));
            fitToWidth();  // QCustomPlot's own resize handling replots with it
        } else if (event->type() == QEvent::MouseMove) {
            int side = 0;
            const int i = tokenAt(static_cast<QMouseEvent*>(event)->position(), &side);
            setFocusToken(side, i);
            if (i >= 0) {
                const auto& tokens = side == 0 ? analysis_->input.query.tokens : analysis_->input.key_value.tokens;
                emit hovered(QStringLiteral("%1 %2 “%3”: %4 lines shown")
                                 .arg(side == 0 ? QLatin1String("query") : QLatin1String("key")).arg(i)
                                 .arg(QString::fromStdString(tokens[std::size_t(i)])).arg(visibleLines().size()));
            }
        } else if (event->type() == QEvent::Leave) {
            setFocusToken(-1, -1);
        }
    }
    return QWidget::eventFilter(watched, event);
}

}  // namespace headscope::ui
