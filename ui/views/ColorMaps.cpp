#include "ColorMaps.h"

#include <cmath>

namespace headscope::ui {
namespace {

struct Stop {
    int index;        // position in the published 256-entry table (0..255)
    double r, g, b;   // 0..1
};

// matplotlib's _viridis_data, entries 0, 8, 16, ..., 248 and 255.
constexpr Stop kViridis[] = {
    {0, 0.267004, 0.004874, 0.329415}, {8, 0.277018, 0.050344, 0.375715}, {16, 0.282327, 0.094955, 0.417331},
    {24, 0.282884, 0.135920, 0.453427}, {32, 0.278826, 0.175490, 0.483397}, {40, 0.270595, 0.214069, 0.507052},
    {48, 0.258965, 0.251537, 0.524736}, {56, 0.244972, 0.287675, 0.537260}, {64, 0.229739, 0.322361, 0.545706},
    {72, 0.214298, 0.355619, 0.551184}, {80, 0.199430, 0.387607, 0.554642}, {88, 0.185556, 0.418570, 0.556753},
    {96, 0.172719, 0.448791, 0.557885}, {104, 0.160665, 0.478540, 0.558115}, {112, 0.149039, 0.508051, 0.557250},
    {120, 0.137770, 0.537492, 0.554906}, {128, 0.127568, 0.566949, 0.550556}, {136, 0.120565, 0.596422, 0.543611},
    {144, 0.120638, 0.625828, 0.533488}, {152, 0.132268, 0.655014, 0.519661}, {160, 0.157851, 0.683765, 0.501686},
    {168, 0.196571, 0.711827, 0.479221}, {176, 0.246070, 0.738910, 0.452024}, {184, 0.304148, 0.764704, 0.419943},
    {192, 0.369214, 0.788888, 0.382914}, {200, 0.440137, 0.811138, 0.340967}, {208, 0.515992, 0.831158, 0.294279},
    {216, 0.595839, 0.848717, 0.243329}, {224, 0.678489, 0.863742, 0.189503}, {232, 0.762373, 0.876424, 0.137064},
    {240, 0.845561, 0.887322, 0.099702}, {248, 0.926106, 0.897330, 0.104071}, {255, 0.993248, 0.906157, 0.143936}
};

// matplotlib's _magma_data, the same entries.
constexpr Stop kMagma[] = {
    {0, 0.001462, 0.000466, 0.013866}, {8, 0.013708, 0.011771, 0.068667}, {16, 0.039608, 0.031090, 0.133515},
    {24, 0.074257, 0.052017, 0.202660}, {32, 0.113094, 0.065492, 0.276784}, {40, 0.159018, 0.068354, 0.352688},
    {48, 0.211718, 0.061992, 0.418647}, {56, 0.265447, 0.060237, 0.461840}, {64, 0.316654, 0.071690, 0.485380},
    {72, 0.366012, 0.090314, 0.497960}, {80, 0.414709, 0.110431, 0.504662}, {88, 0.463508, 0.129893, 0.507652},
    {96, 0.512831, 0.148179, 0.507648}, {104, 0.562866, 0.165368, 0.504692}, {112, 0.613617, 0.181811, 0.498536},
    {120, 0.664915, 0.198075, 0.488836}, {128, 0.716387, 0.214982, 0.475290}, {136, 0.767398, 0.233705, 0.457755},
    {144, 0.816914, 0.255895, 0.436461}, {152, 0.863320, 0.283729, 0.412403}, {160, 0.904281, 0.319610, 0.388137},
    {168, 0.937221, 0.364929, 0.368567}, {176, 0.960949, 0.418323, 0.359630}, {184, 0.976690, 0.476226, 0.364466},
    {192, 0.986700, 0.535582, 0.382210}, {200, 0.992785, 0.594891, 0.410283}, {208, 0.996096, 0.653659, 0.446213},
    {216, 0.997325, 0.711848, 0.488154}, {224, 0.996898, 0.769591, 0.534892}, {232, 0.995131, 0.827052, 0.585701},
    {240, 0.992440, 0.884330, 0.640099}, {248, 0.989434, 0.941470, 0.697519}, {255, 0.987053, 0.991438, 0.749504}
};

// ColorBrewer RdBu, 11 classes, from its red end (#67001f) to its blue end (#053061).
constexpr unsigned kRdBu[] = {0x67001f, 0xb2182b, 0xd6604d, 0xf4a582, 0xfddbc7, 0xf7f7f7,
                              0xd1e5f0, 0x92c5de, 0x4393c3, 0x2166ac, 0x053061};

template <std::size_t N>
QCPColorGradient fromTable(const Stop (&table)[N], const QColor& nan) {
    QMap<double, QColor> stops;
    for (const Stop& s : table) stops.insert(s.index / 255.0, QColor::fromRgbF(s.r, s.g, s.b));
    QCPColorGradient gradient;
    gradient.setColorStops(stops);
    gradient.setColorInterpolation(QCPColorGradient::ciRGB);
    gradient.setLevelCount(256);  // the published tables have 256 entries
    gradient.setNanHandling(QCPColorGradient::nhNanColor);
    gradient.setNanColor(nan);
    return gradient;
}

}  // namespace

QColor viridisNanColor() { return QColor(215, 215, 215); }
QColor redBlueNanColor() { return QColor(140, 140, 140); }

QCPColorGradient viridisGradient() { return fromTable(kViridis, viridisNanColor()); }

QCPColorGradient magmaGradient() { return fromTable(kMagma, QColor(150, 150, 150)); }

QCPColorGradient redBlueGradient() {
    // Blue (negative) at position 0, red (positive) at 1: RdBu read backwards.
    constexpr int n = static_cast<int>(std::size(kRdBu));
    QMap<double, QColor> stops;
    for (int i = 0; i < n; ++i) stops.insert(double(i) / (n - 1), QColor::fromRgb(kRdBu[n - 1 - i]));
    QCPColorGradient gradient;
    gradient.setColorStops(stops);
    gradient.setColorInterpolation(QCPColorGradient::ciRGB);
    gradient.setLevelCount(257);  // odd: one level sits exactly on zero (white)
    gradient.setNanHandling(QCPColorGradient::nhNanColor);
    gradient.setNanColor(redBlueNanColor());
    return gradient;
}

QCPRange symmetricRange(double max_abs) {
    if (!std::isfinite(max_abs) || max_abs <= 0) return QCPRange(-1, 1);
    return QCPRange(-max_abs, max_abs);
}

}  // namespace headscope::ui
