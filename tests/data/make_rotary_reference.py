#!/usr/bin/python3
"""Regenerates tests/data/rotary/: reference forward passes of the rotary families, computed
by hand-written PyTorch code that follows the Hugging Face modeling code (modeling_llama.py,
modeling_qwen2.py, modeling_gpt_neox.py; the transformers package is not needed). Run with
Debian's python3-torch and python3-numpy:

    /usr/bin/python3 tests/data/make_rotary_reference.py [path/to/shared/models]

1. The two trained checkpoints in ../shared/models (llama-induction, neox-induction), never
   copied here: on fixed ids (their READMEs' five copies of an 11-symbol string with a space
   at index 4) it writes
     <name>/case.json               {"ids": [...]}
     <name>/expected_attention.npy  (n_layer, n_head, n, n) float32: every head's attention
     <name>/expected_logits.npy     (1, vocab) float32: the last position's logits
2. Small random checkpoints in the Hugging Face layouts, written here with their references
   (same three files), each exercising what the trained ones do not:
     qwen2_tied/           qwen2: q/k/v biases (no o bias), tied embeddings, "model." prefix,
                           4 heads on 2 key/value heads, head_dim 8 != hidden 24 / 4, F32
     qwen2_tied_bf16/      the same weights rounded to BF16 (reference on the rounded values)
     qwen2_tied_sharded/   the F32 weights in two shards with model.safetensors.index.json
     llama3_scaled/        llama: rope_scaling "llama3" (all three wavelength bands), theta
                           500000, one key/value head, attention_bias (o bias too), untied
                           lm_head, no prefix, F16
     neox_sequential/      gpt_neox: use_parallel_residual false, rotary_pct 0.5, no prefix,
                           mask buffers to skip
"""
import json
import math
import os
import struct
import sys

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "rotary")
SHARED = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "..", "shared", "models")
TORCH_DTYPE = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}

# ---- safetensors ---------------------------------------------------------------------------


def read_safetensors(path):
    with open(path, "rb") as f:
        (length,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(length))
        data = f.read()
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        assert info["dtype"] == "F32", "the shared checkpoints are F32"
        array = np.frombuffer(data[begin:end], dtype="<f4").reshape(info["shape"])
        tensors[name] = torch.from_numpy(array.copy())
    return tensors


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


# ---- the forward passes (HF modeling code, written out) -------------------------------------


def default_inv_freq(base, dim):
    return 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).to(dtype=torch.float) / dim))


def llama3_inv_freq(inv_freq, scaling):
    factor, low, high = scaling["factor"], scaling["low_freq_factor"], scaling["high_freq_factor"]
    old_context = scaling["original_max_position_embeddings"]
    low_wavelen, high_wavelen = old_context / low, old_context / high
    wavelen = 2 * math.pi / inv_freq
    scaled = torch.where(wavelen > low_wavelen, inv_freq / factor, inv_freq)
    smooth = (old_context / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = ~(wavelen < high_wavelen) * ~(wavelen > low_wavelen)
    return torch.where(medium, smoothed, scaled)


def cos_sin(inv_freq, n):
    freqs = torch.arange(n, dtype=torch.float32)[:, None] * inv_freq[None, :]  # (n, m)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_rotary(x, cos, sin):
    """x (heads, n, d_k); the first cos.shape[-1] dims turned (partial rotary), the rest kept."""
    r = cos.shape[-1]
    x_rot, x_pass = x[..., :r], x[..., r:]
    return torch.cat((x_rot * cos + rotate_half(x_rot) * sin, x_pass), dim=-1)


def attend(q, k, v, scaling):
    """q (h, n, d_k), k and v (h, n, d_k) (key/value heads already repeated)."""
    n = q.shape[1]
    scores = torch.matmul(q, k.transpose(1, 2)) * scaling
    scores = scores.masked_fill(torch.triu(torch.ones(n, n, dtype=torch.bool), 1), float("-inf"))
    weights = torch.softmax(scores, dim=-1, dtype=torch.float32)
    return weights, torch.matmul(weights, v)  # (h, n, n), (h, n, d_k)


def rms_norm(x, weight, eps):
    variance = x.pow(2).mean(-1, keepdim=True)
    return weight * (x * torch.rsqrt(variance + eps))


def llama_forward(p, config, ids, prefix):
    g = lambda name: p[prefix + name]
    h, kv, d = config["num_attention_heads"], config.get("num_key_value_heads", config["num_attention_heads"]), config["hidden_size"]
    d_k = config.get("head_dim") or d // h
    eps = config["rms_norm_eps"]
    inv_freq = default_inv_freq(config.get("rope_theta", 10000.0), d_k)
    if config.get("rope_scaling"):
        inv_freq = llama3_inv_freq(inv_freq, config["rope_scaling"])
    qwen = config["model_type"] == "qwen2"
    bias = qwen or config.get("attention_bias", False)
    n = len(ids)
    cos, sin = cos_sin(inv_freq, n)
    x = g("embed_tokens.weight")[ids]
    attentions = []
    for l in range(config["num_hidden_layers"]):
        w = lambda name: g("layers.%d.%s" % (l, name))
        y = rms_norm(x, w("input_layernorm.weight"), eps)
        proj = lambda which: F.linear(y, w("self_attn.%s_proj.weight" % which), w("self_attn.%s_proj.bias" % which) if bias else None)
        q = proj("q").view(n, h, d_k).transpose(0, 1)
        k = proj("k").view(n, kv, d_k).transpose(0, 1)
        v = proj("v").view(n, kv, d_k).transpose(0, 1)
        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
        k, v = k.repeat_interleave(h // kv, dim=0), v.repeat_interleave(h // kv, dim=0)  # repeat_kv
        weights, out = attend(q, k, v, d_k ** -0.5)
        attentions.append(weights)
        o_bias = w("self_attn.o_proj.bias") if bias and not qwen else None
        x = x + F.linear(out.transpose(0, 1).reshape(n, h * d_k), w("self_attn.o_proj.weight"), o_bias)
        y = rms_norm(x, w("post_attention_layernorm.weight"), eps)
        gate = F.silu(F.linear(y, w("mlp.gate_proj.weight")))
        x = x + F.linear(gate * F.linear(y, w("mlp.up_proj.weight")), w("mlp.down_proj.weight"))
    x = rms_norm(x, g("norm.weight"), eps)
    out = g("embed_tokens.weight") if config.get("tie_word_embeddings") else p["lm_head.weight"]
    return torch.stack(attentions), (x @ out.T)[-1:]


def neox_forward(p, config, ids, prefix):
    g = lambda name: p[prefix + name]
    h, d = config["num_attention_heads"], config["hidden_size"]
    d_k = d // h
    eps = config["layer_norm_eps"]
    rotary_dims = int(d_k * config.get("rotary_pct", 0.25))
    inv_freq = default_inv_freq(config.get("rotary_emb_base", 10000), rotary_dims)
    n = len(ids)
    cos, sin = cos_sin(inv_freq, n)
    x = g("embed_in.weight")[ids]
    attentions = []
    for l in range(config["num_hidden_layers"]):
        w = lambda name: g("layers.%d.%s" % (l, name))
        ln = lambda t, which: F.layer_norm(t, (d,), w(which + ".weight"), w(which + ".bias"), eps)
        y = ln(x, "input_layernorm")
        qkv = F.linear(y, w("attention.query_key_value.weight"), w("attention.query_key_value.bias"))
        qkv = qkv.view(n, h, 3 * d_k).transpose(0, 1)  # rows grouped per head: (h, n, 3 d_k)
        q, k, v = qkv.chunk(3, dim=-1)
        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
        weights, out = attend(q, k, v, d_k ** -0.5)
        attentions.append(weights)
        attn = F.linear(out.transpose(0, 1).reshape(n, d), w("attention.dense.weight"), w("attention.dense.bias"))
        mlp = lambda t: F.linear(F.gelu(F.linear(t, w("mlp.dense_h_to_4h.weight"), w("mlp.dense_h_to_4h.bias"))),
                                 w("mlp.dense_4h_to_h.weight"), w("mlp.dense_4h_to_h.bias"))
        if config.get("use_parallel_residual", True):
            x = mlp(ln(x, "post_attention_layernorm")) + attn + x
        else:
            a = attn + x
            x = mlp(ln(a, "post_attention_layernorm")) + a
    x = F.layer_norm(x, (d,), g("final_layer_norm.weight"), g("final_layer_norm.bias"), eps)
    return torch.stack(attentions), (x @ p["embed_out.weight"].T)[-1:]


def write_reference(folder, ids, attention, logits):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "case.json"), "w") as f:
        json.dump({"ids": ids}, f)
        f.write("\n")
    np.save(os.path.join(folder, "expected_attention.npy"), attention.numpy().astype(np.float32))
    np.save(os.path.join(folder, "expected_logits.npy"), logits.numpy().astype(np.float32))


# ---- 1. the trained checkpoints -------------------------------------------------------------

# "qzxw mkbtpj": 11 symbols, the space at index 4.
STRING = "qzxw mkbtpj"


def trained_cases():
    llama_ids = [1] + [259 if c == " " else 260 + ord(c) - ord("a") for c in STRING] * 5  # <s>, ▁ = 259, a = 260
    neox_ids = [ord(c) + 2 for c in STRING] * 5  # byte b is id b + 2
    for name, forward, ids, prefix in (("llama-induction", llama_forward, llama_ids, "model."),
                                       ("neox-induction", neox_forward, neox_ids, "gpt_neox.")):
        folder = os.path.join(SHARED, name)
        if not os.path.exists(os.path.join(folder, "model.safetensors")):
            print("skipping %s: %s is absent" % (name, folder))
            continue
        with open(os.path.join(folder, "config.json")) as f:
            config = json.load(f)
        with torch.no_grad():
            attention, logits = forward(read_safetensors(os.path.join(folder, "model.safetensors")), config, ids, prefix)
        write_reference(os.path.join(OUT, name), ids, attention, logits)
        print("wrote", name)


# ---- 2. small random checkpoints ------------------------------------------------------------


def tokenizer_files(folder, vocab_size):
    """GPT-2 style vocab.json + merges.txt: letters, so the loader has a tokenizer."""
    vocab = {chr(ord("a") + i): i for i in range(vocab_size)}
    with open(os.path.join(folder, "vocab.json"), "w") as f:
        json.dump(vocab, f)
    with open(os.path.join(folder, "merges.txt"), "w") as f:
        f.write("#version: 0.2\n")


def random_llama(config, seed):
    torch.manual_seed(seed)
    h, kv, d = config["num_attention_heads"], config["num_key_value_heads"], config["hidden_size"]
    d_k, inner, vocab = config["head_dim"], config["intermediate_size"], config["vocab_size"]
    qwen = config["model_type"] == "qwen2"
    bias = qwen or config.get("attention_bias", False)
    r = lambda *shape: torch.randn(*shape) * 0.4
    p = {"embed_tokens.weight": r(vocab, d), "norm.weight": 1 + 0.1 * torch.randn(d)}
    for l in range(config["num_hidden_layers"]):
        pre = "layers.%d." % l
        p[pre + "input_layernorm.weight"] = 1 + 0.1 * torch.randn(d)
        p[pre + "post_attention_layernorm.weight"] = 1 + 0.1 * torch.randn(d)
        for which, rows in (("q", h * d_k), ("k", kv * d_k), ("v", kv * d_k)):
            p[pre + "self_attn.%s_proj.weight" % which] = r(rows, d)
            if bias:
                p[pre + "self_attn.%s_proj.bias" % which] = r(rows)
        p[pre + "self_attn.o_proj.weight"] = r(d, h * d_k)
        if bias and not qwen:
            p[pre + "self_attn.o_proj.bias"] = r(d)
        p[pre + "mlp.gate_proj.weight"] = r(inner, d)
        p[pre + "mlp.up_proj.weight"] = r(inner, d)
        p[pre + "mlp.down_proj.weight"] = r(d, inner)
    if not config["tie_word_embeddings"]:
        p["lm_head.weight"] = r(vocab, d)
    return p


def random_neox(config, seed):
    torch.manual_seed(seed)
    d, inner, vocab = config["hidden_size"], config["intermediate_size"], config["vocab_size"]
    r = lambda *shape: torch.randn(*shape) * 0.4
    p = {"embed_in.weight": r(vocab, d), "final_layer_norm.weight": 1 + 0.1 * torch.randn(d),
         "final_layer_norm.bias": 0.1 * torch.randn(d), "embed_out.weight": r(vocab, d)}
    for l in range(config["num_hidden_layers"]):
        pre = "layers.%d." % l
        for ln in ("input_layernorm", "post_attention_layernorm"):
            p[pre + ln + ".weight"] = 1 + 0.1 * torch.randn(d)
            p[pre + ln + ".bias"] = 0.1 * torch.randn(d)
        p[pre + "attention.query_key_value.weight"] = r(3 * d, d)
        p[pre + "attention.query_key_value.bias"] = r(3 * d)
        p[pre + "attention.dense.weight"] = r(d, d)
        p[pre + "attention.dense.bias"] = r(d)
        p[pre + "mlp.dense_h_to_4h.weight"] = r(inner, d)
        p[pre + "mlp.dense_h_to_4h.bias"] = r(inner)
        p[pre + "mlp.dense_4h_to_h.weight"] = r(d, inner)
        p[pre + "mlp.dense_4h_to_h.bias"] = r(d)
    return p


def save_case(name, config, params, prefix, dtype, forward, ids, shards=1, buffers=None):
    folder = os.path.join(OUT, name)
    os.makedirs(folder, exist_ok=True)
    params = {k: v.to(TORCH_DTYPE[dtype]).to(torch.float32) for k, v in params.items()}
    stored = {}
    for k, v in params.items():
        full = k if k in ("lm_head.weight", "embed_out.weight") else prefix + k
        stored[full] = (dtype, tuple(v.shape), raw_bytes(v, dtype))
    for k, v in (buffers or {}).items():
        stored[k] = v
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    tokenizer_files(folder, config["vocab_size"])
    if shards == 1:
        write_safetensors(os.path.join(folder, "model.safetensors"), stored)
    else:
        names = sorted(stored)
        weight_map = {}
        for s in range(shards):
            part = names[s::shards]
            file = "model-%05d-of-%05d.safetensors" % (s + 1, shards)
            write_safetensors(os.path.join(folder, file), {k: stored[k] for k in part})
            weight_map.update({k: file for k in part})
        with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
            json.dump({"metadata": {"total_size": sum(len(v[2]) for v in stored.values())}, "weight_map": weight_map}, f, indent=1)
    with torch.no_grad():
        attention, logits = forward({(prefix + k if k not in ("lm_head.weight", "embed_out.weight") else k): v
                                     for k, v in params.items()}, config, ids, prefix)
    write_reference(folder, ids, attention, logits)
    print("wrote", name)


def random_cases():
    ids = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3]
    qwen = {"model_type": "qwen2", "hidden_size": 24, "intermediate_size": 40, "num_hidden_layers": 2,
            "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8, "hidden_act": "silu",
            "max_position_embeddings": 32, "rms_norm_eps": 1e-6, "rope_theta": 10000.0, "rope_scaling": None,
            "tie_word_embeddings": True, "vocab_size": 16, "use_sliding_window": False, "sliding_window": 4096}
    qwen_params = random_llama(qwen, 7)
    save_case("qwen2_tied", qwen, qwen_params, "model.", "F32", llama_forward, ids)
    save_case("qwen2_tied_bf16", qwen, qwen_params, "model.", "BF16", llama_forward, ids)
    save_case("qwen2_tied_sharded", qwen, qwen_params, "model.", "F32", llama_forward, ids, shards=2)

    llama3 = {"model_type": "llama", "hidden_size": 32, "intermediate_size": 48, "num_hidden_layers": 2,
              "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 16, "hidden_act": "silu",
              "max_position_embeddings": 64, "rms_norm_eps": 1e-5, "rope_theta": 500000.0,
              "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                               "high_freq_factor": 4.0, "original_max_position_embeddings": 64},
              "attention_bias": True, "tie_word_embeddings": False, "vocab_size": 16}
    save_case("llama3_scaled", llama3, random_llama(llama3, 11), "", "F16", llama_forward, ids)

    neox = {"model_type": "gpt_neox", "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
            "num_attention_heads": 4, "rotary_pct": 0.5, "rotary_emb_base": 10000, "max_position_embeddings": 32,
            "layer_norm_eps": 1e-5, "use_parallel_residual": False, "hidden_act": "gelu", "tie_word_embeddings": False,
            "vocab_size": 16}
    buffers = {}
    for l in range(2):
        pre = "layers.%d.attention." % l
        buffers[pre + "rotary_emb.inv_freq"] = ("F32", (2,), raw_bytes(default_inv_freq(10000, 4), "F32"))
        buffers[pre + "bias"] = ("BOOL", (1, 1, 4, 4), bytes(16))
        buffers[pre + "masked_bias"] = ("F32", (), struct.pack("<f", -1e9))
    save_case("neox_sequential", neox, random_neox(neox, 13), "", "F32", neox_forward, ids, buffers=buffers)


if __name__ == "__main__":
    torch.set_grad_enabled(False)
    trained_cases()
    random_cases()
