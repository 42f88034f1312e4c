"""The records of a kernel compiled with timeline=N (the compiler's
tile-timeline pass): when the first thread of each warpgroup of each block
reached the kernel's start and end, and each loop's entry, trips and exit.

    k = tilec.compile("kernels/linear.tile", "linear", timeline=256, ...)
    k.launch(grid, ...)
    t = k.timeline()
    print(t.table())         # median time between consecutive sites

A record is (block, warpgroup, index, site, ns, clock): the block in x, y, z
order, the warpgroup within it (in a warp-specialized kernel the producer's
is the last), the record's place in its warpgroup's log, the site's number
(t.sites[site] says what it is), the GPU's global timer in ns and the low 32
bits of the multiprocessor's clock. A log keeps its warpgroup's first N - 1
records and its latest (N is a power of two).
"""

import statistics
from collections import defaultdict, namedtuple

Record = namedtuple("Record", "block warpgroup index site ns clock")


class Timeline:
    def __init__(self, sites, words, blocks, warpgroups, records):
        self.sites = list(sites)
        self.blocks = blocks
        self.warpgroups = warpgroups
        self.capacity = records
        self.records = []
        for log in range(blocks * warpgroups):
            for i in range(records):
                at = (log * records + i) * 2
                ns, word = words[at], words[at + 1]
                if ns == 0 and word == 0:
                    break
                self.records.append(Record(log // warpgroups,
                                           log % warpgroups, i, word >> 32,
                                           ns, word & 0xFFFFFFFF))

    def logs(self):
        """The records of each (block, warpgroup), in the order written."""
        out = defaultdict(list)
        for r in self.records:
            out[(r.block, r.warpgroup)].append(r)
        return out

    def full(self):
        """The logs that reached their capacity: their last record is the
        latest of several (those between were overwritten)."""
        return [key for key, log in self.logs().items()
                if len(log) >= self.capacity]

    def steps(self):
        """Every step from one record to the next of the same log: a dict
        from (site, next site) to the list of their durations in clock
        cycles of the multiprocessor (the clock's low 32 bits, wrapped)."""
        out = defaultdict(list)
        for log in self.logs().values():
            for a, b in zip(log, log[1:]):
                out[(a.site, b.site)].append((b.clock - a.clock) % 2**32)
        return out

    def span_ns(self):
        """The global timer's span over all records: the first start to the
        last record, in ns."""
        if not self.records:
            return 0
        return (max(r.ns for r in self.records) -
                min(r.ns for r in self.records))

    def table(self, share=True):
        """A text table of the steps between consecutive sites: how often,
        the median and the total in clock cycles, and each step's share of
        all the logs' cycles."""
        steps = self.steps()
        total = sum(sum(v) for v in steps.values()) or 1
        rows = sorted(steps.items(), key=lambda kv: -sum(kv[1]))
        name = lambda s: self.sites[s] if s < len(self.sites) else str(s)
        lines = [f"{'from':44s} {'to':44s} {'count':>6s} {'median':>9s} "
                 f"{'share':>6s}"]
        for (a, b), v in rows:
            lines.append(f"{name(a)[:44]:44s} {name(b)[:44]:44s} {len(v):6d} "
                         f"{statistics.median(v):9.0f} "
                         f"{sum(v) / total:6.3f}")
        return "\n".join(lines)
