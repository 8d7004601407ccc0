#pragma once
// Thinned token axes (issue 21): where a word per cell does not fit, every k-th word is written
// WITH its position ("12:the"), so that a thinned axis never reads like the sequence itself
// (nano-sort's digits "2 1 0 0 1 2"), and the axis title says so ("every 3rd key").
// Single-character tokens (an induction model's letters, digits) are words like any other.

#include <QFont>
#include <QString>
#include <QStringList>

namespace headscope::ui {

// labels[i] at i = 0, every, 2*every, ... as "i:word", the others empty; every <= 1: labels as
// they are. numbered: the labels carry their positions already ("12 the", View > Token
// positions), or have no room for them, so they are only thinned.
QStringList thinnedWithPositions(const QStringList& labels, int every, bool numbered);

// Thinned labels ("12:because") no wider than max_px in font: the word is elided ("12:beca…"),
// never the position; at least one letter of it stays. Empty labels stay empty.
QStringList elideWords(const QStringList& labels, const QFont& font, int max_px);

// "every 2nd key", "every 3rd query", "every 11th token".
QString everyKth(int every, const QString& noun);

}  // namespace headscope::ui
