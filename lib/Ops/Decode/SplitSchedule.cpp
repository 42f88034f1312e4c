//===- SplitSchedule.cpp - tile::splitKVSchedule, decode's work items -----===//
//
// The split-KV schedule of a decode batch (tile/Decode.h). Each sequence's
// keys are cut into splits of at most `chunk` key tiles; the chunk is
// chosen among those that cut the longest sequence in 1 .. maxSplits by
// simulating the hardware's block dispatch — items handed out in order,
// longest first, one to each multiprocessor in turn, then each to where a
// block ended; the active blocks of a multiprocessor sharing its share of
// the memory once more than its part of saturatingSlots run — with a cost
// per item of
// its key tiles plus two (its prologue, the first tiles' latency, its
// partial output); a unit of several splits ends mergeTrips per partial
// after its last split finishes (a merge in the split kernel, by the split
// in last: its loads; 0 for a merge by a kernel of its own). The fewest
// splits win a tie.
//
//===----------------------------------------------------------------------===//

#include "tile/Decode.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <queue>
#include <string>

using namespace tile;

namespace {

Status refuse(const std::string &message) {
  return Status::error("tile::splitKVSchedule: " + message);
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// An item's prologue, in key tiles' time: its table entry and length
/// read, its first tiles' latency, its partial output written.
constexpr double kPrologue = 2;

/// Each sequence's split length (key tiles) and count for one chunk, and
/// the sequences in item order (longest items first).
struct Cut {
  std::vector<int64_t> splitTiles, splits, order;
};

Cut cut(const std::vector<int64_t> &tiles, int64_t chunk, int64_t forced,
        int64_t most) {
  int64_t batch = static_cast<int64_t>(tiles.size());
  Cut c;
  c.splitTiles.resize(batch);
  c.splits.resize(batch);
  for (int64_t b = 0; b < batch; ++b) {
    int64_t want = forced ? forced : ceilDiv(tiles[b], chunk);
    want = std::clamp<int64_t>(want, 1, most);
    c.splitTiles[b] = ceilDiv(tiles[b], want);
    c.splits[b] = ceilDiv(tiles[b], c.splitTiles[b]); // no empty split
  }
  c.order.resize(batch);
  std::iota(c.order.begin(), c.order.end(), 0);
  std::stable_sort(c.order.begin(), c.order.end(), [&](int64_t a, int64_t b) {
    return c.splitTiles[a] > c.splitTiles[b];
  });
  return c;
}

/// When the last of the cut's units would end (in key tiles at the rate of
/// a block alone): its items handed out in order, first one to each
/// multiprocessor, then another to each, ..., then each to the
/// multiprocessor where a block ended. An item first waits two tiles'
/// time (its prologue and first loads: latency, not bandwidth), then reads
/// its key tiles. A multiprocessor keeps `slots` / `multiprocessors` blocks
/// resident; past `saturating` / `multiprocessors` of them reading, they
/// share its share of the memory, each at that number / readers key tiles a
/// tile's time.
double simulate(const Cut &c, const std::vector<int64_t> &tiles, int64_t units,
                int64_t slots, int64_t saturating, int64_t multiprocessors,
                double mergeTrips) {
  // The items in dispatch order: (key tiles, unit in order).
  std::vector<std::pair<double, int64_t>> items;
  std::vector<double> merge;
  for (int64_t b : c.order) {
    for (int64_t u = 0; u < units; ++u) {
      // The split of a unit that finishes last merges its partials: the
      // unit ends the merge after its last split (not after the split
      // last in order: a shorter last split does not hide the merge).
      merge.push_back(c.splits[b] > 1 ? mergeTrips * double(c.splits[b]) : 0);
      for (int64_t j = 0; j < c.splits[b]; ++j) {
        int64_t keys = j + 1 < c.splits[b] ? c.splitTiles[b]
                                           : tiles[b] - j * c.splitTiles[b];
        items.push_back({double(keys), int64_t(merge.size()) - 1});
      }
    }
  }
  int64_t sms = std::clamp<int64_t>(multiprocessors, 1, slots);
  int64_t perSM = std::max<int64_t>(1, slots / sms);
  double share = double(saturating) / double(sms);
  // Per multiprocessor: its blocks in their prologue (ready at a time), and
  // its readers, which advance alike (processor sharing), so that each ends
  // at a fixed amount of tiles read per reader (`done`, at time `since`).
  // (a time or an amount read, the item's index)
  using Entry = std::pair<double, size_t>;
  using Queue =
      std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>>;
  struct SM {
    Queue waiting, reading; // by ready time; by `done` at their end
    double done = 0, since = 0;
    double rate(double share) const {
      return std::min(1.0, share / double(reading.size()));
    }
  };
  std::vector<SM> sm(sms);
  using Event = std::pair<double, int64_t>; // (time, multiprocessor)
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events;
  // Each multiprocessor has one event queued at a time: its next change.
  auto queueNext = [&](int64_t m) {
    SM &x = sm[m];
    double at = INFINITY;
    if (!x.waiting.empty())
      at = x.waiting.top().first;
    if (!x.reading.empty())
      at = std::min(at,
                    x.since + (x.reading.top().first - x.done) / x.rate(share));
    if (at < INFINITY)
      events.push({at, m});
  };
  size_t next = 0;
  auto start = [&](SM &x, double now) {
    x.waiting.push({now + kPrologue, next});
    ++next;
  };
  for (int64_t round = 0; round < perSM; ++round)
    for (int64_t m = 0; m < sms && next < items.size(); ++m)
      start(sm[m], 0);
  for (int64_t m = 0; m < sms; ++m)
    queueNext(m);
  std::vector<double> unitEnd(merge.size(), 0);
  while (!events.empty()) {
    auto [now, m] = events.top();
    events.pop();
    SM &x = sm[m];
    if (!x.reading.empty())
      x.done += (now - x.since) * x.rate(share);
    x.since = now;
    if (!x.waiting.empty() && x.waiting.top().first <= now) {
      // A prologue ends: the block starts reading.
      size_t item = x.waiting.top().second;
      x.waiting.pop();
      x.reading.push({x.done + items[item].first, item});
    } else {
      // A reader ends; the slot takes the next item.
      auto [at, item] = x.reading.top();
      x.reading.pop();
      x.done = at;
      int64_t unit = items[item].second;
      unitEnd[unit] = std::max(unitEnd[unit], now);
      if (next < items.size())
        start(x, now);
    }
    queueNext(m);
  }
  double end = 0;
  for (size_t u = 0; u < merge.size(); ++u)
    end = std::max(end, unitEnd[u] + merge[u]);
  return end;
}

} // namespace

Expected<SplitSchedule>
tile::splitKVSchedule(const std::vector<int64_t> &lengths, int64_t units,
                      const SplitScheduleOptions &options) {
  struct Bound {
    const char *name;
    int64_t value, low;
  };
  for (Bound b :
       {Bound{"units", units, 1}, Bound{"keysPerTrip", options.keysPerTrip, 1},
        Bound{"slots", options.slots, 1},
        Bound{"saturatingSlots", options.saturatingSlots, 0},
        Bound{"multiprocessors", options.multiprocessors, 0},
        Bound{"maxKeys", options.maxKeys, 0},
        Bound{"minTrips", options.minTrips, 1},
        Bound{"maxSplits", options.maxSplits, 1},
        Bound{"splits", options.splits, 0}})
    if (b.value < b.low || b.value > INT32_MAX)
      return refuse(std::string(b.name) + ": " + std::to_string(b.value) +
                    " is outside " + std::to_string(b.low) + " .. 2^31-1");
  if (!(options.mergeTrips >= 0 && options.mergeTrips <= 1e6))
    return refuse("mergeTrips: " + std::to_string(options.mergeTrips) +
                  " is outside 0 .. 1e6");
  int64_t batch = static_cast<int64_t>(lengths.size());
  if (batch * units > INT32_MAX)
    return refuse("batch x units: " + std::to_string(batch) + " x " +
                  std::to_string(units) + " is over 2^31-1");

  // Key tiles of each sequence (at least one: its item writes the output).
  std::vector<int64_t> tiles(batch);
  for (int64_t b = 0; b < batch; ++b) {
    int64_t keys = std::clamp<int64_t>(lengths[b], 0, options.maxKeys);
    tiles[b] = std::max<int64_t>(1, ceilDiv(keys, options.keysPerTrip));
  }

  int64_t saturating =
      options.saturatingSlots ? options.saturatingSlots : options.slots;
  Cut best;
  if (batch == 0) {
    // No sequence: no item.
  } else if (options.splits) {
    best = cut(tiles, 0, options.splits, options.maxSplits);
  } else {
    // Every split count of the longest sequence (its chunk: the longest
    // split any sequence gets), no split first; the first of the
    // shortest simulated times.
    int64_t longest = *std::max_element(tiles.begin(), tiles.end());
    double bestEnd = 0;
    int64_t lastChunk = 0;
    for (int64_t n = 1; n <= options.maxSplits; ++n) {
      int64_t chunk = std::max(options.minTrips, ceilDiv(longest, n));
      if (chunk == lastChunk)
        continue;
      lastChunk = chunk;
      Cut c = cut(tiles, chunk, 0, options.maxSplits);
      // A cut whose work, each item's prologue counted as reading too,
      // would take longer at the saturated rate than the best cut's end
      // is not simulated. This is not a bound (prologues overlap other
      // blocks' reading): it keeps cuts of many small items out, which the
      // simulation, pricing an item's partial output and its share of the
      // merge low, would favor by a few percent where a batch fills the
      // GPU already (64 x 32k keys: 17 splits instead of 1; 8 x 128k: 41
      // instead of 2, which measured 1.02x cuDNN; none measured), and it
      // saves the time (2.8 s to 0.04 s at 256 x 32k keys, 32 KV heads).
      if (n > 1) {
        double work = 0;
        for (int64_t b = 0; b < batch; ++b)
          work += double(units) *
                  (double(tiles[b]) + kPrologue * double(c.splits[b]));
        if (work / double(std::min(saturating, options.slots)) >= bestEnd)
          continue;
      }
      double end = simulate(c, tiles, units, options.slots, saturating,
                            options.multiprocessors, options.mergeTrips);
      if (n == 1 || end < bestEnd) {
        best = std::move(c);
        bestEnd = end;
      }
    }
  }

  SplitSchedule s;
  for (int64_t b = 0; b < batch; ++b) {
    s.items += best.splits[b] * units;
    s.maxSplits = std::max(s.maxSplits, best.splits[b]);
    if (best.splitTiles[b] * options.keysPerTrip > INT32_MAX)
      return refuse("a split of " + std::to_string(best.splitTiles[b]) + " x " +
                    std::to_string(options.keysPerTrip) +
                    " keys is over 2^31-1");
  }
  if (s.items > INT32_MAX)
    return refuse(std::to_string(s.items) + " items are over 2^31-1");
  s.table.assign(SplitSchedule::Fields * s.items, 0);
  int64_t item = 0;
  for (int64_t b : best.order) {
    for (int64_t u = 0; u < units; ++u) {
      int64_t first = best.splits[b] > 1 ? s.partials : -1;
      if (best.splits[b] > 1)
        s.partials += best.splits[b];
      for (int64_t j = 0; j < best.splits[b]; ++j, ++item) {
        int64_t fields[SplitSchedule::Fields] = {
            b * units + u, j, best.splitTiles[b] * options.keysPerTrip,
            best.splits[b], first};
        for (int f = 0; f < SplitSchedule::Fields; ++f)
          s.table[f * s.items + item] = static_cast<int32_t>(fields[f]);
      }
    }
  }
  if (s.partials > INT32_MAX)
    return refuse(std::to_string(s.partials) +
                  " partial outputs are over 2^31-1");
  return s;
}
