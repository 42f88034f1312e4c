"""tilec.attention as a PyTorch custom op, usable inside torch.compile graphs:

    import tilec.torch_ops
    out = torch.ops.tilec.attention(q, k, v, True, None, 0)

Importing this module imports torch and registers the op (once)."""

from typing import Optional

import torch

import tilec


@torch.library.custom_op("tilec::attention", mutates_args=())
def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
              causal: bool = False, scale: Optional[float] = None,
              input_pos: int = 0) -> torch.Tensor:
    """tilec.attention(q, k, v, causal, scale, input_pos), returning a new
    tensor like q."""
    return tilec.attention(q, k, v, causal=causal, scale=scale,
                           input_pos=input_pos)


@attention.register_fake
def _(q, k, v, causal=False, scale=None, input_pos=0):
    return torch.empty_like(q, memory_format=torch.contiguous_format)
