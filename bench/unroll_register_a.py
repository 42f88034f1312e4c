#!/usr/bin/env python3
"""A probe on PTX that tilec wrote: each loop whose trip builds a
register-A multiply operand for the next trip (a rotated attention key
loop: P converted into the registers the loop's P V wgmma reads, 16-bit
or 8-bit) unrolled by two, the operand in two sets of registers in turn,
so that a trip's conversion never writes the registers the multiply still
in flight reads. Why: ptxas moves the conversion up among the softmax's
exponentials and the wait for that multiply (`WARPGROUP.DEPBAR.LE gsb0,
0x0`) with it, so P V overlaps only the row max
(bench/results/2026-12-05-h100-consumer-groups-bmm.md, section 3); whether
it keeps two sets apart, and what that buys, is what this measures.

  python3 bench/unroll_register_a.py IN.ptx OUT.ptx

The first copy of the body builds the operand in fresh registers
(%rq...: every mention of the wgmma's A registers after its last
register-A wgmma), the second multiplies from them and builds into the
original ones; a loop that ends after the first copy moves the operand
back before it leaves (the code after the loop reads the original
registers). PTX registers may
be written more than once, so the copies share every other register.
Time it against the input with bench/ptx_ab.py (its --check runs odd and
even trip counts)."""
import re
import sys

COND = re.compile(r"^\s*@(%p\d+) bra \t(\$L__BB\d+_\d+);")
UNCOND = re.compile(r"^\s*bra\.uni \t(\$L__BB\d+_\d+);")
# A wgmma with its A operand in registers: {accumulator}, {A}, descriptor.
RS = re.compile(r"wgmma\.mma_async\S*\s+\{[^}]*\},\s*\{([^}]*)\}")
REG = re.compile(r"%r\d+\b")


def register_a(body):
    """The registers the body's register-A wgmma instructions read, and the
    index of the last line that issues one; (set(), None) without one."""
    regs, last = set(), None
    for i, line in enumerate(body):
        m = RS.search(line)
        if m:
            regs |= set(REG.findall(m.group(1)))
            last = i
    return regs, last


def loops(lines):
    """Each innermost loop whose body writes, after its last register-A
    wgmma, registers that wgmma reads (the next trip's operand: a rotated
    loop's P): (label line, first latch line, line after the latch, the
    predicate that leaves after a trip, where it leaves to: None for the
    line after the latch). Latches as LLVM writes them: `@%p bra LOOP` (the
    loop goes on while %p), or `@%p bra EXIT; bra.uni LOOP` (it leaves when
    %p)."""
    found = []
    for i, line in enumerate(lines):
        cond = COND.match(line)
        if not cond:
            continue
        shapes = [(cond.group(2), 1, f"@!{cond.group(1)}", None)]
        if i + 1 < len(lines) and UNCOND.match(lines[i + 1]):
            shapes.append((UNCOND.match(lines[i + 1]).group(1), 2,
                           f"@{cond.group(1)}", cond.group(2)))
        for back, latch, leave, target in shapes:
            label = next((k for k in range(i - 1, -1, -1)
                          if lines[k].startswith(back + ":")), None)
            if label is None:
                continue
            body = lines[label + 1:i]
            if any(b.startswith("$L__") for b in body):
                continue  # not an innermost loop
            regs, last = register_a(body)
            if last is not None and any(
                    REG.findall(b.split(",")[0]) and
                    REG.findall(b.split(",")[0])[0] in regs
                    for b in body[last + 1:]):
                found.append((label, i, i + latch, leave, target))
                break
    return found


def unroll(text):
    lines = text.split("\n")
    fresh = 0
    found = loops(lines)
    for n, (label, latch, after, leave, target) in \
            reversed(list(enumerate(found))):
        body = lines[label + 1:latch]
        regs, last = register_a(body)
        old = sorted(regs, key=lambda r: int(r[2:]))
        new = [f"%rq{fresh + i}" for i in range(len(old))]
        fresh += len(old)
        names = dict(zip(old, new))

        def rename(line):
            return REG.sub(lambda m: names.get(m.group(0), m.group(0)), line)
        # The first copy builds the next operand in the fresh registers
        # (every mention after its multiplies); the second multiplies from
        # them (every mention up to its multiplies) and builds into the
        # original ones.
        first = body[:last + 1] + [rename(b) for b in body[last + 1:]]
        second = [rename(b) for b in body[:last + 1]] + body[last + 1:]
        cont, done = f"$L__UNROLL_CONT{n}", f"$L__UNROLL_EXIT{n}"
        exit_to = target or done
        lines = (lines[:label + 1] + first +
                 [f"\t{leave} bra \t$L__UNROLL_MID{n};",
                  f"\tbra.uni \t{cont};", f"$L__UNROLL_MID{n}:"] +
                 [f"\tmov.b32 \t{o}, {q};" for o, q in zip(old, new)] +
                 [f"\tbra.uni \t{exit_to};", f"{cont}:"] + second +
                 lines[latch:after] + ([] if target else [f"{done}:"]) +
                 lines[after:])
    out = "\n".join(lines)
    if fresh:
        out = re.sub(r"(\.reg \.b32 \t%r<\d+>;)",
                     r"\1\n\t.reg .b32 \t%rq<" + str(fresh) + ">;", out,
                     count=1)
    return out, len(found)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        text, count = unroll(f.read())
    if not count:
        sys.exit(f"{sys.argv[1]}: no loop converts a register-A operand")
    with open(sys.argv[2], "w") as f:
        f.write(text)
    print(f"{sys.argv[2]}: {count} loop(s) unrolled by two")


if __name__ == "__main__":
    main()
