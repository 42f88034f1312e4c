//===- TileAttrs.td - Attributes of the tile dialect -------*- tablegen -*-===//

#ifndef TILE_ATTRS_TD
#define TILE_ATTRS_TD

include "TileDialect.td"
include "TileLayoutInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/TensorEncoding.td"

def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "reduction combiner", [
    I32EnumAttrCase<"Max", 0, "max">,
    I32EnumAttrCase<"Min", 1, "min">,
    I32EnumAttrCase<"Sum", 2, "sum">,
    I32EnumAttrCase<"Prod", 3, "prod">
  ]> {
  let cppNamespace = "::mlir::tile";
}

// The division modes of PTX (and cuTile): `rn` is IEEE-754 division rounded
// to nearest; `full` is div.full (at most 2 ulp of error); `approx` is
// div.approx (a reciprocal and a multiply).
def Tile_RoundingMode : I32EnumAttr<"RoundingMode", "division rounding mode", [
    I32EnumAttrCase<"RN", 0, "rn">,
    I32EnumAttrCase<"Full", 1, "full">,
    I32EnumAttrCase<"Approx", 2, "approx">
  ]> {
  let cppNamespace = "::mlir::tile";
}

// The steps of the turn order of a warp-specialized kernel's consumer
// warpgroups (tile.warpgroup_turn, tile-ping-pong).
def Tile_TurnKind : I32EnumAttr<"TurnKind", "step of the warpgroups' turns", [
    I32EnumAttrCase<"Start", 0, "start">,
    I32EnumAttrCase<"Wait", 1, "wait">,
    I32EnumAttrCase<"Pass", 2, "pass">,
    I32EnumAttrCase<"Finish", 3, "finish">
  ]> {
  let cppNamespace = "::mlir::tile";
}

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//
//
// A layout is the encoding of a tile's tensor type: it says which thread
// (warp, lane) holds which elements in which registers. Every layout maps to
// a linear layout (LinearLayout.h) over the tile's shape, and the lowering
// works on that form only, so a new layout needs no new lowering: a new
// layout is one attribute implementing Tile_DistributedLayoutInterface (in
// registers) or Tile_SharedLayoutInterface (in shared memory).

// `[1, 2, 3]`: a list of unsigned integers in brackets.
class Tile_UnsignedListParameter : ArrayRefParameter<"unsigned"> {
  let parser = [{
    [&]() -> ::mlir::FailureOr<::llvm::SmallVector<unsigned>> {
      ::llvm::SmallVector<unsigned> values;
      if (::mlir::failed($_parser.parseCommaSeparatedList(
              ::mlir::AsmParser::Delimiter::Square, [&]() {
                unsigned v;
                if ($_parser.parseInteger(v))
                  return ::mlir::failure();
                values.push_back(v);
                return ::mlir::success();
              })))
        return ::mlir::failure();
      return values;
    }()
  }];
  let printer = [{
    $_printer << "[";
    ::llvm::interleaveComma($_self, $_printer);
    $_printer << "]";
  }];
}
def Tile_UnsignedList : Tile_UnsignedListParameter;
// The same, left out of the printed form when empty.
def Tile_OptionalUnsignedList : Tile_UnsignedListParameter {
  let defaultValue = "::llvm::SmallVector<unsigned>()";
  let comparator =
      "::llvm::ArrayRef<unsigned>($_lhs) == ::llvm::ArrayRef<unsigned>($_rhs)";
}

// `[1, 2, 3]`: a list of int64 in brackets.
def Tile_I64List : ArrayRefParameter<"int64_t"> {
  let parser = [{
    [&]() -> ::mlir::FailureOr<::llvm::SmallVector<int64_t>> {
      ::llvm::SmallVector<int64_t> values;
      if (::mlir::failed($_parser.parseCommaSeparatedList(
              ::mlir::AsmParser::Delimiter::Square, [&]() {
                int64_t v;
                if ($_parser.parseInteger(v))
                  return ::mlir::failure();
                values.push_back(v);
                return ::mlir::success();
              })))
        return ::mlir::failure();
      return values;
    }()
  }];
  let printer = [{
    $_printer << "[";
    ::llvm::interleaveComma($_self, $_printer);
    $_printer << "]";
  }];
}

class Tile_LayoutAttr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

// Distributed layouts check that they fit the tensor they encode.
class Tile_DistributedLayoutAttr<string name, string attrMnemonic>
    : Tile_LayoutAttr<name, attrMnemonic,
          [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>,
           DeclareAttrInterfaceMethods<Tile_DistributedLayoutInterface>]>;

def Tile_BlockedLayoutAttr : Tile_DistributedLayoutAttr<"BlockedLayout", "blocked"> {
  let summary = "each thread holds a contiguous block; for memory access";
  let description = [{
    Dimension `d` of the tile is split into `sizePerThread[d]` consecutive
    elements per thread, `threadsPerWarp[d]` lanes and `warpsPerCTA[d]`
    warps, repeated to cover the shape. `order` lists the dimensions from
    the fastest varying. Loads and stores use it so that each thread moves
    `sizePerThread[order[0]]` contiguous elements at once and a warp covers
    contiguous memory.

    ```mlir
    #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
    ```
  }];
  let parameters = (ins Tile_UnsignedList:$sizePerThread,
                        Tile_UnsignedList:$threadsPerWarp,
                        Tile_UnsignedList:$warpsPerCTA,
                        Tile_UnsignedList:$order);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Tile_MmaLayoutAttr : Tile_DistributedLayoutAttr<"MmaLayout", "mma"> {
  let summary = "the accumulator layout of a tensor-core multiply";
  let description = [{
    A 2-D tile distributed as the accumulators of a tensor-core
    instruction. `version` names the generation and `instrShape` its
    M x N x K:

    - version 2, `mma.sync.m16n8k16` (sm_80 and later; the default):
      warps tile the M and N dimensions `warpsPerCTA = [wm, wn]` times in
      blocks of 16 x 8;
    - version 3, `wgmma.mma_async.m64nNk16` (sm_90a): warpgroups of four
      consecutive warps each compute 64 x N blocks, warp `w` of a
      warpgroup holding rows 16 w .. 16 w + 15 of them; `warpsPerCTA[0]`
      is a multiple of 4. With `warpsPerCTA[1] = wn > 1` the warpgroups
      also split the columns: warpgroup `g` takes 64-row blocks
      `g % (wm / 4)` and the `g / (wm / 4)`-th contiguous 1/wn of the
      columns (a 64 x 512 accumulator on two warpgroups: 64 x 256 each;
      A, from registers, is then held whole by every warpgroup).

    In both, each thread holds two pairs of adjacent columns in rows
    `lane / 4` and `lane / 4 + 8` of every 16 x 8 block of its warp, so the
    two versions distribute a tile the same way when the warps are along M;
    they differ in the instruction that produces it and in where the
    operands come from (registers for version 2; shared memory, or
    registers for A, for version 3).

    ```mlir
    #tile.mma<warpsPerCTA = [4, 1]>
    #tile.mma<warpsPerCTA = [4, 1], version = 3, instrShape = [64, 128, 16]>
    #tile.mma<warpsPerCTA = [4, 2], version = 3, instrShape = [64, 256, 16]>
    ```
  }];
  let parameters = (ins Tile_UnsignedList:$warpsPerCTA,
                        DefaultValuedParameter<"unsigned", "2">:$version,
                        Tile_OptionalUnsignedList:$instrShape);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "::llvm::ArrayRef<unsigned>":$warpsPerCTA), [{
      return $_get($_ctxt, warpsPerCTA, 2u, ::llvm::ArrayRef<unsigned>());
    }]>
  ];
  let extraClassDeclaration = [{
    /// M x N x K of the instruction (m16n8k16 when not given).
    ::llvm::SmallVector<unsigned, 3> getInstrShapeOrDefault() const {
      if (!getInstrShape().empty())
        return ::llvm::SmallVector<unsigned, 3>(getInstrShape());
      return {16, 8, 16};
    }
    bool isWarpgroup() const { return getVersion() == 3; }
  }];
}

def Tile_DotOperandLayoutAttr
    : Tile_DistributedLayoutAttr<"DotOperandLayout", "dot_operand"> {
  let summary = "the A (opIdx 0) or B (opIdx 1) operand layout of an mma";
  let description = [{
    The registers `mma.sync` takes its A or B operand from, for the mma
    layout `parent` of the result. Each thread holds `kWidth` elements
    adjacent along K in each 32-bit register: 2 of 16-bit elements
    (m16n8k16, wgmma's k16), 4 of 8-bit ones (m16n8k32, wgmma's k32), 1 of
    f32 read as tf32 (m16n8k8, wgmma's k8); a version-3 parent's A fragment
    per warp is mma.sync's. The accumulator
    of one mma, converted to 16 bits, is already in the A layout of the
    next (the P * V step of attention): that conversion moves no data;
    converted to 8 bits, its elements move between the four lanes of a
    quad (shuffles).

    ```mlir
    #tile.dot_operand<opIdx = 0, parent = #tile.mma<warpsPerCTA = [4, 1]>>
    #tile.dot_operand<opIdx = 1, parent = #tile.mma<warpsPerCTA = [4, 1]>, kWidth = 4>
    ```
  }];
  let parameters = (ins "unsigned":$opIdx, "MmaLayoutAttr":$parent,
                        DefaultValuedParameter<"unsigned", "2">:$kWidth);
  let builders = [
    AttrBuilder<(ins "unsigned":$opIdx, "MmaLayoutAttr":$parent,
                     CArg<"unsigned", "2">:$kWidth), [{
      return $_get($_ctxt, opIdx, parent, kWidth);
    }]>
  ];
  let skipDefaultBuilders = 1;
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The operand layout of `parent` for operands of `elementType`: as
    /// many to a register as 32 bits hold (getMmaKWidth).
    static DotOperandLayoutAttr getFor(unsigned opIdx, MmaLayoutAttr parent,
                                       Type elementType);
    /// The K of one mma.sync reading this layout: 8 per element of a
    /// register (m16n8k16 for 16-bit elements, m16n8k32 for 8-bit ones,
    /// m16n8k8 for tf32).
    int64_t getInstructionK() const { return 8 * int64_t(getKWidth()); }
  }];
}

def Tile_SliceLayoutAttr : Tile_DistributedLayoutAttr<"SliceLayout", "slice"> {
  let summary = "the layout of a tile reduced along one dimension of another";
  let description = [{
    The `parent` layout with dimension `dim` removed: the layout of a row or
    column vector of a 2-D tile (such as the (TILE_M,) statistics of a
    softmax), so that broadcasting it back needs no data movement.

    ```mlir
    #tile.slice<dim = 1, parent = #tile.mma<warpsPerCTA = [4, 1]>>
    ```
  }];
  let parameters = (ins "unsigned":$dim, "::mlir::Attribute":$parent);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Tile_LinearLayoutAttr
    : Tile_DistributedLayoutAttr<"LinearLayout", "linear"> {
  let summary = "a layout given by its linear form";
  let description = [{
    The tile coordinates each bit of the register index, the lane and the
    warp steps to (XORed together: LinearLayout.h), for a tile of the
    power-of-two shape the bases span. Views give it: a reshape or permute
    of a tile in an mma or operand layout keeps every element where it is,
    and where no other layout says where that is, this one does
    (tile-assign-layouts; attention's 8-bit P with its columns permuted into
    the A operand's order, FlashAttention-3's way, moves no data).

    ```mlir
    #tile.linear<register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
    ```
  }];
  // The bases, flattened: `numDims` coordinates each.
  let parameters = (ins "unsigned":$numDims, Tile_I64List:$registers,
                        Tile_I64List:$lanes, Tile_I64List:$warps);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The attribute of `layout`'s register, lane and warp bases.
    static LinearLayoutAttr get(::mlir::MLIRContext *context,
                                const ::mlir::tile::LinearLayout &layout);
  }];
}

def Tile_SharedLayoutAttr : Tile_LayoutAttr<"SharedLayout", "shared",
    [DeclareAttrInterfaceMethods<Tile_SharedLayoutInterface>]> {
  let summary = "a swizzled layout in shared memory";
  let description = [{
    Row-major over `order` (fastest first) with an XOR swizzle against bank
    conflicts: in row `r`, the column index in units of `vec` elements is
    XOR-ed with `(r / perPhase) % maxPhase`. `vec = 1, maxPhase = 1` is the
    plain row-major layout.

    With `block = B` (elements), the fastest dimension is cut into blocks
    of B columns, stored one after the other, each a row-major tile of
    rows of B elements, swizzled as above; dimensions beyond the two
    fastest stack whole tiles. These are the layouts the Hopper tensor
    memory accelerator writes and wgmma reads: with 16-byte chunks
    (`vec` = 16 bytes), B x element size = 128, 64 or 32 bytes and
    `maxPhase` = that / 16, `perPhase` = 128 / that, they are its 128, 64
    and 32-byte swizzles. Without `block`, a row is the whole fastest
    dimension.

    With `rows = R`, each block (and each stacked tile) stores R rows of
    the second fastest dimension (`order[1]`): the buffer's own rows
    rounded up to the swizzle's period (8 for the Hopper swizzles), where
    they would otherwise be padded to a power of two. Block `b` then starts
    `b * R * B` elements in. tile-allocate-shared-memory sets it on buffers
    that no access reaches past the tile (an 80-key ring stage of a
    256-wide head: 80 rows a block, not 128). R keeps the swizzle phase of
    every row, and whole swizzle patterns stay aligned.

    With `cols = C` (no block, no swizzle), each row stores C elements of
    the fastest dimension: the buffer's own columns, a multiple of `vec`,
    where they would otherwise be padded to a power of two. These are the
    dense rows of a TMA box as wide as a tile whose width is a multiple of
    16 bytes but not of a swizzle's block (152 f16 columns: rows of 304
    bytes, one box). An accumulator's stores into such rows do not conflict
    in the banks: a quad's lanes write 16 bytes of a row, and the eight rows
    of a warp's store lie an odd multiple of 16 bytes apart.

    ```mlir
    #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
    #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64>
    #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], block = 64, rows = 80>
    #tile.shared<vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0], cols = 152>
    ```
  }];
  let parameters = (ins "unsigned":$vec, "unsigned":$perPhase,
                        "unsigned":$maxPhase,
                        Tile_UnsignedList:$order,
                        DefaultValuedParameter<"unsigned", "0">:$block,
                        DefaultValuedParameter<"unsigned", "0">:$rows,
                        DefaultValuedParameter<"unsigned", "0">:$cols);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "unsigned":$vec, "unsigned":$perPhase,
                     "unsigned":$maxPhase,
                     "::llvm::ArrayRef<unsigned>":$order), [{
      return $_get($_ctxt, vec, perPhase, maxPhase, order, 0u, 0u, 0u);
    }]>,
    AttrBuilder<(ins "unsigned":$vec, "unsigned":$perPhase,
                     "unsigned":$maxPhase,
                     "::llvm::ArrayRef<unsigned>":$order,
                     "unsigned":$block), [{
      return $_get($_ctxt, vec, perPhase, maxPhase, order, block, 0u, 0u);
    }]>
  ];
  let extraClassDeclaration = [{
    /// The swizzle in bytes of the Hopper tensor memory accelerator and
    /// wgmma descriptors this layout is (128, 64 or 32), or 0 when it is
    /// none of them, for elements of `elementBytes`.
    unsigned getHopperSwizzleBytes(unsigned elementBytes) const;
    /// The same layout storing `rows` rows a block (0: padded).
    SharedLayoutAttr withRows(unsigned rows) const;
  }];
}

//===----------------------------------------------------------------------===//
// Schedules
//===----------------------------------------------------------------------===//

def Tile_LoopScheduleAttr : AttrDef<Tile_Dialect, "LoopSchedule"> {
  let mnemonic = "schedule";
  let summary = "A loop's own schedule (tile.schedule on an scf.for)";
  let description = [{
    What a loop asks of the schedule passes, for this loop only: set in the
    source (`range(..., num_stages=3, warp_specialize=True)`) or by a pass,
    and read by the pass that carries each part out. A part left out takes
    the kernel's option of the same name (tile/Options.def), which is the
    default of every loop; a part given overrides it for this loop.

    - `num_stages`: the ring depth of every async copy of the loop, over
      the loads' latency hints (tile-pipeline);
    - `loop_split`: split the loop at a branch on its induction variable
      (tile-loop-split);
    - `warp_specialize`: its rings filled by a TMA producer warp, sm_90a
      (tile-warp-specialize; the split of the warps is the kernel's, so a
      loop asking for none in a kernel whose other loop asks for it is told
      that it is specialized too);
    - `rotate_wgmma`: its last multiply issued in the next trip, behind its
      first, sm_90a (tile-rotate-wgmma);
    - `rescale_in_trip`: with that rotation, sm_90a, the accumulator's rescaling
      left at the end of its trip instead of moved with the multiply
      (tile-rotate-wgmma).

    A part that cannot apply is reported as a warning at the loop.

    ```mlir
    scf.for %i = %c0 to %n step %c1 {
      ...
    } {tile.schedule = #tile.schedule<num_stages = 3, warp_specialize = true>}
    ```
  }];
  let parameters = (ins
    OptionalParameter<"std::optional<unsigned>">:$num_stages,
    OptionalParameter<"::mlir::BoolAttr">:$loop_split,
    OptionalParameter<"::mlir::BoolAttr">:$warp_specialize,
    OptionalParameter<"::mlir::BoolAttr">:$rotate_wgmma,
    OptionalParameter<"::mlir::BoolAttr">:$rescale_in_trip);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The schedule of `loop` (its tile.schedule), or null.
    static LoopScheduleAttr of(::mlir::Operation *loop);
    /// A flag of `loop`'s schedule (`&LoopScheduleAttr::getLoopSplit`,
    /// ...): null where the loop's schedule does not say.
    static ::mlir::BoolAttr
    flag(::mlir::Operation *loop,
         ::mlir::BoolAttr (LoopScheduleAttr::*part)() const) {
      LoopScheduleAttr schedule = of(loop);
      return schedule ? (schedule.*part)() : ::mlir::BoolAttr();
    }
    /// The same, `otherwise` where the loop's schedule does not say.
    static bool flag(::mlir::Operation *loop,
                     ::mlir::BoolAttr (LoopScheduleAttr::*part)() const,
                     bool otherwise) {
      ::mlir::BoolAttr given = flag(loop, part);
      return given ? given.getValue() : otherwise;
    }
  }];
}

#endif // TILE_ATTRS_TD
