#pragma once
// A head's logits Q_i K_g^T * factor, capped and masked, computed in tiles: the products a mask
// leaves out are skipped, and any window of the logits (a hovered cell, a zoomed view of a long
// input whose maps were not kept) is the few tiles that cover it computed again, the same bits as
// the whole map without its n_q n_kv d_k multiply-adds. Used by attendProjected (Engine.cpp).

#include <Eigen/Core>
#include <vector>

#include "Engine.h"

namespace headscope {

// Queries [first, first + rows) and the keys [begin, end) their mask may leave them (a superset).
struct QueryBlock {
    Eigen::Index first, rows, begin, end;
};

// The blocks a causal mask, a sliding window or a band cuts the (n_q, n_kv) logits into: one block of
// every key without them. Query q sees keys q - after <= k <= q + before (VisibleRows, the softmax's
// bounds read from the key's side). Key bounds on multiples of 8, so that each block's product groups
// its columns as a whole product does (Eigen's kernels take them 4 at a time) and gives the same bits.
std::vector<QueryBlock> queryBlocks(const AttentionOptions& options, Eigen::Index n_q, Eigen::Index n_kv);

// cap * tanh(x / cap) of every entry. Each entry's bits do not depend on where it lies in memory (an
// unaligned head or a short tail takes Eigen's scalar tanh, whose multiply-adds are fused exactly where
// the vector code's are: Eigen/src/Core/arch/SSE/PacketMath.h), so a tile computed alone gives the bits
// it has inside the whole map (tests/core/test_logits.cpp holds it to that).
void softcapInPlace(Eigen::Ref<Eigen::MatrixXf> logits, float cap);

// Head i's logits (n_q, n_kv) from the rotated r.Q and r.K, query head i on key head g.
Eigen::MatrixXf scoreHead(const AttentionOptions& options, const Results& r, int i, int g, int d_k, float factor);

// std::invalid_argument unless rows [row, row + rows) and columns [col, col + cols) lie within
// (n_q, n_kv) logits.
void checkLogitsWindow(Eigen::Index n_q, Eigen::Index n_kv, Eigen::Index row, Eigen::Index col, Eigen::Index rows,
                       Eigen::Index cols);

// Rows [row, row + rows) and columns [col, col + cols) of headLogits(options, r, head), bit for bit,
// from the tiles that cover them only. std::invalid_argument for a head r lacks or a window outside
// the (n_q, n_kv) logits.
Eigen::MatrixXf headLogitsWindow(const AttentionOptions& options, const Results& r, int head, Eigen::Index row,
                                 Eigen::Index col, Eigen::Index rows, Eigen::Index cols);

}  // namespace headscope
