#pragma once
// Seeded random numbers that are the same on every machine: std::mt19937_64 is fully
// specified by the C++ standard, but std:: distributions are not, so the transforms from
// 64-bit words to uniform and normal deviates are written here.

#include <cstdint>
#include <random>
#include <string_view>

namespace headscope {

// A seed for an independent stream, e.g. deriveSeed(seed, "W_Q") or a token's string.
std::uint64_t deriveSeed(std::uint64_t seed, std::string_view stream);

class Rng {
public:
    explicit Rng(std::uint64_t seed) : engine_(seed) {}

    // Uniform on [0, 1) from the top 53 bits of one word.
    double uniform01() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
    double uniform(double low, double high) { return low + (high - low) * uniform01(); }
    // Standard normal by the Box-Muller transform (both deviates of a pair are used).
    double normal();
    std::uint64_t next() { return engine_(); }

private:
    std::mt19937_64 engine_;
    double spare_ = 0;
    bool has_spare_ = false;
};

}  // namespace headscope
