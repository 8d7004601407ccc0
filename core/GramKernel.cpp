// The Gram kernel (HEADSCOPE_GRAM_KERNEL): see Gram.h and docs/decisions/gram-kernel.md.
#include "Gram.h"

#include "Packet.h"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

namespace headscope::gram_kernel {

namespace {

// Scoped to gram_kernel's own unnamed namespace: no other file of a unity batch sees these names.
using Eigen::Index;
using namespace simd;  // Packet, kLanes, load, store, wholePackets

// A tile of 64 rows of a 64-column factor is 32 KiB of doubles: it stays in L1 while every
// block of the Gram passes over it.
constexpr Index kTileRows = 64;
// A kernel block is kBlockPackets packets of one strip of G's rows by kBlockColumns columns: its
// accumulators, a row's packets and the broadcast entry (and, without a fused multiply-add, the
// product) fit the target's registers. Eight accumulators are what two FMA pipes of latency 4 need:
// 1 x 8 with AVX-512 (a strip of 8 rows, so the diagonal's blocks sum 11 % more than the lower
// triangle at d_k = 64, where 4 x 4 summed 48 % more: 1.3 -> 1.0 ms at BERT-base on an AMD EPYC
// Zen 4), 2 x 4 of 16 registers otherwise (with AVX2, 3 x 4 and 2 x 6 measured no faster):
// docs/decisions/gram-kernel.md.
constexpr int kBlockPackets = kRegisters >= 32 ? 1 : 2;
constexpr Index kBlockColumns = kRegisters >= 32 ? 8 : 4;

// Calls f(std::integral_constant<int, 0>) .. f(std::integral_constant<int, N - 1>): indices known
// at compile time from the start, so GCC keeps an array indexed by them in registers.
template <int N, typename F>
inline void unrolled(F&& f) {
    [&]<int... i>(std::integer_sequence<int, i...>) { (f(std::integral_constant<int, i>{}), ...); }
    (std::make_integer_sequence<int, N>{});
}

// One round of a transpose by interleaving: lanes taken in runs of `run` alternately from a and
// b (low), or the runs after those (high). Rounds of run 1, 2, 4 .. kLanes / 2 over pairs of
// columns turn kLanes columns into kLanes rows.
template <int run, int... lane>
Packet interleaveLow(Packet a, Packet b, std::integer_sequence<int, lane...>) {
    return __builtin_shufflevector(a, b, (lane / run % 2 == 0 ? lane : kLanes + lane - run)...);
}
template <int run, int... lane>
Packet interleaveHigh(Packet a, Packet b, std::integer_sequence<int, lane...>) {
    return __builtin_shufflevector(a, b, (lane / run % 2 == 0 ? lane + run : kLanes + lane)...);
}
template <int run>
void interleaveRound(Packet (&x)[kLanes]) {
    constexpr auto lanes = std::make_integer_sequence<int, kLanes>{};
    unrolled<kLanes / 2>([&](auto pair) {  // columns c and c + run, c with (c / run) even
        constexpr int c = pair / run * 2 * run + pair % run;
        const Packet low = interleaveLow<run>(x[c], x[c + run], lanes);
        x[c + run] = interleaveHigh<run>(x[c], x[c + run], lanes);
        x[c] = low;
    });
    if constexpr (2 * run < kLanes) interleaveRound<2 * run>(x);
}

// kLanes columns of A, kLanes rows each (column c at source + c * col_step), as double, written
// as kLanes rows of kLanes into tile (row-major, leading dimension width): a square transposed
// in registers.
template <typename Scalar>
void packTransposedSquare(const Scalar* source, Index col_step, double* tile, Index width) {
    using FloatPacket = float __attribute__((vector_size(kLanes * sizeof(float))));
    Packet x[kLanes];
    unrolled<kLanes>([&](auto c) {
        if constexpr (std::is_same_v<Scalar, float>) {
            FloatPacket f;
            std::memcpy(&f, source + c * col_step, sizeof f);
            x[c] = __builtin_convertvector(f, Packet);
        } else {
            x[c] = load<Packet>(source + c * col_step);
        }
    });
    interleaveRound<1>(x);
    unrolled<kLanes>([&](auto r) { store(tile + r * width, x[r]); });
}

// Asks for the cache lines of [begin, begin + bytes) ahead of use (never faults): into L1, or with
// AVX-512 into L2 (on the AMD EPYC Zen 4 the large geometry's Gram 5.1-5.2 -> 4.6-4.9 ms; with
// the AVX2 and SSE2 blocks, on the same CPU and on Zen 3, no faster: docs/decisions/gram-kernel.md).
inline void prefetch(const void* begin, Index bytes) {
    constexpr int locality = kLanes == 8 ? 2 : 3;
    for (Index line = 0; line < bytes; line += 64)
        __builtin_prefetch(static_cast<const char*>(begin) + line, 0, locality);
}

// Rows [first, first + count) of A, as double, row by row into tile (count, width); the
// columns past A's (padding up to width) are left as they are: zero. The next tile's rows
// are prefetched on the way: a tile reads a few hundred bytes from each of 64 places, which
// the hardware prefetcher follows too late.
template <typename Scalar>
void packRows(const StridedMatrix<Scalar>& a, Index first, Index count, Index width, double* tile) {
    const Scalar* origin = a.data + first * a.row_step;
    const Index next = std::min(count, a.rows - first - count);  // rows in the next tile
    if (a.col_step == 1) {  // rows contiguous (a transposed block): convert row by row
        for (Index r = 0; r < count; ++r) {
            if (r < next) prefetch(origin + (count + r) * a.row_step, a.cols * Index(sizeof(Scalar)));
            for (Index c = 0; c < a.cols; ++c) tile[r * width + c] = double(origin[r * a.row_step + c]);
        }
        return;
    }
    Index done_rows = 0, done_cols = 0;  // columns contiguous: whole kLanes x kLanes squares transposed
    if (a.row_step == 1) {
        done_rows = count / kLanes * kLanes;
        done_cols = a.cols / kLanes * kLanes;
        for (Index c = 0; c < done_cols; c += kLanes) {
            for (Index k = c; k < c + kLanes && next > 0; ++k)
                prefetch(origin + count + k * a.col_step, next * Index(sizeof(Scalar)));
            for (Index r = 0; r < done_rows; r += kLanes)
                packTransposedSquare(origin + r + c * a.col_step, a.col_step, tile + r * width + c, width);
        }
    }
    for (Index c = 0; c < a.cols; ++c)  // the rest one at a time
        for (Index r = c < done_cols ? done_rows : 0; r < count; ++r)
            tile[r * width + c] = double(origin[r * a.row_step + c * a.col_step]);
}

// G(i0 .. i0 + kLanes * packets, j0 .. j0 + columns) += sum over the tile's rows t of
// tile(t, i) tile(t, j): each row's strip times `columns` of its entries. G is column-major with
// leading dimension ld. fused: one rounding per multiply-add, for float factors only, where the
// product of two floats is exact in double and the sum is then the same as without it.
// Never inlined: inside gram()'s loops GCC 12 gave the accumulators stack slots, loaded and stored
// every row (AVX2, BERT-base's Gram 2.3 ms; on its own, every accumulator a register: 1.4 ms).
template <bool fused, int columns, int packets>
[[gnu::noinline]] void accumulateBlock(const double* tile, Index count, Index width, Index i0, Index j0, double* g,
                                       Index ld) {
    Packet sum[packets * columns];  // sum[p + packets * j]: G's packet p of column j0 + j
    const auto at = [&](int k) { return g + (j0 + k / packets) * ld + i0 + k % packets * kLanes; };
    unrolled<packets * columns>([&](auto k) { sum[k] = load<Packet>(at(k)); });
#pragma GCC unroll 2  // two rows per pass: the loads of one overlap the multiply-adds of the other
    for (Index t = 0; t < count; ++t) {
        const double* row = tile + t * width;
        Packet strip[packets];
        unrolled<packets>([&](auto p) { strip[p] = load<Packet>(row + i0 + p * kLanes); });
        unrolled<columns>([&](auto j) {
            const double x = row[j0 + j];
            unrolled<packets>([&](auto p) {
                if constexpr (fused)
                    sum[p + packets * j] = fusedMultiplyAdd(strip[p], x, sum[p + packets * j]);
                else
                    sum[p + packets * j] += strip[p] * x;
            });
        });
    }
    unrolled<packets * columns>([&](auto k) { store(at(k), sum[k]); });
}

// accumulateBlock for a strip of `strip_packets` packets (1 .. kBlockPackets).
template <bool fused, int columns, int packets = kBlockPackets>
void accumulateStrip(Index strip_packets, const double* tile, Index count, Index width, Index i0, Index j0, double* g,
                     Index ld) {
    if constexpr (packets > 1)
        if (strip_packets < packets)
            return accumulateStrip<fused, columns, packets - 1>(strip_packets, tile, count, width, i0, j0, g, ld);
    accumulateBlock<fused, columns, packets>(tile, count, width, i0, j0, g, ld);
}

template <typename Scalar>
Eigen::MatrixXd gram(const StridedMatrix<Scalar>& a) {
    constexpr bool fused = kFused && std::is_same_v<Scalar, float>;
    const Index width = wholePackets(a.cols);                 // columns padded to whole packets
    Eigen::MatrixXd g = Eigen::MatrixXd::Zero(width, width);  // (width, width), lower blocks summed
    std::vector<double> tile(kTileRows * width, 0.0);         // (kTileRows, width), row-major
    // G's rows in strips of kBlockPackets packets, the odd one first (it has the fewest columns
    // left of the diagonal); each strip times every column up to its last row, in whole blocks:
    // the strictly upper part of the diagonal's blocks is summed too, and left unspecified.
    const Index packets = width / kLanes;
    std::vector<std::pair<Index, Index>> strips;  // (first row, packets)
    if (packets % kBlockPackets) strips.push_back({0, packets % kBlockPackets});
    for (Index p = packets % kBlockPackets; p < packets; p += kBlockPackets) strips.push_back({p * kLanes, kBlockPackets});
    for (Index first = 0; first < a.rows; first += kTileRows) {
        const Index count = std::min(kTileRows, a.rows - first);
        packRows(a, first, count, width, tile.data());
        for (const auto& [i0, strip_packets] : strips) {
            const Index end = i0 + strip_packets * kLanes;  // columns [0, end): a multiple of kLanes >= 2
            Index j0 = 0;
            for (; j0 + kBlockColumns <= end; j0 += kBlockColumns)
                accumulateStrip<fused, kBlockColumns>(strip_packets, tile.data(), count, width, i0, j0, g.data(), width);
            if (j0 < end)  // two columns left (kLanes 2)
                accumulateStrip<fused, 2>(strip_packets, tile.data(), count, width, i0, j0, g.data(), width);
        }
    }
    if (width == a.cols) return g;
    return g.topLeftCorner(a.cols, a.cols);
}

}  // namespace

}  // namespace headscope::gram_kernel

namespace headscope {

Eigen::MatrixXd kernelGramLower(const StridedMatrix<float>& a) { return gram_kernel::gram(a); }
Eigen::MatrixXd kernelGramLower(const StridedMatrix<double>& a) { return gram_kernel::gram(a); }

}  // namespace headscope
