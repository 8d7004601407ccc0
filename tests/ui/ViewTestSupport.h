#pragma once
// Helpers the view tests share (views only: no window, no document): a small analysis of a
// given geometry or configuration, and a view shown at a size and font scale and drawn at once, as a central tab
// of that size would show it (test_matrix_shapes, test_colour_bar_labels, test_legibility).
#include <QtTest>
#include <memory>

#include "Analysis.h"
#include "ViewOptions.h"

namespace headscope::ui::testing {

// The demo sentence through a layer of d_model, heads and d_k = d_v (0: d_model / heads).
inline std::shared_ptr<const Analysis> analysisOf(int d_model, int heads, int d_k = 0) {
    Config c;
    c.d_model = d_model;
    c.heads = heads;
    c.d_k = c.d_v = d_k;
    return std::make_shared<const Analysis>(analyze(c, true));
}

// config's analysis without the equivalence panels, reusing what it can of previous's.
inline std::shared_ptr<const Analysis> analysisOf(const Config& config, const Analysis* previous = nullptr) {
    return std::make_shared<const Analysis>(analyze(config, false, previous));
}

// view resized to size, shown, and drawn now (replotNow waits for what it computes off the GUI thread).
template <typename View>
void showAt(View& view, const QSize& size) {
    view.resize(size);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.replotNow();
    QApplication::processEvents();
}

// The same at font scale font_scale (View > Larger), showing analysis.
template <typename View>
void showAt(View& view, const QSize& size, double font_scale, const std::shared_ptr<const Analysis>& analysis) {
    ViewOptions options;
    options.font_scale = font_scale;
    view.setOptions(options);
    view.setAnalysis(analysis);
    showAt(view, size);
}

}  // namespace headscope::ui::testing
