#pragma once
// Double-precision vectors for the core's hand-blocked Gram kernel (GramKernel.cpp), written with
// GCC and clang vector extensions, which lower the operators to whatever the target has:
// - Packet: the target's widest register of doubles (kLanes of them: 8 with AVX-512, 4 with AVX,
//   2 otherwise), the unit of the kernel's multiply-adds; kRegisters says how many the target has,
//   which sizes the kernel's block of accumulators, and the side of the squares transposed to pack
//   a tile.
// Include only from .cpp files: vectors are passed by value between functions of one file.

#include <Eigen/Core>
#include <cstring>

#if defined(__AVX512F__) || defined(__FMA__)
#include <immintrin.h>
#endif

// GCC and clang warn that 64-byte vectors change the ABI when the target lacks AVX-512: no ABI
// to keep, since vectors never cross a file.
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpsabi"
#elif defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace headscope::simd {

#if defined(__AVX512F__)
inline constexpr Eigen::Index kLanes = 8;
inline constexpr int kRegisters = 32;
#elif defined(__AVX__)
inline constexpr Eigen::Index kLanes = 4;
inline constexpr int kRegisters = 16;
#else  // SSE2 (every x86-64), and what other targets give 16-byte vectors
inline constexpr Eigen::Index kLanes = 2;
inline constexpr int kRegisters = 16;
#endif
// A fused multiply-add instruction for a whole Packet.
#if defined(__AVX512F__) || (defined(__AVX__) && defined(__FMA__))
inline constexpr bool kFused = true;
#else
inline constexpr bool kFused = false;
#endif

using Packet = double __attribute__((vector_size(kLanes * sizeof(double))));

// Unaligned load and store.
template <typename Vector>
inline Vector load(const double* p) {
    Vector v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
template <typename Vector>
inline void store(double* p, const Vector& v) {
    std::memcpy(p, &v, sizeof v);
}

// acc + a * x rounded once (the target's fused multiply-add); only where kFused.
inline Packet fusedMultiplyAdd(const Packet& a, double x, const Packet& acc) {
#if defined(__AVX512F__)
    return Packet(_mm512_fmadd_pd(__m512d(a), _mm512_set1_pd(x), __m512d(acc)));
#elif defined(__AVX__) && defined(__FMA__)
    return Packet(_mm256_fmadd_pd(__m256d(a), _mm256_set1_pd(x), __m256d(acc)));
#else
    return acc + a * x;  // never called: kFused is false
#endif
}

// n rounded up to whole packets.
inline constexpr Eigen::Index wholePackets(Eigen::Index n) { return (n + kLanes - 1) / kLanes * kLanes; }

}  // namespace headscope::simd
