"""Writes a .tile kernel with many parameters: TENSORS rank-4 f32 tensors
(56 bytes of parameters each: an address, 4 sizes and 4 strides) and
SCALARS f32 scalars (4 bytes each), for the parameter-space tests.

usage: python3 many_params.py TENSORS SCALARS
"""
import sys

tensors, scalars = int(sys.argv[1]), int(sys.argv[2])
params = [f"t{i}: Tensor[f32, 4]" for i in range(tensors)]
params += [f"s{i}: f32" for i in range(scalars)]
print("kernel many(" + ",\n            ".join(params) + "):")
print("    x = load(t0, index=(0, 0, 0, 0), shape=(1, 1, 1, 128))")
last = f" + s{scalars - 1}" if scalars else ""
print(f"    store(t{tensors - 1}, index=(0, 0, 0, 0), tile=x{last})")
