"""The blocks tilec.distributed's ring and all-gather attention launch (no
GPU): over every rank and step, each (query, key) pair the mask keeps is
computed exactly once, no masked pair is, and no launched block is wholly
masked; the zigzag layout gives every rank the same work."""

import pytest

from tilec.distributed import allgather_blocks, ring_blocks


def rows_of(rank, world, n, layout):
    """Global sequence positions of rank's n local rows."""
    if layout == "contiguous":
        return list(range(rank * n, (rank + 1) * n))
    half = n // 2
    return (list(range(rank * half, (rank + 1) * half)) +
            list(range((2 * world - 1 - rank) * half,
                       (2 * world - rank) * half)))


def pairs(block, qpos, kpos):
    """The (query, key) global pairs a block computes (its causal mask
    relative to the block's corner)."""
    out = set()
    for i in range(block.q1 - block.q0):
        for j in range(block.k1 - block.k0):
            if block.causal and j > i:
                continue
            out.add((qpos[block.q0 + i], kpos[block.k0 + j]))
    return out


def check(world, n, causal, layout, blocks_of):
    seen = {}
    work = []
    for rank in range(world):
        done = 0
        for keys_pos, blocks in blocks_of(rank):
            for b in blocks:
                got = pairs(b, rows_of(rank, world, n, layout), keys_pos)
                assert got, f"rank {rank}: {b} is wholly masked"
                for p in got:
                    assert p not in seen, f"{p} twice ({b})"
                    seen[p] = b
                done += len(got)
        work.append(done)
    total = world * n
    want = {(i, j) for i in range(total) for j in range(total)
            if not causal or j <= i}
    assert set(seen) == want
    return work


CASES = [(w, n, c, lay) for w in (1, 2, 3, 4, 8) for n in (4, 8)
         for c in (False, True) for lay in ("zigzag", "contiguous")]


@pytest.mark.parametrize("world,n,causal,layout", CASES)
def test_ring_covers_the_mask_once(world, n, causal, layout):
    def blocks_of(rank):
        for step in range(world):
            src = (rank - step) % world
            yield (rows_of(src, world, n, layout),
                   ring_blocks(rank, world, step, n, causal, layout))
    work = check(world, n, causal, layout, blocks_of)
    if layout == "zigzag" or not causal:
        assert len(set(work)) == 1, work   # balanced


@pytest.mark.parametrize("world,n,causal,layout", CASES)
def test_allgather_covers_the_mask_once(world, n, causal, layout):
    def blocks_of(rank):
        yield (list(range(world * n)),
               allgather_blocks(rank, world, n, causal, layout))
    work = check(world, n, causal, layout, blocks_of)
    if layout == "zigzag" or not causal:
        assert len(set(work)) == 1, work
