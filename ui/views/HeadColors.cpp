#include "HeadColors.h"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace headscope::ui {

QColor headColor(int head) {
    static const QColor base[] = {QColor(0x00, 0x72, 0xB2), QColor(0xD5, 0x5E, 0x00),
                                  QColor(0x00, 0x9E, 0x73), QColor(0xCC, 0x79, 0xA7),
                                  QColor(0xE6, 0x9F, 0x00), QColor(0x56, 0xB4, 0xE9),
                                  QColor(0x00, 0x00, 0x00)};
    constexpr int n = static_cast<int>(std::size(base));
    if (head >= 0 && head < n) return base[head];
    const double hue = std::fmod(0.13 + (head - n) * 0.618033988749895, 1.0);
    return QColor::fromHslF(static_cast<float>(std::abs(hue)), 0.65f, 0.42f);
}

double contrastRatio(const QColor& a, const QColor& b) {
    const auto luminance = [](const QColor& c) {
        const auto channel = [](double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
        return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
    };
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QColor headTextColor(int head, const QColor& background) {
    // Towards black on a light background, towards white on a dark one, in steps of lightness.
    QColor colour = headColor(head).toHsl();
    const float step = background.lightnessF() < 0.5f ? 0.05f : -0.05f;
    for (int i = 0; i < 20 && contrastRatio(colour, background) < 3.0; ++i)
        colour.setHslF(std::max(0.0f, colour.hslHueF()), colour.hslSaturationF(),
                       std::clamp(colour.lightnessF() + step, 0.0f, 1.0f));
    return colour.toRgb();
}

}  // namespace headscope::ui
