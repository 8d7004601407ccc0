#pragma once
// The kinds of derived result the ResultStore holds (ResultStore.h), apart so that a view's
// header names the kinds it draws without the store's.

namespace headscope::ui {

enum class ResultKind { Circuits, QueryKeyMap, ScoreBreakdown, ProjectionProduct, LogitCurve, RotaryDelta, TokenLines, HeadPatterns };

}  // namespace headscope::ui
