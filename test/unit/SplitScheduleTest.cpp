//===- SplitScheduleTest.cpp - tile-runtime-tests -------------------------===//
//
// tile::splitKVSchedule (host only): every key of every unit covered once,
// in splits of whole key tiles, partial slots distinct; the choice on
// uniform and skewed batches; forced splits; refusals, C++ and C.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestSupport.h"

#include "WorkTables.h" // lib/Ops/Decode: the table's host layout

#include "tile/Decode.h"

#include <map>
#include <set>

namespace {

using Field = SplitSchedule::Field;

int32_t at(const SplitSchedule &s, Field f, int64_t item) {
  return s.table[f * s.items + item];
}

/// Each unit's splits cover its sequence's keys (clamped) once, in order;
/// a unit's items are adjacent; partial slots are distinct and below
/// `partials`; items are ordered by split length, longest first.
void expectCovers(const SplitSchedule &s, const std::vector<int64_t> &lengths,
                  int64_t units, const SplitScheduleOptions &o) {
  ASSERT_EQ(s.table.size(), size_t(SplitSchedule::Fields * s.items));
  std::map<int64_t, std::vector<int64_t>> unitItems;
  std::set<int64_t> slots;
  int64_t lastUnit = -1, longest = INT64_MAX;
  std::set<int64_t> finished;
  for (int64_t i = 0; i < s.items; ++i) {
    int64_t u = at(s, SplitSchedule::Unit, i);
    ASSERT_GE(u, 0);
    ASSERT_LT(u, int64_t(lengths.size()) * units);
    if (u != lastUnit) {
      ASSERT_FALSE(finished.count(u)) << "unit " << u << " not adjacent";
      if (lastUnit >= 0)
        finished.insert(lastUnit);
      lastUnit = u;
    }
    unitItems[u].push_back(i);
    int64_t keys = at(s, SplitSchedule::SplitKeys, i);
    EXPECT_LE(keys, longest) << "item " << i;
    longest = keys;
  }
  ASSERT_EQ(int64_t(unitItems.size()), int64_t(lengths.size()) * units);
  for (auto &[u, items] : unitItems) {
    int64_t n = std::clamp<int64_t>(lengths[u / units], 0, o.maxKeys);
    int64_t splits = at(s, SplitSchedule::Splits, items[0]);
    int64_t keys = at(s, SplitSchedule::SplitKeys, items[0]);
    int64_t first = at(s, SplitSchedule::FirstPartial, items[0]);
    ASSERT_EQ(int64_t(items.size()), splits) << "unit " << u;
    EXPECT_EQ(keys % o.keysPerTrip, 0);
    EXPECT_GE(keys, o.keysPerTrip);
    // Split j takes [j * keys, (j + 1) * keys), the last up to n: no empty
    // split, none missing.
    EXPECT_LT((splits - 1) * keys, std::max<int64_t>(n, 1)) << "unit " << u;
    EXPECT_GE(splits * keys, n) << "unit " << u;
    for (int64_t j = 0; j < splits; ++j) {
      EXPECT_EQ(at(s, SplitSchedule::Split, items[j]), j);
      EXPECT_EQ(at(s, SplitSchedule::Splits, items[j]), splits);
      EXPECT_EQ(at(s, SplitSchedule::SplitKeys, items[j]), keys);
      EXPECT_EQ(at(s, SplitSchedule::FirstPartial, items[j]), first);
    }
    if (splits == 1) {
      EXPECT_EQ(first, -1);
      continue;
    }
    for (int64_t j = 0; j < splits; ++j) {
      EXPECT_TRUE(slots.insert(first + j).second) << "slot " << first + j;
      EXPECT_LT(first + j, s.partials);
    }
  }
  EXPECT_EQ(int64_t(slots.size()), s.partials);
}

SplitScheduleOptions h200(int64_t maxKeys) {
  SplitScheduleOptions o;
  o.slots = 2 * 132;
  o.maxKeys = maxKeys;
  return o;
}

TEST(SplitSchedule, UniformBatchThatFillsTheGpuIsNotSplit) {
  // 32 x 8 units of 64 key tiles on 264 slots: one wave without splits.
  std::vector<int64_t> lengths(32, 4096);
  Expected<SplitSchedule> s = splitKVSchedule(lengths, 8, h200(4096));
  ASSERT_TRUE(s) << s.status().message();
  expectCovers(*s, lengths, 8, h200(4096));
  EXPECT_EQ(s->items, 256);
  EXPECT_EQ(s->maxSplits, 1);
  EXPECT_EQ(s->partials, 0);
}

TEST(SplitSchedule, UniformBatchesSplitAsMeasuredBest) {
  // The split counts that ran fastest on an H200 (132 multiprocessors, two
  // blocks each) with num_splits forced, each at the merge cost
  // flash_decoding.tile has there (2 / its partials per merge trip: 16 at
  // 4 query heads per KV head, 8 at 8, 32 at 1) and the blocks that
  // saturate the memory (three key tiles in flight a multiprocessor).
  struct Case {
    int64_t batch, keys, units, splits;
    double mergeTrips;
  };
  auto check = [](const std::vector<Case> &cases, int64_t saturating) {
    for (Case c : cases) {
      std::vector<int64_t> lengths(c.batch, c.keys);
      SplitScheduleOptions o = h200(c.keys);
      o.mergeTrips = c.mergeTrips;
      o.multiprocessors = 132;
      o.saturatingSlots = saturating;
      Expected<SplitSchedule> s = splitKVSchedule(lengths, c.units, o);
      ASSERT_TRUE(s) << s.status().message();
      EXPECT_EQ(s->maxSplits, c.splits)
          << c.batch << " x " << c.keys << ", saturating " << saturating;
      EXPECT_EQ(s->items, c.batch * c.units * c.splits);
    }
  };
  // Two key tiles in flight (1.5 blocks a multiprocessor saturate;
  // bench/results/2026-11-29-h200-decode-plan.md and -decode-merge-rows.md):
  // 8 x 32k keys and 8 KV heads at 4, 4 x 16k (64/8 heads) at 8, 16 x 8k
  // with 32 KV heads at 1; one sequence of 4k keys at 16, 16k and 64k at 32.
  check({Case{8, 32768, 8, 4, 0.125}, Case{4, 16384, 8, 8, 0.25},
         Case{16, 8192, 32, 1, 0.0625}, Case{1, 4096, 8, 16, 0.125},
         Case{1, 16384, 8, 32, 0.125}, Case{1, 65536, 8, 32, 0.125}},
        198);
  // Three (one block a multiprocessor saturates;
  // bench/results/2026-11-29-h200-decode-merge-rows.md): one sequence of
  // 16k, 64k and 128k keys at 16, 8 x 32k at 2, 4 x 16k (64/8) at 4,
  // 2 x 64k at 8, 8 x 4k at 2, 16 x 8k of 32 KV heads at 1.
  check({Case{1, 16384, 8, 16, 0.125}, Case{1, 65536, 8, 16, 0.125},
         Case{1, 131072, 8, 16, 0.125}, Case{8, 32768, 8, 2, 0.125},
         Case{4, 16384, 8, 4, 0.25}, Case{2, 65536, 8, 8, 0.125},
         Case{8, 4096, 8, 2, 0.125}, Case{16, 8192, 32, 1, 0.0625}},
        132);
}

TEST(SplitSchedule, BlocksSharingAMultiprocessorShareItsMemory) {
  // 1 x 64k keys, 8 units: where one block a multiprocessor saturates its
  // memory, 16 splits (128 blocks, one each) beat 32 (two each, at half
  // the speed, plus twice the merge); where every resident block reads at
  // full speed, 32 win.
  SplitScheduleOptions o = h200(65536);
  o.mergeTrips = 0.125;
  o.multiprocessors = 132;
  o.saturatingSlots = 132;
  Expected<SplitSchedule> s = splitKVSchedule({65536}, 8, o);
  ASSERT_TRUE(s) << s.status().message();
  EXPECT_EQ(s->maxSplits, 16);
  expectCovers(*s, {65536}, 8, o);
  o.saturatingSlots = 0;
  s = splitKVSchedule({65536}, 8, o);
  ASSERT_TRUE(s) << s.status().message();
  EXPECT_EQ(s->maxSplits, 32);
}

TEST(SplitSchedule, TheMergeFollowsTheUnitsLastSplitToFinish) {
  // 64 key tiles in 13 splits (12 of 5 tiles, a last of 4) against 16 of
  // 4: the merge starts when the longest split ends, whatever split is
  // last in order, so the even cut wins (measured: 16 splits 1,260 GB/s,
  // 13 splits 1,147).
  SplitScheduleOptions o = h200(4096);
  o.mergeTrips = 0.125;
  Expected<SplitSchedule> s = splitKVSchedule({4096}, 8, o);
  ASSERT_TRUE(s) << s.status().message();
  EXPECT_EQ(s->maxSplits, 16);
  expectCovers(*s, {4096}, 8, o);
}

TEST(SplitSchedule, OneLongSequenceIsSpreadOverTheGpu) {
  std::vector<int64_t> lengths = {131072};
  Expected<SplitSchedule> s = splitKVSchedule(lengths, 8, h200(131072));
  ASSERT_TRUE(s) << s.status().message();
  expectCovers(*s, lengths, 8, h200(131072));
  EXPECT_GE(s->items, 200);
  EXPECT_LE(s->items, 8 * 64);
  EXPECT_EQ(s->partials, s->items);
}

TEST(SplitSchedule, SkewedBatchSplitsTheLongSequenceOnly) {
  // 1 x 64k + 63 x 1k: the long sequence's splits first, the short ones
  // whole behind them, no unit much longer than the average slot's work.
  std::vector<int64_t> lengths(64, 1024);
  lengths[0] = 65536;
  Expected<SplitSchedule> s = splitKVSchedule(lengths, 8, h200(65536));
  ASSERT_TRUE(s) << s.status().message();
  expectCovers(*s, lengths, 8, h200(65536));
  int64_t longSplits = at(*s, SplitSchedule::Splits, 0);
  EXPECT_EQ(at(*s, SplitSchedule::Unit, 0), 0);
  EXPECT_GE(longSplits, 8);
  EXPECT_EQ(s->items, 8 * longSplits + 63 * 8);
  int64_t avgTiles = (8 * 1024 + 63 * 8 * 16) / 264;
  EXPECT_LE(at(*s, SplitSchedule::SplitKeys, 0) / 64, 2 * avgTiles);
}

TEST(SplitSchedule, WorkTableListsTheUnitsItMerges) {
  // The layout the decode kernels read (WorkTables.h): the items' five
  // rows, then per unit its splits, its first partial slot and, in a third
  // row, the units of more than one split in order (mla_combine's grid).
  std::vector<int64_t> lengths(6, 1024);
  lengths[0] = 65536;
  lengths[4] = 0;
  const int64_t units = 2;
  Expected<SplitSchedule> s = splitKVSchedule(lengths, units, h200(65536));
  ASSERT_TRUE(s) << s.status().message();
  std::vector<int32_t> words;
  decode::WorkTable t = decode::layOut(*s, 6 * units, words);
  EXPECT_EQ(t.data, nullptr);
  EXPECT_EQ(t.items, s->items);
  EXPECT_EQ(t.partials, s->partials);
  EXPECT_EQ(t.maxSplits, s->maxSplits);
  EXPECT_EQ(t.padded % 4, 0);
  EXPECT_GE(t.padded, t.items);
  EXPECT_EQ(t.units, 12);
  EXPECT_EQ(t.unitsPadded, 12);
  ASSERT_EQ(words.size(),
            size_t(SplitSchedule::Fields * t.padded + 3 * t.unitsPadded));
  for (int f = 0; f < SplitSchedule::Fields; ++f)
    for (int64_t i = 0; i < t.items; ++i)
      EXPECT_EQ(words[f * t.padded + i], s->table[f * s->items + i]);
  const int32_t *splits = words.data() + SplitSchedule::Fields * t.padded;
  const int32_t *slots = splits + t.unitsPadded;
  const int32_t *merged = slots + t.unitsPadded;
  std::vector<int32_t> expected;
  for (int64_t u = 0; u < t.units; ++u) {
    EXPECT_EQ(splits[u], lengths[u / units] == 65536 ? s->maxSplits : 1)
        << "unit " << u;
    EXPECT_EQ(slots[u] < 0, splits[u] == 1) << "unit " << u;
    if (splits[u] > 1)
      expected.push_back(int32_t(u));
  }
  // The long sequence's two row blocks, and no other unit.
  EXPECT_EQ(expected, (std::vector<int32_t>{0, 1}));
  ASSERT_EQ(t.mergedUnits, int64_t(expected.size()));
  EXPECT_EQ(std::vector<int32_t>(merged, merged + t.mergedUnits), expected);
  for (int64_t k = t.mergedUnits; k < t.unitsPadded; ++k)
    EXPECT_EQ(merged[k], 0);
}

TEST(SplitSchedule, EmptyAndClampedSequencesHaveOneItem) {
  std::vector<int64_t> lengths = {0, -5, 1, 10000};
  SplitScheduleOptions o = h200(100);
  Expected<SplitSchedule> s = splitKVSchedule(lengths, 2, o);
  ASSERT_TRUE(s) << s.status().message();
  expectCovers(*s, lengths, 2, o);
  EXPECT_EQ(s->items, 8); // 2 key tiles at most: no split of 4 tiles
}

TEST(SplitSchedule, ForcedSplitsCutEachSequenceByItsOwnLength) {
  std::vector<int64_t> lengths = {4096, 100, 0};
  SplitScheduleOptions o = h200(4096);
  o.splits = 5;
  Expected<SplitSchedule> s = splitKVSchedule(lengths, 1, o);
  ASSERT_TRUE(s) << s.status().message();
  expectCovers(*s, lengths, 1, o);
  EXPECT_EQ(at(*s, SplitSchedule::Splits, 0), 5); // 64 tiles: 13 each
  EXPECT_EQ(at(*s, SplitSchedule::SplitKeys, 0), 13 * 64);
  EXPECT_EQ(s->items, 5 + 2 + 1); // 100 keys: 2 tiles; 0 keys: 1
}

TEST(SplitSchedule, RefusesArgumentsOutOfRange) {
  std::vector<int64_t> lengths = {10};
  SplitScheduleOptions o;
  EXPECT_EQ(splitKVSchedule(lengths, 0, o).status().message(),
            "tile::splitKVSchedule: units: 0 is outside 1 .. 2^31-1");
  o.keysPerTrip = 0;
  EXPECT_EQ(splitKVSchedule(lengths, 1, o).status().message(),
            "tile::splitKVSchedule: keysPerTrip: 0 is outside 1 .. 2^31-1");
  o = {};
  o.splits = -1;
  EXPECT_EQ(splitKVSchedule(lengths, 1, o).status().message(),
            "tile::splitKVSchedule: splits: -1 is outside 0 .. 2^31-1");
  o = {};
  o.saturatingSlots = -1;
  EXPECT_EQ(splitKVSchedule(lengths, 1, o).status().message(),
            "tile::splitKVSchedule: saturatingSlots: -1 is outside 0 .. "
            "2^31-1");
  o = {};
  o.multiprocessors = -2;
  EXPECT_EQ(splitKVSchedule(lengths, 1, o).status().message(),
            "tile::splitKVSchedule: multiprocessors: -2 is outside 0 .. "
            "2^31-1");
  o = {};
  o.slots = int64_t(1) << 40;
  EXPECT_NE(splitKVSchedule(lengths, 1, o).status().message().find("slots"),
            std::string::npos);
}

TEST(SplitSchedule, CApiSizesThenFills) {
  int64_t lengths[] = {65536, 1024, 1024};
  int64_t items = -1, partials = -1, most = -1;
  ASSERT_EQ(tile_split_kv_schedule(lengths, 3, 8, 64, 264, 0, 0, 65536, 0, 0.5,
                                   nullptr, 0, &items, &partials, &most),
            TILE_OK);
  Expected<SplitSchedule> s = splitKVSchedule(
      std::vector<int64_t>(lengths, lengths + 3), 8, h200(65536));
  ASSERT_TRUE(s);
  EXPECT_EQ(items, s->items);
  EXPECT_EQ(partials, s->partials);
  EXPECT_EQ(most, s->maxSplits);
  std::vector<int32_t> table(5 * items, -7);
  ASSERT_EQ(tile_split_kv_schedule(lengths, 3, 8, 64, 264, 0, 0, 65536, 0, 0.5,
                                   table.data(), table.size(), &items,
                                   &partials, &most),
            TILE_OK);
  EXPECT_EQ(table, s->table);
  EXPECT_EQ(tile_split_kv_schedule(nullptr, 3, 8, 64, 264, 0, 0, 65536, 0, 0.5,
                                   nullptr, 0, &items, &partials, &most),
            TILE_ERROR);
  EXPECT_NE(std::string(tile_last_error()).find("lengths"), std::string::npos);
  EXPECT_EQ(tile_split_kv_schedule(lengths, 3, 8, 64, 0, 0, 0, 65536, 0, 0.5,
                                   nullptr, 0, &items, &partials, &most),
            TILE_ERROR);
  EXPECT_EQ(std::string(tile_last_error()),
            "tile::splitKVSchedule: slots: 0 is outside 1 .. 2^31-1");
}

} // namespace

TEST(SplitSchedule, AMergeOfItsOwnAllowsMoreSplits) {
  // MLA's 1 x 64k keys in 2 row blocks on 132 slots: merged by the split
  // kernel (0.5 tiles per partial) fewer splits pay; merged by a kernel of
  // its own (0), every slot takes one.
  SplitScheduleOptions o;
  o.slots = 132;
  o.maxKeys = 65536;
  Expected<SplitSchedule> inKernel = splitKVSchedule({65536}, 2, o);
  o.mergeTrips = 0;
  Expected<SplitSchedule> apart = splitKVSchedule({65536}, 2, o);
  ASSERT_TRUE(inKernel && apart);
  EXPECT_LT(inKernel->maxSplits, apart->maxSplits);
  EXPECT_EQ(apart->maxSplits, 64);
  o.mergeTrips = -1;
  EXPECT_EQ(splitKVSchedule({1}, 1, o).status().message(),
            "tile::splitKVSchedule: mergeTrips: -1.000000 is outside 0 .. 1e6");
}
