//===- WorkTables.cpp - split-KV schedules on the device ------------------===//

#include "WorkTables.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>

using namespace tile;
using namespace tile::decode;

namespace {

using Key = std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                       int64_t, int64_t, int64_t, int64_t, int64_t>;

int64_t padTo4(int64_t n) { return std::max<int64_t>(4, (n + 3) / 4 * 4); }

Expected<WorkTable> upload(const std::vector<int64_t> &lengths, int64_t units,
                           const SplitScheduleOptions &o) {
  Expected<SplitSchedule> s = splitKVSchedule(lengths, units, o);
  if (!s)
    return s.status();
  std::vector<int32_t> host;
  WorkTable t = layOut(*s, int64_t(lengths.size()) * units, host);
  Expected<void *> memory = deviceAlloc(host.size() * sizeof(int32_t));
  if (!memory)
    return memory.status();
  t.data = *memory;
  if (Status c = copyToDevice(t.data, host.data(), host.size() * 4); !c.ok()) {
    (void)deviceFree(t.data);
    return Status::error(
        "building the split-KV schedule of a problem class on the device "
        "(done at its first call, or a plan's; not possible while a CUDA "
        "graph captures: call once before capturing): " +
        c.message());
  }
  return t;
}

} // namespace

WorkTable decode::layOut(const SplitSchedule &s, int64_t units,
                         std::vector<int32_t> &words) {
  WorkTable t;
  t.items = s.items;
  t.partials = s.partials;
  t.maxSplits = s.maxSplits;
  t.padded = padTo4(s.items);
  t.units = units;
  t.unitsPadded = padTo4(t.units);
  words.assign(SplitSchedule::Fields * t.padded + 3 * t.unitsPadded, 0);
  for (int f = 0; f < SplitSchedule::Fields; ++f)
    std::copy(s.table.begin() + f * s.items,
              s.table.begin() + (f + 1) * s.items,
              words.begin() + f * t.padded);
  int32_t *unitRows = words.data() + SplitSchedule::Fields * t.padded;
  for (int64_t i = 0; i < s.items; ++i) {
    int64_t u = s.table[SplitSchedule::Unit * s.items + i];
    unitRows[u] = s.table[SplitSchedule::Splits * s.items + i];
    unitRows[t.unitsPadded + u] =
        s.table[SplitSchedule::FirstPartial * s.items + i];
  }
  for (int64_t u = 0; u < t.units; ++u)
    if (unitRows[u] > 1)
      unitRows[2 * t.unitsPadded + t.mergedUnits++] = int32_t(u);
  return t;
}

Tensor WorkTable::itemTensor() const {
  return Tensor(data, DType::I32, {SplitSchedule::Fields, items}, {padded, 1});
}

Tensor WorkTable::unitTensor() const {
  return Tensor(static_cast<int32_t *>(data) + SplitSchedule::Fields * padded,
                DType::I32, {3, units}, {unitsPadded, 1});
}

struct DecodePlan::Tables {
  std::mutex mutex;
  std::map<Key, WorkTable> tables;
};

DecodePlan::DecodePlan(std::vector<int64_t> lengths)
    : lengths_(std::move(lengths)), tables_(std::make_unique<Tables>()) {}

DecodePlan::~DecodePlan() {
  if (tables_->tables.empty())
    return;
  (void)synchronizeDevice(); // launches may still read the tables
  for (auto &[key, table] : tables_->tables)
    (void)deviceFree(table.data);
}

Expected<WorkTable> decode::workTable(const DecodePlan *plan, int64_t batch,
                                      int64_t units,
                                      const SplitScheduleOptions &o) {
  Key key{batch,
          units,
          o.keysPerTrip,
          o.maxKeys,
          o.slots,
          o.minTrips,
          o.maxSplits,
          o.splits,
          int64_t(o.mergeTrips * 1024),
          o.saturatingSlots,
          o.multiprocessors};
  static std::mutex uniformMutex;
  static std::map<Key, WorkTable> uniform;
  std::mutex &mutex = plan ? plan->tables().mutex : uniformMutex;
  std::map<Key, WorkTable> &tables = plan ? plan->tables().tables : uniform;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = tables.find(key);
  if (it != tables.end())
    return it->second;
  Expected<WorkTable> t =
      upload(plan ? plan->lengths() : std::vector<int64_t>(batch, o.maxKeys),
             units, o);
  if (!t)
    return t;
  return tables.emplace(key, *t).first->second;
}
