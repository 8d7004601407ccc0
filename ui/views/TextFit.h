#pragma once
// Fitting words and ticks to the room a plot has (legible at any size and font scale):
// texts come as variants, longest first, and the longest that fits is shown; tick steps and
// label thinning follow the pixels each label has.

#include <QFont>
#include <QStringList>

class QCustomPlot;
class QCPAxis;
class QCPTextElement;

namespace headscope::ui::fit {

// The first variant whose width in font is at most room pixels, or "" when none fits.
QString longestThatFits(const QStringList& variants, const QFont& font, double room);

// A tick step of 1, 2 or 5 times a power of ten, so that ticks `pixels_per_unit` apart per
// unit are at least room pixels apart. With two_ticks, it stays small enough for two ticks
// within extent units even if they then crowd; without, a tiny panel gets the one tick at 0.
double tickStep(double extent, double pixels_per_unit, double room, bool two_ticks = true);

// Every how many items a label can be shown when items are `pixels_per_item` apart and a
// label needs room pixels (1 = every item).
int labelStride(double pixels_per_item, double room);

// text with each line broken so none is wider than room in font: at " · " (unless at_dots is
// false: in formulas it is a product) and runs of spaces first, then at single spaces; a word
// wider than room stays whole.
QString wrapLines(const QString& text, const QFont& font, double room, bool at_dots = true);

// text with its spaces made non-breaking (U+00A0): wrapLines never breaks inside it. One term
// of a formula ("x_i W_i^Q b_kᵀ = 0", "W_2 = (W_i^K)ᵀ"), a number with its unit.
QString together(const QString& text);

// Lays the plot out at its viewport without drawing, so axis rects have their final size.
void layOut(QCustomPlot* plot);

// A plot's title: `message` wrapped to room when there is one (or no variants), else the
// longest of `variants` that fits room (the last, shortest, when none does).
void setTitle(QCPTextElement* title, const QStringList& variants, const QString& message, double room);

// The legend moved from inside the axis rect to a band under the plot, `per_row` entries a
// row, so the curves stay uncovered.
void legendBelow(QCustomPlot* plot, int per_row);

// The axis' label: the first of variants (lines split at '\n') whose every line fits the length
// of its axis rect along the axis (its height for a left or right axis), else the last. The
// plot must be laid out (layOut) at its size first. Returns the label set.
QString fitAxisLabel(QCPAxis* axis, const QStringList& variants);

// As many ticks (2 to 5) as a vertical axis' laid-out rect has room for, two tick-label lines
// apart (lesson 7 at 2x: 0 to 1 in 60 px), set on axis' ticker.
void fitTickCount(QCPAxis* axis);

}  // namespace headscope::ui::fit
