"""tilec.attention as a PyTorch custom op, usable inside torch.compile graphs:

    import tilec.torch_ops
    out = torch.ops.tilec.attention(q, k, v, True, None, 0)

torch.ops.tilec.attention is differentiable (register_autograd): its
backward is torch.ops.tilec.attention_backward, a custom op too, so that
torch.compile(fullgraph=True) traces through both. Importing this module
imports torch and registers the ops (once)."""

from typing import Optional

import torch

import tilec


@torch.library.custom_op("tilec::attention", mutates_args=())
def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
              causal: bool = False, scale: Optional[float] = None,
              input_pos: int = 0) -> torch.Tensor:
    """tilec.attention(q, k, v, causal, scale, input_pos), returning a new
    tensor like q."""
    # (The op's gradient is its registered backward: the forward itself
    # records nothing.)
    with torch.no_grad():
        return tilec.attention(q, k, v, causal=causal, scale=scale,
                               input_pos=input_pos)


@attention.register_fake
def _(q, k, v, causal=False, scale=None, input_pos=0):
    return torch.empty_like(q, memory_format=torch.contiguous_format)


@torch.library.custom_op("tilec::attention_backward", mutates_args=())
def attention_backward(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                       out: torch.Tensor, dout: torch.Tensor,
                       causal: bool = False, scale: Optional[float] = None
                       ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(dq, dk, dv) of tilec.attention(q, k, v, causal, scale) given its
    output and the output's gradient (tilec.autograd's kernels; the
    log-sum-exp is recomputed by the forward that writes it)."""
    dtype, scale = tilec.autograd.check(q, k, v, causal, scale, 0)
    _, lse = tilec.autograd.forward(q, k, v, causal, scale, dtype)
    # (deterministic as tilec.attention's default: torch's setting.)
    return tilec.autograd.backward(
        q, k, v, out, lse, dout.contiguous(), causal, scale, dtype)


@attention_backward.register_fake
def _(q, k, v, out, dout, causal=False, scale=None):
    return (torch.empty_like(q, memory_format=torch.contiguous_format),
            torch.empty_like(k, memory_format=torch.contiguous_format),
            torch.empty_like(v, memory_format=torch.contiguous_format))


def _setup_context(ctx, inputs, output):
    q, k, v, causal, scale, input_pos = inputs
    if input_pos != 0:
        raise tilec.ArgumentError("input_pos: with gradients, only 0 is "
                                  "supported")
    ctx.save_for_backward(q, k, v, output)
    ctx.causal, ctx.scale = causal, scale


def _backward(ctx, dout):
    q, k, v, out = ctx.saved_tensors
    dq, dk, dv = torch.ops.tilec.attention_backward(q, k, v, out, dout,
                                                    ctx.causal, ctx.scale)
    return dq, dk, dv, None, None, None


# torch.ops.tilec.attention is differentiable, in eager mode and under
# torch.compile: its backward is the custom op above (which recomputes the
# log-sum-exp the custom op's forward does not return).
attention.register_autograd(_backward, setup_context=_setup_context)
