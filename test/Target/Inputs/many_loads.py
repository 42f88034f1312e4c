"""Writes a .tile kernel of N straight-line 64 x 64 f32 loads summed into
one tile (the compile-time tests: bench/compile_time.py times it).

usage: python3 many_loads.py N
"""
import sys

n = int(sys.argv[1])
print("kernel many_loads(A: Tensor[f32, 2], B: Tensor[f32, 2]):")
print("    acc = zeros((64, 64))")
for i in range(n):
    print(f"    acc = acc + load(A, index=({i}, 0), shape=(64, 64))")
print("    store(B, index=(0, 0), tile=acc)")
