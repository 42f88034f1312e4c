//===- Passes.td - Passes over tile IR ---------------------*- tablegen -*-===//

#ifndef TILE_TRANSFORMS_PASSES_TD
#define TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileCheapenConversions
    : Pass<"tile-cheapen-conversions", "::mlir::func::FuncOp"> {
  let summary = "Conversions between integers and floats by exact arithmetic, "
                "off the conversion unit";
  let description = [{
    A multiprocessor converts 16 elements a cycle between integers and
    floats, and from f32 to 16-bit floats (`cvt`: I2F, F2F), where it adds or
    multiplies 128 (a dequantizing loop converts every weight it
    multiplies: a 4-bit GEMM spends more time converting than multiplying).
    Where the integer range analysis (`tile.*` views, joins and broadcasts
    pass their sources' ranges through) bounds the values, two rewrites of
    element-wise tile ops give the same bits without the conversion unit:

    1. A product rounded to a 16-bit float is computed in it: with `T` f16 or
       bf16,

         arith.truncf (arith.mulf %x, %y) : f32 to T

       where each operand is a value of `T` (`arith.extf` from `T`, through
       views and broadcasts), an integer conversion whose range `T` holds
       exactly, or a constant `T` holds, and the f32 product is exact (the
       operands' significant bits add up to at most 24 and its least bit is
       not below f32's least subnormal: an integer operand, or a bf16 one
       with an f16), becomes `arith.mulf` in `T` of the operands in `T`:
       the one rounding of the exact product, as before.
    2. An integer conversion whose operand lies in `[lo, hi]` with
       `hi - lo` < 2^m (m: the float's stored mantissa bits, 23, 10 or 7)
       and every value and `2^m - lo` exact in the float type,

         %f = arith.sitofp %a : iN to F        (or arith.uitofp)

       becomes the float `2^m + (a - lo)` made by setting its exponent bits
       (an OR of `a - lo` with the bits of `2^m`), minus `2^m - lo`: an
       integer subtraction (folded where `a` is `x + lo`), an OR and a
       subtraction, exact. To bf16, a range too wide for its 7 mantissa
       bits (any i8) whose values bf16 holds is made so in f32, then the
       f32's top half taken (its low half is zero).

    Conversions with no known range, or too wide a one, are left to `cvt`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileGroupTileOrder : Pass<"tile-group-tile-order", "::mlir::func::FuncOp"> {
  let summary = "Blocks of a 2-D grid take their tiles in groups along x";
  let description = [{
    In a kernel over a 2-D grid with a loop whose multiply (`tile.mma`)
    takes one operand that follows from `tile.bid 0` alone and another that
    follows from `tile.bid 1` (a GEMM's A by its M tile, B by its N tile),
    the blocks' x and y become a grouped order of the grid: the
    linear block index pid = y * nx + x walks groups of `group` tiles along
    x, column by column within a group (`x = first + pid % (G * ny) %
    rows`, `y = pid % (G * ny) / rows`, rows = min(nx - first, G)), so that
    the blocks resident at once share both operands in L2 rather than
    streaming one of them per column of tiles. A permutation of the blocks
    (the identity where nx <= G).
    Kernels in clusters, kernels whose blocks meet or exchange values
    (cluster barriers, block atomics, cluster gathers), and kernels whose
    operands each follow from both indices (a kernel ordering its own
    tiles, as gemm.tile does) are left alone, with a warning under `warn`.
    `group` = 0 takes groups of 8 (the compiler's choice), 1 leaves the
    order as it is.
  }];
  let options = [
    Option<"group", "group", "unsigned", "0",
           "Tiles a group along x (0: 8; 1: the hardware's order)">,
    Option<"warn", "warn", "bool", /*default=*/"false",
           "Warn when the order is left as it is (where the user asked "
           "for groups)">,
  ];
  let dependentDialects = ["::mlir::tile::TileDialect",
                           "::mlir::arith::ArithDialect"];
}

def TilePersistent : Pass<"tile-persistent", "::mlir::func::FuncOp"> {
  let summary = "Make a kernel loop over the blocks of its logical grid";
  let description = [{
    The kernel gets three trailing i32 parameters, the logical grid (which
    the runtime fills from the grid a launch asks for, while launching
    about one block per multiprocessor slot), then an i64, the address of
    two 32-bit words that are zero when a launch starts (the tile counter
    of tile-dynamic-schedule), and its body moves into an
    `scf.for` over the logical blocks, `tile.bid 0` to gx * gy * gz in
    steps of `tile.num_blocks 0`, marked `tile.tile_loop`. In the body,
    `tile.bid i` and `tile.num_blocks i` are the logical block's index
    (decomposed x fastest) and the logical grid. The kernel's
    `tile.persistent` attribute gives the index of the first grid
    parameter. Later passes keep state across the tile loop: the rings
    tile-pipeline makes in it, and with tile-warp-specialize a producer
    that runs ahead into the next tile.

    With `cluster` = C > 1 the kernel is launched in clusters of C blocks
    along x (`tile.cluster`), and a cluster's blocks run C neighbouring
    tiles along x together: the loop goes over the clusters' tiles,
    `tile.cluster_id` to gx / C * gy * gz in steps of
    `tile.num_clusters`, and block r of the cluster takes logical x =
    (u mod (gx / C)) * C + r, with y and z as before (the runtime requires
    gx to be a multiple of C). A tile's y and z, and whatever follows from
    them alone, are then the same in every block of the cluster, which is
    what tile-multicast-copies shares.
  }];
  let options = [
    Option<"cluster", "cluster", "unsigned", "1",
           "Blocks per cluster along x (1: no clusters; 2, 4 or 8)">,
  ];
  let dependentDialects = ["::mlir::tile::TileDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileLoadTransposedOperands
    : Pass<"tile-load-transposed-operands", "::mlir::func::FuncOp"> {
  let summary = "Load a multiply's transposed operand transposed";
  let description = [{
    A `tile.permute` of a loaded tile (through `tile.reshape`s that only
    add or drop unit dimensions) whose every use is an `a` or `b` operand
    of a `tile.mma` becomes a load of the tensor through the permuted
    dimensions (the load's `order`), reshaped to the permute's type.

    An operand goes through shared memory on its way to the tensor cores
    either way; read in the order it is used, that copy is one the
    pipeliner issues ahead (cp.async, TMA) rather than registers stored
    transposed in every trip. Where the untransposed tile has other uses
    (the same Q feeding K Q^T and dS^T Q in attention's backward), its load
    stays for them: two copies of the tile from global memory (L2), each
    pipelined, instead of one the loop cannot pipeline. Gathered loads
    (`boxes`), tiles with layouts already, and permutes used otherwise are
    left alone.

    ```mlir
    %q  = tile.load %Q[%b, %m, %c0] : !tile.global<f16, 3> -> tensor<1x64x128xf16>
    %r  = tile.reshape %q : tensor<1x64x128xf16> -> tensor<64x128xf16>
    %qt = tile.permute %r [1, 0] : tensor<64x128xf16> -> tensor<128x64xf16>
    %s  = tile.mma %k, %qt, %acc : ...
    ```
    becomes
    ```mlir
    %l  = tile.load %Q[%b, %c0, %m] {order = array<i32: 0, 2, 1>}
        : !tile.global<f16, 3> -> tensor<1x128x64xf16>
    %qt = tile.reshape %l : tensor<1x128x64xf16> -> tensor<128x64xf16>
    %s  = tile.mma %k, %qt, %acc : ...
    ```

    With `wgmma` (sm_90a), a transposed tile that is only ever a `b`
    operand, or the `a` of 16-bit multiplies (8-bit and f32 A is read
    K-major only), of a loaded tile whose other uses are all multiply
    operands too, stays a `tile.permute`: tile-stage-mma-operands copies
    the tile once into a buffer that the untransposed multiplies read as it
    is and the transposed ones as B^T (`tile.wgmma ... transposed`) or as
    an M-major A through a transposed view (attention backward's K in K
    Q^T and dQ^T = K^T dS^T), one copy from global memory instead of two.
    (A multiply that does not get a wgmma layout then transposes it
    through registers.)
  }];
  let options = [
    Option<"wgmma", "wgmma", "bool", "false",
           "keep a transposed B that shares its loaded tile with other "
           "multiplies (tile.wgmma reads it transposed)">,
  ];
}

def TileAssignLayouts : Pass<"tile-assign-layouts", "::mlir::func::FuncOp"> {
  let summary = "Give every tile a distributed layout";
  let description = [{
    Chooses how each tile of a kernel is spread over threads and registers,
    and makes it part of the tile's type:

    - loads and stores get a blocked layout that makes each thread move up to
      16 contiguous bytes (loads of different element widths joined by
      element-wise ops, and what is computed from them, the fewest
      elements any of them has: an optimizer step's f32 state and bf16
      gradient in one layout, 16- and 8-byte accesses) and each warp cover
      contiguous memory, the warps on
      the slowest dimensions, except those a `tile.reduce` reduces the tile
      along (through ops that keep its shape), which get warps last: such a
      reduction then stays within threads and warps; a load whose tile is
      permuted and stored (a transpose) also gets runs along the dimension
      the store writes contiguously (up to 16 bytes a thread, 8 lanes along
      it first), so that its transposed rows are vector writes; a load
      widened into a multiply's B (8-bit weights dequantized to 16 bits)
      holds 16 bytes of B's type a thread, so that B's store into its
      swizzled buffer writes one 16-byte chunk a lane, free of bank
      conflicts;
    - `tile.mma` gets the mma.sync accumulator layout for its result and
      accumulator and the matching operand layouts for A and B; with
      `wgmma`, the wgmma one (version 3) where the tile allows it;
    - layouts then flow forward through element-wise ops, broadcasts,
      reductions (as slices) and loops, and backward into the ops that are
      free to take any layout (constants, `tile.full`, `tile.arange` and what
      is computed from them only), so that masks and softmax statistics are
      computed directly in the layout of the accumulator they update; a
      loop's iteration values take the layout of what its body yields, and
      their initial values' only where the body gives none (an accumulator
      initialized from a load stays in the multiply's layout, the load
      converted once before the loop); a vector only broadcast (through
      casts, element-wise ops with splats: an index plus an offset, and
      views inserting a unit dimension) takes a slice of its broadcasts'
      layout (in a loop of multiplies only a blocked one: a dequantizing
      GEMM's scale row), those getting one of their own
      first where nothing else gives them one; a reshape of a tile in a
      layout other than a blocked one (an mma result, a reduction's slice)
      takes its use's layout (a store's) before one of its own: the tile
      is converted once, and so does a permute of one, or a reshape that
      would move data; a store's layout reaches the values it writes only
      after their operands' have (computed in the accumulator's layout,
      rounded, then converted or TMA-stored), and an element-wise op
      waits for an operand that a loop returns (placed once its body is):
      C = A B + R computes in the multiply's layout, R converted to it,
      and a dequantizing GEMM's scales are loaded in slices of it; a
      `cat` of tiles in one blocked layout keeps it where that holds each
      input in its threads, and a stack (inputs of extent 1 along the axis)
      holds the new axis in each thread's registers, fastest, as Triton's
      join does, so that a reshape merging it into the dimension before (a
      packed byte's two nibbles interleaved along K) is a view;
    - where a value's layout differs from what a use needs,
      `tile.convert_layout` is inserted.

    The kernel gets a `tile.num_warps` attribute.
  }];
  let options = [
    Option<"numWarps", "num-warps", "unsigned", "4",
           "Warps per thread block">,
    Option<"vectorBytes", "vector-bytes", "unsigned", "16",
           "Widest global memory access per thread, in bytes (alignment)">,
    Option<"wgmma", "wgmma", "bool", "false",
           "Target wgmma (sm_90a): mma results whose tile has 64 rows per "
           "warpgroup get the version-3 mma layout">
  ];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileCountedWhileLoops
    : Pass<"tile-counted-while-loops", "::mlir::func::FuncOp"> {
  let summary = "Turn while loops that count into for loops";
  let description = [{
    An `scf.while` whose condition region is one signed less-than
    comparison (`slt`, or `sgt` with the operands swapped) of a value the
    loop steps up by a loop-invariant amount each trip (`while i < n:` ...
    `i += step`) becomes the `scf.for` it is (MLIR's
    `scf::upliftWhileToForLoop`), so that the schedule passes
    (pipelining, warp specialization, loop splitting) and the compiler's
    choice of schedule, which work on `scf.for`, see it as a `range()`
    loop. Other while loops (a condition on a value computed in the trip,
    a `break`'s flag) are left as they are and run unpipelined.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileRemoveLayoutConversions
    : Pass<"tile-remove-layout-conversions", "::mlir::func::FuncOp"> {
  let summary = "Fold away layout conversions that are not needed";
  let description = [{
    Removes `tile.convert_layout` ops whose source already has the target
    layout, chains of conversions, and conversions of values that are free
    to be recomputed in the target layout (constants, splats), by
    re-creating those values in the layout their user needs. A narrowing
    cast (`arith.truncf`) of a conversion's or reshape's only result runs
    before it, so that the conversion moves the narrow elements (an
    epilogue's f32 -> f16 store: half the bytes through shared memory),
    and a widening cast (`arith.extf`) whose only use is a conversion runs
    after it, with the elementwise ops of one element type between them
    whose other operands are splats or aranges, each used once (a 16-bit
    tile on its way to an accumulator's layout moves in 16 bits: `acc *
    tanh(z)` converts z, not tanh(z)). An elementwise op (not a widening cast) on a conversion's
    only result runs before the
    conversion when its other operands are cheap in the source's layout
    (splat constants and splats of scalars, conversions from that layout,
    broadcasts of tiles an eighth of its size or less): a GEMM's bias,
    scales and activation compute in the accumulator's layout, and the
    conversion moves what is stored. A conversion with several such users
    sinks past all of them when the elementwise chain between them (an
    activation reading x at several depths: silu, the tanh gelu) moves too
    and one value leaves it. A conversion of a splat or an arange is
    not sunk (it folds where it is). A load of at most one element per
    thread whose only use is a conversion (a scale or bias row on its way to
    an accumulator's layout), outside loops other than a persistent tile
    loop, is made in the conversion's layout instead: no shared memory, no
    barrier. So is a vector loaded to be broadcast over a tile's rows (a
    norm's weights: load, casts, a reshape adding a unit dimension, then the
    conversion to the tile's blocked layout), in the slice of that layout.
  }];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileLoopSplit : Pass<"tile-loop-split", "::mlir::func::FuncOp"> {
  let summary = "Split loops at a branch on the induction variable";
  let description = [{
    An `scf.for` whose body branches on a comparison of its induction
    variable with a loop-invariant bound (an `scf.if` on an `arith.cmpi`, or
    an `arith.select` of one) is split into two loops without the branch:
    the iterations before the split point, where the comparison has one
    value, and those after it, where it has the other. For flash attention
    with a causal mask this separates the key tiles that need no mask from
    the ones that do.

    Handles `<`, `<=`, `>`, `>=` (signed and unsigned) with the induction
    variable on either side, any positive step, split points outside
    `[lb, ub)` (one of the loops then runs zero times) and loop-carried
    values (the first loop's results are the second's initial values).

    A loop is split when its schedule says so
    (`#tile.schedule<loop_split = true>`, `range(..., loop_split=True)`),
    or says nothing and `enabled` is on; it is left alone when its
    schedule says `loop_split = false`, or when its body has more than
    `max-ops` operations (the body is duplicated).

    The pass works on any IR, and the compiler runs it last of the
    schedule passes: a loop is pipelined, warp-specialized and rotated
    whole, then split. Everything but the branch is cloned as it is, so
    both loops keep the schedule: ring slots and phases computed from the
    induction variable or carried trip counters, copies issued ahead for
    iterations of the second loop (their predicates use the original
    bounds) and a producer warp (which has no such branch, and is not
    split) run on across the split point, with no drain and no second
    prologue. Multiplies in flight at the loop's exit, which the
    `tile.wgmma_wait`s right after it complete, are completed between the
    two loops too (those waits, copied): an accumulator in flight into the
    second loop crosses the joins of its entry, and ptxas serialized every
    wgmma of attention backward's split loop (C7512; one trip's overlap is
    lost, once; flash attention forward, split the other way, measured
    alike).
  }];
  let options = [
    Option<"maxOps", "max-ops", "unsigned", "4000",
           "Largest loop body (in operations) that is split">,
    Option<"enabled", "enabled", "bool", "true",
           "Split the loops whose schedule does not say (the kernel's "
           "loop_split)">,
    Option<"warn", "warn", "bool", "false",
           "Warn where no loop can be split, or one is too large to (where "
           "the user asked for loop_split)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileMaskRanges : Pass<"tile-mask-ranges", "::mlir::func::FuncOp"> {
  let summary = "Find the trips of a loop where a mask keeps the whole tile";
  let description = [{
    An `arith.select` in an `scf.for` body whose condition is a tile of
    comparisons (`arith.cmpi`, joined by `arith.andi`) between i32 index
    tiles built from `tile.arange`, splats of scalars and constants by
    additions, subtractions and multiplications by constants (a mask of
    `rows >= cols`, `cols < seq`, `cols > rows - window`) keeps its first
    operand everywhere on the trips where every comparison holds over the
    whole tile. Each comparison is linear in the induction variable, or
    in a quotient of it, `floor((a * iv + S) / d)` with `a > 0` and `d`
    loop-invariant and known non-negative (the query tile `t // group` of
    attention backward's loop over (tile, head of a group) pairs), with
    the tile's lanes bounded; either grows with the induction variable, so
    those trips are a range `[lo, hi)`, computed before the loop (a
    quotient's bound `L` on the trips `a * iv + S >= L * d`). The select is
    wrapped:

      %m = arith.select %cond, %x, %y
    becomes
      %inside = (%j >= %lo) & (%j < %hi)
      %m = arith.select %inside, %x, (arith.select %cond, %x, %y)

    which `tile-loop-split` then splits at `lo` and `hi`: the trips inside
    run without the mask (its comparisons and select folded away), a
    masked loop before and after. A kernel written with its mask on every
    trip (a causal or sliding-window attention) gets the loops that one
    written with a branch on the trip gets.

    Runs on the loops `tile-loop-split` would split (`enabled`, or the
    loop's schedule) that multiply (`tile.mma`, `tile.wgmma`: elsewhere a
    split saves a select an element and costs a copy of the body); a
    condition that is not such a comparison, or not on the induction
    variable, is left as it is.
  }];
  let options = [
    Option<"enabled", "enabled", "bool", "true",
           "Look at the loops whose schedule does not say (the kernel's "
           "loop_split)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileGuardMasks : Pass<"tile-guard-masks", "::mlir::func::FuncOp"> {
  let summary = "Skip a loop's mask on the trips where it keeps the whole "
                "tile";
  let description = [{
    An `arith.select` in the body of an `scf.for` that multiplies
    (`tile.mma`, `tile.wgmma`), whose condition is a tile of comparisons
    (`arith.cmpi` signed `<`, `<=`, `>`, `>=`, joined by `arith.andi`)
    between i32 index tiles built from `tile.arange`, splats of scalars and
    constants by additions, subtractions and multiplications by constants,
    keeps its first operand everywhere on a trip where each comparison's
    scalar part passes one bound (the lanes' part is bounded). Where no loop
    split takes the mask away (`tile-mask-ranges`: every comparison linear
    in the induction variable over loop-invariant scalars, in a loop whose
    split is on, `split` or its schedule), that test is made in the trip
    and the select, with the part of its mask's computation nothing else
    uses, runs under an `scf.if` on it:

      %m = arith.select %cond, %x, %y
    becomes
      %all = arith.cmpi sge, (sum of the scalars times their factors), bound
      %m = scf.if %all -> (...) { scf.yield %x }
           else { (the mask's computation) scf.yield (arith.select ...) }

    Each comparison's scalar part must take a scalar of the trip (a query
    tile `start + t % tiles` of a loop over (head, tile) pairs, which no
    split can follow): a comparison and a select an element are skipped
    on every trip whose tile the mask keeps whole, for a uniform branch. A
    mask with a comparison the trips share (loop-invariant scalars: a
    sequence end against the block's keys) is left as it is: beside such a
    test the branch made ptxas spill attention backward's loop (head_dim
    64) or serialize its wgmma (128). A comparison of constants that always
    holds is dropped from the test; one that never holds for the whole
    tile leaves the select as it is. The mask's i32 indices are taken not to wrap, as in
    `tile-mask-ranges`.

    A split is the better schedule where one applies: the branch divides
    the trip's straight-line code, and attention backward at head_dim 128
    with its mask guarded ran 0.97x the select on every trip (H100), where
    the split made it 1.07-1.10x (bench/results/
    2026-12-07-h100-causal-backward-split.md).

    Runs after the schedule passes and `tile-loop-split` (they see the
    select), on the loops that multiply, as `tile-mask-ranges` does. With
    `warn` (the kernel's `guard_masks` given), a function with nothing to
    guard says so.
  }];
  let options = [
    Option<"enabled", "enabled", "bool", "true",
           "Guard the masks (the kernel's guard_masks, default off)">,
    Option<"split", "split", "bool", "true",
           "Loops whose schedule does not say are split (the kernel's "
           "loop_split): their masks linear in the induction variable are "
           "left to tile-loop-split">,
    Option<"warn", "warn", "bool", "false",
           "Warn where nothing is guarded (where the user asked)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileStageMmaOperands
    : Pass<"tile-stage-mma-operands", "::mlir::func::FuncOp"> {
  let summary = "Put mma operands that need it in shared memory";
  let description = [{
    An mma operand that reaches its operand layout through shared memory (a
    loaded K or V tile, say) is written to a swizzled shared memory buffer,
    from which the mma reads it (`tile.local_load`, which becomes
    `ldmatrix`):

    - a tile that comes straight from `tile.load` (through reshapes that drop
      size-1 dimensions) and is used by nothing but conversions into mma
      operands is copied from global to shared memory without registers:
      `tile.smem_alloc`, `tile.async_copy` and, right before the first
      conversion, `tile.async_wait`; the multiplies that read it into
      buffers of one type share the buffer (a tile that is the A of one
      multiply and the B of another, as attention backward's Q and dO); a
      16-bit operand that is such a tile transposed (`tile.permute [1, 0]`)
      reads the tile's own buffer through a `tile.smem_permute` view (MLA's
      latent tile on 16 query rows: K^T for the scores, V for P V, one copy);
    - any other tile is written from registers with `tile.local_alloc`.

    The mma then reads its operand whole from the buffer; splitting it
    along K is `tile-slice-mma-k`'s job, scheduling the copies
    `tile-pipeline`'s and `tile-schedule-async-copies`'.

    An mma in a version-3 layout (sm_90a) becomes `tile.wgmma`, reading B,
    and A unless it is in registers already, straight from a buffer in a
    swizzled layout wgmma's descriptors describe. 8-bit float operands are
    read K-major, and A from shared memory unless it is an accumulator
    rounded to 8 bits (kept in registers: its elements move between the
    lanes of each quad by shuffles); one whose registers run
    along M or N is stored transposed from registers (no copy keeps a
    tensor's contiguous dimension elsewhere), with a warning saying how to
    load it K-contiguous. An 8-bit mma in an mma.sync (version 2) layout
    (sm_89 on: m16n8k32) reads its operands K-contiguous too, with
    `ldmatrix`, which transposes only 16-bit units: B is stored transposed
    when its registers run along N, with the same warning.

    A 16-bit wgmma A that is a loaded tile transposed, whose tile other
    multiplies read as it is (tile-load-transposed-operands keeps the
    permute for this), reads the tile's one buffer through a transposed
    `tile.smem_permute` view: M-major, wgmma's transpose bit for A.

    A 16-bit wgmma operand that is a register tile transposed
    (`tile.permute` of it or of a conversion of it) is written once from
    its registers as they are and read through a `tile.smem_permute` view
    in the layout wgmma reads (attention backward's dS^T, the A of dQ =
    dS K), where the transpose's conversion would go through scratch
    memory and then be written again. A register A operand stays in
    registers even where its tile is written to such a buffer too (dS^T,
    the A of dK += dS^T Q): wgmma then reads only B from shared memory,
    which bounds attention backward's multiplies.
  }];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileStageConvertedLoads
    : Pass<"tile-stage-converted-loads", "::mlir::func::FuncOp"> {
  let summary = "Copy a loop's loads that a layout conversion moves into "
                "shared memory";
  let description = [{
    A `tile.load` in a loop body whose tile reaches its only use through a
    `tile.convert_layout` that moves data between threads (possibly after
    a `tile.reshape` that drops the load's size-1 dimensions, then
    elementwise ops whose other operands are uniform tiles (splat constants,
    splats of scalars), each value used once) is copied into an unswizzled
    shared memory buffer (swizzled as wgmma's where it is read in an mma
    operand layout: ldmatrix reads 8 rows at once)
    (`tile.smem_alloc`, `tile.async_copy` where the load was) and read in
    the conversion's layout where the conversion was (`tile.async_wait`,
    `tile.local_load`), the elementwise ops redone after the read in that
    layout. The conversion's round trip through shared memory, and its
    barriers, go; the copy becomes a ring copy of the loop (`tile-pipeline`,
    then TMA on sm_90), and the tile holds registers from its use on only:
    attention backward's per-query LSE and Delta rows, broadcast down the
    accumulators; an attention's bias tile, added to the scores. Loads
    that pad with other than zero, gathers, and tiles whose threads hold
    less than 4 contiguous bytes stay as they are, and so does a tile
    without 16 bytes along the tensor's contiguous dimension (a column of
    per-row scales, (M, 1) of an (M, K / 64) tensor: TMA cannot copy it,
    and its copy by cp.async ran slower than the conversion: 0.86-0.94x
    among a loop's TMA copies on sm_90a, 0.91-0.96x sm_80 code on the
    same H200, bench/results/2026-12-02-h200-epilogues.md and
    bench/results/2026-12-02-h200-register-a.md). An mma operand the
    multiply reads from registers, made by such a chain, is left to this
    pass by `tile-stage-mma-operands`: the multiply then takes the chain's
    result (wgmma's register A) with no store of the operand to shared
    memory and no barrier.

    The chain's ops may also read a `tile.broadcast` of a row or column (a
    per-row scale, a per-K vector: an RMSNorm folded into a GEMM's A),
    made again in the conversion's layout: a row loaded in the loop body
    (through element-wise ops, expansions and conversions, each used once)
    is copied into a buffer of its own and read in that layout's slice (or,
    where it cannot be copied, loaded in it); any other row is converted at
    its own shape, once before the loop where it is computed outside it,
    and broadcast in registers.
  }];
  let dependentDialects = ["::mlir::tile::TileDialect",
                           "::mlir::arith::ArithDialect"];
}

def TileStageHintedLoads
    : Pass<"tile-stage-hinted-loads", "::mlir::func::FuncOp"> {
  let summary = "Copy a loop's loads with a latency hint, or stored to "
                "shared memory after element-wise work, into shared memory";
  let description = [{
    A `tile.load` with a `latency` hint of 2 or more (`load(...,
    latency=S)`) directly in an `scf.for` body (not a persistent kernel's
    tile loop), left in registers by the passes before it (not a tensor
    core operand, not a load a conversion moves between threads), is
    copied into an unswizzled shared memory buffer where it was
    (`tile.smem_alloc`, `tile.async_copy`) and read back in its own layout
    at the same place (`tile.async_wait`, `tile.local_load`). `tile-pipeline`
    then issues the copy `S - 1` trips ahead into a ring of `S` buffers
    (TMA on sm_90 where the padding is zero): a loop that streams a row
    keeps chunks in flight without registers for them. The copy keeps a
    padding other than zero (stored where the tile is outside the tensor).
    A hinted load that cannot be copied (boxes from a tile of indices,
    threads holding less than 4 contiguous bytes), or that is not in a
    loop's body, stays as it is, with a warning (`warn`) that says why.

    A load with no hint all of whose tile goes into shared memory buffers
    of the same body after element-wise work, views and joins (a
    multiply's operand computed in registers and stored for it: wgmma's B
    scaled or dequantized in every trip; a W4A16 GEMM's packed nibbles
    split with a mask and a shift, stacked with `cat` and interleaved by a
    reshape) is copied the same way, at the pipeline's depth, where it can
    be (TMA-copyable, at least 16 bytes along the contiguous dimension): in
    registers, every trip waited out its latency before the store.
  }];
  let options = [
    Option<"warn", "warn", "bool", /*default=*/"true",
           "Warn where a latency hint cannot apply">,
  ];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileSliceMmaK : Pass<"tile-slice-mma-k", "::mlir::func::FuncOp"> {
  let summary = "Split mma along K into steps of the instruction's K";
  let description = [{
    A `tile.mma` whose operands are read from shared memory (or whose K is
    larger than the instruction's) becomes a chain of mmas over K slices of
    16: each step reads just its slice (`tile.local_load` of the buffer, or
    `tile.extract` of an operand held in registers) right before its
    `mma.sync`, so that a thread never holds a whole operand tile.

    An operand read outside the mma's loop (loop-invariant, like the Q tile
    of attention) is read there, slice by slice, and kept in registers for
    the whole loop when that costs each thread at most
    `max-invariant-registers` 32-bit registers; otherwise its slices are read
    inside the loop like the others.
  }];
  let options = [
    Option<"maxInvariantRegisters", "max-invariant-registers", "unsigned",
           "32", "Most registers per thread a loop-invariant operand may "
           "keep across a loop">
  ];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileRereadInvariantOperands
    : Pass<"tile-reread-invariant-operands", "::mlir::func::FuncOp"> {
  let summary = "Read a loop's held mma.sync operand slices in the loop "
                "where the loop's tiles leave no registers for them";
  let description = [{
    `tile-slice-mma-k` reads the slices of a loop-invariant operand of
    `tile.mma` (attention's Q) once, before the loop, and a thread holds
    them through every trip. Where the loop's tiles (those live before any
    of its multiplies, the held slices among them: `liveTileRegistersBefore`)
    and what ptxas holds around mma.sync (`kRegistersAroundMma`, 80,
    Registers.h) exceed the registers a thread of the block has (255, or
    64K over the block's threads), every such read (each of whose uses is a
    multiply in the loop, of a buffer that nothing but reads and views
    touches from the read to the loop's end, any slot of its ring
    included, outside warp-specialized regions) moves to its uses: each slice is read in each trip right before its multiply, and the
    buffer stays allocated through the loop. Attention at 128 x 128 on 8
    warps on sm_80 held 32 registers of Q and spilled 112-116 bytes a
    thread; reading it in the loop it does not spill.

    Runs after `tile-pipeline`: a buffer that would not fit beside what the
    loop keeps in shared memory (`sharedBytesLiveIn`, its rings included)
    within `shared-memory-bytes`, or that would leave fewer blocks a
    multiprocessor, keeps its slices in registers.

    ```mlir
    %q0 = tile.local_load %bq [0, 0] : ... -> tensor<128x16xf16, #dot_a>
    ...
    scf.for ... {
      %k0 = tile.local_load %ring [0, 0] : ...
      %s0 = tile.mma %q0, %k0, %zero : ...
    ```
    becomes
    ```mlir
    scf.for ... {
      %k0 = tile.local_load %ring [0, 0] : ...
      %q0 = tile.local_load %bq [0, 0] : ... -> tensor<128x16xf16, #dot_a>
      %s0 = tile.mma %q0, %k0, %zero : ...
    ```
  }];
  let options = [
    Option<"arch", "arch", "std::string", "\"sm_80\"",
           "Target GPU (its registers and shared memory)">,
    Option<"sharedMemoryBytes", "shared-memory-bytes", "int64_t", "0",
           "Shared memory a block may have (0: the target's most)">
  ];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileSliceWgmmaK : Pass<"tile-slice-wgmma-k", "::mlir::func::FuncOp"> {
  let summary = "Make a loop's register A operand of wgmma, and multiply it, "
                "K step by K step";
  let description = [{
    A `tile.wgmma` in a loop whose A operand the body computes in registers
    from a shared buffer (a `tile.local_load` in the operand layout, then
    element-wise ops that each carry it on, each used once: a loaded tile
    scaled, rounded or normalized on its way, as tile-stage-converted-loads
    leaves it) becomes one multiply per instruction K step (16 elements, 32
    of 8-bit ones), chained through the accumulator, each reading B from
    its `k_offset` and its A slice made right before it: the read of the
    slice, the chain's ops on it, the chain's other operands through
    `tile.extract` (K slices of an operand layout move no data). Each step
    is its own wgmma group, so that tile-async-wgmma makes the next trip
    wait, before it rewrites a slice's registers, only for that slice of
    the previous trip's multiply.

    It pays where the block has its multiprocessor to itself (nothing else
    runs under the wait for the previous trip's multiply) and costs where
    another block hides that wait (per step a fence, a commit and a wait):
    tilec's compiler choice turns it on for kernels of one block per
    multiprocessor. With `warn`, a function with no such multiply says so.
  }];
  let options = [
    Option<"enabled", "enabled", "bool", "true",
           "Slice (false: leave every multiply whole)">,
    Option<"warn", "warn", "bool", "false",
           "Warn where no multiply of the function is sliced">
  ];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TilePipeline : Pass<"tile-pipeline", "::mlir::func::FuncOp"> {
  let summary = "Software-pipeline the async copies of loops";
  let description = [{
    Each `tile.async_copy` in the body of an `scf.for` whose source
    indices depend only on the induction variable and on values defined
    outside the loop (through side-effect-free ops, and through global
    `tile.load`s when nothing in the loop writes global memory: a paged
    cache's page number read from its block table, recomputed for the trip
    the copy is issued for) gets a ring of `S` shared-memory buffers
    (`tile.smem_alloc` with a leading stage dimension, indexed with
    `tile.smem_slot` by a loop-carried iteration counter), and is issued
    `S - 1` iterations ahead:

    - a prologue before the loop issues the copies of the first `S - 1`
      iterations;
    - in the steady state, each iteration waits for its own copy
      (`tile.async_wait` with the exact number of later copies that may stay
      in flight), then issues the copy `S - 1` iterations ahead into the slot
      the previous iteration has finished reading;
    - copies for iterations past the end are predicated off (they still
      count as a copy group, so the wait counts hold for any trip count,
      0 and 1 included, and for run-time bounds), and the loop is followed
      by a wait for all copies.

    `S` comes from the loop's schedule (`#tile.schedule<num_stages = S>`,
    `range(..., num_stages=S)` in the source), else from a non-zero
    `num-stages` (the kernel's), else from the `latency` hint of the load
    the copy was made from, else from `default-stages`; with `warn`, a
    loop whose schedule overrides `num-stages` is reported. A copy
    with one stage is issued right before its wait; a loop whose copies all
    have one stage is left alone. A copy with more than one stage whose
    index cannot be computed ahead leaves its loop as it is, with a warning
    at the load. The waits of the prefetched copies are
    grouped where the first of them was, followed by their refills, so that
    one barrier per iteration serves both. The only copying loop of a loop
    (a persistent kernel's tile loop, `tile.tile_loop`, or any loop of the
    kernel's own: each block's tiles in a loop written by hand, stream-K's
    pieces) gets its rings before that loop, and its counter goes around
    it: each trip's fills follow the previous trip's in every ring, so that
    TMA's barriers are initialized once and a producer warp
    (tile-warp-specialize) runs ahead from trip to trip. A loop of the
    kernel's own does so only where the rings fit, within
    `shared-memory-bytes`, beside the buffers and the largest scratch of the
    rest of its body (with `staged-stores`, not counting conversions on
    their way to stores); else they stay in it, dead between its trips.

    The tile loop itself is pipelined last, for the copies of the tile (not
    of a loop in it: attention's Q tile), with `tile-stages` stages (or
    their latency hint): at 2 the next tile's copy is issued while this tile
    runs, into a ring of its own; at 1 it is issued where the tile waits for
    it, into a ring of one slot (indexed by the tile loop's counter modulo
    1), so that TMA and a producer warp take it as any ring. With
    `tile-refill-after-read`, where the tile loop's copies all have one
    stage, each ring of one slot is instead filled one tile ahead too: the first tile's copy before the tile loop, and each tile
    issues the next tile's right after its own last read of the slot (after
    the op of the tile's body holding that read, and the waits right after
    it), predicated on the next tile existing.
  }];
  let options = [
    Option<"numStages", "num-stages", "unsigned", "0",
           "Stages for every pipelined copy in a loop (0: from the hints)">,
    Option<"defaultStages", "default-stages", "unsigned", "2",
           "Stages for copies without a latency hint">,
    Option<"tileStages", "tile-stages", "unsigned", "2",
           "Stages of the copies of a persistent kernel's tile loop without "
           "a latency hint (1: each tile's own, in a ring of one slot)">,
    Option<"tileRefillAfterRead", "tile-refill-after-read", "bool", "false",
           "A tile loop's ring of one slot is refilled for the next tile "
           "right after the tile's last read of it">,
    Option<"sharedMemoryBytes", "shared-memory-bytes", "int64_t", "0",
           "The shared memory a block may have (0: unbounded): a loop of the "
           "kernel's own carries its loop's rings only where they fit beside "
           "its other buffers and scratch">,
    Option<"stagedStores", "staged-stores", "bool", "false",
           "Conversions on their way to stores do not count against "
           "shared-memory-bytes (tile-convert-stores-to-tma stages them in "
           "parts, or writes them from registers, where they would not fit)">,
    Option<"warn", "warn", "bool", "false",
           "Warn where a loop's schedule overrides num-stages (the caller "
           "asked for it)">,
    Option<"warnTileStages", "warn-tile-stages", "bool", "false",
           "Warn where a persistent kernel's tile has no copy of its own "
           "for tile-stages to apply to (the caller asked for it)">,
    Option<"warnRefill", "warn-refill", "bool", "false",
           "Warn where tile-refill-after-read has no ring of one slot to "
           "refill (the caller asked for it)">
  ];
  let dependentDialects = ["::mlir::tile::TileDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileConvertCopiesToTMA
    : Pass<"tile-convert-copies-to-tma", "::mlir::func::FuncOp"> {
  let summary = "Pipelined copies as TMA copies on mbarrier rings (sm_90a)";
  let description = [{
    Rewrites the rings of a loop pipelined by `tile-pipeline` to use the
    tensor memory accelerator: each `tile.async_copy` into a ring slot
    becomes a `tile.tma_load` from a TMA descriptor of the tensor (a new
    kernel parameter of type `!tile.tensor_map`, recorded in the kernel's
    `tile.tensor_maps` attribute), completing on the slot's mbarrier; each
    `tile.async_wait` for a slot becomes a `tile.mbarrier_wait` on it with
    the parity of the slot's fill count. A ring `R` of `S` stages gets
    `tile.mbarrier_alloc` and `tile.mbarrier_init` after its allocation,
    and `tile.mbarrier_inval` after the loop (its barriers are used afresh
    each time the loop runs).

    The parity: iteration `it` (the pipeline's counter) reads slot
    `it mod S`, which the prologue and the earlier iterations filled
    `it / S` times before, so it waits for parity `(it / S) mod 2`. Copies
    predicated off arrive on nothing and are waited for by no iteration.

    A loop is converted whole or not at all: when one of its copies cannot
    be a TMA copy (its tensor is not a kernel parameter, the tensors'
    assumed alignment is below 16 bytes, its buffer's layout is not one TMA
    writes, a box dimension exceeds 256, a single-stage copy), every copy of
    the loop stays a `cp.async`, and the reason is appended to the kernel's
    `tile.tma_fallback` attribute.
  }];
  let dependentDialects = ["::mlir::tile::TileDialect",
                           "::mlir::arith::ArithDialect"];
}

def TileConvertStoresToTMA
    : Pass<"tile-convert-stores-to-tma", "::mlir::func::FuncOp"> {
  let summary = "Stores and atomics of converted tiles and accumulators "
                "through TMA (sm_90)";
  let description = [{
    A `tile.store` whose tile comes from a layout conversion through shared
    memory (and a reshape dropping unit dimensions) is written by the
    tensor memory accelerator: `tile.local_store` of the unconverted tile
    into a `tile.smem_alloc` buffer in the layout TMA reads (16-byte chunks
    swizzled over 128, 64 or 32 bytes), then `tile.tma_store` from a TMA
    descriptor of the tensor (a kernel parameter, as
    tile-convert-copies-to-tma adds them). A `tile.atomic_rmw` does
    likewise, also straight from an mma accumulator (whose registers
    hold pairs of elements: red.global's vectors would be of 8 bytes), with
    a `tile.tma_store` whose `reduce` combines the tile with the tensor
    (`cp.reduce.async.bulk.tensor`: sum on f32, f16, bf16 and i32, max and
    min on i32 and 16-bit floats).

    A permute (`tile.permute`) between the reshape and the conversion, or
    the accumulator, is done in registers instead: a `tile.permute` of the
    unconverted tile into the `#tile.linear` layout that keeps each element
    where it is, staged in the tensor's order (FlashAttention-3's dQ^T =
    K^T dS^T added into dQ; a product stored as C^T). Its padding along
    other than the fastest dimension (80 rows of a transposed accumulator's
    80 columns) is whole registers, which the store skips: the buffer is
    held at its own rows and the boxes copy those.

    The write may be at the top of the kernel or in loops (no branch
    between it and the top); a `tile.tma_store_wait` naming the buffer goes
    before the write in a loop (the previous trip's copy must have read
    it) and before the kernel's return. The buffer is allocated right
    before the write, or before the outermost loop that holds it. Writes
    whose tile needs no trip through shared memory, whose copy a tensor
    map cannot describe, whose combiner the copy lacks (max of f32), or to
    a tensor the kernel also reads (TMA's writes, by the async proxy,
    would not be ordered before those reads), or that a
    `tile.block_atomic` may follow (after the write, or in a loop around
    both: the atomic releases the block's writes, and a TMA store would
    complete after it) stay as they are.

    With `reuse-ring-slots`, a store in a persistent kernel's tile loop is
    staged instead in the slot of a ring of the tile loop itself (the
    tile's own copy pipelined a tile ahead: attention's Q) that the tile
    has read for the last time, where one has the buffer's type: no buffer
    of its own, and the wait for the copy's read moves before the next
    tile's refill of the ring, which fills exactly that slot.

    With `shared-memory-bytes` (the target's shared memory per block), a
    write in a loop that gets no slot, and whose buffer would not fit
    beside the buffers allocated before the outermost loop (live across
    it), is staged in parts: 2 or 4 (as few as fit; in 4, halves of both
    dimensions before quarters of one, whose rows are narrower and twice as
    many for the copies), each held by the threads that hold it in the tile
    (`tile.extract` moves no data), through one buffer of a part's size and
    a tensor map of a part's box, each part's copy waiting for the previous
    one's read. Where equal slices are not held (152 columns in 2: 76), the
    slices are a multiple of 8 wide and the last one narrower (80 and 72),
    written into a `tile.smem_view` of the buffer's first bytes, in rows at
    their own width, and copied by a tensor map of its own. Where not even
    a quarter fits, a store is written
    from the registers its tile is in: the conversion goes, and the store
    takes the unconverted tile, with the tile's shape in its `shape`
    attribute (the conversion's scratch would not have fitted either); an
    atomic stays as it is. A store that stays a store (under a branch,
    before a `tile.block_atomic`, or with no tensor map) in a loop whose
    conversion's scratch would not fit beside those buffers is written from
    its registers the same way (stream-K's partial products and tiles,
    beside the rings its loop of pieces carries).
  }];
  let options = [
    Option<"reuseRingSlots", "reuse-ring-slots", "bool", "false",
           "Stage a tile loop's stores in the tile's own, last-read slot of "
           "a ring of the tile loop">,
    Option<"sharedMemoryBytes", "shared-memory-bytes", "int64_t", "0",
           "The shared memory a block may have (0: unbounded); a write in "
           "a loop whose buffer would not fit is staged in parts, or left "
           "to the threads">,
  ];
  let dependentDialects = ["::mlir::tile::TileDialect",
                           "::mlir::arith::ArithDialect"];
}

def TileWarpSpecialize : Pass<"tile-warp-specialize", "::mlir::func::FuncOp"> {
  let summary = "Split a kernel into a TMA producer warp and consumer warpgroups";
  let description = [{
    On a kernel whose TMA rings (tile-convert-copies-to-tma) each belong to
    one pipelined loop (loops in sequence with rings of their own: a
    producer's slice runs its ring's loop, all rings live from the split
    on), the body becomes a `tile.warp_specialize`:

    - the rings, their "full" mbarriers and new "empty" mbarriers (one per
      slot, one arrival per consumer thread) are allocated and initialized
      before it, by the whole block;
    - a **producer** per ring (warp r of one extra warpgroup runs ring r's;
      up to four, more rings share them in turn; in a persistent kernel
      the rings of its tile loop, filled a tile ahead, share the first warp
      and the loops' rings the others, so that no loop ring waits behind
      the next tile's claim) runs the slice of the
      kernel that computes its copies' coordinates and predicates, and
      issues each copy as soon as its slot is free, whatever the other
      rings wait for: it waits on the slot's empty barrier for the phase
      the previous fill's readers complete (a fresh barrier passes a
      slot's first fill at once);
    - the **consumers** (the kernel's own warps) run everything else;
      where the pipeline refilled a slot, they release it instead
      (`tile.mbarrier_arrive` on its empty barrier, when it held an
      earlier iteration's data).

    Later passes treat a release as the refill it stands for:
    tile-async-wgmma moves it past the multiplies still reading the slot,
    tile-rotate-wgmma moves it with the multiply it follows, and
    tile-insert-barriers synchronizes the consumers with named barriers.
    In a persistent kernel (tile-persistent) the loop is in the tile loop
    and its rings run on across tiles: both roles run the tile loop, the
    prologue's fills wait like the others, and releases stand for refills
    only. A loop of the kernel's own that tile-pipeline made carry its
    loop's rings (a persistent GEMM written by hand, stream-K's pieces) is
    run so too. A producer running a loop around its loop, or a tile loop,
    keeps at least 32 registers of `producer-registers` (at 24 it spilled
    working out each trip's tile). A ring of one slot filled in the tile
    loop (tile-stages=1) has its
    fills counted by an iteration argument of the tile loop this pass adds:
    each is a refill, released where the copy was: at the tile's top, or,
    filled a tile ahead (tile-refill-after-read), after the tile's last
    read, tile t's fill being the ring's fill t + 1. The producer computes
    coordinates from scalars, from tiles of one element, and from
    one-element global loads that no global write of the kernel precedes
    (a trip count or a page number read from memory), or that read a
    tensor parameter the kernel never writes, every written tensor being
    a known parameter (a persistent kernel's sequence bounds, read in the
    tile loop that stores earlier tiles): those parameters and the written
    ones go into `tile.read_ahead_params` and `tile.written_params`, and a
    launch where a written tensor overlaps one read ahead is refused.
    Kernels with a ring
    filled in more than one loop, or whose copy coordinates depend on
    anything else, are left as they are, with the reason in
    `tile.not_warp_specialized` and a warning at the kernel.

    Which kernels: those with a loop filling rings whose schedule asks
    (`#tile.schedule<warp_specialize = true>`, `range(...,
    warp_specialize=True)`), or says nothing while `enabled` (the kernel's
    warp_specialize) is on; a kernel without such loops, where `enabled`
    is on or a loop asks. The split of the warps is the kernel's: a loop
    whose schedule says `warp_specialize = false` in a kernel specialized
    for another loop is told so (a warning at the loop), its rings filled
    by the producer too.

    With `producer-stores` (the kernel's `producer_stores`), a TMA store a
    loop at the top of the kernel issues in every trip, of a tile
    it stages in a buffer of its own (`tile.local_store` after a
    `tile.tma_store_wait` for the buffer, tile-convert-stores-to-tma;
    attention backward's dQ share, added to global memory by a TMA
    reduction), is issued by a producer warp instead, FlashAttention-3's
    dQ writer: the consumers, in trip n, wait on an "empty" mbarrier for
    the producer's read of trip n - 1's data where they waited for the
    copy, and after staging fence their writes for the async proxy and
    arrive on a "full" mbarrier (one arrival per consumer thread) where
    they copied; the producer waits on "full" (phase n), copies, waits
    until the copy has read the buffer and arrives on "empty". The
    consumers then meet at no barrier for the store (tile-insert-barriers
    sees no read of the buffer in their region). The store joins the
    producer with the fewest copies, or a warp of its own while fewer
    than four producers run. A store that does not fit (a predicate, a
    buffer another store reads, no wait for its buffer in the trip, a loop
    that is not the kernel's own at its top: a persistent kernel's tile
    loop, whose copies in the roles follow tile-dynamic-schedule's claims,
    or a nested loop) stays with the consumers, with a warning where the
    option was given (`warn-stores`).
  }];
  let options = [
    Option<"enabled", "enabled", "bool", /*default=*/"true",
           "Specialize kernels whose loops' schedules do not say (the "
           "kernel's warp_specialize)">,
    Option<"producerStores", "producer-stores", "bool", /*default=*/"false",
           "A loop's TMA store of a tile staged in every trip is issued by a "
           "producer warp, on mbarriers (producer_stores)">,
    Option<"warnStores", "warn-stores", "bool", /*default=*/"false",
           "Warn where producer-stores does not apply (on where the user "
           "gave producer_stores)">,
    Option<"producerRegisters", "producer-registers", "unsigned",
           /*default=*/"24",
           "Registers per thread the producer warpgroup keeps (setmaxnreg; "
           "at least 32 where it runs a loop around its loops or a tile "
           "loop; 0: leave the register split to ptxas)">,
    Option<"warn", "warn", "bool", /*default=*/"true",
           "Warn when the kernel cannot be specialized (off where the "
           "compiler chose to try, not the user)">,
  ];
  let dependentDialects = ["::mlir::tile::TileDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileHoistRefills : Pass<"tile-hoist-refills", "::mlir::func::FuncOp"> {
  let summary = "Refill a ring of one slot right after its last read";
  let description = [{
    A refill of a ring of one slot in a persistent kernel's tile loop
    (tile-pipeline's tile-refill-after-read: the next tile's copy, a
    `tile.tma_load`, or with warp specialization the consumers' release of
    the slot, a `tile.mbarrier_arrive`) moves up its block to right after
    the last op that touches the ring or the refill's barriers, with the
    side-effect-free ops computing its operands. Where that op is an
    `scf.if` with an else region and the refill does not use its results,
    the refill goes into both regions instead and moves up in each: after
    tile-rotate-wgmma, attention's last P V of a tile (in the `scf.if` on the
    loop running at all) then runs after the release of Q, under the next
    tile's Q copy, rather than before it. The refill is only ever moved
    earlier past ops that do not touch the slot; tile-async-wgmma then
    completes the multiplies still reading it before the refill.
  }];
  let dependentDialects = ["::mlir::tile::TileDialect",
                           "::mlir::arith::ArithDialect"];
}

def TileRotateWgmma : Pass<"tile-rotate-wgmma", "::mlir::func::FuncOp"> {
  let summary = "Issue a loop's last multiply in the next trip, behind its first";
  let description = [{
    In-warpgroup overlap. In a loop whose body has two or more
    `tile.wgmma`s at its top level, the last one, whose result goes around
    the loop (through register-renaming layout conversions only), moves to
    the next trip, right after the first multiply there, with:

    - the rescaling of the accumulator (the side-effect-free ops from its
      iteration argument to the multiply's accumulator operand, and the
      broadcasts feeding only them), so that nothing else reads the
      accumulator while the multiply runs;
    - the `tile.mbarrier_wait`s and `tile.tma_load` refills of the rings
      it reads, so that each slot is waited for in the trip that reads it
      and refilled after its last reader.

    With `rescale-in-trip` (or a loop's `#tile.schedule<rescale_in_trip =
    true>`, `range(..., rescale_in_trip=True)`, which decides for that
    loop), the rescaling does not move: it runs at the end of its trip on
    the multiply issued there (complete by then), and the rescaled
    accumulator goes around instead. A loop asking for `rescale_in_trip`
    that is not rotated is told so.

    What the moved ops read from the trip goes around the loop as
    iteration arguments (registers as they are, ring slots as their
    index); the accumulator's argument carries the multiply's result. The
    first trip is peeled (no multiply to issue for a trip before it) and
    the last trip's moved ops follow the loop, all under an `scf.if` on the
    loop running at all: a predicated multiply would put an accumulator in
    flight through a control-flow join, where ptxas waits for it (C7519).

    Attention's P V of trip j then runs in trip j + 1 with Q K^T, under
    trip j + 1's softmax. Left alone: loops whose moved multiply reads a
    ring filled by anything but TMA copies; loops whose moved multiply
    reads a ring of fewer than three stages that a multiply staying in the
    trip reads too (a latent tile read as K^T and as V: a rotated trip
    would hold two of its slots, and no copy would be in flight as a trip
    begins); loops where the accumulator is
    read by anything but the rescaling; and loops where the registers the
    rotation keeps live at once (the moved multiply's accumulator, the
    other multiplies' results, and twice each register operand that goes
    around: the old value read by the multiply in flight, the new one being
    made; a padded tile's registers counted without those that are padding
    in every thread, as the lowering keeps them) exceed `max-registers` per
    thread, where ptxas would spill and serialize the multiplies. With
    `warn` (the user asked for the
    rotation), each loop with multiplies left alone gets a warning saying
    which of these it is.

    Which loops: those whose schedule asks
    (`#tile.schedule<rotate_wgmma = true>`, `range(...,
    rotate_wgmma=True)`: a loop that asks and is left alone is warned
    about, whatever `warn`), and those whose schedule does not say while
    `enabled` (the kernel's rotate_wgmma) is on.
  }];
  let options = [
    Option<"enabled", "enabled", "bool", /*default=*/"true",
           "Rotate the loops whose schedule does not say (the kernel's "
           "rotate_wgmma; a loop's #tile.schedule<rotate_wgmma = ...> "
           "decides for it)">,
    Option<"maxRegisters", "max-registers", "unsigned", /*default=*/"224",
           "Rotate only loops whose estimated live registers per thread "
           "stay within this many (of the 255 a thread can have)">,
    Option<"rescaleInTrip", "rescale-in-trip", "bool", /*default=*/"false",
           "Leave the rescaling in its trip, at the trip's end (on the "
           "multiply issued in the trip), instead of moving it with the "
           "multiply to the next trip's top, in loops whose schedule does "
           "not say (the kernel's rescale_in_trip)">,
    Option<"warn", "warn", "bool", /*default=*/"false",
           "Warn, at the loop, why a loop with multiplies is left as it is "
           "(on where the user asked for the rotation)">,
  ];
  let dependentDialects = ["::mlir::tile::TileDialect",
                           "::mlir::arith::ArithDialect"];
}

def TileDeferLoopReductions
    : Pass<"tile-defer-loop-reductions", "::mlir::func::FuncOp"> {
  let summary = "Carry a loop's reductions as per-thread partials, combined "
                "across threads after the loop";
  let description = [{
    A loop value that accumulates a reduction along an axis of a tile trip
    by trip (`l = l * alpha + sum(x, axis)`, or `l + sum(x, axis)`: the
    online softmax's row sum, a looped row reduction; `m = max(m, max(x,
    axis))`, min alike: a looped amax) is combined across the lanes
    (shuffles) and warps (shared memory and a barrier) that hold the axis
    in every trip, though the loop reads it only to update it. Here the loop
    carries the partials instead, one per thread position along the axis
    (`tile.reduce ... {kept_bits}`: the lane and warp bits of the axis kept,
    combined within each thread), a sum's scaled by alpha broadcast along
    the axis, and combines them across threads once after the loop, in the
    layout the value had.

    A value qualifies when its only use in the body is the update (the
    multiply by alpha, whose extent along the axis is 1, and the
    combination the reduction itself uses: add, maxnum / minnum, signed
    integer max / min), the update's only use is the yield, a sum starts at
    zero (an extreme's partials each start at the value's start), and the
    axis has a power-of-two extent, in a distributed layout whose lanes or
    warps (not blocks) hold parts of it, each such step along the axis
    alone. A thread carries as many partials as the reduction it replaces
    had values.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileDeferLoopStores
    : Pass<"tile-defer-loop-stores", "::mlir::func::FuncOp"> {
  let summary = "Issue a loop trip's staged TMA store in the next trip, "
                "from a ring of two buffers";
  let description = [{
    A loop whose body stages a tile in a buffer allocated before it
    (`tile.tma_store_wait`, `tile.local_store`, then the `tile.tma_store`s
    reading it: tile-convert-stores-to-tma's staging, an accumulator
    reduced into global memory in every trip) pays a fence and a barrier
    right after its threads' stores, where they must land before the copy
    starts. Here the buffer becomes a ring of two that the trips take in
    turn (`tile.smem_slot` at 1 minus the previous trip's slot, an
    iteration argument), and the copies of trip i are issued in trip i + 1
    (`tile.tma_store ... if` a previous trip ran, its coordinates carried
    as iteration arguments), behind a `tile.tma_store_wait` for the copy
    two trips back, where that trip places a barrier anyway: before its
    first `tile.wgmma` reading shared memory the body writes, else at its
    top. The last trip's copies are issued after the loop. tile-insert-
    barriers then fences trip i's stores at trip i + 1's barrier, long
    after they landed.

    The buffer must have no other use in the loop and none outside it but
    waits; the second buffer must fit within `shared-memory-bytes` (0: the
    sm_90a limit) and leave as many blocks a multiprocessor. With `warn`, a
    function where no loop is changed says why.
  }];
  let options = [
    Option<"sharedMemoryBytes", "shared-memory-bytes", "int64_t", "0",
           "Shared memory a block may use (0: the sm_90a limit)">,
    Option<"warn", "warn", "bool", "false",
           "Warn where no loop's store is deferred">
  ];
  let dependentDialects = ["::mlir::tile::TileDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileRingStoredOperands
    : Pass<"tile-ring-stored-operands", "::mlir::func::FuncOp"> {
  let summary = "Give a multiply operand a loop stores in each trip a ring "
                "of buffers the trips take in turn";
  let description = [{
    A `tile.local_alloc` in the body of an `scf.for` whose every use is a
    `tile.wgmma` operand in that body, one of them B (a weight dequantized
    in registers, a tile scaled on its way: wgmma reads B from shared memory
    only), becomes a `tile.smem_alloc` of `slots` buffers before the loop
    and, in the body, a `tile.local_store` into the slot of the trip
    (`tile.smem_slot` at the loop's trip counter modulo `slots`: the counter
    tile-pipeline's rings use, or one added). Then the store of one trip
    writes a buffer the multiply of the previous trip does not read, and
    tile-async-wgmma leaves that multiply in flight under it instead of
    waiting for it first.

    A buffer only multiplied as A is left as it is (each warpgroup stores
    and reads its own rows: tile-insert-barriers orders them per
    warpgroup). The extra buffers must fit: with the shared memory live
    while the loop runs (its buffers, the rings and buffers live across it,
    its largest scratch) within `shared-memory-bytes` (0: the sm_90a
    limit), and leaving as many blocks a multiprocessor as before. With
    `warn`, a function where nothing is ringed says why.
  }];
  let options = [
    Option<"slots", "slots", "unsigned", "2",
           "Buffers a ring holds (1: leave every buffer single)">,
    Option<"sharedMemoryBytes", "shared-memory-bytes", "int64_t", "0",
           "Shared memory a block may use (0: the sm_90a limit)">,
    Option<"warn", "warn", "bool", "false",
           "Warn where no buffer of the function is ringed">
  ];
  let dependentDialects = ["::mlir::tile::TileDialect",
                           "::mlir::arith::ArithDialect"];
}

def TileAsyncWgmma : Pass<"tile-async-wgmma", "::mlir::func::FuncOp"> {
  let summary = "Leave wgmma groups in flight; wait where results or buffers are needed";
  let description = [{
    Makes every `tile.wgmma` `async` and places `tile.wgmma_wait`s:

    - before the first use of an accumulator that reads its registers
      (not the accumulator of a later multiply, a loop's `scf.yield` or a
      register-renaming layout conversion), with a pending count of the
      groups known to be issued since the multiply;
    - before the back edge of a loop, for a multiply whose A operand is
      an iteration argument (the yield overwrites those registers; before
      the conversion that makes the next trip's A where it goes through
      scratch memory, whose loads write those registers and which nothing
      moves past the wait: ptxas would serialize every wgmma, C7513), or
      whose registers held into the next trip (its register A operand;
      its accumulator unless that goes around anyway), with the tiles live
      there up to the wait that completes it and kRegistersAroundWgmma,
      come to more than a thread has (240 in a warp-specialized consumer,
      else 255): ptxas would serialize every wgmma (C7514) or spill;
    - before a write into a shared buffer a multiply in flight may still
      read. A refill of a pipelined ring (a `tile.tma_load` into a slot in
      a `tile.pipelined` loop) instead moves later in its trip, with the
      trip's other refills: to after the first later wait that completes
      the multiply, or to after the next multiply behind a new
      `tile.wgmma_wait 1`. A GEMM main loop then issues one multiply while
      the previous one runs. A multiply of the same trip that reads a slot
      chosen by an earlier trip (an index that goes around the loop, as
      tile-rotate-wgmma leaves them) may read the refilled slot too; a
      refill it holds back moves alone. A refill stays in place instead,
      behind a `tile.wgmma_wait` for the earlier trip's multiply alone,
      where the wait it would move after also completes multiplies of this
      trip that read the same ring and are more of the trip's multiply-adds
      than those after that wait, in a loop whose shared buffers leave no
      room for a second block on a multiprocessor: the next trip reads the
      slot first thing, and no other block's work covers a late copy (one
      ring feeding both of MLA's multiplies; leaving that multiply running
      under the scores' instead makes ptxas serialize the wgmma, C7514).

    Each wait names the shared operands of the multiplies it completes
    (rings for ring slots), so that they stay allocated until the wait and
    `tile-insert-barriers` orders later writes after it.
  }];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileConsumerGroups : Pass<"tile-consumer-groups", "::mlir::func::FuncOp"> {
  let summary = "Groups of consumer warps that take a persistent kernel's tiles in turn";
  let description = [{
    CUTLASS's ping-pong GEMM on a warp-specialized persistent kernel:
    `groups` groups of the kernel's consumer warps run the consumer region
    side by side (`tile.warp_specialize {consumer_groups}`), each taking
    every `groups`-th tile of the block's tile loop (`tile.tile_loop`), so
    that one group's epilogue (the last multiply's drain, the output's
    conversion and store) runs while another multiplies. The producer is
    unchanged: it fills the rings for every tile in order. The groups' main
    loops take turns in the tiles' order (`tile.warpgroup_turn` before a
    group's first loop reading the rings and after its last, on named
    barriers of their own): that is also what keeps a group from waiting
    on a full barrier two phases behind its fill (the previous tile's fills
    have all landed when its turn comes). Each group runs the
    whole tile loop; on another group's tile it only advances what the loop
    carries (the rings' fill counters, by the trip counts of the inner loops
    that advance them, which it computes from the tile as the owner does).
    A ring slot is released by the group that read it: in its loop from its
    tile's second read on (not the previous tile's last, which another
    group read), and after the loop, once its multiplies are complete, the
    slots the loop left held. All groups meet before the consumers
    invalidate the barriers (group 0 does). A group is one or two
    warpgroups (`num_warps` = 4 or 8). A loop is left as it is (with a warning where
    the user asked) when it carries a value other than counters, when its
    own body (not a loop in it) waits for or releases a ring slot, when a
    release in it has not the form tile-warp-specialize gives, or when no
    wait completes a loop's multiplies before its slots would be released.
    sm_90a, after tile-async-wgmma (and tile-defer-epilogue), before
    tile-dynamic-schedule.
  }];
  let options = [
    Option<"groups", "groups", "unsigned", /*default=*/"2",
           "Groups of consumer warps (2 or 3)">,
    Option<"warn", "warn", "bool", /*default=*/"false",
           "Warn why a kernel keeps one group (on where the user asked for "
           "consumer_groups)">,
  ];
  let dependentDialects = ["::mlir::tile::TileDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileDeferEpilogue : Pass<"tile-defer-epilogue", "::mlir::func::FuncOp"> {
  let summary = "Run a tile's epilogue under the next tile's first multiply";
  let description = [{
    In a persistent kernel's tile loop (`tile.tile_loop`, `scf.for`), the
    ops after the body's last multiplying op that the next trip does not
    need, the epilogue (side-effect-free ops and `tile.local_store`,
    `tile.tma_store`, `tile.tma_store_wait`, `tile.store`), move to the next
    trip, right after its first multiply (an async `tile.wgmma` at the
    body's top level or in an `scf.if` there, whose other regions run the
    epilogue first thing, or at the top of an `scf.for` there, a GEMM's K
    loop, whose first trip runs it, and before which it runs where the loop
    runs no trip), under `scf.if` on a new `i1` iteration argument
    that is true from the second trip on; the trip's values it uses (the
    tile's index among them) go around the loop (zeros before the first),
    and after the loop the last tile's epilogue runs. The completions of
    the multiplies (`tile.wgmma_wait`) and the side-effect-free ops on
    their results stay in the trip, so that the values going around are
    complete (an f16 output rather than its f32 accumulator, for one): the
    epilogue's arithmetic, shared-memory stores and TMA stores run while
    the tensor cores run the next tile's first multiply. A loop is left as
    it is when an op the epilogue would move past touches shared memory
    the epilogue uses, or when its body has no such shape. sm_90a, after
    tile-async-wgmma, before tile-dynamic-schedule.

    With `multiply` (the kernel's defer_last_multiply), the tile's last
    multiply moves too, where it is an async `tile.wgmma` completed right
    after it (through register-renaming layout conversions) at the end of
    the body or of the first region of an `scf.if` there (attention's last
    P V after its rotated key loop): what it reads from the trip goes
    around the loop (registers as they are, a slot of a ring allocated
    before the loop as its index; zeros and slot 0 before the first tile,
    and from the scf.if's other region, whose value the result then is:
    `arith.select` on the scf.if's condition). In the next trip it is
    issued right before that trip's first multiply (at the body's top
    level or in a region of an `scf.if` there) and completed right after
    it (`tile.wgmma_wait 1`), the rest of the epilogue under `scf.if
    %pending` after that: the tensor cores run the last P V and the next
    Q K^T back to back, and the normalization and stores run under the
    latter. Issued and completed in one block, no multiply is in flight
    across the loop or a join (ptxas C7514/C7519). The other regions of
    the first multiply's `scf.if` issue, complete and store first thing;
    after the loop, the last tile's, all under `scf.if`. A trip's reads
    of the ring may cross the multiply (a read is no conflict); a release
    or a write may not. Where the multiply cannot move (one multiply a
    tile, its result used in its region, the next first multiply in a
    loop, a ring released in between), the epilogue alone is deferred
    with `epilogue`, and `warn-multiply` says why.
  }];
  let options = [
    Option<"epilogue", "epilogue", "bool", /*default=*/"true",
           "Defer the epilogue (the completions staying in the trip)">,
    Option<"multiply", "multiply", "bool", /*default=*/"false",
           "Defer the tile's last multiply too, where it can: issued right "
           "before the next tile's first, completed right after it (else "
           "the epilogue alone, with `epilogue`)">,
    Option<"warn", "warn", "bool", /*default=*/"false",
           "Warn why a tile loop is left as it is (on where the user asked "
           "for defer_epilogue)">,
    Option<"warnMultiply", "warn-multiply", "bool", /*default=*/"false",
           "Warn why a tile's last multiply is not deferred (on where the "
           "user asked for defer_last_multiply)">,
  ];
  let dependentDialects = ["::mlir::tile::TileDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileDynamicSchedule
    : Pass<"tile-dynamic-schedule", "::mlir::func::FuncOp"> {
  let summary = "A persistent kernel's blocks claim their tiles at run time";
  let description = [{
    Turns each tile loop of a persistent kernel (tile-persistent; one per
    role of a warp-specialized kernel) from `scf.for` over tiles bid,
    bid + P, ... into an `scf.while` over the tiles the block claims from
    a counter in global memory (the kernel's fourth persistent parameter),
    in the order the hardware would have dispatched the logical grid's
    blocks: a block that drew long tiles takes fewer, as a launched grid's
    would. The first tile is the block's index; one thread of one role (a
    producer that needs no tile ahead, so that the claim comes as late as
    the prefetch of the next tile's first copies allows) claims the next
    ones into a ring of i32 in shared memory, whose full and empty
    mbarriers hand each claim to every thread of every role. A use of the
    tile c loop steps ahead (`iv + c * step`, tile-pipeline's prefetch of
    the next tile's own copies) reads the claim c positions ahead. The
    claiming thread's last act counts its block out; the launch's last
    block resets the counter. Kernels whose tile loops take another form
    stay statically scheduled.
  }];
  let dependentDialects = ["::mlir::tile::TileDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileMulticastCopies
    : Pass<"tile-multicast-copies", "::mlir::func::FuncOp"> {
  let summary = "Fill rings the blocks of a cluster share with multicast copies";
  let description = [{
    In a kernel launched in clusters (`tile.cluster`, tile-persistent's
    `cluster`), a ring of TMA copies that every block of the cluster fills
    alike (the same coordinates, slots and predicates, under the same
    control flow, with its slots released alike and written by nothing
    else) is filled by the cluster together: its `tile.tma_load`s become
    `multicast` (each block copies a share of the boxes into every block),
    the releases of its slots `tile.mbarrier_arrive {cluster}` (each warp
    releases the slot in every block) and its empty barriers count a
    cluster's releasing warps. Values that may differ between the blocks
    start at `tile.cluster_rank`, `tile.bid` and memory reads other than
    the cluster's claimed tiles and loads of a tensor the kernel never
    writes (every write's tensor a known parameter: alike where their
    coordinates are; such a tensor goes into `tile.read_ahead_params`,
    which the launch checks no written tensor overlaps), except a quotient
    the blocks compute alike:
    the logical x of a persistent kernel in clusters of C is the cluster's
    tile times C plus the block's rank, and `x // d` (floordivsi, divui)
    with d a constant multiple of C is the cluster's. Attention's K and V
    rings qualify (they follow from the head), its Q ring does not (the
    query tile); so does linear.tile's W ring with CLUSTER_M (its tiles
    taken by pairs along M, W's column from the pair). With
    `warn`, a kernel none of whose rings qualifies is told why, at the
    first ring's load: launched in clusters, it would gain nothing from
    them.
  }];
  let options = [
    Option<"warn", "warn", "bool", /*default=*/"false",
           "Warn when no ring is shared (where the user asked for "
           "clusters)">,
  ];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileStageInHeldSlots
    : Pass<"tile-stage-in-held-slots", "::mlir::func::FuncOp"> {
  let summary = "Stage a TMA store's parts in the ring slots a loop holds "
                "after its last trip";
  let description = [{
    In the consumers' region of a `tile.warp_specialize`, a loop that
    releases each slot of a ring one trip after reading it (the slot of
    trip counter value `c - 1` at trip `c`, where tile-pipeline refilled it)
    holds the slot of its last trip after its exit, until its next run (a
    persistent kernel's next tile) releases it. A TMA store staged in parts
    after the loop (tile-convert-stores-to-tma) waits, before each part but
    the first, for the previous part's copy to have read the one buffer:
    while every block writes its tile at once, that is the drain of the
    copy to global memory. Such a part is staged instead in a held slot
    large enough (`tile.smem_view` of the slot, under a branch on the loop
    having run a trip, the part's own buffer and wait otherwise), with no
    wait; the thread that issues the copies waits for the read of the
    slot's part (`tile.tma_store_wait` of the ring with `pending` = the
    copies committed after it on every path to the end of its block)
    before each release of a held slot in the loop's first trip (the trip
    that releases the slots held since the loop's previous run), so that
    the slot's empty barrier completes only after that copy has read it.

    Applies where the ring's releases are all in the loop, one trip behind
    its reads, nothing in the consumers' region fills it and nothing but the
    loop's multiplies and their waits reads it, and no multiply of the loop
    takes an A operand the loop makes in registers (ptxas serializes such a
    loop's wgmma with the wait among them: C7513). Each held slot, smallest
    first, takes the largest part left that fits within the slot's own
    elements, the later of equal ones (a persistent GEMM's 128 x 256 tile
    staged as two 128 x 128 parts: the second in the W ring's 64 x 256 slot;
    a 256 x 152 tile's four parts, 128 x 80 and 128 x 72: the last in W's
    64 x 152 slot, the third in X's 256 x 64); the parts in slots move
    before the first wait left in the one buffer, so that their writes hide
    the read of the copy it waits for, or, where only the first part is
    left there (nothing waits for its copy until the next run), before that
    part's write: their copies, which the next run's first trip waits for,
    are then the first to read, those of the slots the producer refills
    first (the older ones) before the others. Where a part would still wait
    there and the rings have three stages or more, the loop holds the slots
    of its last two trips instead (the release of the previous trip's slot
    skipped in its last trip, the first trip also releasing the slot two
    trips back, ahead of the loop's other releases of held slots; every
    fill is still released once), and each ring offers both: the 256 x 152
    tile's parts all go into slots, nothing waits.
  }];
  let dependentDialects = ["::mlir::tile::TileDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def TileGuardEmptyLoops
    : Pass<"tile-guard-empty-loops", "::mlir::func::FuncOp"> {
  let summary = "Run a loop that leaves multiplies in flight, and their "
                "waits, under a guard on its trip count";
  let description = [{
    A loop that yields `async` `tile.wgmma` results (multiplies in flight at
    its exit: as they are, or through conversions that only rename their
    registers, which are no instruction: 8-bit attention at 160- and
    192-key tiles was serialized unguarded, 64 registers a thread)
    completed by the `tile.wgmma_wait`s right after it, and that
    may run no trip, goes into an `scf.if` on `lb < ub` together with those
    waits; where it runs no trip, the `scf.if` yields the loop's initial
    values, completed by the same waits where they are themselves in
    flight (the second of two loops a split made, continuing the first's
    multiplies: without them ptxas injects a wait of its own at the join,
    C7517, as in flash_attention.tile at 8 warps).

    Without the guard, the path that skips the loop moves the initial values
    (an accumulator's zeros) into the registers the pending multiplies
    write, before the wait both paths share, and ptxas serializes every
    wgmma of the kernel (C7515): attention backward's dK and dV, left in
    flight across the back edge. A loop whose next trip continues its
    pending multiply first (a GEMM's K loop) is guarded only where an
    accumulator starts at zero and either streams multiplies, so that
    tile-fresh-accumulators may let its first trip overwrite it, or makes
    tiles in registers (a B operand dequantized in every trip: ptxas
    serialized a W4A16 GEMM unguarded, C7515). Loops with constant bounds
    that run, and loops with a result in flight used otherwise than by the
    waits right after the loop (a wait placed later, under other work; a
    multiply that continues it), are left alone.

    ```mlir
    %r = scf.for %i = %lb to %ub step %c1 iter_args(%acc = %zeros) -> (tensor<64x64xf32, #mma>) {
      %d = tile.wgmma async %a, %b, %acc : ...
      scf.yield %d : tensor<64x64xf32, #mma>
    }
    %w = tile.wgmma_wait 0, %r : ...
    ```
    becomes
    ```mlir
    %ran = arith.cmpi slt, %lb, %ub : i32
    %w = scf.if %ran -> (tensor<64x64xf32, #mma>) {
      %r = scf.for ... (as it was)
      %c = tile.wgmma_wait 0, %r : ...
      scf.yield %c : tensor<64x64xf32, #mma>
    } else {
      scf.yield %zeros : tensor<64x64xf32, #mma>
    }
    ```
  }];
  let dependentDialects = ["::mlir::tile::TileDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileFreshAccumulators
    : Pass<"tile-fresh-accumulators", "::mlir::func::FuncOp"> {
  let summary = "Peel a loop's first trip where an accumulator starts at "
                "zero, so that no zeros are moved into its registers";
  let description = [{
    A loop that runs at least one trip (constant bounds, or under an
    `scf.if` on `lb < ub` of its own bounds, as tile-guard-empty-loops puts
    it), whose body streams multiplies (no tile made in registers but by
    `tile.wgmma` and its waits, no buffer allocated, no copy issued: a
    warp-specialized GEMM's consumer K loop; a peeled copy of attention
    backward's dK / dV loop made ptxas spill and serialize its wgmmas,
    C7512, and one of an unspecialized split-K linear's loop, which
    refills its rings, took 10 registers a thread more), and that carries an accumulator that
    starts at zero (a constant tile of positive zeros) into a `tile.wgmma`
    at the body's top level has its first trip peeled in front of it: there the multiply is onto the zero
    constant, which reads no accumulator (scale-d false on each output
    block's first instruction), and the loop runs from `lb + step` on the
    peeled trip's results. The loop's entry then needs no zeros in the
    accumulator's registers: a persistent GEMM's consumer moved them twice
    a tile before (LLVM's copies for the loop's entry and for the guard's
    path that skips it: 256 moves a thread for a 128 x 256 tile on two
    warpgroups), the skipping path's 128 only now (made before the guard's
    branch, where LLVM makes a constant's copies for a phi). In the
    remaining loop,
    tests of the first trip (`iv == lb`, `iv != lb`: tile-defer-epilogue's
    epilogue deferred into a K loop's first trip) are constants.

    ```mlir
    %ran = arith.cmpi slt, %lb, %ub : i32
    scf.if %ran {
      %r = scf.for %i = %lb to %ub step %c1 iter_args(%acc = %zeros) -> (...) {
        %d = tile.wgmma async %a, %b, %acc : ...
        tile.wgmma_wait 1
        scf.yield %d : ...
      }
      ...
    }
    ```
    becomes
    ```mlir
    %ran = arith.cmpi slt, %lb, %ub : i32
    scf.if %ran {
      %d0 = tile.wgmma async %a, %b, %zeros : ...
      tile.wgmma_wait 1
      %lb1 = arith.addi %lb, %c1 : i32
      %r = scf.for %i = %lb1 to %ub step %c1 iter_args(%acc = %d0) -> (...) {
        ... (as it was)
      }
      ...
    }
    ```
    A loop that may run no trip unguarded is left as it is (its result
    would be the zeros).
  }];
  let dependentDialects = ["::mlir::tile::TileDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TilePingPong : Pass<"tile-ping-pong", "::mlir::func::FuncOp"> {
  let summary = "Order the consumer warpgroups' multiplies in turns (ping-pong)";
  let description = [{
    In a `tile.warp_specialize` with two or more consumer warpgroups, each
    owning its rows of the tiles, the warpgroups issue their multiplies in
    turns: every run of `tile.wgmma`s in a block (from the first to the
    last, with no region-holding op and no `tile.wgmma_wait` completing
    one of them in between) becomes a section that
    one warpgroup runs at a time, in round-robin order
    (`tile.warpgroup_turn wait` before it, `pass` after it, a `start`
    before the first and a `finish` at the end of the consumer region). Attention
    then runs warpgroup 1's Q K^T and P V on the tensor cores while
    warpgroup 0 computes its softmax, and the other way round
    (FlashAttention-3's ping-pong).

    Every warpgroup runs the same control flow (tile IR's scalars are
    uniform over the block), so all meet the same sequence of turns. A
    section also ends where every consumer thread must arrive before any
    goes on (a `tile.barrier`, an op synchronizing around its scratch
    memory), which would deadlock inside it. A
    warpgroup waiting for its turn is at most one section behind the one
    holding it, so the rings' releases it has made suffice for the copies
    the section waits for (a ring has two or more stages).

    Applied where a loop's multiply feeds work other than multiplies in
    the loop (attention's softmax); a GEMM main loop, whose accumulators
    only go to the next multiply, has nothing to overlap and is left
    alone. Runs last, on the issue order tile-async-wgmma leaves and the
    barriers tile-insert-barriers places. With `warn` (the user asked for
    ping-pong), a kernel left as it is gets a warning saying why: not
    specialized, one consumer warpgroup, or nothing to overlap.
  }];
  let options = [
    Option<"warn", "warn", "bool", /*default=*/"false",
           "Warn why a kernel is left as it is">,
  ];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileDependentLaunch : Pass<"tile-dependent-launch", "::mlir::func::FuncOp"> {
  let summary = "Let a kernel start under the one before it (sm_90)";
  let description = [{
    Programmatic dependent launch: a kernel launched with programmatic
    stream serialization (libtile does so for kernels this pass marks) may
    start while the kernel before it in its stream finishes, its blocks
    taking the multiprocessors that kernel's blocks leave and running their
    prologue (barriers' initialization, descriptors' prefetch) under its
    last blocks. Inserts, at the kernel's top level before the first op
    that may touch global memory (anything but side-effect-free ops,
    shared buffers and mbarriers made and initialized, and barriers),
    `tile.launch_dependents` (the kernel launched after this one may start
    once every block got here) and `tile.grid_dependency_wait` (each thread
    waits for the kernel before to complete and its writes to be visible):
    no read or write of global memory, this kernel's or the next's, can
    overlap the kernel it depends on. The kernel gets
    `tile.dependent_launch`, which its description carries to the runtime.
    A kernel that touches no global memory is left as it is.
  }];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileTimeline : Pass<"tile-timeline", "::mlir::func::FuncOp"> {
  let summary = "Record when each warpgroup reaches the kernel's loops";
  let description = [{
    Instruments a kernel for a timeline of its blocks: a new parameter
    (i64, the address of a buffer the runtime provides; the last but for
    the TMA descriptors, which stay the trailing ones) and a
    `tile.timestamp` at each site: the kernel's start and each return, and
    for every `scf.for` and `scf.while` (in each role of a
    warp-specialized kernel, whose regions hold their own copies of the
    loops) its entry, the top of each trip and its exit. The first thread
    of each warpgroup that reaches a site appends a record (the global
    timer, the multiprocessor's clock and the site) to its warpgroup's
    log of `records` entries (a power of two: a full log's last entry is
    overwritten by each later site, so that it holds the latest). The
    kernel gets `tile.timeline = {records,
    sites}`: what each site is ("consumer: loop 2 (12:5) trip"), which the
    kernel's description carries to the runtime and to tilec.Kernel's
    timeline().

    Runs last among the tile passes, on the schedule the others made: the
    records show that schedule (what a trip waits for, how long an
    epilogue takes); the instrumented kernel itself runs a little slower
    (one predicated store a site).
  }];
  let options = [
    Option<"records", "records", "unsigned", /*default=*/"256",
           "Records each warpgroup's log holds, a power of two (its first "
           "ones and its latest)">,
  ];
  let dependentDialects = ["::mlir::tile::TileDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileScheduleAsyncCopies
    : Pass<"tile-schedule-async-copies", "::mlir::func::FuncOp"> {
  let summary = "Issue async copies early and wait as late as possible";
  let description = [{
    Moves each `tile.async_copy` up its block, to right after the ops its
    operands come from (but not above an earlier copy, nor above an op that
    may write global memory), and moves each `tile.async_wait` down to the
    first op of its block that reads one of the buffers it waits for,
    raising its `pending` count by the copies it passes: the copy then
    overlaps with the work in between. Waits and copies in loops that
    `tile-pipeline` has scheduled are left as they are.
  }];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TilePrefetchLoads : Pass<"tile-prefetch-loads", "::mlir::func::FuncOp"> {
  let summary = "Issue a loop's small register loads a trip ahead";
  let description = [{
    A `tile.load` left in registers by the pipeline (not copied into shared
    memory) in an `scf.for` body is waited for where its value is first
    used: when that is early in the trip (a block scale applied to the
    scores, a scale of a K step), each trip stalls for the load's latency.
    A small such load (at most four registers a thread) is issued a trip
    ahead: the first trip's before the loop, and at the load's place the
    next trip's, carried into that trip as a loop value.

    ```mlir
    scf.for %i = %lb to %ub step %s {         %x0 = tile.load %T[f(%lb)]
      %x = tile.load %T[f(%i)]           ->   scf.for %i ... iter_args(%x = %x0) {
      use(%x)                                   %n = tile.load %T[f(%i + %s)]
    }                                           use(%x)
                                                scf.yield %n
    ```

    Only where the load's indices are computed from the induction variable
    and values defined outside the loop by ops without memory effects, the
    loop writes no global memory (the value read a trip early is the same),
    and the loop is not a persistent kernel's tile loop (its tiles come from
    claims, tile-dynamic-schedule). The load one trip past the last reads
    within the tensor's bounds or nothing (loads are bounds-checked); its
    value is not used. A load whose value only says where pipelined copies
    read (through ops without memory effects into `tile.async_copy` or
    `tile.tma_load` operands: a paged cache's block-table entry) stays: the
    copies run ahead already, and carrying it a further trip measured
    slower.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tile::TileDialect"];
}

def TileExchangeInCluster
    : Pass<"tile-exchange-in-cluster", "::mlir::func::FuncOp"> {
  let summary = "Exchange tiles between a cluster's blocks through their "
                "shared memory";
  let description = [{
    Gives each `tile.cluster_gather` of a kernel launched in clusters of C
    blocks a buffer per tile in every block's shared memory (the gathered
    tile's shape, allocated at the kernel's top so that no other buffer
    shares its memory before the exchange), and replaces it with the
    exchange itself: each block writes its tiles into every block's buffers
    at its rank's place (`tile.cluster_store`: `st.shared::cluster`), the
    cluster meets at a cluster barrier (which orders the writes before the
    reads), and each block reads the gathered tiles from its own buffers.
    No block touches another's shared memory after that barrier, so none
    needs to wait for the others before it returns.

    A block may write into another's shared memory only once that block has
    started: the kernel arrives on the cluster barrier at its top (after
    the rings' mbarrier initializations, which tile-insert-barriers follows
    with a whole cluster barrier) and waits for the others just before its
    first exchange or cluster barrier. Between the two it does its own work
    (its loads), so that the wait finds the others long arrived.

    A gather must be at the kernel's top level, or directly in a loop there
    whose trips every block of the cluster runs alike: every block executes
    it at the same points. A gather in a loop has two buffers, chosen by
    the parity of a trip counter added to the loop: a block may write trip
    t + 1's tiles into a block still reading trip t's, and writes trip t +
    2's only after trip t + 1's barrier, which that block reaches after its
    reads.
  }];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileAllocateSharedMemory
    : Pass<"tile-allocate-shared-memory", "::mlir::ModuleOp"> {
  let summary = "Give every shared memory buffer an offset";
  let description = [{
    Computes the live range of every shared memory buffer of a kernel
    (`tile.smem_alloc`, `tile.local_alloc`, and the scratch memory of layout
    conversions and reductions that go through shared memory) and gives each
    a byte offset (`tile.smem_offset`) such that buffers whose live ranges
    overlap do not overlap in memory. A buffer used inside a loop it is not
    defined in is live for the whole loop. A scratch buffer is live during
    its op only, but a reduction's until the next op of its block that
    uses scratch memory: that op may then write its own without waiting for
    the reduction's reads (tile-insert-barriers). The kernel gets the total
    in `tile.shared_bytes`.

    A buffer whose tile is padded (a dimension not a power of two) is held
    short of its padded storage where nothing touches the padding
    (`tile::isAccessedWithinTile`: TMA copies, wgmma operands, stores of
    tiles whose padding is whole registers, async copies and loads other
    than of padded mma operands, whose lowerings skip the lanes holding
    padding): it takes the blocks of columns, or the rows (in eights), its
    tile reaches
    (`tile::getTileExtentBytes`), and the op records the bytes of the buffer
    or of each stage of its ring in `tile.slot_bytes`, by which the
    lowering of `tile.smem_slot` steps. A 64 x 160 f16 stage in 128-byte
    swizzled blocks of 64 columns takes 3 blocks, 24 KiB, not 32.

    Where the padded rows lie under a higher digit of the address (blocks
    of columns, stacked tiles) and could not be cut so, such a buffer is
    first retyped to store its own rows rounded to the swizzle's period
    (`#tile.shared<..., rows = R>`, with its ring slots and permuted views;
    `tile::getCompactType`): an 80 x 256 f16 stage in four blocks takes 4 x
    80 rows, 40 KiB, not 64. A wgmma's A keeps whole 64-row multiples (each
    instruction reads 64 rows).
  }];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileInsertBarriers : Pass<"tile-insert-barriers", "::mlir::ModuleOp"> {
  let summary = "Synchronize threads where shared memory accesses conflict";
  let description = [{
    Walks each kernel in program order, tracking the shared memory byte
    ranges read and written since the last barrier, and inserts a
    `tile.barrier` before an op whose access conflicts with one of them
    (read after write, write after read, write after write). An async copy
    writes its buffer when issued (earlier readers must be done) and its
    data becomes visible to the thread at the `tile.async_wait` that
    completes it (later readers in other threads need a barrier). Loops are
    analyzed to a fixed point, so that accesses at the end of one iteration
    are ordered with those at the start of the next; both branches of an
    `scf.if` start from the state before it. A reduction across warps
    writes its scratch, passes a barrier of its own (its lowering's) and
    reads it: after it only its reads are pending. A `tile.tma_store_wait` then
    moves before the closest barrier earlier in its block (nothing between
    touching its buffers) when the analysis, run again, places fewer
    barriers: a staging buffer refilled every trip of a loop that has a
    barrier anyway needs none of its own. Requires
    `tile-allocate-shared-memory`.
  }];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileCheckResources : Pass<"tile-check-resources", "::mlir::ModuleOp"> {
  let summary = "Refuse a kernel the target cannot run, before code generation";
  let description = [{
    Checks each kernel against the limits of the target (`arch`,
    TargetLimits.h) and reports, at the kernel or at the code that needs
    the resource, what it needs, the limit, and what to change:

    - threads per block: the kernel's warps and, when it is
      warp-specialized, the producer warpgroup; at most 1024;
    - shared memory per block (`tile.shared_bytes`, so it runs after
      `tile-allocate-shared-memory`), with the largest buffers as notes;
    - with `occupancy` blocks per multiprocessor asked for: their threads
      and their shared memory per multiprocessor;
    - instructions: bf16 `tile.atomic_rmw sum` (`red.global.add.bf16`)
      needs sm_90; a conversion to or from an 8-bit float (`cvt` with
      e4m3x2/e5m2x2) sm_89;
    - registers: a tile in registers needs its elements per thread (in
      32-bit words); one wgmma binds its accumulator, its A operand when in
      registers and two descriptors, and the kernel keeps about 16 more
      live around it. Each must fit what a thread may have: the register
      file shared by the block's threads at one block a multiprocessor
      (at most 255), or with `occupancy` by that many blocks (rounded down
      to the 8 registers a thread is given at a time); a tile held by the
      consumers of a warp-specialized block, what they rise to once the
      producer warpgroup gives its registers up (setmaxnreg).

    Nothing is changed. Runs last in the schedule pipeline, so that a
    kernel far too large (tiles of 512 x 512) is refused in a fraction of
    a second instead of after minutes of code generation, and ptxas never
    sees a kernel it would reject.
  }];
  let options = [
    Option<"arch", "arch", "std::string", "\"sm_90a\"",
           "Target GPU: sm_80, sm_86, sm_89, sm_90 or sm_90a">,
    Option<"occupancy", "occupancy", "unsigned", "0",
           "Blocks per multiprocessor the kernel asks for (0: none)">
  ];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TilePrintLayouts : Pass<"tile-print-layouts"> {
  let summary = "Print which thread and register hold each element of a tile";
  let description = [{
    A debugging aid that changes nothing. For each distinct laid-out tile
    type of the IR (a layout on a shape, in order of first appearance: in
    function signatures, op results and block arguments), prints the
    layout's linear form, its number of warps and registers per thread, how
    many threads hold each element, and a table giving, for each element, a
    (warp, lane, register) that holds it as `warp:lane:register` (with
    replication, the one whose replicated lane and warp bits are 0), one
    line per index of the leading dimensions (`[i, *]`). For each distinct
    `!tile.smem` type, prints the shared layout's linear form (offset ->
    coordinates) and the table of each element's offset.

    The tables go to standard error, or to the file named by `output`
    ("-" for standard output); tiles of more than `max-elements` elements get
    the linear form and the summary only.
  }];
  let options = [
    Option<"output", "output", "std::string", "\"\"",
           "File to print to (default: standard error; - for standard output)">,
    Option<"maxElements", "max-elements", "int64_t", "4096",
           "Largest tile whose element table is printed">
  ];
}

#endif // TILE_TRANSFORMS_PASSES_TD
