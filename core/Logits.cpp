#include "Logits.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace headscope {

namespace {

constexpr float kMinusInf = -std::numeric_limits<float>::infinity();
// Causal attention: queries in blocks of this many rows, each scored against (and summing the values
// of) the keys up to its last row only, the keys after it being masked: half the work of a whole
// product. A multiple of Eigen's row blocks of floats (12 with SSE2, 24 with AVX, 48 with AVX-512), so that each
// row is computed by the same kernel as in a whole product. Every mask's tiles have at most this many rows.
constexpr Eigen::Index kCausalRows = 240;
// A sliding window or a band: blocks of about the window's size, at least one AVX-512 row block.
constexpr Eigen::Index kRowBlock = 48;
// Keys in runs of this many within a block (a multiple of 8, as the blocks' bounds): a tile is at
// most kCausalRows x kKeys products of d_k.
constexpr Eigen::Index kKeys = 256;

// One product of the logits: queries [row, row + rows) against keys [col, col + cols).
struct Tile {
    Eigen::Index row, rows, col, cols;
};

// Every tile of the blocks, in order: each block's rows in runs of kCausalRows, its keys in runs of kKeys.
template <typename F>
void forEachTile(const std::vector<QueryBlock>& blocks, F&& f) {
    for (const QueryBlock& b : blocks)
        for (Eigen::Index row = b.first; row < b.first + b.rows; row += kCausalRows)
            for (Eigen::Index col = b.begin; col < b.end; col += kKeys)
                f(Tile{row, std::min(kCausalRows, b.first + b.rows - row), col, std::min(kKeys, b.end - col)});
}

// Tile t of the logits q k^T * factor, capped: out (t.rows, t.cols). The whole map and a window
// call this with the same tile, so Eigen runs the same product on the same operands.
void scoreTile(const AttentionOptions& options, const Eigen::Ref<const Eigen::MatrixXf>& q,
               const Eigen::Ref<const Eigen::MatrixXf>& k, const Tile& t, float factor, Eigen::Ref<Eigen::MatrixXf> out) {
    out.noalias() = q.middleRows(t.row, t.rows) * k.middleRows(t.col, t.cols).transpose();  // (rows, cols)
    out *= factor;
    if (options.softcap > 0) softcapInPlace(out, static_cast<float>(options.softcap));
}

// Sets the masked cells of a window of the logits to -inf: rows [row0, row0 + rows) and columns
// [col0, col0 + cols) of the (n_q, n_kv) map, where key k's visible queries are k - before ... k +
// after (VisibleRows: causal, a sliding window, a band) and padded keys see none. Column by column:
// each key's masked queries are contiguous in the column-major logits (by rows, ModernBERT's band
// took 40x longer).
void applyMask(const AttentionOptions& options, Eigen::Ref<Eigen::MatrixXf> logits, Eigen::Index row0, Eigen::Index col0) {
    const VisibleRows visible = VisibleRows::of(options);
    const Eigen::Index rows = logits.rows();
    if (!visible.all())
        for (Eigen::Index j = 0; j < logits.cols(); ++j) {
            const Eigen::Index key = col0 + j;
            const Eigen::Index first = visible.before < 0 ? 0 : std::clamp<Eigen::Index>(key - visible.before - row0, 0, rows);
            const Eigen::Index last = visible.after < 0 ? rows : std::clamp<Eigen::Index>(key + visible.after + 1 - row0, first, rows);
            logits.col(j).head(first).setConstant(kMinusInf);
            logits.col(j).tail(rows - last).setConstant(kMinusInf);
        }
    for (int key : options.padded_keys)
        if (key >= col0 && key < col0 + logits.cols()) logits.col(key - col0).setConstant(kMinusInf);
}

// Query head `head`'s key head and d_k in r; std::invalid_argument for a head r lacks.
struct HeadShape {
    int key_head, d_k;
};
HeadShape headShape(const Results& r, int head) {
    const int heads = static_cast<int>(r.heads.size());
    if (head < 0 || head >= heads || r.Q.cols() < heads || r.K.cols() < r.Q.cols() / heads)
        throw std::invalid_argument("head " + std::to_string(head) + " does not exist (the layer has " +
                                    std::to_string(heads) + ")");
    const int d_k = static_cast<int>(r.Q.cols()) / heads, kv_heads = static_cast<int>(r.K.cols()) / d_k;
    return {head / (heads / kv_heads), d_k};
}

}  // namespace

std::vector<QueryBlock> queryBlocks(const AttentionOptions& options, Eigen::Index n_q, Eigen::Index n_kv) {
    const VisibleRows visible = VisibleRows::of(options);
    if (visible.all()) return {{0, n_q, 0, n_kv}};
    const Eigen::Index window = options.window;
    const Eigen::Index block = window > 0 ? std::clamp(window / kRowBlock * kRowBlock, kRowBlock, kCausalRows) : kCausalRows;
    std::vector<QueryBlock> blocks;
    for (Eigen::Index first = 0; first < n_q; first += block) {
        const Eigen::Index rows = std::min(block, n_q - first);
        Eigen::Index begin = visible.after < 0 ? 0 : first - visible.after;
        Eigen::Index end = visible.before < 0 ? n_kv : first + rows + visible.before;
        begin = std::clamp<Eigen::Index>(begin / 8 * 8, 0, n_kv);
        end = std::clamp<Eigen::Index>((end + 7) / 8 * 8, begin, n_kv);
        blocks.push_back({first, rows, begin, end});
    }
    return blocks;
}

void softcapInPlace(Eigen::Ref<Eigen::MatrixXf> logits, float cap) {
    logits.array() = (logits.array() / cap).tanh() * cap;
}

Eigen::MatrixXf scoreHead(const AttentionOptions& options, const Results& r, int i, int g, int d_k, float factor) {
    const auto q = r.Q.middleCols(Eigen::Index(i) * d_k, d_k);  // (n_q, d_k)
    const auto k = r.K.middleCols(Eigen::Index(g) * d_k, d_k);  // (n_kv, d_k)
    Eigen::MatrixXf logits(q.rows(), k.rows());                 // (n_q, n_kv)
    const std::vector<QueryBlock> blocks = queryBlocks(options, q.rows(), k.rows());
    for (const QueryBlock& b : blocks) {  // a block's keys out of its reach: masked without their products
        logits.block(b.first, 0, b.rows, b.begin).setConstant(kMinusInf);
        logits.block(b.first, b.end, b.rows, k.rows() - b.end).setConstant(kMinusInf);
    }
    forEachTile(blocks, [&](const Tile& t) { scoreTile(options, q, k, t, factor, logits.block(t.row, t.col, t.rows, t.cols)); });
    applyMask(options, logits, 0, 0);
    return logits;
}

Eigen::MatrixXf headLogits(const AttentionOptions& options, const Results& r, int head) {
    const HeadShape shape = headShape(r, head);
    return scoreHead(options, r, head, shape.key_head, shape.d_k, options.logitFactor(shape.d_k));
}

void checkLogitsWindow(Eigen::Index n_q, Eigen::Index n_kv, Eigen::Index row, Eigen::Index col, Eigen::Index rows,
                       Eigen::Index cols) {
    if (row < 0 || col < 0 || rows < 0 || cols < 0 || row + rows > n_q || col + cols > n_kv)
        throw std::invalid_argument("the window of " + std::to_string(rows) + " x " + std::to_string(cols) +
                                    " cells at query " + std::to_string(row) + ", key " + std::to_string(col) +
                                    " is not within the " + std::to_string(n_q) + " x " + std::to_string(n_kv) + " logits");
}

Eigen::MatrixXf headLogitsWindow(const AttentionOptions& options, const Results& r, int head, Eigen::Index row,
                                 Eigen::Index col, Eigen::Index rows, Eigen::Index cols) {
    const HeadShape shape = headShape(r, head);
    const Eigen::Index n_q = r.Q.rows(), n_kv = r.K.rows();
    checkLogitsWindow(n_q, n_kv, row, col, rows, cols);
    const auto q = r.Q.middleCols(Eigen::Index(head) * shape.d_k, shape.d_k);       // (n_q, d_k)
    const auto k = r.K.middleCols(Eigen::Index(shape.key_head) * shape.d_k, shape.d_k);  // (n_kv, d_k)
    const float factor = options.logitFactor(shape.d_k);
    Eigen::MatrixXf window = Eigen::MatrixXf::Constant(rows, cols, kMinusInf);  // (rows, cols): out of reach
    Eigen::MatrixXf tile;
    forEachTile(queryBlocks(options, n_q, n_kv), [&](const Tile& t) {
        const Eigen::Index r0 = std::max(t.row, row), r1 = std::min(t.row + t.rows, row + rows);
        const Eigen::Index c0 = std::max(t.col, col), c1 = std::min(t.col + t.cols, col + cols);
        if (r0 >= r1 || c0 >= c1) return;
        tile.resize(t.rows, t.cols);
        scoreTile(options, q, k, t, factor, tile);
        window.block(r0 - row, c0 - col, r1 - r0, c1 - c0) = tile.block(r0 - t.row, c0 - t.col, r1 - r0, c1 - c0);
    });
    applyMask(options, window, row, col);
    return window;
}

}  // namespace headscope
