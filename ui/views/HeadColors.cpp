#include "HeadColors.h"

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

}  // namespace headscope::ui
