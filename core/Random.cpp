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

Mt19937_64::Mt19937_64(std::uint64_t seed) {
    state_[0] = seed;  // the standard's initialisation, f = 6364136223846793005
    for (int i = 1; i < kStateWords; ++i)
        state_[i] = 6364136223846793005ULL * (state_[i - 1] ^ (state_[i - 1] >> 62)) + std::uint64_t(i);
}

void Mt19937_64::twist() {
    // x[i] = x[i + m] ^ ((x[i] & upper | x[i + 1] & lower) >> 1) ^ (a if odd), n 312, m 156;
    // each half reads only words the loop has not written (or all of them already): vectorisable.
    constexpr int n = kStateWords, m = 156;
    constexpr std::uint64_t a = 0xb5026f5aa96619e9ULL, upper = 0xffffffff80000000ULL, lower = 0x7fffffffULL;
    const auto step = [](std::uint64_t x, std::uint64_t next, std::uint64_t far) {
        const std::uint64_t y = (x & upper) | (next & lower);
        return far ^ (y >> 1) ^ ((y & 1) ? a : 0);
    };
    for (int i = 0; i < n - m; ++i) state_[i] = step(state_[i], state_[i + 1], state_[i + m]);
    for (int i = n - m; i < n - 1; ++i) state_[i] = step(state_[i], state_[i + 1], state_[i + m - n]);
    state_[n - 1] = step(state_[n - 1], state_[0], state_[m - 1]);
    index_ = 0;
}

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
