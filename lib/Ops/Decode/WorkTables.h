//===- WorkTables.h - split-KV schedules on the device --------------------===//
//
// The decode operations' work tables: tile::splitKVSchedule of a batch
// uploaded once and kept, per problem shape (sequences at the cache's
// capacity) or per tile::DecodePlan (the planned lengths).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_OPS_DECODE_WORKTABLES_H
#define TILE_OPS_DECODE_WORKTABLES_H

#include "tile/Decode.h"

namespace tile::decode {

/// A schedule on the device: `items` (5, padded) int32, as
/// SplitSchedule::table with rows `padded` apart (a multiple of 4), then
/// `units` (3, unitsPadded) int32: each unit's split count and first
/// partial slot (-1: one split), and in the third row's first
/// `mergedUnits` entries the units of more than one split, in order.
struct WorkTable {
  void *data = nullptr;
  int64_t items = 0, partials = 0, padded = 0;
  int64_t units = 0, unitsPadded = 0;
  /// The most splits of any unit, and the units of more than one.
  int64_t maxSplits = 0, mergedUnits = 0;

  Tensor itemTensor() const;
  Tensor unitTensor() const;
};

/// The work table of a schedule `s` of `units` units in all, as the host
/// lays it out: its fields (but `data`) and, in `words`, the int32 words
/// `data` holds.
WorkTable layOut(const SplitSchedule &s, int64_t units,
                 std::vector<int32_t> &words);

/// The work table of `batch` sequences of `units` units each, scheduled
/// with `options` (maxKeys: the cache's capacity): the plan's lengths with
/// a plan (kept with it), else every sequence at the capacity (kept for
/// the process).
Expected<WorkTable> workTable(const DecodePlan *plan, int64_t batch,
                              int64_t units,
                              const SplitScheduleOptions &options);

} // namespace tile::decode

#endif // TILE_OPS_DECODE_WORKTABLES_H
