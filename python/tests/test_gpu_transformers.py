"""A real client: a Hugging Face transformers Llama (random weights, bf16,
GQA) running its attention through tilec, registered as an attention
implementation: the prompt through tilec.attention (causal), every
generated token through tilec.attention_with_kvcache over the model's KV
cache. Teacher-forced decode logits are compared with the SDPA path's,
with the eager path as the control for bf16 noise. Skipped without
PyTorch, a CUDA GPU or transformers' AttentionInterface."""

import os

import pytest

import tilec

os.environ.setdefault("TILEC_AUTOTUNE", "off")


def tilec_attention(module, query, key, value, attention_mask, scaling=None,
                    dropout=0.0, **kwargs):
    """transformers' attention interface: query (batch, heads, q_len, D),
    key/value (batch, kv_heads, kv_len, D) with the cache appended; returns
    (batch, q_len, heads, D)."""
    import torch
    B, H, Sq, D = query.shape
    if Sq == 1:  # a generated token against the whole cache
        lens = torch.full((B,), key.shape[2], device=query.device,
                          dtype=torch.int32)
        out = tilec.attention_with_kvcache(
            query.transpose(1, 2).contiguous(), key.transpose(1, 2),
            value.transpose(1, 2), lens, scale=scaling)
        return out, None
    out = tilec.attention(query, key, value, causal=True, scale=scaling,
                          input_pos=key.shape[2] - Sq)
    return out.transpose(1, 2).contiguous(), None


def decode_logits(torch, model, ids, prompt, impl):
    """Logits of every position after the prompt, one token at a time with
    the true next token fed back (teacher forcing)."""
    from transformers import DynamicCache
    model.config._attn_implementation = impl
    for layer in model.model.layers:
        layer.self_attn.config._attn_implementation = impl
    cache = DynamicCache()
    with torch.no_grad():
        out = model(ids[:, :prompt], past_key_values=cache, use_cache=True)
        logits = [out.logits[:, -1]]
        for t in range(prompt, ids.shape[1] - 1):
            out = model(ids[:, t:t + 1], past_key_values=cache,
                        use_cache=True)
            logits.append(out.logits[:, -1])
    return torch.stack(logits, 1).float()


def test_llama_decode_through_tilec(torch_gpu):
    torch = torch_gpu
    transformers = pytest.importorskip("transformers")
    try:
        from transformers import AttentionInterface
    except ImportError:
        pytest.skip("transformers has no AttentionInterface")
    from transformers import LlamaConfig, LlamaForCausalLM
    AttentionInterface.register("tilec", tilec_attention)
    try:  # newer transformers build the mask per implementation
        from transformers.masking_utils import (AttentionMaskInterface,
                                                sdpa_mask)
        AttentionMaskInterface.register("tilec", sdpa_mask)
    except ImportError:
        pass
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=1000, hidden_size=1024,
                         intermediate_size=2048, num_hidden_layers=2,
                         num_attention_heads=16, num_key_value_heads=4,
                         head_dim=64, max_position_embeddings=512)
    model = LlamaForCausalLM(config).to("cuda", torch.bfloat16).eval()
    ids = torch.randint(0, 1000, (2, 48), device="cuda")
    sdpa = decode_logits(torch, model, ids, 16, "sdpa")
    eager = decode_logits(torch, model, ids, 16, "eager")
    ours = decode_logits(torch, model, ids, 16, "tilec")
    assert torch.isfinite(ours).all()
    noise = (eager - sdpa).abs().max().item()
    diff = (ours - sdpa).abs().max().item()
    print(f"transformers {transformers.__version__}: max |tilec - sdpa| "
          f"{diff:.4f}, |eager - sdpa| {noise:.4f}")
    assert diff <= 2 * noise + 0.05, (diff, noise)
    # The same next tokens nearly everywhere.
    agree = (ours.argmax(-1) == sdpa.argmax(-1)).float().mean().item()
    assert agree > 0.9, agree
