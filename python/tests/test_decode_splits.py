"""The split count of tilec.attention_with_kvcache (no GPU): the grid fills
the GPU's slots (the split kernel's occupancy times the SM count) in whole
waves, splits stay at least 4 key tiles long, and a grid that fills the GPU
alone is not split."""

from tilec.decode import choose_splits


def busy(blocks, splits, slots):
    waves = -(-blocks * splits // slots)
    return blocks * splits / (waves * slots)


def test_fills_whole_waves():
    # 132 SMs, 3 blocks each: 396 slots.
    assert choose_splits(32, 8, 4096, 132, 64, 3) == 3     # 768 of 792
    assert choose_splits(8, 8, 32768, 132, 64, 3) == 6     # 384 of 396
    assert choose_splits(1, 8, 131072, 132, 64, 3) == 45   # 360 of 396
    # At 2 blocks per SM (264 slots) the same problems split otherwise.
    assert choose_splits(32, 8, 4096, 132, 64, 2) == 1     # 256 of 264
    assert choose_splits(8, 8, 32768, 132, 64, 2) == 4     # 256 of 264
    for b, h, n in [(32, 8, 4096), (8, 8, 32768), (4, 8, 16384), (2, 4, 65536)]:
        for per_sm in (1, 2, 3, 4):
            s = choose_splits(b, h, n, 132, 64, per_sm)
            assert busy(b * h, s, 132 * per_sm) >= 0.9, (b, h, n, per_sm, s)


def test_limits():
    # A grid that fills the GPU alone: one split.
    assert choose_splits(128, 8, 1024, 132, 64, 3) == 1
    # Splits of at least 4 tiles of 64 keys: 512 keys allow two.
    assert choose_splits(1, 1, 512, 132, 64, 3) == 2
    # At most 64 splits.
    assert choose_splits(1, 1, 1 << 20, 132, 64, 3) == 64
    # Nothing to split.
    assert choose_splits(1, 8, 0, 132, 64, 3) == 1
