#pragma once
// Eight doubles as one value, for the core's hand-blocked Gram kernel (Gram.cpp):
// one AVX-512 register, two AVX or four SSE ones. GCC and clang lower the operators to whatever
// the target has, so the same code builds for any x86-64 (and elsewhere) without intrinsics.
// Include only from .cpp files: packets are passed by value between functions of one file.

#include <Eigen/Core>
#include <cstring>

// GCC and clang warn that 64-byte vectors change the ABI when the target lacks AVX-512: no ABI
// to keep, since packets never cross a file.
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpsabi"
#elif defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace headscope::simd {

using Packet = double __attribute__((vector_size(64)));
inline constexpr Eigen::Index kLanes = 8;

// Unaligned load and store of a packet.
inline Packet load(const double* p) {
    Packet v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline void store(double* p, const Packet& v) { std::memcpy(p, &v, sizeof v); }

// n rounded up to whole packets.
inline constexpr Eigen::Index wholePackets(Eigen::Index n) { return (n + kLanes - 1) / kLanes * kLanes; }

}  // namespace headscope::simd
