"""The split-KV schedule of tilec.attention_with_kvcache (libtile's
tile::splitKVSchedule through the C API; no GPU): every key of every unit
covered once, a batch that fills the GPU alone not split, a long sequence
spread over the GPU, a skewed batch's long sequence split and its short
ones not, decode_plan's lengths and refusals."""

import pytest

import tilec
from tilec.decode import DecodePlan, decode_plan, split_schedule

SLOTS = 2 * 132  # an H200's 132 SMs, 2 blocks each


def units_of(rows, items):
    """unit -> (splits, split keys, first slot, [split indices])."""
    out = {}
    for i in range(items):
        u, j, keys, n, first = (rows[f][i] for f in range(5))
        got = out.setdefault(u, (n, keys, first, []))
        assert got[:3] == (n, keys, first)
        got[3].append(j)
    return out


def check(lengths, units, max_keys, splits=0):
    rows, items, partials = split_schedule(lengths, units, SLOTS, max_keys,
                                           splits)
    got = units_of(rows, items)
    assert sorted(got) == list(range(len(lengths) * units))
    slots = set()
    for u, (n, keys, first, js) in got.items():
        length = min(max(lengths[u // units], 0), max_keys)
        assert js == list(range(n))
        assert keys % 64 == 0 and keys >= 64
        assert (n - 1) * keys < max(length, 1) <= n * keys or length == 0
        if n == 1:
            assert first == -1
        else:
            slots.update(range(first, first + n))
    assert slots == set(range(partials))
    return rows, items, partials, got


def test_a_batch_that_fills_the_gpu_is_not_split():
    _, items, partials, _ = check([4096] * 32, 8, 4096)
    assert (items, partials) == (256, 0)
    _, items, partials, _ = check([1024] * 128, 8, 1024)
    assert (items, partials) == (1024, 0)


def test_a_long_sequence_is_spread_over_the_gpu():
    _, items, _, got = check([131072], 8, 131072)
    assert 200 <= items <= 8 * 64
    assert all(n > 1 for n, *_ in got.values())


def test_a_skewed_batch_splits_its_long_sequence_only():
    lengths = [1024] * 63 + [65536]
    rows, items, _, got = check(lengths, 8, 65536)
    long_units = range(63 * 8, 64 * 8)
    assert all(got[u][0] >= 8 for u in long_units)
    assert all(got[u][0] == 1 for u in range(63 * 8))
    # The long sequence's items first (the hardware starts them first).
    assert rows[0][0] in long_units


def test_forced_splits_and_clamped_lengths():
    _, items, _, got = check([4096, 100, 0, 99999], 1, 4096, splits=5)
    assert [got[u][0] for u in range(4)] == [5, 2, 1, 5]
    assert items == 13


def test_decode_plan():
    plan = decode_plan([5, 0, 70], new_tokens=2)
    assert isinstance(plan, DecodePlan) and plan.lengths == [7, 2, 72]
    with pytest.raises(tilec.ArgumentError, match="new_tokens"):
        decode_plan([1], new_tokens=-1)
    with pytest.raises(tilec.ArgumentError, match="cache_seqlens"):
        decode_plan([1.5])
    with pytest.raises(tilec.ArgumentError, match="cache_seqlens"):
        decode_plan("12")


def test_refusals_name_the_argument():
    with pytest.raises(tilec.ArgumentError, match="units: 0 is outside"):
        split_schedule([10], 0, SLOTS, 10)
    with pytest.raises(tilec.ArgumentError, match="slots: 0 is outside"):
        split_schedule([10], 1, 0, 10)
    with pytest.raises(tilec.ArgumentError,
                       match="saturatingSlots: -1 is outside"):
        split_schedule([10], 1, SLOTS, 10, saturating=-1)


def test_blocks_sharing_a_multiprocessor_share_its_memory():
    """One sequence of 64k keys, 8 KV heads, 132 SMs of two blocks: where
    one block an SM saturates its memory, 16 splits (one block each) beat
    32 (two each at half speed, and twice the merge); where every block
    reads at full speed, 32 win."""
    def splits(**kw):
        rows, *_ = split_schedule([65536], 8, SLOTS, 65536, merge_trips=0.125,
                                  multiprocessors=132, **kw)
        return rows[3][0]
    assert splits(saturating=132) == 16
    assert splits(saturating=0) == 32
