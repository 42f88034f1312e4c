//===- SplitSchedule.cpp - tile::splitKVSchedule, decode's work items -----===//
//
// The split-KV schedule of a decode batch (tile/Decode.h). Each sequence's
// keys are cut into splits of at most `chunk` key tiles; the chunk is
// chosen among those that cut the longest sequence in 1 .. maxSplits by
// simulating the hardware's block dispatch — items handed out in order,
// longest first, each to the first free slot — with a cost per item of
// its key tiles plus two (its prologue, the first tiles' latency, its
// partial output); a unit of several splits ends mergeTrips per partial
// after its last split finishes (a merge in the split kernel, by the split
// in last: its loads; 0 for a merge by a kernel of its own). The fewest
// splits win a tie.
//
//===----------------------------------------------------------------------===//

#include "tile/Decode.h"

#include <algorithm>
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

/// When the last of the cut's items would finish (in key tiles), each
/// handed in order to the slot free first.
double simulate(const Cut &c, const std::vector<int64_t> &tiles, int64_t units,
                int64_t slots, double mergeTrips) {
  int64_t items = 0;
  for (int64_t b : c.order)
    items += c.splits[b] * units;
  std::priority_queue<double, std::vector<double>, std::greater<double>> free;
  for (int64_t i = 0; i < std::min(slots, items); ++i)
    free.push(0);
  double end = 0;
  for (int64_t b : c.order) {
    // The split of a unit that finishes last merges its partials: the
    // unit ends the merge after its last split (not after the split last
    // in order: a shorter last split does not hide the merge).
    double merge = c.splits[b] > 1 ? mergeTrips * double(c.splits[b]) : 0;
    for (int64_t u = 0; u < units; ++u) {
      double unitEnd = 0;
      for (int64_t j = 0; j < c.splits[b]; ++j) {
        int64_t keys = j + 1 < c.splits[b] ? c.splitTiles[b]
                                           : tiles[b] - j * c.splitTiles[b];
        double at = free.top() + double(keys) + 2;
        free.pop();
        free.push(at);
        unitEnd = std::max(unitEnd, at);
      }
      end = std::max(end, unitEnd + merge);
    }
  }
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
        Bound{"slots", options.slots, 1}, Bound{"maxKeys", options.maxKeys, 0},
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
      double end = simulate(c, tiles, units, options.slots, options.mergeTrips);
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
