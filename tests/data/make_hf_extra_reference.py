#!/usr/bin/python3
"""Regenerates tests/data/hf_extra/: checkpoints written by Hugging Face transformers 5 itself, with transformers'
own eager outputs, for what ../shared/hf-reference does not cover (issues 33 and 34). Run where Python's transformers
5 is installed (the lent GPU machine has 5.17; it needs no GPU):

    OUT=/tmp/out python3 tests/data/make_hf_extra_reference.py     # writes $OUT/hf_extra.tar.gz

Each folder: the checkpoint as save_pretrained wrote it and ref.npz with `ids`, `logits` (n, vocab) float32,
`att0`...`att{L-1}` (heads, n, n) (output_attentions), and for the encoder cases `token_type_ids` and
`attention_mask` (n,) as passed to the model.
  smollm3_nope         SmolLM3 with no_rope_layer_interval 2: layers 1 and 3 do not rotate
  phi3_longrope_short  Phi-3 LongRoPE, 12 tokens (below original_max_position_embeddings 16: short factors)
  phi3_longrope_long   the same config, 40 tokens (past 16: long factors), attention factor from 64 / 16
  phi3_partial         Phi-3 with partial_rotary_factor 0.5
  qwen2_window         Qwen2 with use_sliding_window, window 6 on the layers from max_window_layers 1
  gemma3_multimodal    Gemma 3 image-text-to-text: text tower under model.language_model., a tiny SigLIP tower
  bert_pair            BERT on a sentence pair: token types 0 then 1, the last 3 positions padded
  roberta_pad          RoBERTa with the last 3 ids its padding id and masked (positions stop at the padding)
  distilbert_pad       DistilBERT, the last 3 positions masked
  modernbert_pad       ModernBERT, 40 tokens (past its local window), the last 4 masked
"""
import json, os, shutil, tarfile, numpy as np, torch, transformers
from transformers import AutoModelForCausalLM, AutoModelForMaskedLM

OUT = os.environ.get('OUT', '/tmp/out'); W = '/tmp/hf_extra'
shutil.rmtree(W, ignore_errors=True); os.makedirs(W)
print('transformers', transformers.__version__, 'torch', torch.__version__, flush=True)
MLM = ('bert', 'roberta', 'distilbert', 'modernbert')

def strengthen(m, seed):   # as ../shared/hf-reference/make_reference.py: peaked attention, random norms and biases
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for n, p in m.named_parameters():
            if p.dim() == 1 and ('norm' in n or 'ln' in n or 'layernorm' in n): p.copy_(1 + 0.1 * torch.randn(p.shape, generator=g))
            elif p.dim() == 1: p.copy_(0.2 * torch.randn(p.shape, generator=g))
            else: p.copy_(torch.randn(p.shape, generator=g) * (1.5 / p.shape[-1] ** 0.5))

def make(name, cfg, T, seed, cls=None, ids=None, types=None, pad=0):
    d = os.path.join(W, name)
    try:
        torch.manual_seed(seed)
        mlm = cfg.model_type in MLM
        auto = cls or (AutoModelForMaskedLM if mlm else AutoModelForCausalLM)
        m = auto.from_config(cfg, attn_implementation='eager') if cls is None else cls(cfg)
        strengthen(m, seed + 1); m.save_pretrained(d)
        vocab = getattr(cfg, 'vocab_size', None) or cfg.text_config.vocab_size
        if ids is None: ids = [int(x) for x in np.random.default_rng(seed + 2).integers(3, vocab, T)]
        mask = [1] * (T - pad) + [0] * pad
        m = (cls or auto).from_pretrained(d, attn_implementation='eager', dtype=torch.float32).eval()
        kw = dict(attention_mask=torch.tensor([mask]))
        if types is not None: kw['token_type_ids'] = torch.tensor([types])
        with torch.no_grad(): o = m(torch.tensor([ids]), output_attentions=True, **kw)
        atts = [a[0].float().numpy() for a in o.attentions]
        extra = dict(attention_mask=np.array(mask))
        if types is not None: extra['token_type_ids'] = np.array(types)
        np.savez_compressed(os.path.join(d, 'ref.npz'), ids=np.array(ids), logits=o.logits[0].float().numpy(),
                            **extra, **{f'att{l}': a for l, a in enumerate(atts)})
        print(f'{name}: ok, files {sorted(os.listdir(d))}, layers {len(atts)}, att {atts[0].shape}', flush=True)
    except Exception as e:
        import traceback; traceback.print_exc()
        print(f'{name}: FAILED {type(e).__name__}: {str(e)[:400]}', flush=True); shutil.rmtree(d, ignore_errors=True)

base = dict(vocab_size=300, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
            num_key_value_heads=2, max_position_embeddings=256, tie_word_embeddings=False,
            pad_token_id=0, bos_token_id=1, eos_token_id=2)
C = transformers
make('smollm3_nope', C.SmolLM3Config(**dict(base, num_hidden_layers=4, no_rope_layer_interval=2)), T=20, seed=90)
lr = dict(rope_type='longrope', rope_theta=10000.0, short_factor=[1.0 + 0.1 * i for i in range(8)],
          long_factor=[1.5 + 0.5 * i for i in range(8)], original_max_position_embeddings=16)
phi = dict(base, max_position_embeddings=64, original_max_position_embeddings=16, rope_parameters=lr)
make('phi3_longrope_short', C.Phi3Config(**phi), T=12, seed=91)
make('phi3_longrope_long', C.Phi3Config(**phi), T=40, seed=92)
make('phi3_partial', C.Phi3Config(**dict(base, partial_rotary_factor=0.5)), T=20, seed=93)
make('qwen2_window', C.Qwen2Config(**dict(base, num_hidden_layers=3, use_sliding_window=True, sliding_window=6,
                                          max_window_layers=1)), T=20, seed=94)
text = dict(vocab_size=300, hidden_size=64, intermediate_size=128, num_hidden_layers=4, num_attention_heads=4,
            num_key_value_heads=1, head_dim=16, sliding_window=6, query_pre_attn_scalar=16, max_position_embeddings=256)
vision = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2, image_size=28, patch_size=14)
make('gemma3_multimodal', C.Gemma3Config(text_config=text, vision_config=vision, mm_tokens_per_image=4,
                                         boi_token_index=297, eoi_token_index=298, image_token_index=299),
     T=24, seed=95, cls=C.Gemma3ForConditionalGeneration)
enc = dict(vocab_size=300, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
           max_position_embeddings=130)
make('bert_pair', C.BertConfig(**dict(enc, type_vocab_size=2)), T=20, seed=96, types=[0] * 9 + [1] * 11, pad=3)
rids = [int(x) for x in np.random.default_rng(99).integers(3, 300, 17)] + [1, 1, 1]
make('roberta_pad', C.RobertaConfig(**dict(enc, pad_token_id=1)), T=20, seed=97, ids=rids, pad=3)
make('distilbert_pad', C.DistilBertConfig(vocab_size=300, dim=64, hidden_dim=128, n_layers=2, n_heads=4,
                                          max_position_embeddings=128), T=20, seed=98, pad=3)
make('modernbert_pad', C.ModernBertConfig(**dict(enc, num_hidden_layers=3, global_attn_every_n_layers=3, local_attention=8,
                                                  pad_token_id=0, bos_token_id=1, eos_token_id=2, cls_token_id=1,
                                                  sep_token_id=2)), T=40, seed=99, pad=4)
os.makedirs(OUT, exist_ok=True)
tar = os.path.join(OUT, 'hf_extra.tar.gz')
with tarfile.open(tar, 'w:gz') as t: t.add(W, arcname='hf_extra')
print('tar bytes', os.path.getsize(tar))
