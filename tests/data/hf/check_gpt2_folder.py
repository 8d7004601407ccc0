#!/usr/bin/python3
"""Checks a GPT-2 folder written by `headscope-cli train --out DIR` against what Hugging Face's
transformers library needs to open it unchanged with GPT2LMHeadModel.from_pretrained(DIR), as far
as that can be checked without transformers (not installable here):

  1. config.json: every key is a GPT2Config argument or a PretrainedConfig one (anything else
     would only become a plain attribute), with the types GPT2Config expects; model_type "gpt2".
  2. model.safetensors, parsed by hand: the header, __metadata__ {"format": "pt"} (from_pretrained
     refuses other formats), F32 tensors whose offsets tile the data exactly.
  3. The tensor names and shapes are exactly GPT2LMHeadModel.state_dict()'s: "transformer." prefix,
     Conv1D weights stored (in, out), c_attn = [q | k | v] along its output, lm_head.weight
     (vocab, n_embd) unless tied; nothing missing, nothing unexpected (the causal-mask buffers
     h.N.attn.bias / masked_bias are the only names the loader ignores).
  4. The forward of GPT2LMHeadModel written out in torch (float64) from those tensors, following
     modeling_gpt2.py: LayerNorm (eps from config), Conv1D x W + b, heads split from n_embd,
     scores / sqrt(head_dim), causal mask, softmax, c_proj, gelu_new MLP, ln_f, lm_head;
     its per-token log-probabilities compared with `headscope-cli model --ids ... --json`.
  5. vocab.json / merges.txt: each token a single character that GPT-2's byte-level alphabet maps
     to itself, ids 0..vocab-1; merges.txt the version line alone (no merges).

Not verified: that transformers' own loader and tokenizer code accept the folder (key renaming,
warnings, the added <|endoftext|> token), since no version of it can be run here.

usage: check_gpt2_folder.py DIR HEADSCOPE_CLI [IDS]   (IDS: comma-separated token ids; default a
repeated string). Exit 0 when every check passes, 1 otherwise; prints each check.
"""
import json
import math
import struct
import subprocess
import sys

import torch

# GPT2Config.__init__'s arguments (configuration_gpt2.py) and the PretrainedConfig keys a saved
# config carries.
GPT2_CONFIG_ARGS = {
    "vocab_size": int, "n_positions": int, "n_embd": int, "n_layer": int, "n_head": int, "n_inner": (int, type(None)),
    "activation_function": str, "resid_pdrop": float, "embd_pdrop": float, "attn_pdrop": float,
    "layer_norm_epsilon": float, "initializer_range": float, "summary_type": str, "summary_use_proj": bool,
    "summary_activation": (str, type(None)), "summary_proj_to_labels": bool, "summary_first_dropout": float,
    "scale_attn_weights": bool, "use_cache": bool, "bos_token_id": int, "eos_token_id": int,
    "scale_attn_by_inverse_layer_idx": bool, "reorder_and_upcast_attn": bool,
}
PRETRAINED_KEYS = {"model_type": str, "architectures": list, "tie_word_embeddings": bool, "torch_dtype": str,
                   "transformers_version": str, "n_ctx": int}  # n_ctx: GPT-2's old name, kept as an attribute
ACTIVATIONS = {"gelu_new", "gelu", "relu", "gelu_pytorch_tanh", "silu", "tanh"}

failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)
    return ok


def read_safetensors(path):
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n])
    data = blob[8 + n:]
    meta = header.pop("__metadata__", None)
    check(meta == {"format": "pt"}, f"safetensors __metadata__ is {{'format': 'pt'}} (got {meta})")
    spans, tensors = [], {}
    for name, entry in header.items():
        check(entry["dtype"] == "F32", f"{name} is F32")
        begin, end = entry["data_offsets"]
        count = math.prod(entry["shape"])
        if not check(end - begin == 4 * count, f"{name}: {end - begin} bytes for shape {entry['shape']}"):
            continue
        spans.append((begin, end))
        tensors[name] = torch.frombuffer(bytearray(data[begin:end]), dtype=torch.float32).reshape(entry["shape"])
    spans.sort()
    tiled = all(a[1] == b[0] for a, b in zip(spans, spans[1:])) and (not spans or (spans[0][0] == 0 and spans[-1][1] == len(data)))
    check(tiled, "the tensors' byte ranges tile the data exactly")
    return tensors


def expected_shapes(c):
    d, inner, v = c["n_embd"], c.get("n_inner") or 4 * c["n_embd"], c["vocab_size"]
    s = {"transformer.wte.weight": [v, d], "transformer.wpe.weight": [c["n_positions"], d]}
    for i in range(c["n_layer"]):
        h = f"transformer.h.{i}."
        s.update({h + "ln_1.weight": [d], h + "ln_1.bias": [d],
                  h + "attn.c_attn.weight": [d, 3 * d], h + "attn.c_attn.bias": [3 * d],
                  h + "attn.c_proj.weight": [d, d], h + "attn.c_proj.bias": [d],
                  h + "ln_2.weight": [d], h + "ln_2.bias": [d],
                  h + "mlp.c_fc.weight": [d, inner], h + "mlp.c_fc.bias": [inner],
                  h + "mlp.c_proj.weight": [inner, d], h + "mlp.c_proj.bias": [d]})
    s.update({"transformer.ln_f.weight": [d], "transformer.ln_f.bias": [d], "lm_head.weight": [v, d]})
    return s


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def gpt2_logits(c, t, ids):
    """GPT2LMHeadModel's forward for one sequence, in float64. (n,) ids -> (n, vocab) logits."""
    p = {k: v.double() for k, v in t.items()}
    d, heads, eps = c["n_embd"], c["n_head"], c.get("layer_norm_epsilon", 1e-5)
    hd = d // heads
    n = len(ids)
    ln = lambda x, pre: torch.nn.functional.layer_norm(x, (d,), p[pre + ".weight"], p[pre + ".bias"], eps)
    x = p["transformer.wte.weight"][ids] + p["transformer.wpe.weight"][:n]  # (n, d)
    causal = torch.tril(torch.ones(n, n, dtype=torch.bool))
    for i in range(c["n_layer"]):
        h = f"transformer.h.{i}."
        a = ln(x, h + "ln_1") @ p[h + "attn.c_attn.weight"] + p[h + "attn.c_attn.bias"]  # Conv1D: (n, 3d)
        q, k, v = a.split(d, dim=1)
        q, k, v = (m.view(n, heads, hd).transpose(0, 1) for m in (q, k, v))  # (heads, n, hd)
        scores = q @ k.transpose(1, 2) / math.sqrt(hd)
        scores = scores.masked_fill(~causal, float("-inf"))
        z = (torch.softmax(scores, dim=-1) @ v).transpose(0, 1).reshape(n, d)
        x = x + z @ p[h + "attn.c_proj.weight"] + p[h + "attn.c_proj.bias"]
        m = gelu_new(ln(x, h + "ln_2") @ p[h + "mlp.c_fc.weight"] + p[h + "mlp.c_fc.bias"])
        x = x + m @ p[h + "mlp.c_proj.weight"] + p[h + "mlp.c_proj.bias"]
    head = p["lm_head.weight"] if "lm_head.weight" in p else p["transformer.wte.weight"]
    return ln(x, "transformer.ln_f") @ head.T


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    folder, cli = sys.argv[1], sys.argv[2]
    with open(f"{folder}/config.json") as f:
        c = json.load(f)
    check(c.get("model_type") == "gpt2", "config.json model_type is gpt2")
    check(c.get("architectures") == ["GPT2LMHeadModel"], "architectures is [GPT2LMHeadModel]")
    for key, value in c.items():
        kind = GPT2_CONFIG_ARGS.get(key) or PRETRAINED_KEYS.get(key)
        if check(kind is not None, f"config key {key} is a GPT2Config / PretrainedConfig key"):
            check(isinstance(value, kind) and not (kind is int and isinstance(value, bool)),
                  f"config {key} = {value!r} has GPT2Config's type")
    check(c.get("activation_function", "gelu_new") in ACTIVATIONS, "activation_function is one transformers knows")
    check(c["n_embd"] % c["n_head"] == 0, "n_embd is divisible by n_head")

    t = read_safetensors(f"{folder}/model.safetensors")
    want = expected_shapes(c)
    tied = c.get("tie_word_embeddings", True)
    if tied:
        want.pop("lm_head.weight")
    ignorable = lambda k: k.endswith(".attn.bias") and k.count(".") == 4 or k.endswith(".attn.masked_bias")
    missing = sorted(set(want) - set(t))
    unexpected = sorted(k for k in set(t) - set(want) if not ignorable(k) and not (tied and k == "lm_head.weight"))
    check(not missing, f"no tensor GPT2LMHeadModel expects is missing {missing}")
    check(not unexpected, f"no tensor GPT2LMHeadModel lacks {unexpected}")
    for k, shape in want.items():
        if k in t:
            check(list(t[k].shape) == shape, f"{k} has shape {shape}")
    if failures:
        return 1

    with open(f"{folder}/vocab.json") as f:
        vocab = json.load(f)
    byte_level_self = {chr(b) for b in range(ord("!"), ord("~") + 1)}  # bytes_to_unicode maps these to themselves
    check(sorted(vocab.values()) == list(range(c["vocab_size"])), "vocab.json ids are 0 .. vocab_size - 1")
    check(all(k in byte_level_self for k in vocab), "every token is one printable character GPT-2's byte alphabet keeps")
    with open(f"{folder}/merges.txt") as f:
        check(f.read().split("\n")[0].startswith("#version"), "merges.txt starts with its version line")

    ids = [int(i) for i in sys.argv[3].split(",")] if len(sys.argv) > 3 else [(7 * i) % 11 for i in range(40)]
    ids = [i % c["vocab_size"] for i in ids][: c["n_positions"]]
    logp = torch.log_softmax(gpt2_logits(c, t, torch.tensor(ids)), dim=-1)
    ours = [logp[q - 1, ids[q]].item() for q in range(1, len(ids))]
    out = subprocess.run([cli, "model", "--checkpoint", folder, "--ids", ",".join(map(str, ids)), "--json"],
                         capture_output=True, text=True)
    if not check(out.returncode == 0, f"headscope-cli model --json ran ({out.stderr.strip()})"):
        return 1
    theirs = [e["logprob"] for e in json.loads(out.stdout)["token_logprobs"]]
    diff = max(abs(a - b) for a, b in zip(ours, theirs)) if len(ours) == len(theirs) else float("inf")
    check(diff < 1e-4, f"log-probabilities of {len(ours)} tokens: GPT-2 forward in torch vs HeadScope, "
                       f"max |difference| {diff:.2e} (tolerance 1e-4, float32 vs float64)")
    print("all checks passed" if not failures else f"{len(failures)} checks failed")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
