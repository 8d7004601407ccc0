#!/usr/bin/python3
"""Regenerates tests/data/train/: the reference for core/train's hand-written backward pass
and Adam (tests/core/test_train.cpp), computed by PyTorch's autograd and torch.optim.Adam.
Run with Debian's python3-torch:

    /usr/bin/python3 tests/data/make_train_reference.py

For each case (a tiny GPT-2-shaped model as core/train builds it: LayerNorm -> causal
attention with biases -> residual, optionally LayerNorm -> GELU-tanh MLP -> residual, final
LayerNorm, tied or untied unembedding) the folder tests/data/train/<case>/ holds
  case.json              the model's settings, the batch's ids (sequences, n) and the loss
  weights.safetensors    every parameter, GPT-2 names and Conv1D (in, out) shapes, float32
  gradients.safetensors  d loss / d parameter from autograd, same names
  logits.npy             (sequences * n, vocab) logits
The loss is the mean next-token cross-entropy over positions 0 .. n-2 of every sequence. The
reference runs in float64 on the float32-rounded weights, so the C++ float32 pass is compared
with the exact values. adam/ holds three torch.optim.Adam steps (lr 1e-2, default betas and
eps) on a parameter vector from given gradients: adam.json lists the vectors.
"""
import json
import math
import os
import struct

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "train")


def write_safetensors(path, tensors):
    """tensors: name -> float32 numpy array; written in name order with format "pt"."""
    header = {"__metadata__": {"format": "pt"}}
    blobs, offset = [], 0
    for name in sorted(tensors):
        data = np.ascontiguousarray(tensors[name], dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(tensors[name].shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


def parameter_shapes(c):
    d, inner = c["d_model"], 4 * c["d_model"]
    shapes = {"wte.weight": (c["vocab"], d), "wpe.weight": (c["context"], d)}
    for l in range(c["layers"]):
        h = f"h.{l}."
        shapes.update({h + "ln_1.weight": (d,), h + "ln_1.bias": (d,),
                       h + "attn.c_attn.weight": (d, 3 * d), h + "attn.c_attn.bias": (3 * d,),
                       h + "attn.c_proj.weight": (d, d), h + "attn.c_proj.bias": (d,)})
        if c["mlp"]:
            shapes.update({h + "ln_2.weight": (d,), h + "ln_2.bias": (d,),
                           h + "mlp.c_fc.weight": (d, inner), h + "mlp.c_fc.bias": (inner,),
                           h + "mlp.c_proj.weight": (inner, d), h + "mlp.c_proj.bias": (d,)})
    shapes.update({"ln_f.weight": (d,), "ln_f.bias": (d,)})
    if not c["tied"]:
        shapes["lm_head.weight"] = (c["vocab"], d)
    return shapes


def forward(P, ids, c):
    """ids (S, n) -> logits (S, n, vocab), all in float64."""
    S, n = ids.shape
    d, h = c["d_model"], c["heads"]
    dk = d // h
    x = P["wte.weight"][ids] + P["wpe.weight"][:n]                       # (S, n, d)
    causal = torch.tril(torch.ones(n, n, dtype=torch.bool))
    for l in range(c["layers"]):
        p = lambda name: P[f"h.{l}.{name}"]
        a = F.layer_norm(x, (d,), p("ln_1.weight"), p("ln_1.bias"), 1e-5)
        qkv = a @ p("attn.c_attn.weight") + p("attn.c_attn.bias")          # (S, n, 3d)
        q, k, v = (t.reshape(S, n, h, dk).transpose(1, 2) for t in qkv.split(d, dim=-1))  # (S, h, n, dk)
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(dk)                # (S, h, n, n)
        weights = torch.softmax(scores.masked_fill(~causal, float("-inf")), dim=-1)
        o = (weights @ v).transpose(1, 2).reshape(S, n, d)
        x = x + o @ p("attn.c_proj.weight") + p("attn.c_proj.bias")
        if c["mlp"]:
            m = F.layer_norm(x, (d,), p("ln_2.weight"), p("ln_2.bias"), 1e-5)
            u = F.gelu(m @ p("mlp.c_fc.weight") + p("mlp.c_fc.bias"), approximate="tanh")
            x = x + u @ p("mlp.c_proj.weight") + p("mlp.c_proj.bias")
    f = F.layer_norm(x, (d,), P["ln_f.weight"], P["ln_f.bias"], 1e-5)
    unembedding = P["wte.weight"] if c["tied"] else P["lm_head.weight"]
    return f @ unembedding.T


def make_case(name, c, sequences, seed):
    folder = os.path.join(OUT, name)
    os.makedirs(folder, exist_ok=True)
    g = torch.Generator().manual_seed(seed)
    weights = {}
    for pname, shape in parameter_shapes(c).items():
        if pname.endswith(".weight") and ".ln_" in "." + pname or pname.startswith("ln_f.weight"):
            w = 1.0 + 0.3 * torch.randn(shape, generator=g)  # LayerNorm scales away from 1
        else:
            w = 0.4 * torch.randn(shape, generator=g)        # biases non-zero: every path carries gradient
        weights[pname] = w.to(torch.float32)
    ids = torch.randint(0, c["vocab"], (sequences, c["context"]), generator=g)
    P = {k: v.to(torch.float64).requires_grad_(True) for k, v in weights.items()}
    logits = forward(P, ids, c)
    loss = F.cross_entropy(logits[:, :-1].reshape(-1, c["vocab"]), ids[:, 1:].reshape(-1))
    loss.backward()
    write_safetensors(os.path.join(folder, "weights.safetensors"), {k: v.numpy() for k, v in weights.items()})
    write_safetensors(os.path.join(folder, "gradients.safetensors"),
                      {k: P[k].grad.to(torch.float32).numpy() for k in P})
    np.save(os.path.join(folder, "logits.npy"),
            logits.detach().reshape(-1, c["vocab"]).to(torch.float32).numpy())
    with open(os.path.join(folder, "case.json"), "w") as f:
        json.dump({**c, "ids": ids.tolist(), "loss": loss.item()}, f, indent=1)
        f.write("\n")
    print(name, "loss", loss.item())


def make_adam():
    g = torch.Generator().manual_seed(7)
    size = 12
    start = torch.randn(size, generator=g, dtype=torch.float32)
    grads = [torch.randn(size, generator=g, dtype=torch.float32) * 10.0 ** torch.randint(-6, 2, (size,), generator=g)
             for _ in range(3)]
    grads[1][3] = 0.0  # a zero gradient mid-way: the moments still move the parameter
    p = start.clone().requires_grad_(True)
    opt = torch.optim.Adam([p], lr=1e-2)
    after = []
    for grad in grads:
        p.grad = grad.clone()
        opt.step()
        after.append(p.detach().clone().tolist())
    with open(os.path.join(OUT, "adam.json"), "w") as f:
        json.dump({"lr": 1e-2, "start": start.tolist(), "gradients": [x.tolist() for x in grads], "after": after},
                  f, indent=1)
        f.write("\n")


def make_adamw():
    """torch.optim.AdamW (decoupled weight decay 0.5) over 4 steps with the learning rate warmed up
    linearly over 3 (step t uses 1e-2 * min(1, t / 3), set in param_groups before the step)."""
    g = torch.Generator().manual_seed(11)
    size = 12
    start = torch.randn(size, generator=g, dtype=torch.float32)
    grads = [torch.randn(size, generator=g, dtype=torch.float32) * 10.0 ** torch.randint(-6, 2, (size,), generator=g)
             for _ in range(4)]
    p = start.clone().requires_grad_(True)
    opt = torch.optim.AdamW([p], lr=1e-2, weight_decay=0.5)
    after = []
    for t, grad in enumerate(grads, start=1):
        opt.param_groups[0]["lr"] = 1e-2 * min(1.0, t / 3)
        p.grad = grad.clone()
        opt.step()
        after.append(p.detach().clone().tolist())
    with open(os.path.join(OUT, "adamw.json"), "w") as f:
        json.dump({"lr": 1e-2, "weight_decay": 0.5, "warmup": 3, "start": start.tolist(),
                   "gradients": [x.tolist() for x in grads], "after": after}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    torch.manual_seed(0)
    base = {"d_model": 8, "heads": 2, "vocab": 11, "context": 7, "lr": 1e-2}
    make_case("attention_only_untied", {**base, "layers": 2, "mlp": False, "tied": False}, 3, 1)
    make_case("mlp_tied", {**base, "layers": 2, "mlp": True, "tied": True}, 3, 2)
    make_adam()
    make_adamw()
