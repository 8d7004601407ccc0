// The Gram kernel (HEADSCOPE_GRAM_KERNEL): see Gram.h and docs/decisions/gram-kernel.md.
#include "Gram.h"

#include "Packet.h"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

namespace headscope {

namespace {

using Eigen::Index;
using namespace simd;  // Packet, kLanes, load, store, wholePackets

// A tile of 64 rows of a 64-column factor is 32 KiB of doubles: it stays in L1 while every
// block of the Gram passes over it.
constexpr Index kTileRows = 64;
// A kernel block is kBlockPackets packets of one strip of G's rows by kBlockColumns columns: its
// accumulators, a row's packets and the broadcast entry (and, without a fused multiply-add, the
// product) fit the target's registers: 4 x 4 of 32 with AVX-512, 2 x 4 of 16 otherwise. With
// AVX2 the 3 x 4 block that fills all 16 kept its accumulators in memory, stored every row (on an
// AMD EPYC, AVX2 only: BERT-base's Gram 1.64x a GEMM of its multiply-adds, 2 x 4 1.3-1.4x;
// docs/decisions/gram-kernel.md). Eight accumulators are what two FMA pipes of latency 4 need.
constexpr int kBlockPackets = kRegisters >= 32 ? 4 : 2;
constexpr Index kBlockColumns = 4;

using FloatOctet = float __attribute__((vector_size(32)));

// Eight columns of A, eight rows each (column c at source + c * col_step), as double, written
// as eight rows of eight into tile (row-major, leading dimension width): an 8 x 8 transpose
// in registers, by three rounds of pairwise interleaving.
template <typename Scalar>
void packTransposed8x8(const Scalar* source, Index col_step, double* tile, Index width) {
    Octet x[8], y[8];
    for (int c = 0; c < 8; ++c) {
        if constexpr (std::is_same_v<Scalar, float>) {
            FloatOctet f;
            std::memcpy(&f, source + c * col_step, sizeof f);
            x[c] = __builtin_convertvector(f, Octet);
        } else {
            x[c] = load<Octet>(source + c * col_step);
        }
    }
    for (int c = 0; c < 8; c += 2) {  // y[c], y[c+1]: pairs of columns, rows interleaved singly
        y[c] = __builtin_shufflevector(x[c], x[c + 1], 0, 8, 2, 10, 4, 12, 6, 14);
        y[c + 1] = __builtin_shufflevector(x[c], x[c + 1], 1, 9, 3, 11, 5, 13, 7, 15);
    }
    for (int c = 0; c < 8; c += 4)  // then in pairs of two
        for (int k = 0; k < 2; ++k) {
            x[c + k] = __builtin_shufflevector(y[c + k], y[c + k + 2], 0, 1, 8, 9, 4, 5, 12, 13);
            x[c + k + 2] = __builtin_shufflevector(y[c + k], y[c + k + 2], 2, 3, 10, 11, 6, 7, 14, 15);
        }
    for (int k = 0; k < 4; ++k) {  // then in fours: x[k] holds row k, x[k + 4] row k + 4
        y[k] = __builtin_shufflevector(x[k], x[k + 4], 0, 1, 2, 3, 8, 9, 10, 11);
        y[k + 4] = __builtin_shufflevector(x[k], x[k + 4], 4, 5, 6, 7, 12, 13, 14, 15);
    }
    for (int r = 0; r < 8; ++r) store(tile + r * width, y[r]);
}

// Asks for the cache lines of [begin, begin + bytes) ahead of use (never faults).
inline void prefetch(const void* begin, Index bytes) {
    for (Index line = 0; line < bytes; line += 64) __builtin_prefetch(static_cast<const char*>(begin) + line);
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
    Index done_rows = 0, done_cols = 0;  // columns contiguous: whole 8 x 8 squares transposed
    if (a.row_step == 1) {
        done_rows = count / 8 * 8;
        done_cols = a.cols / 8 * 8;
        for (Index c = 0; c < done_cols; c += 8) {
            for (Index k = c; k < c + 8 && next > 0; ++k)
                prefetch(origin + count + k * a.col_step, next * Index(sizeof(Scalar)));
            for (Index r = 0; r < done_rows; r += 8)
                packTransposed8x8(origin + r + c * a.col_step, a.col_step, tile + r * width + c, width);
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
template <bool fused, int columns, int packets>
void accumulateBlock(const double* tile, Index count, Index width, Index i0, Index j0, double* g, Index ld) {
    Packet sum[packets][columns];
    for (Index j = 0; j < columns; ++j)
        for (int p = 0; p < packets; ++p) sum[p][j] = load<Packet>(g + (j0 + j) * ld + i0 + p * kLanes);
#pragma GCC unroll 2  // two rows per pass: the loads of one overlap the multiply-adds of the other
    for (Index t = 0; t < count; ++t) {
        const double* row = tile + t * width;
        Packet strip[packets];
        for (int p = 0; p < packets; ++p) strip[p] = load<Packet>(row + i0 + p * kLanes);
#pragma GCC unroll 16  // every accumulator a register of its own, at -O2 too
        for (int j = 0; j < columns; ++j) {
            const double x = row[j0 + j];
#pragma GCC unroll 16
            for (int p = 0; p < packets; ++p) {
                if constexpr (fused)
                    sum[p][j] = fusedMultiplyAdd(strip[p], x, sum[p][j]);
                else
                    sum[p][j] += strip[p] * x;
            }
        }
    }
    for (Index j = 0; j < columns; ++j)
        for (int p = 0; p < packets; ++p) store(g + (j0 + j) * ld + i0 + p * kLanes, sum[p][j]);
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

Eigen::MatrixXd kernelGramLower(const StridedMatrix<float>& a) { return gram(a); }
Eigen::MatrixXd kernelGramLower(const StridedMatrix<double>& a) { return gram(a); }

}  // namespace headscope
