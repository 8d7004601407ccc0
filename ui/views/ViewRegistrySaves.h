#pragma once
// The factories of the views that are not drawn from one layer's Analysis (ViewRegistry.h): the
// whole model at a glance, a training run, and what knocked-out heads changed. Each builds its
// widgets offscreen (never shown on a screen), lays them out at a size that fits their content
// and saves them; without its input (no trace, no run, no effects) it fails with one sentence.

#include "ViewRegistry.h"

namespace headscope::ui {

bool saveModelOverview(const ViewEntry& entry, const ViewInputs& inputs, const QString& path, ImageFormat format,
                       double scale, QString* error);
bool saveHeadPatterns(const ViewEntry& entry, const ViewInputs& inputs, const QString& path, ImageFormat format,
                      double scale, QString* error);
bool saveTrainingRun(const ViewEntry& entry, const ViewInputs& inputs, const QString& path, ImageFormat format,
                     double scale, QString* error);
// A rotary layer's RoPE view (RotaryView); a layer without rotary positions has nothing to show.
bool saveRotary(const ViewEntry& entry, const ViewInputs& inputs, const QString& path, ImageFormat format,
                double scale, QString* error);
bool saveAblation(const ViewEntry& entry, const ViewInputs& inputs, const QString& path, ImageFormat format,
                  double scale, QString* error);

}  // namespace headscope::ui
