# The README's ring attention example, run on 2 and 4 GPUs by
# test_gpu_distributed.py::test_readme_ring_example (python3 -m
# torch.distributed.run --nproc-per-node 2 ring_example.py); ctest
# readme-examples checks that the README shows these lines.
# README-BEGIN
import torch, torch.distributed as dist, tilec.distributed as tcp
dist.init_process_group("nccl"); rank = dist.get_rank(); torch.cuda.set_device(rank)
torch.manual_seed(0)  # every rank makes the same sequence, then keeps its chunk
q, k, v = (torch.randn(1, 8, 8192, 128, device="cuda", dtype=torch.bfloat16) for _ in range(3))
ql, kl, vl = (tcp.shard(t).requires_grad_() for t in (q, k, v))  # zigzag chunks
out = tcp.ring_attention(ql, kl, vl, causal=True)               # this rank's rows
out.sum().backward()                                             # ql.grad, kl.grad, vl.grad
ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
print(rank, "max |ring - sdpa| =", (tcp.unshard(out) - ref).abs().max().item())
dist.destroy_process_group()
# README-END
