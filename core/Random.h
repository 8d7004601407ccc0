#pragma once
// Seeded random numbers that are the same on every machine: std::mt19937_64 is fully
// specified by the C++ standard, but std:: distributions are not, so the transforms from
// 64-bit words to uniform and normal deviates are written here. The engine is the standard's
// mt19937_64 word for word (tests compare it with std::mt19937_64), written out so that a
// whole block of 312 words can be twisted, tempered and transformed in vector loops:
// fillUniform is ~4x faster than a call per number.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace headscope {

// A seed for an independent stream, e.g. deriveSeed(seed, "W_Q") or a token's string.
std::uint64_t deriveSeed(std::uint64_t seed, std::string_view stream);

// std::mt19937_64: the same words from the same seed.
class Mt19937_64 {
public:
    static constexpr int kStateWords = 312;
    explicit Mt19937_64(std::uint64_t seed);
    std::uint64_t operator()() {
        if (index_ >= kStateWords) twist();
        return temper(state_[index_++]);
    }
    // The next `count` words through to_value, in order: out[i] = to_value(word i).
    template <typename T, typename F>
    void generate(T* out, std::size_t count, F to_value) {
        while (count > 0) {
            if (index_ >= kStateWords) twist();
            const std::size_t n = std::min<std::size_t>(count, std::size_t(kStateWords - index_));
            const std::uint64_t* words = state_ + index_;
            for (std::size_t i = 0; i < n; ++i) out[i] = to_value(temper(words[i]));  // vectorised
            index_ += static_cast<int>(n);
            out += n;
            count -= n;
        }
    }

private:
    static std::uint64_t temper(std::uint64_t z) {
        z ^= (z >> 29) & 0x5555555555555555ULL;
        z ^= (z << 17) & 0x71d67fffeda60000ULL;
        z ^= (z << 37) & 0xfff7eee000000000ULL;
        return z ^ (z >> 43);
    }
    void twist();  // the next 312 words of state

    std::uint64_t state_[kStateWords];
    int index_ = kStateWords;
};

class Rng {
public:
    explicit Rng(std::uint64_t seed) : engine_(seed) {}

    // Uniform on [0, 1) from the top 53 bits of one word: double(word >> 11) * 2^-53, the integer
    // converted exactly in two halves through the 2^52 bit pattern, which vectorises where a 64-bit
    // conversion does not (AVX2 has none): fillUniform 2.6 -> 1.2 ms for 768 x 768 (AMD EPYC).
    static double toUniform01(std::uint64_t word) {
        constexpr std::uint64_t kTwo52 = 0x4330000000000000ULL;                            // the bits of 2^52
        const std::uint64_t x = word >> 11;                                                // < 2^53
        const double high = std::bit_cast<double>(kTwo52 | (x >> 26)) - 0x1.0p52;          // < 2^27, exact
        const double low = std::bit_cast<double>(kTwo52 | (x & 0x3ffffffULL)) - 0x1.0p52;  // < 2^26, exact
        return (high * 0x1.0p26 + low) * 0x1.0p-53;  // the sum is x itself: < 2^53, so exact
    }
    double uniform01() { return toUniform01(engine_()); }
    double uniform(double low, double high) { return low + (high - low) * uniform01(); }
    // out[i] = float(uniform(low, high)) for the next `count` draws, exactly as a loop of calls
    // would give them, a block of words at a time.
    void fillUniform(float* out, std::size_t count, double low, double high) {
        const double width = high - low;
        engine_.generate(out, count,
                         [low, width](std::uint64_t word) { return static_cast<float>(low + width * toUniform01(word)); });
    }
    // Standard normal by the Box-Muller transform (both deviates of a pair are used).
    double normal();
    std::uint64_t next() { return engine_(); }

private:
    Mt19937_64 engine_;
    double spare_ = 0;
    bool has_spare_ = false;
};

}  // namespace headscope
