#!/usr/bin/python3
"""Regenerates tests/data/gpt2/<case>/: tiny random GPT-2 checkpoints in the Hugging Face
directory layout and their reference forward pass, computed by a hand-written PyTorch GPT-2
(the transformers package is not needed). Run with Debian's python3-torch:

    /usr/bin/python3 tests/data/make_gpt2_reference.py

Each case folder holds
  config.json, model.safetensors, vocab.json, merges.txt   the checkpoint
  case.json               {"text", "ids", "dtype", "prefix", "tied"}
  expected_attention.npy  (n_layer, n_head, n, n) float32: every head's attention weights
  expected_logits.npy     (n, vocab_size) float32: logits at every position
The weights are drawn in float32, rounded to the case's dtype (F16 / BF16) and the reference
runs on the rounded values, so the C++ forward pass must agree to float32 rounding.
"""
import json
import math
import os
import struct

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "gpt2")

# Vocabulary: letters a..j (ids 0..9), "Ġ" (the space, 10) and the merge "a b" -> "ab" (11).
VOCAB = {chr(ord("a") + i): i for i in range(10)}
VOCAB["\u0120"] = 10
VOCAB["ab"] = 11
MERGES = [("a", "b")]
# "ab c ab jig" pre-tokenises to "ab" | " c" | " ab" | " jig"; byte-level and merged:
TEXT = "ab c ab jig"
IDS = [11, 10, 2, 10, 11, 10, 9, 8, 6]

# name, dtype, "transformer." prefix, untied lm_head, n_inner (None: 4 d), mask buffers
CASES = [
    ("f32_prefix_tied", "F32", True, False, None, True),
    ("f32_untied", "F32", False, True, None, False),
    ("f16_tied_inner", "F16", False, False, 24, False),
    ("bf16_prefix_untied", "BF16", True, True, None, True),
]
N_LAYER, N_HEAD, N_EMBD, N_POSITIONS, VOCAB_SIZE, EPS = 2, 2, 8, 16, 12, 1e-5
TORCH_DTYPE = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def make_params(seed, untied, n_inner):
    g = torch.Generator().manual_seed(seed)
    d = N_EMBD

    def normal(*shape, std=0.5, mean=0.0):
        return torch.randn(*shape, generator=g) * std + mean

    p = {"wte.weight": normal(VOCAB_SIZE, d), "wpe.weight": normal(N_POSITIONS, d, std=0.3)}
    for l in range(N_LAYER):
        h = f"h.{l}."
        p[h + "ln_1.weight"] = normal(d, std=0.1, mean=1.0)
        p[h + "ln_1.bias"] = normal(d, std=0.1)
        p[h + "attn.c_attn.weight"] = normal(d, 3 * d)      # Conv1D (in, out) = [W_Q | W_K | W_V]
        p[h + "attn.c_attn.bias"] = normal(3 * d, std=0.2)
        p[h + "attn.c_proj.weight"] = normal(d, d, std=0.3)  # W_O
        p[h + "attn.c_proj.bias"] = normal(d, std=0.1)
        p[h + "ln_2.weight"] = normal(d, std=0.1, mean=1.0)
        p[h + "ln_2.bias"] = normal(d, std=0.1)
        p[h + "mlp.c_fc.weight"] = normal(d, n_inner, std=0.4)
        p[h + "mlp.c_fc.bias"] = normal(n_inner, std=0.1)
        p[h + "mlp.c_proj.weight"] = normal(n_inner, d, std=0.3)
        p[h + "mlp.c_proj.bias"] = normal(d, std=0.1)
    p["ln_f.weight"] = normal(d, std=0.1, mean=1.0)
    p["ln_f.bias"] = normal(d, std=0.1)
    if untied:
        p["lm_head.weight"] = normal(VOCAB_SIZE, d)
    return p


@torch.no_grad()
def gpt2_forward(p, ids, n_inner):
    """Returns attention (L, h, n, n) and logits (n, vocab) of GPT2LMHeadModel, by hand."""
    n, d, h = len(ids), N_EMBD, N_HEAD
    d_k = d // h
    x = p["wte.weight"][ids] + p["wpe.weight"][:n]                      # (n, d)
    causal = torch.tril(torch.ones(n, n, dtype=torch.bool))
    attentions = []
    for l in range(N_LAYER):
        w = lambda name: p[f"h.{l}.{name}"]
        a = F.layer_norm(x, (d,), w("ln_1.weight"), w("ln_1.bias"), EPS)  # (n, d)
        qkv = a @ w("attn.c_attn.weight") + w("attn.c_attn.bias")         # (n, 3d)
        q, k, v = qkv.split(d, dim=1)
        q, k, v = (t.view(n, h, d_k).transpose(0, 1) for t in (q, k, v))  # (h, n, d_k)
        logits = q @ k.transpose(-1, -2) / math.sqrt(d_k)                  # (h, n, n)
        logits = logits.masked_fill(~causal, float("-inf"))
        weights = torch.softmax(logits, dim=-1)
        attentions.append(weights)
        y = (weights @ v).transpose(0, 1).reshape(n, d)                    # (n, d)
        x = x + y @ w("attn.c_proj.weight") + w("attn.c_proj.bias")
        m = F.layer_norm(x, (d,), w("ln_2.weight"), w("ln_2.bias"), EPS)
        x = x + gelu_new(m @ w("mlp.c_fc.weight") + w("mlp.c_fc.bias")) @ w("mlp.c_proj.weight") + w("mlp.c_proj.bias")
    x = F.layer_norm(x, (d,), p["ln_f.weight"], p["ln_f.bias"], EPS)
    out = p.get("lm_head.weight", p["wte.weight"])
    return torch.stack(attentions), x @ out.T


def raw_bytes(t, dtype):
    t = t.to(TORCH_DTYPE[dtype]).contiguous()
    if dtype == "BF16":
        return t.view(torch.int16).numpy().astype("<i2").tobytes()
    if dtype == "F16":
        return t.numpy().astype("<f2").tobytes()
    return t.numpy().astype("<f4").tobytes()


def write_safetensors(path, tensors):
    """tensors: name -> (dtype string, shape, bytes); written in name order."""
    header = {"__metadata__": {"format": "pt"}}
    offset = 0
    for name in sorted(tensors):
        dtype, shape, data = tensors[name]
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for name in sorted(tensors):
            f.write(tensors[name][2])


def make_case(index, name, dtype, prefix, untied, n_inner, buffers):
    n_inner = n_inner or 4 * N_EMBD
    params = make_params(100 + index, untied, n_inner)
    # Round to the stored dtype, then compute the reference on exactly those values.
    params = {k: v.to(TORCH_DTYPE[dtype]).to(torch.float32) for k, v in params.items()}
    attention, logits = gpt2_forward(params, IDS, n_inner)

    folder = os.path.join(OUT, name)
    os.makedirs(folder, exist_ok=True)
    stored = {}
    for key, value in params.items():
        full = key if key == "lm_head.weight" or not prefix else "transformer." + key
        stored[full] = (dtype, value.shape, raw_bytes(value, dtype))
    if buffers:  # the causal-mask buffers older GPT-2 checkpoints carry; a loader skips them
        for l in range(N_LAYER):
            pre = ("transformer." if prefix else "") + f"h.{l}.attn."
            mask = torch.tril(torch.ones(N_POSITIONS, N_POSITIONS)).view(1, 1, N_POSITIONS, N_POSITIONS)
            stored[pre + "bias"] = ("U8", mask.shape, mask.to(torch.uint8).numpy().tobytes())
            stored[pre + "masked_bias"] = ("F32", (), struct.pack("<f", -1e4))
    write_safetensors(os.path.join(folder, "model.safetensors"), stored)

    config = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_layer": N_LAYER, "n_head": N_HEAD,
              "n_embd": N_EMBD, "n_positions": N_POSITIONS, "n_ctx": N_POSITIONS, "vocab_size": VOCAB_SIZE,
              "layer_norm_epsilon": EPS, "activation_function": "gelu_new", "tie_word_embeddings": not untied}
    if n_inner != 4 * N_EMBD:
        config["n_inner"] = n_inner
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    with open(os.path.join(folder, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(VOCAB, f, ensure_ascii=False)
    with open(os.path.join(folder, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in MERGES))
    with open(os.path.join(folder, "case.json"), "w") as f:
        json.dump({"text": TEXT, "ids": IDS, "dtype": dtype, "prefix": prefix, "tied": not untied}, f)
    np.save(os.path.join(folder, "expected_attention.npy"), attention.numpy().astype(np.float32))
    np.save(os.path.join(folder, "expected_logits.npy"), logits.numpy().astype(np.float32))
    print(f"{name}: attention {tuple(attention.shape)}, logits {tuple(logits.shape)}")


if __name__ == "__main__":
    for i, case in enumerate(CASES):
        make_case(i, *case)
