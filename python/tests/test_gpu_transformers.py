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


def train(torch, model, impl, batches, steps):
    """Losses of `steps` AdamW steps on `batches` (next-token prediction,
    bf16 autocast), the model's attention through `impl`."""
    model.config._attn_implementation = impl
    for layer in model.model.layers:
        layer.self_attn.config._attn_implementation = impl
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
    losses = []
    for step in range(steps):
        ids = batches[step % len(batches)]
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(ids, labels=ids).loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def test_llama_training_through_tilec(torch_gpu):
    """Training for real: a small Llama (random init, grouped-query
    attention: two query heads per K/V head) learning a synthetic next-token task, its attention's
    forward and backward through tilec.attention (the DSL's kernels), the
    same seed and data through SDPA: the two loss curves agree within bf16
    noise, and both learn."""
    torch = torch_gpu
    pytest.importorskip("transformers")
    try:
        from transformers import AttentionInterface
    except ImportError:
        pytest.skip("transformers has no AttentionInterface")
    from conftest import skip_unless_arch
    skip_unless_arch(torch, "sm_90a")
    from transformers import LlamaConfig, LlamaForCausalLM
    AttentionInterface.register("tilec", tilec_attention)
    try:
        from transformers.masking_utils import (AttentionMaskInterface,
                                                sdpa_mask)
        AttentionMaskInterface.register("tilec", sdpa_mask)
    except ImportError:
        pass
    config = LlamaConfig(vocab_size=64, hidden_size=256,
                         intermediate_size=512, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2,
                         head_dim=64, max_position_embeddings=256)
    # The task: sequences that count up from a random start, modulo the
    # vocabulary (each token predicts the next).
    g = torch.Generator(device="cuda").manual_seed(1)
    batches = [(torch.randint(0, 64, (8, 1), device="cuda", generator=g) +
                torch.arange(128, device="cuda")) % 64 for _ in range(4)]
    curves = {}
    for impl in ("sdpa", "tilec"):
        torch.manual_seed(0)
        model = LlamaForCausalLM(config).to("cuda")
        curves[impl] = train(torch, model, impl, batches, 60)
    sdpa, ours = curves["sdpa"], curves["tilec"]
    print("losses sdpa", [round(x, 3) for x in sdpa[::10]])
    print("losses tilec", [round(x, 3) for x in ours[::10]])
    assert all(map(lambda x: x == x, ours)), "NaN loss"
    # Both learn: the last losses a fraction of the first.
    assert sum(ours[-5:]) / 5 < 0.3 * ours[0], ours
    # The curves agree: the first steps within bf16's noise (a few percent
    # of the loss); later ones, where the two runs' rounding has compounded
    # through the optimizer, on average.
    for a, b in zip(sdpa[:20], ours[:20]):
        assert abs(a - b) <= 0.05 * abs(a) + 0.02, (a, b)
    late_sdpa, late_ours = sum(sdpa[-10:]) / 10, sum(ours[-10:]) / 10
    assert abs(late_sdpa - late_ours) <= 0.2 * late_sdpa + 0.05, (
        late_sdpa, late_ours)
