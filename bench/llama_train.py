#!/usr/bin/env python3
"""Training for real (issue 49): a Hugging Face transformers Llama (random
init, bf16 autocast, grouped-query attention) trained for a few hundred
AdamW steps on a synthetic next-token task, once with its attention through
tilec.attention (the DSL's forward with LSE and backward kernels, through
autograd) and once through PyTorch's SDPA, from the same seed and the same
batches. Writes both loss curves (PNG, and the numbers as JSON) and prints
the step times.

  python3 bench/llama_train.py [--steps 300] [--layers 4] [--hidden 2048]
      [--heads 16] [--kv-heads 4] [--seq 2048] [--batch 4] [--lr 3e-4]
      [--warmup 30] [--control eager] [--deterministic] [--png F.png]
      [--json F.json]

The task: each sequence is a random half followed by the same half again,
so the second half is predictable only by attending back (an induction
task); the loss falls as the model learns it. Step time: CUDA events around
forward, backward and the optimizer step, the median over the steps after
the first ten; tokens/s from it. The two curves agree when their
difference stays within bf16's noise: printed are the largest difference
over the first 20 steps, over all steps, and of the means over the last
20. The scale of that noise is the control: the same training with
transformers' eager attention (matmuls and a float32 softmax), whose curve
differs from SDPA's by rounding alone (--control "" runs none). The
learning rate rises linearly over the first --warmup steps. With
--deterministic, a third run trains with tilec.attention(...,
deterministic=True) ("tilec_det": dQ from a kernel of its own).
"""
import argparse
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))

import torch  # noqa: E402
import tilec  # noqa: E402
from png_chart import line_chart  # noqa: E402


def tilec_attention(module, query, key, value, attention_mask, scaling=None,
                    dropout=0.0, **kwargs):
    """transformers' attention interface for training (no cache): query
    (batch, heads, seq, D), key/value (batch, kv_heads, seq, D); returns
    (batch, seq, heads, D)."""
    out = tilec.attention(query, key, value, causal=True, scale=scaling)
    return out.transpose(1, 2).contiguous(), None


def tilec_det_attention(module, query, key, value, attention_mask,
                        scaling=None, dropout=0.0, **kwargs):
    """tilec_attention in tilec's deterministic mode (dQ from a kernel of
    its own, not atomics)."""
    out = tilec.attention(query, key, value, causal=True, scale=scaling,
                          deterministic=True)
    return out.transpose(1, 2).contiguous(), None


def register():
    from transformers import AttentionInterface
    AttentionInterface.register("tilec", tilec_attention)
    AttentionInterface.register("tilec_det", tilec_det_attention)
    try:  # newer transformers build the mask per implementation
        from transformers.masking_utils import (AttentionMaskInterface,
                                                sdpa_mask)
        AttentionMaskInterface.register("tilec", sdpa_mask)
        AttentionMaskInterface.register("tilec_det", sdpa_mask)
    except ImportError:
        pass


def batches(args, count=8):
    g = torch.Generator(device="cuda").manual_seed(1)
    out = []
    for _ in range(count):
        half = torch.randint(0, args.vocab, (args.batch, args.seq // 2),
                             device="cuda", generator=g)
        out.append(torch.cat([half, half], 1))
    return out


def train(args, impl, data):
    from transformers import LlamaConfig, LlamaForCausalLM
    config = LlamaConfig(
        vocab_size=args.vocab, hidden_size=args.hidden,
        intermediate_size=args.hidden * 2, num_hidden_layers=args.layers,
        num_attention_heads=args.heads, num_key_value_heads=args.kv_heads,
        head_dim=args.hidden // args.heads,
        max_position_embeddings=args.seq)
    torch.manual_seed(0)
    model = LlamaForCausalLM(config).to("cuda")
    # (As python/tests/test_gpu_transformers.py sets it: a name registered
    # with AttentionInterface, after the model is built.)
    model.config._attn_implementation = impl
    for layer in model.model.layers:
        layer.self_attn.config._attn_implementation = impl
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda step: min(1.0, (step + 1) / max(args.warmup, 1)))
    losses, times = [], []
    for step in range(args.steps):
        ids = data[step % len(data)]
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(ids, labels=ids).loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        end.record()
        losses.append(loss.item())  # synchronizes
        times.append(start.elapsed_time(end))
        if step % 50 == 0:
            print(f"{impl} step {step}: loss {losses[-1]:.4f}, "
                  f"{times[-1]:.1f} ms", file=sys.stderr, flush=True)
    del model, opt
    torch.cuda.empty_cache()
    return losses, times


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--hidden", type=int, default=2048)
    p.add_argument("--heads", type=int, default=16)
    p.add_argument("--kv-heads", type=int, default=4)
    p.add_argument("--seq", type=int, default=2048)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--vocab", type=int, default=1024)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--warmup", type=int, default=30)
    p.add_argument("--control", default="eager",
                   help="a third attention implementation, the scale of "
                   "rounding's effect on the curve (\"\": none)")
    p.add_argument("--deterministic", action="store_true",
                   help="also train with tilec's deterministic mode "
                   "(\"tilec_det\")")
    p.add_argument("--png", default="llama-train.png")
    p.add_argument("--json", default="")
    args = p.parse_args()
    if args.seq % 2 or args.hidden % args.heads or \
            args.heads % args.kv_heads:
        p.error("--seq must be even, --heads divide --hidden and "
                "--kv-heads divide --heads")
    register()
    data = batches(args)
    runs = {}
    for impl in (("sdpa", "tilec") +
                 (("tilec_det",) if args.deterministic else ()) +
                 ((args.control,) if args.control else ())):
        losses, times = train(args, impl, data)
        ms = statistics.median(times[10:] or times)
        runs[impl] = {"losses": losses, "step_ms": times, "median_ms": ms,
                      "tokens_per_s": args.batch * args.seq / ms * 1e3}
    sdpa = runs["sdpa"]["losses"]

    def differences(other):
        """Of `other`'s curve from SDPA's: the largest over the first 20
        steps, over all, and of the last 20 steps' means."""
        pairs = list(zip(sdpa, runs[other]["losses"]))
        return (max(abs(a - b) for a, b in pairs[:20]),
                max(abs(a - b) for a, b in pairs),
                abs(statistics.mean(a for a, _ in pairs[-20:]) -
                    statistics.mean(b for _, b in pairs[-20:])))
    line_chart(args.png, {impl: list(enumerate(r["losses"]))
                          for impl, r in runs.items()},
               title=f"llama {args.layers}x{args.hidden}, {args.heads}/"
                     f"{args.kv_heads} heads, seq {args.seq}: loss",
               x_label="step", y_label="loss")
    print(f"\n{torch.cuda.get_device_name()}, torch {torch.__version__}; "
          f"Llama {args.layers} layers, hidden {args.hidden}, "
          f"{args.heads}/{args.kv_heads} heads (head_dim "
          f"{args.hidden // args.heads}), seq {args.seq}, batch "
          f"{args.batch}, {args.steps} AdamW steps, bf16 autocast\n")
    print("| attention | median step ms | tokens/s | first loss | "
          "mean of last 20 |")
    print("|---|---|---|---|---|")
    for impl, r in runs.items():
        last = statistics.mean(r["losses"][-20:])
        print(f"| {impl} | {r['median_ms']:.1f} | {r['tokens_per_s']:.0f} | "
              f"{r['losses'][0]:.4f} | {last:.4f} |")
    print("\nstep time tilec / sdpa: " + ", ".join(
        f"{impl} {runs[impl]['median_ms'] / runs['sdpa']['median_ms']:.3f}"
        for impl in runs if impl.startswith("tilec")) +
        f"; curves: {args.png}\n")
    print("| loss against sdpa's | largest, first 20 steps | largest, all "
          "steps | last 20 steps' means |")
    print("|---|---|---|---|")
    for impl in runs:
        if impl != "sdpa":
            print(f"| {impl} | " + " | ".join(
                f"{x:.4f}" for x in differences(impl)) + " |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": vars(args), "runs": runs}, f)


if __name__ == "__main__":
    main()
