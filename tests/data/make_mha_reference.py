#!/usr/bin/env python3
"""Regenerates the reference data under tests/data/ (run from anywhere, needs numpy and torch).

mha/<case>/: a PyTorch nn.MultiheadAttention layer and its results, for the CLI `run` test
  weights.safetensors        the layer's state dict (F32), optionally under a name prefix
  query.npy                  (n_q, d) float32
  key_value.npy              (n_kv, d) float32, cross-attention cases only
  expected_attention.npy     (h, n_q, n_kv) float32, per-head attention weights
  expected_output.npy        (n_q, d) float32, the layer's output
  case.json                  {"heads", "mask": "none" | "causal", "prefix", "cross"}
npy/: small reference files written by NumPy itself, for the .npy reader tests.

The safetensors files are written by hand (8-byte little-endian header length, JSON
header, raw little-endian float32 data) so the safetensors package is not needed.
"""
import json
import os
import struct

import numpy as np
import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))

# name, d, heads, n_q, n_kv (None: self-attention), bias, mask, prefix, separate q/k/v
CASES = [
    ("self_small", 8, 2, 5, None, True, "none", "", False),
    ("causal", 12, 3, 6, None, True, "causal", "", False),
    ("cross", 16, 4, 3, 7, True, "none", "", False),
    ("nobias_prefix", 8, 4, 4, None, False, "none", "layers.0.self_attn.", False),
    ("separate_qkv", 6, 2, 4, None, True, "none", "", True),
]


def write_safetensors(path, tensors):
    """tensors: dict name -> float32 numpy array; written in name order, F32, little-endian."""
    header = {"__metadata__": {"format": "pt"}}
    blobs = []
    offset = 0
    for name in sorted(tensors):
        data = np.ascontiguousarray(tensors[name], dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(tensors[name].shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


def make_case(index, name, d, heads, n_q, n_kv, bias, mask, prefix, separate):
    torch.manual_seed(1000 + index)
    mha = nn.MultiheadAttention(d, heads, bias=bias, batch_first=True).eval()
    if bias:  # PyTorch initialises the biases to zero; make them matter
        nn.init.normal_(mha.in_proj_bias, std=0.5)
        nn.init.normal_(mha.out_proj.bias, std=0.5)

    query = torch.randn(1, n_q, d)                                   # (batch 1, n_q, d)
    key_value = torch.randn(1, n_kv, d) if n_kv is not None else query  # (1, n_kv, d)
    n = key_value.shape[1]
    attn_mask = torch.triu(torch.ones(n_q, n), 1).bool() if mask == "causal" else None
    # A copy as key/value keeps torch off its fused self-attention fast path (which in
    # torch 1.13 fails with bias=False); the reference path computes the same thing.
    kv = key_value.clone()
    with torch.no_grad():
        output, attention = mha(query, kv, kv, need_weights=True,
                                average_attn_weights=False, attn_mask=attn_mask)
    # output (1, n_q, d), attention (1, h, n_q, n_kv)

    state = {k: v.detach().numpy().astype(np.float32) for k, v in mha.state_dict().items()}
    if separate:
        q, k, v = np.split(state.pop("in_proj_weight"), 3, axis=0)  # each (d, d)
        state.update(q_proj_weight=q, k_proj_weight=k, v_proj_weight=v)

    folder = os.path.join(HERE, "mha", name)
    os.makedirs(folder, exist_ok=True)
    write_safetensors(os.path.join(folder, "weights.safetensors"),
                      {prefix + k: v for k, v in state.items()})
    np.save(os.path.join(folder, "query.npy"), query[0].numpy().astype(np.float32))
    if n_kv is not None:
        np.save(os.path.join(folder, "key_value.npy"), key_value[0].numpy().astype(np.float32))
    np.save(os.path.join(folder, "expected_attention.npy"), attention[0].numpy().astype(np.float32))
    np.save(os.path.join(folder, "expected_output.npy"), output[0].numpy().astype(np.float32))
    with open(os.path.join(folder, "case.json"), "w") as f:
        json.dump({"heads": heads, "mask": mask, "prefix": prefix, "cross": n_kv is not None}, f, indent=2)
        f.write("\n")


def make_npy_references():
    folder = os.path.join(HERE, "npy")
    os.makedirs(folder, exist_ok=True)
    # (3, 4) float32, C order; values pinned in tests/core/test_npy.cpp
    f4 = np.array([[0.0, -1.5, 3.25, 1e-8],
                   [65504.0, -0.0, 1.0 / 3.0, 7.0],
                   [-2.0 ** -149, 3.4028234663852886e38, 100.0, -0.125]], dtype=np.float32)
    np.save(os.path.join(folder, "ref_f4.npy"), f4)
    # (2, 3) float64 in Fortran order: the header says fortran_order True
    np.save(os.path.join(folder, "ref_f8_fortran.npy"), np.asfortranarray(np.arange(6.0).reshape(2, 3)))
    # (2, 2) big-endian float64
    np.save(os.path.join(folder, "ref_be_f8.npy"), np.array([[1.0, -2.5], [0.1, 3e38]], dtype=">f8"))


def main():
    for index, case in enumerate(CASES):
        make_case(index, *case)
    make_npy_references()


if __name__ == "__main__":
    main()
