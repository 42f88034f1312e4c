# The README's Python example, run by test_gpu.py::test_readme_example (which
# checks `out` against a float64 reference); ctest readme-examples checks
# that the README shows these lines.
# README-BEGIN
import torch, tilec
q, k, v = (torch.randn(2, 8, 1024, 128, device="cuda", dtype=torch.float16) for _ in range(3))
out = tilec.attention(q, k, v, causal=True)
ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
print("max |tilec - torch| =", (out - ref).abs().max().item())
# README-END
