#include "Random.h"

#include <cmath>
#include <numbers>

namespace headscope {

namespace {
// SplitMix64 finaliser: spreads every input bit over the whole word.
std::uint64_t mix64(std::uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
}  // namespace

std::uint64_t deriveSeed(std::uint64_t seed, std::string_view stream) {
    std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a over the stream name
    for (unsigned char c : stream) {
        h ^= c;
        h *= 0x100000001b3ULL;
    }
    return mix64(mix64(seed) ^ h);
}

double Rng::normal() {
    if (has_spare_) {
        has_spare_ = false;
        return spare_;
    }
    // u1 in (0, 1] so that log(u1) is finite.
    const double u1 = 1.0 - uniform01();
    const double u2 = uniform01();
    const double radius = std::sqrt(-2.0 * std::log(u1));
    const double angle = 2.0 * std::numbers::pi * u2;
    spare_ = radius * std::sin(angle);
    has_spare_ = true;
    return radius * std::cos(angle);
}

}  // namespace headscope
