//===- TileOps.td - Operations of the tile dialect ---------*- tablegen -*-===//

#ifndef TILE_OPS_TD
#define TILE_OPS_TD

include "TileDialect.td"
include "TileTypes.td"
include "TileAttrs.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/InferIntRangeInterface.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// The thread block's shared memory, as a side-effect resource.
def SharedMemoryResource : Resource<"::mlir::tile::SharedMemoryResource">;

//===----------------------------------------------------------------------===//
// Grid
//===----------------------------------------------------------------------===//

class Tile_GridOp<string mnemonic> : Tile_Op<mnemonic, [Pure]> {
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative, IntMaxValue<2>]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict";
}

def Tile_BlockIdOp : Tile_GridOp<"bid"> {
  let summary = "index of this thread block along a grid axis";
  let description = [{
    `tile.bid 0` is the index of the executing block along grid axis 0 (x);
    axes 1 and 2 are y and z.
  }];
}

def Tile_NumBlocksOp : Tile_GridOp<"num_blocks"> {
  let summary = "number of thread blocks along a grid axis";
}

class Tile_ClusterOp<string mnemonic> : Tile_Op<mnemonic, [Pure]> {
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Tile_ClusterIdOp : Tile_ClusterOp<"cluster_id"> {
  let summary = "index of this block's cluster along grid axis x";
  let description = [{
    In a kernel launched in clusters of blocks along x (`tile.cluster`),
    the index of the executing block's cluster: `tile.bid 0` divided by
    the cluster's size. The same in every block of a cluster.
  }];
}

def Tile_NumClustersOp : Tile_ClusterOp<"num_clusters"> {
  let summary = "number of clusters along grid axis x";
}

def Tile_ClusterRankOp : Tile_ClusterOp<"cluster_rank"> {
  let summary = "index of this block within its cluster";
  let description = [{
    0 to the cluster's size - 1: `tile.bid 0` modulo the cluster's size.
  }];
}

def Tile_ConsumerGroupOp : Tile_Op<"consumer_group", [Pure]> {
  let summary = "which group of consumers this thread is in";
  let description = [{
    In the consumer region of a `tile.warp_specialize` with
    `consumer_groups` = G, the group of the executing thread, 0 to G - 1:
    its thread index divided by `threads`, the threads of one group
    (tile-consumer-groups).

    ```mlir
    %g = tile.consumer_group {threads = 128 : i32}
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntPositive]>:$threads);
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Tile_ClusterGatherOp : Tile_Op<"cluster_gather", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "every block of the cluster's tiles, side by side";
  let description = [{
    Collective over the blocks of the kernel's cluster (`tile.cluster`, of
    C blocks): result `i` is the C blocks' `inputs[i]` concatenated along
    `axis` in the order of their ranks (`tile.cluster_rank`), the same in
    every block. Every block of the cluster must execute it, at the same
    point, at the top level of the kernel (not under a condition or in a
    loop). The tiles go through distributed shared memory:
    tile-exchange-in-cluster gives each a buffer in every block, which each
    block writes with `tile.cluster_store` and reads after a cluster
    barrier.

    ```mlir
    %ms, %ss = tile.cluster_gather %m, %s {axis = 1 : i32} : tensor<1x1xf32>, tensor<1x1xf32> -> tensor<1x8xf32>, tensor<1x8xf32>
    ```
  }];
  let arguments = (ins Variadic<Tile_Tile>:$inputs,
                       ConfinedAttr<I32Attr, [IntNonNegative]>:$axis);
  let results = (outs Variadic<Tile_Tile>:$results);
  let assemblyFormat =
      "$inputs attr-dict `:` type($inputs) `->` type($results)";
  let hasVerifier = 1;
}

def Tile_ClusterStoreOp : Tile_Op<"cluster_store", [
    MemoryEffects<[MemWrite<SharedMemoryResource>]>]> {
  let summary = "write a tile into a buffer of every block of the cluster";
  let description = [{
    Writes `value` into `buffer` in the shared memory of each block of the
    kernel's cluster (C blocks; this block's too), at this block's place:
    the buffer is C tiles along `axis`, this block's at `cluster_rank *
    value.shape[axis]`. Each element is written once into each block, by
    `st.shared::cluster` at `mapa`'s address; the R threads holding a
    replicated element share its C stores (replica r writes blocks r, r +
    R, ...). The other blocks must have started (a cluster barrier since the
    kernel's start), and they see the data after a cluster barrier.

    ```mlir
    tile.cluster_store %m, %buf {axis = 1 : i32} : tensor<1x1xf32, #blocked>, !tile.smem<[1, 8], f32, #shared>
    ```
  }];
  let arguments = (ins Tile_Tile:$value, Tile_SharedMemoryType:$buffer,
                       ConfinedAttr<I32Attr, [IntNonNegative]>:$axis);
  let assemblyFormat =
      "$value `,` $buffer attr-dict `:` type($value) `,` type($buffer)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Tile construction and reshaping
//===----------------------------------------------------------------------===//

def Tile_ArangeOp : Tile_Op<"arange", [Pure,
    DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRangesFromOptional"]>]> {
  let summary = "the tile [0, 1, ..., N-1]";
  let description = [{
    A one-dimensional i32 tile whose element `i` is `i`.

    ```mlir
    %r = tile.arange : tensor<64xi32>
    ```
  }];
  let results = (outs Tile_IntTile:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_FullOp : Tile_Op<"full", [Pure,
    DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRangesFromOptional"]>,
    TypesMatchWith<"value type matches the tile's element type",
                   "result", "value",
                   "::llvm::cast<::mlir::ShapedType>($_self).getElementType()">]> {
  let summary = "a tile with every element equal to a scalar";
  let description = [{
    ```mlir
    %t = tile.full %x : tensor<64x64xf32>
    ```
  }];
  let arguments = (ins Tile_ElementType:$value);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$value attr-dict `:` type($result)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure,
    DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRangesFromOptional"]>]> {
  let summary = "repeat a tile along its size-1 dimensions";
  let description = [{
    Source and result have the same rank; each source dimension is either
    equal to the result's or 1, in which case it is repeated.

    ```mlir
    %b = tile.broadcast %m : tensor<64x1xf32> -> tensor<64x64xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$source);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Tile_ExpandDimsOp : Tile_Op<"expand_dims", [Pure,
    DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRangesFromOptional"]>]> {
  let summary = "insert a dimension of size 1";
  let description = [{
    `x[:, None]` in the language: the result has a new dimension of size 1 at
    position `axis`.

    ```mlir
    %e = tile.expand_dims %x {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    ```
  }];
  let arguments = (ins Tile_Tile:$source, ConfinedAttr<I32Attr, [IntNonNegative]>:$axis);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure,
    DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRangesFromOptional"]>]> {
  let summary = "reinterpret a tile's elements under another shape";
  let description = [{
    Elements keep their row-major order; the element count must not change.

    ```mlir
    %r = tile.reshape %q : tensor<1x1x64x128xf16> -> tensor<64x128xf16>
    ```
  }];
  let arguments = (ins Tile_Tile:$source);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Tile_PermuteOp : Tile_Op<"permute", [Pure,
    DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRangesFromOptional"]>]> {
  let summary = "permute (transpose) the dimensions of a tile";
  let description = [{
    Result dimension `i` is source dimension `permutation[i]`.

    ```mlir
    %t = tile.permute %x [1, 0] : tensor<64x128xf16> -> tensor<128x64xf16>
    ```
  }];
  let arguments = (ins Tile_Tile:$source, DenseI32ArrayAttr:$permutation);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat =
      "$source $permutation attr-dict `:` type($source) `->` type($result)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Global tensors
//===----------------------------------------------------------------------===//

def Tile_DimOp : Tile_Op<"dim", [Pure]> {
  let summary = "run-time size of one dimension of a global tensor";
  let description = [{
    ```mlir
    %n = tile.dim %K, 2 : !tile.global<f16, 4>
    ```
  }];
  let arguments = (ins Tile_GlobalTensorType:$tensor,
                       ConfinedAttr<I32Attr, [IntNonNegative]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$tensor `,` $axis attr-dict `:` type($tensor)";
  let hasVerifier = 1;
}

def Tile_SubviewOp : Tile_Op<"subview", [Pure, AttrSizedOperandSegments,
    AllTypesMatch<["tensor", "result"]>]> {
  let summary = "a part of a global tensor, as a tensor of its own";
  let description = [{
    The elements of `tensor` from `starts[d]` on along each dimension d, up
    to `ends[k]` along the dimensions `end_dims[k]` (to the tensor's end
    along the others), as a tensor of the same element type and rank whose
    element 0 is the first of them (the language's `X[a:b, c:]`). The bounds
    are run-time i32 values, clamped into the tensor:

      s_d = clamp(starts[d], 0, size_d)
      e_d = clamp(ends[k], s_d, size_d)   (d = end_dims[k]; size_d otherwise)

    so that the view's size along d is e_d - s_d (0 when a bound lies
    outside), its base the tensor's element s and its strides the tensor's.
    Loads from it read `padding` past its own end (not the tensor's next
    elements) and stores to it write nothing there; TMA, which pads only at
    a tensor's own end, copies through a view whose ends are the tensor's
    (no `ends`), at coordinates shifted by its starts.

    ```mlir
    %e = tile.subview %X[%first, %c0] ends[%last] {end_dims = array<i32: 0>}
        : !tile.global<bf16, 2>
    ```
  }];
  let arguments = (ins Tile_GlobalTensorType:$tensor, Variadic<I32>:$starts,
                       Variadic<I32>:$ends,
                       DefaultValuedAttr<DenseI32ArrayAttr, "{}">:$end_dims);
  let results = (outs Tile_GlobalTensorType:$result);
  let assemblyFormat = [{
    $tensor `[` $starts `]` (`ends` `[` $ends^ `]`)? attr-dict `:` type($tensor)
  }];
  let hasVerifier = 1;
  // A view of the whole tensor (starts 0, no ends) is the tensor.
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// The bound of dimension `dim`'s end, or null where the view runs to
    /// the tensor's end.
    ::mlir::Value getEnd(unsigned dim);
  }];
}

def Tile_LoadOp : Tile_Op<"load", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "load a tile from a global tensor";
  let description = [{
    Loads the tile at tile coordinates `indices` of a global tensor, seen
    through the dimension permutation `order`:

      result[t0, ..., tn] = tensor[p(indices[0] * s0 + t0, ..., indices[n] * sn + tn)]

    where `s` is the result shape and `p` places view dimension `i` at tensor
    dimension `order[i]` (`order = [0, 1, 3, 2]` reads the last two dimensions
    transposed). Elements outside the tensor read as `padding` (zero when
    absent). `latency` is a hint of how far ahead the load may be issued.

    With `boxes`, a 1-D i32 tile of L entries, view dimension `box_dim` is
    gathered: the tile's extent s along it is L boxes of B = s / L, and box
    k is read at tile coordinate `boxes[k]` in units of B (the index at
    `box_dim` is zero):

      coordinate along box_dim of t = boxes[t / B] * B + t mod B

    A paged KV cache's key tile of several pages is one such load, the pages
    named by the block table.

    ```mlir
    %k = tile.load %K[%b, %h, %c0, %j] {order = array<i32: 0, 1, 3, 2>, latency = 2 : i32}
        : !tile.global<f16, 4> -> tensor<1x1x128x64xf16>
    %p = tile.load %K[%c0, %h, %c0] boxes(%pages : tensor<4xi32>) {box_dim = 0 : i32}
        : !tile.global<f16, 3> -> tensor<64x1x128xf16>
    ```
  }];
  let arguments = (ins Tile_GlobalTensorType:$tensor, Variadic<I32>:$indices,
                       Optional<Tile_IntTile>:$boxes,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntNonNegative]>>:$box_dim,
                       OptionalAttr<DenseI32ArrayAttr>:$order,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntPositive]>>:$latency,
                       OptionalAttr<TypedAttrInterface>:$padding);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    $tensor `[` $indices `]` (`boxes` `(` $boxes^ `:` type($boxes) `)`)? attr-dict `:` type($tensor) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "store a tile into a global tensor";
  let description = [{
    The inverse of `tile.load`: writes `value` at tile coordinates `indices`
    of the tensor seen through `order`. Elements that fall outside the tensor
    are not written.

    With `shape`, the tile has that shape and `value` holds it without its
    size-1 dimensions (as `tile.async_copy`'s buffer does): a tile in a
    layout of its own rank only, such as an mma accumulator, is stored from
    the registers it is in (tile-convert-stores-to-tma makes such stores).

    ```mlir
    tile.store %O[%b, %h, %m, %c0], %acc : !tile.global<f16, 4>, tensor<1x1x64x128xf16>
    tile.store %O[%b, %h, %m, %c0], %acc {shape = array<i64: 1, 1, 64, 128>}
        : !tile.global<f16, 4>, tensor<64x128xf16, #mma>
    ```
  }];
  let arguments = (ins Tile_GlobalTensorType:$tensor, Variadic<I32>:$indices,
                       Tile_Tile:$value, OptionalAttr<DenseI32ArrayAttr>:$order,
                       OptionalAttr<DenseI64ArrayAttr>:$shape);
  let assemblyFormat = [{
    $tensor `[` $indices `]` `,` $value attr-dict `:` type($tensor) `,` type($value)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicRMWOp : Tile_Op<"atomic_rmw", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "combine a tile into a global tensor atomically";
  let description = [{
    Like `tile.store`, but each element of `value` is combined with the
    tensor's element at its place by one atomic read-modify-write: `sum`
    adds it, `max` and `min` keep the larger or smaller. Elements that fall
    outside the tensor are not touched; an element the tile's layout holds in
    several threads is combined once. Without a result, the old values are
    not read (PTX `red.global`); with one, `old` holds each element's value
    before this op combined it (0 outside the tensor), read by `atom.global`
    one element at a time. The canonicalizer drops an unused result.

    ```mlir
    tile.atomic_rmw sum %dQ[%b, %m, %c0], %dq : !tile.global<f32, 3>, tensor<1x64x128xf32>
    %old = tile.atomic_rmw sum %C[%i], %ones : !tile.global<i32, 1>, tensor<128xi32> -> tensor<128xi32>
    ```
  }];
  let arguments = (ins Tile_ReduceKind:$kind, Tile_GlobalTensorType:$tensor,
                       Variadic<I32>:$indices, Tile_Tile:$value,
                       OptionalAttr<DenseI32ArrayAttr>:$order);
  let results = (outs Optional<Tile_Tile>:$old);
  let assemblyFormat = [{
    $kind $tensor `[` $indices `]` `,` $value attr-dict `:` type($tensor) `,` type($value) (`->` type($old)^)?
  }];
  let hasVerifier = 1;
  let hasCanonicalizeMethod = 1;
}

def Tile_BlockAtomicOp : Tile_Op<"block_atomic", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "one ordered atomic by the block, returning the old value";
  let description = [{
    The block combines the scalar `value` with the tensor's element at
    element coordinates `indices` by one atomic read-modify-write (`sum`,
    `max` or `min`; i32, or f32 for `sum`) and every thread gets the
    element's old value: a ticket, a claim, a count of the blocks that have
    arrived. An index outside the tensor touches nothing and reads 0.

    It orders memory like a release and an acquire at GPU scope, for the
    whole block: every global write of the block before it is visible to a
    block that reads the value it wrote (by its own `tile.block_atomic`),
    and every read after it sees the writes of the blocks whose values it
    read. So the last block to count itself in over a tile may read what the
    others stored (split-K's serial reduction, a combine in the same
    launch). The lowering: a barrier of the block, one thread's
    `fence.acq_rel.gpu` and `atom.acq_rel.gpu`, the old value through 4
    bytes of scratch shared memory, a barrier, every thread's fence.

    ```mlir
    %arrived = tile.block_atomic sum %Count[%t], %c1 : !tile.global<i32, 1>, i32
    ```
  }];
  // The value before the variadic indices: the result's type is inferred
  // from it by position.
  let arguments = (ins Tile_ReduceKind:$kind, Tile_GlobalTensorType:$tensor,
                       AnyTypeOf<[I32, F32]>:$value, Variadic<I32>:$indices);
  let results = (outs AnyTypeOf<[I32, F32]>:$result);
  let assemblyFormat = [{
    $kind $tensor `[` $indices `]` `,` $value attr-dict `:` type($tensor) `,` type($value)
  }];
  let hasVerifier = 1;
}

def Tile_BlockExchangeOp : Tile_Op<"block_exchange", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    AttrSizedOperandSegments,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "one ordered atomic exchange or compare-and-swap by the "
                "block, returning the old value";
  let description = [{
    The block writes the scalar `value` into the tensor's element at element
    coordinates `indices` by one atomic exchange (i32 or f32), or, with a
    `compare` operand, only where the element equals it (a compare-and-swap,
    i32), and every thread gets the element's old value: a lock taken
    (`cas` of 0 by 1 returning 0) or released (an exchange of 0), a flag
    set. An index outside the tensor touches nothing and reads 0.

    It orders memory as `tile.block_atomic` does (a release and an acquire
    at GPU scope, for the whole block), and is lowered the same way:
    `atom.acq_rel.gpu.global.exch.b32` or `.cas.b32` by the block's first
    thread, the old value through 4 bytes of scratch shared memory.

    ```mlir
    %old = tile.block_exchange %Lock[%c0], %c1 compare %c0 : i32 : !tile.global<i32, 1>, i32
    %was = tile.block_exchange %Flag[%t], %c1 : !tile.global<i32, 1>, i32
    ```
  }];
  let arguments = (ins Tile_GlobalTensorType:$tensor,
                       AnyTypeOf<[I32, F32]>:$value,
                       Optional<AnyTypeOf<[I32, F32]>>:$compare,
                       Variadic<I32>:$indices);
  let results = (outs AnyTypeOf<[I32, F32]>:$result);
  let assemblyFormat = [{
    $tensor `[` $indices `]` `,` $value (`compare` $compare^ `:`
    type($compare))? attr-dict `:` type($tensor) `,` type($value)
  }];
  let hasVerifier = 1;
}

def Tile_GatherOp : Tile_Op<"gather", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "load the elements of a global tensor that index tiles name";
  let description = [{
    One i32 index tile per tensor dimension, each of the result's shape:

      result[p] = tensor[indices[0][p], ..., indices[n-1][p]]

    (element coordinates, not tile coordinates). An element whose index is
    outside the tensor in any dimension reads as `padding` (zero when
    absent). Rows of an embedding table, pages of a KV cache and tokens
    routed to an expert are gathers. Along the tensor's contiguous last
    dimension, the lowering reads vectors where the last index tile is known
    to run in steps of one and the others to be constant (IndexAnalysis.h).

    ```mlir
    %rows = tile.gather %E[%ids, %cols] : !tile.global<f16, 2>[tensor<64x128xi32>, tensor<64x128xi32>] -> tensor<64x128xf16>
    ```
  }];
  let arguments = (ins Tile_GlobalTensorType:$tensor,
                       Variadic<Tile_IntTile>:$indices,
                       OptionalAttr<TypedAttrInterface>:$padding);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    $tensor `[` $indices `]` attr-dict `:` type($tensor) `[` type($indices) `]` `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_ScatterOp : Tile_Op<"scatter", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "store a tile's elements where index tiles name";
  let description = [{
    The inverse of `tile.gather`: `tensor[indices[0][p], ..., indices[n-1][p]]
    = value[p]` for every element `p` of `value` whose indices are inside the
    tensor (the others are not written). Where two elements name the same
    place, one of them is written; which one is not specified.

    With `combine`, each element is instead combined with the tensor's by an
    atomic read-modify-write (`red.global`, as `tile.atomic_rmw`), once per
    element of `value` (a layout that holds it in several threads combines
    it in one): two elements naming the same place both count (an
    index_add, a histogram, an expert's outputs added back to their tokens).
    sum on f32, f16, bf16 (sm_90), i32 and i64; max and min on f32, i32 and
    i64. With
    a result (a combining scatter only), `old` holds the value each element
    found (`atom.global`, as `tile.atomic_rmw`'s): two elements naming one
    place find each other's sum in some order (each token's slot in its
    expert's list).

    ```mlir
    tile.scatter %O[%rows, %cols], %x : !tile.global<f32, 2>[tensor<64x128xi32>, tensor<64x128xi32>], tensor<64x128xf32>
    tile.scatter combine(sum) %H[%bins], %ones : !tile.global<i32, 1>[tensor<256xi32>], tensor<256xi32>
    %slot = tile.scatter combine(sum) %H[%e], %ones : !tile.global<i32, 1>[tensor<128xi32>], tensor<128xi32> -> tensor<128xi32>
    ```
  }];
  let arguments = (ins Tile_GlobalTensorType:$tensor,
                       Variadic<Tile_IntTile>:$indices, Tile_Tile:$value,
                       OptionalAttr<Tile_ReduceKind>:$combine);
  let results = (outs Optional<Tile_Tile>:$old);
  let assemblyFormat = [{
    (`combine` `(` $combine^ `)`)? $tensor `[` $indices `]` `,` $value attr-dict `:` type($tensor) `[` type($indices) `]` `,` type($value) (`->` type($old)^)?
  }];
  let hasVerifier = 1;
  let hasCanonicalizeMethod = 1;
}

def Tile_ItemOp : Tile_Op<"item", [Pure,
    DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRangesFromOptional"]>]> {
  let summary = "the scalar held by a one-element tile";
  let description = [{
    The one element of `source` (every dimension of size 1) as a scalar: a
    value read from memory becomes a loop bound or a tile index. Every
    thread holds a one-element tile's element, whatever its layout, so this
    moves no data.

    ```mlir
    %n = tile.item %len : tensor<1xi32> -> i32
    ```
  }];
  let arguments = (ins Tile_Tile:$source);
  let results = (outs AnyTypeOf<[AnySignlessInteger, AnyFloat]>:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

def Tile_MmaOp : Tile_Op<"mma", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "matrix multiply-accumulate on tensor cores: a * b + acc";
  let description = [{
    `a` is M x K, `b` is K x N, `acc` and the result M x N. `a` and `b` hold
    f16 or bf16 (the same type), 8-bit floats (f8E4M3FN or f8E5M2, either
    in each: sm_90a's wgmma only), i8 (the accumulator then i32), or f32,
    multiplied as tf32 (`m16n8k8` / `wgmma...k8.f32.tf32.tf32`: the tensor
    cores read the sign, the exponent and the top 10 bits of the mantissa
    of each element, the low 13 are not read); the accumulator is f32
    unless the operands are i8.

    ```mlir
    %d = tile.mma %a, %b, %c : tensor<64x128xf16>, tensor<128x64xf16>, tensor<64x64xf32>
    ```
  }];
  let arguments = (ins Tile_MmaOperandTile:$a, Tile_MmaOperandTile:$b,
                       Tile_AccumulatorTile:$acc);
  let results = (outs Tile_AccumulatorTile:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc attr-dict `:` type($a) `,` type($b) `,` type($acc)
  }];
  let hasVerifier = 1;
}

def Tile_WarpgroupMmaOp : Tile_Op<"wgmma", [
    AllTypesMatch<["acc", "result"]>,
    MemoryEffects<[MemRead<SharedMemoryResource>]>]> {
  let summary = "warpgroup matrix multiply-accumulate (Hopper): a * b + acc";
  let description = [{
    The `tile.mma` of sm_90a, as `wgmma.mma_async.m64nNk16` run by
    warpgroups of four warps: `b` (K x N) is read from shared memory, `a`
    (M x K) from shared memory or from registers (in the dot_operand A
    layout of the accumulator's, as the P of attention's P * V comes from
    the previous multiply's accumulator). The accumulator is in a version-3
    `#tile.mma` layout. A shared operand has a layout the instruction's
    matrix descriptors can describe: 16-byte chunks swizzled over blocks of
    128, 64 or 32 bytes (`#tile.shared<..., block = B>`), with K or M/N
    fastest for 16-bit elements. 8-bit operands (`wgmma...k32.f32.e4m3.e5m2`
    and the other pairs, `.s32.s8.s8`) and f32 ones (`k8.f32.tf32.tf32`)
    are read K-major only; `a` in registers is in the dot_operand layout
    of kWidth 32 / its bits.
    The lowering fences, issues the instructions of every 64-row block and
    K step (32 bytes: 16 elements, 32 of 8 bits, 8 of f32) and commits them
    as one group.

    Without `async`, the multiply has completed when the op returns: the
    group is waited for, with the accumulator registers tied to the wait.
    With `async` (placed by `tile-async-wgmma`), the result is in flight:
    it may only be the accumulator of a later `tile.wgmma` (the hardware
    chains them), pass through `scf.yield`, a loop's results or a layout
    conversion that only renames registers, or be made available by a
    `tile.wgmma_wait`; the shared operands are read until that wait too.

    A multiply onto a zero constant reads no accumulator: its first
    instruction of each output block takes scale-d false, and no zeros are
    moved into its registers.

    With `transposed`, the buffer `b` holds B^T (N x K): the multiply reads
    it as B. A buffer is then one copy of a tile that several multiplies
    read, as B of one and, transposed, as B of another (attention
    backward's Q in K Q^T and dS^T Q; MLA's latent cache tile as K^T and
    V): the shared layout is the same bytes either way, only the matrix
    descriptor's K dimension differs.

    With `k_offset`, an `a` held in registers multiplies rows `k_offset` ..
    `k_offset` + K - 1 of `b`'s K rows (K the K of `a`, the offset a
    multiple of the instruction's K): one K step of a multiply split along
    K, its A made step by step (tile-slice-wgmma-k).

    ```mlir
    %d = tile.wgmma %a, %b, %c : !tile.smem<[128, 64], f16, #sa>, !tile.smem<[64, 128], f16, #sb>, tensor<128x128xf32, #mma3>
    %e = tile.wgmma async %a, %b, %d : !tile.smem<[128, 64], f16, #sa>, !tile.smem<[64, 128], f16, #sb>, tensor<128x128xf32, #mma3>
    %f = tile.wgmma %a, %bt transposed, %c : !tile.smem<[128, 64], f16, #sa>, !tile.smem<[128, 64], f16, #sa>, tensor<128x128xf32, #mma3>
    %g = tile.wgmma %a16, %b [k_offset = 16], %c : tensor<128x16xf16, #dot_a>, !tile.smem<[64, 128], f16, #sb>, tensor<128x128xf32, #mma3>
    ```
  }];
  let arguments = (ins AnyTypeOf<[Tile_MmaOperandTile, Tile_SharedMemoryType]>:$a,
                       Tile_SharedMemoryType:$b, Tile_AccumulatorTile:$acc,
                       UnitAttr:$is_async, UnitAttr:$b_transposed,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$k_offset);
  let results = (outs Tile_AccumulatorTile:$result);
  let assemblyFormat = [{
    (`async` $is_async^)? $a `,` $b (`transposed` $b_transposed^)? (`[` `k_offset` `=` $k_offset^ `]`)? `,` $acc attr-dict `:` type($a) `,` type($b) `,` type($acc)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$a, "::mlir::Value":$b, "::mlir::Value":$acc), [{
      build($_builder, $_state, acc.getType(), a, b, acc,
            /*is_async=*/nullptr, /*b_transposed=*/nullptr,
            /*k_offset=*/nullptr);
    }]>
  ];
  let extraClassDeclaration = [{
    /// B's K dimension in its buffer: 0, or 1 with `transposed`.
    unsigned getBKDim() { return getBTransposed() ? 1 : 0; }
  }];
  let hasVerifier = 1;
}

def Tile_WgmmaWaitOp : Tile_Op<"wgmma_wait", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<InferTypeOpInterface>,
    MemoryEffects<[MemRead<SharedMemoryResource>, MemWrite<SharedMemoryResource>]>]> {
  let summary = "wait until at most `pending` async wgmma groups are in flight";
  let description = [{
    `wgmma.wait_group pending`: every async `tile.wgmma` this warpgroup
    issued before, except the last `pending` ones, has completed. `values`
    are accumulators of such multiplies: the results are the same values,
    now complete (the lowering ties their registers to the wait, so that
    nothing reads them earlier); or f32 tiles in a multiply's A operand
    layout that a register A is made from, so that it is made (its
    registers written) only after the wait. `buffers` are the shared
    operands of the multiplies the wait completes: naming them keeps them
    allocated until here, and tells `tile-insert-barriers` that they are
    read until here.

    ```mlir
    %s = tile.wgmma_wait 0, %qk : tensor<128x64xf32, #mma> reads %q, %k : !tile.smem<[128, 128], f16, #sa>, !tile.smem<[128, 64], f16, #sb>
    tile.wgmma_wait 1 reads %ring : !tile.smem<[3, 128, 32], f16, #sr>
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$pending,
                       Variadic<AnyTypeOf<[Tile_FloatTile, Tile_AccumulatorTile]>>:$values,
                       Variadic<Tile_SharedMemoryType>:$buffers);
  let results = (outs Variadic<AnyTypeOf<[Tile_FloatTile, Tile_AccumulatorTile]>>:$results);
  let assemblyFormat = [{
    $pending (`,` $values^ `:` type($values))? (`reads` $buffers^ `:` type($buffers))? attr-dict
  }];
  let hasVerifier = 1;
}

def Tile_FenceAsyncSharedOp : Tile_Op<"fence_async_shared", [
    MemoryEffects<[MemRead<SharedMemoryResource>, MemWrite<SharedMemoryResource>]>]> {
  let summary = "order this thread's shared memory writes before async-proxy reads";
  let description = [{
    `fence.proxy.async.shared::cta`: the shared memory this thread wrote
    with ordinary stores or `cp.async` becomes visible to the async proxy
    (wgmma operands, the tensor memory accelerator) once a barrier after
    the fence has been passed. `tile-insert-barriers` places it before the
    barrier of such a hazard.

    ```mlir
    tile.fence_async_shared
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure]> {
  let summary = "reduce a tile along one axis";
  let description = [{
    Combines the elements along `axis` with `max`, `min` or `sum`. With
    `keepdims` the reduced dimension stays with size 1, otherwise it is
    removed.

    With `kept_bits` (and `keepdims`) the reduction is partial: it
    combines the elements whose indices along the axis agree on those
    bits, and the result's index along the axis is those bits, packed
    (element `k` combines the indices whose kept bits, read in order,
    spell `k`): the result's extent along the axis is 2 to the number of
    kept bits. tile-defer-loop-reductions keeps the bits a layout gives
    to lanes and warps, so that a loop's sum is combined within each
    thread in every trip and across threads once after the loop.

    ```mlir
    %m = tile.reduce max %qk {axis = 1 : i32, keepdims} : tensor<64x64xf32> -> tensor<64x1xf32>
    %p = tile.reduce sum %p {axis = 1 : i32, keepdims, kept_bits = 38 : i64} : tensor<64x64xf32> -> tensor<64x8xf32>
    ```
  }];
  let arguments = (ins Tile_ReduceKind:$kind, Tile_Tile:$source,
                       ConfinedAttr<I32Attr, [IntNonNegative]>:$axis,
                       UnitAttr:$keepdims,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$kept_bits);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat =
      "$kind $source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ScanOp : Tile_Op<"scan", [Pure, SameOperandsAndResultType]> {
  let summary = "inclusive prefix of a tile along one axis";
  let description = [{
    Element `i` along `axis` becomes the combination (`sum`, `max` or
    `min`) of elements `0` to `i` (`cumsum` in the language). The lowering
    takes the axis bit by bit: each element whose bit is set adds the total
    of the half block below it, from a register, a lane (a shuffle) or a
    warp (scratch shared memory); it needs a layout in which every bit of
    the axis comes from one register, lane or warp bit alone (a blocked
    layout).

    ```mlir
    %c = tile.scan sum %x {axis = 1 : i32} : tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Tile_ReduceKind:$kind, Tile_Tile:$source,
                       ConfinedAttr<I32Attr, [IntNonNegative]>:$axis);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$kind $source attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_Exp2Op : Tile_Op<"exp2", [Pure, SameOperandsAndResultType, Elementwise]> {
  let summary = "2 raised to each element";
  let description = [{
    With `flush_to_zero`, subnormal inputs and results are flushed to zero
    and the hardware approximation is used (`ex2.approx.ftz.f32`).

    ```mlir
    %p = tile.exp2 %x flush_to_zero : tensor<64x64xf32>
    ```
  }];
  let arguments = (ins Tile_FloatLike:$source, UnitAttr:$flush_to_zero);
  let results = (outs Tile_FloatLike:$result);
  let assemblyFormat = "$source (`flush_to_zero` $flush_to_zero^)? attr-dict `:` type($result)";
}

def Tile_DivOp : Tile_Op<"div", [Pure, SameOperandsAndResultType, Elementwise]> {
  let summary = "floating-point division with a rounding mode";
  let description = [{
    `rn` is IEEE-754 division rounded to nearest, `full` the fast division
    of at most 2 ulp error (`div.full`), `approx` a reciprocal and a multiply
    (`div.approx`). With `flush_to_zero`, subnormals are flushed.

    ```mlir
    %o = tile.div %acc, %l approx flush_to_zero : tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Tile_FloatLike:$lhs, Tile_FloatLike:$rhs,
                       DefaultValuedAttr<Tile_RoundingMode,
                                         "::mlir::tile::RoundingMode::RN">:$rounding,
                       UnitAttr:$flush_to_zero);
  let results = (outs Tile_FloatLike:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs $rounding (`flush_to_zero` $flush_to_zero^)? attr-dict `:` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

def Tile_ConvertLayoutOp : Tile_Op<"convert_layout", [Pure,
    DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRangesFromOptional"]>]> {
  let summary = "redistribute a tile to another layout";
  let description = [{
    The same tile in another layout. Layout assignment inserts it where a
    value's producer and consumer want different layouts; the lowering moves
    registers within threads when the two layouts map the same elements to
    the same threads, and goes through shared memory otherwise.

    ```mlir
    %b = tile.convert_layout %a : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #dot_a>
    ```
  }];
  let arguments = (ins Tile_Tile:$source);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Tile_ExtractOp : Tile_Op<"extract", [Pure,
    DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRangesFromOptional"]>]> {
  let summary = "a static sub-tile";
  let description = [{
    The part of `source` starting at `offsets` with the result's shape (a
    slice `x[:, 16:48]` in the language; also the K slices of an mma).
    When the sub-tile lives in the same threads as the tile (the same lane
    and warp bases, offsets multiples of the sub-tile's shape, as K slices
    of an mma operand are) it moves no data; otherwise it goes through
    scratch shared memory, as a layout conversion does.

    ```mlir
    %s = tile.extract %p [0, 16] : tensor<64x64xf16, #dot_a> -> tensor<64x16xf16, #dot_a>
    ```
  }];
  let arguments = (ins Tile_Tile:$source, DenseI64ArrayAttr:$offsets);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat =
      "$source $offsets attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ConcatOp : Tile_Op<"concat", [Pure,
    DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRangesFromOptional"]>]> {
  let summary = "tiles joined along an axis";
  let description = [{
    The `inputs`, in order, along dimension `axis` (`cat((a, b), axis=0)`
    in the language): they have the result's rank and element type, and
    its sizes in every other dimension; their sizes along `axis` add up to
    the result's. It goes through scratch shared memory: each input is
    written at its offset, the result read back.

    ```mlir
    %c = tile.concat %a, %b {axis = 1 : i32} : tensor<64x32xf32>, tensor<64x32xf32> -> tensor<64x64xf32>
    ```
  }];
  let arguments = (ins Variadic<Tile_Tile>:$inputs, I32Attr:$axis);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat =
      "$inputs attr-dict `:` type($inputs) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_LocalAllocOp : Tile_Op<"local_alloc", [
    MemoryEffects<[MemAlloc<SharedMemoryResource>, MemWrite<SharedMemoryResource>]>]> {
  let summary = "copy a tile into a new shared memory buffer";
  let description = [{
    Writes `source` to a new shared memory buffer of the result's layout.
    Other threads see the data after a barrier, which tile-insert-barriers
    places before their first read.

    ```mlir
    %k = tile.local_alloc %t : tensor<128x64xf16, #blocked> -> !tile.smem<[128, 64], f16, #shared>
    ```
  }];
  let arguments = (ins Tile_Tile:$source);
  let results = (outs Tile_SharedMemoryType:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_LocalStoreOp : Tile_Op<"local_store", [
    MemoryEffects<[MemWrite<SharedMemoryResource>]>]> {
  let summary = "copy a tile into an existing shared memory buffer";
  let description = [{
    Writes `value` to `buffer`, which has the tile's shape and element type
    (a `tile.smem_alloc` that outlives the write: the staging buffer of a
    `tile.tma_store`). Like `tile.local_alloc`, it becomes vector stores of
    each thread's registers; other threads see the data after a barrier.

    ```mlir
    tile.local_store %o, %buf : tensor<128x128xf16, #mma>, !tile.smem<[128, 128], f16, #shared>
    ```
  }];
  let arguments = (ins Tile_Tile:$value, Tile_SharedMemoryType:$buffer);
  let assemblyFormat =
      "$value `,` $buffer attr-dict `:` type($value) `,` type($buffer)";
  let hasVerifier = 1;
}

def Tile_LocalLoadOp : Tile_Op<"local_load", [
    MemoryEffects<[MemRead<SharedMemoryResource>]>]> {
  let summary = "read (part of) a shared memory buffer into registers";
  let description = [{
    Reads the sub-tile at `offsets` with the result's shape and layout. For
    the operand layouts of mma on 16-bit data this becomes `ldmatrix`. A
    buffer of lower rank holds the tile without its size-1 dimensions (as
    `tile.async_copy` fills it): the result is read with them, `offsets`
    indexing the buffer.

    ```mlir
    %b = tile.local_load %k [16, 0] : !tile.smem<[128, 64], f16, #shared> -> tensor<16x64xf16, #dot_b>
    ```
  }];
  let arguments = (ins Tile_SharedMemoryType:$buffer, DenseI64ArrayAttr:$offsets);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat =
      "$buffer $offsets attr-dict `:` type($buffer) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_SmemAllocOp : Tile_Op<"smem_alloc", [
    MemoryEffects<[MemAlloc<SharedMemoryResource>]>]> {
  let summary = "a shared memory buffer";
  let description = [{
    A buffer of the result's shape in the thread block's shared memory, with
    undefined contents, written by `tile.async_copy` and read by
    `tile.local_load`. A buffer whose leading dimension is a stage dimension
    (a ring of buffers for a software-pipelined loop) is indexed with
    `tile.smem_slot`. `tile-allocate-shared-memory` gives it its offset.

    ```mlir
    %ring = tile.smem_alloc : !tile.smem<[3, 64, 128], f16, #shared3>
    ```
  }];
  let results = (outs Tile_SharedMemoryType:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Tile_SmemSlotOp : Tile_Op<"smem_slot", [Pure]> {
  let summary = "one stage of a ring of shared memory buffers";
  let description = [{
    The buffer at index `slot` of the leading (stage) dimension of `ring`:
    the result has the ring's shape without that dimension and the ring's
    shared layout restricted to the other dimensions. `slot` must be less
    than the number of stages.

    ```mlir
    %k = tile.smem_slot %ring[%i] : !tile.smem<[3, 64, 128], f16, #shared3> -> !tile.smem<[64, 128], f16, #shared>
    ```
  }];
  let arguments = (ins Tile_SharedMemoryType:$ring, I32:$slot);
  let results = (outs Tile_SharedMemoryType:$result);
  let assemblyFormat =
      "$ring `[` $slot `]` attr-dict `:` type($ring) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_SmemPermuteOp : Tile_Op<"smem_permute", [Pure]> {
  let summary = "a shared memory buffer viewed with its dimensions permuted";
  let description = [{
    The same bytes as `buffer`, with result dimension `i` being the
    buffer's dimension `permutation[i]`: the result's shape is the buffer's
    permuted and its shared layout the buffer's with `order` renamed to
    match (the same vector, phases and block). A tile written to a buffer
    from its registers as they are is read transposed through this view
    (wgmma reads an A operand that runs along M), with no second copy.

    ```mlir
    %t = tile.smem_permute %buf [1, 0] : !tile.smem<[128, 64], f16, #shared> -> !tile.smem<[64, 128], f16, #shared_t>
    ```
  }];
  let arguments = (ins Tile_SharedMemoryType:$buffer,
                       DenseI32ArrayAttr:$permutation);
  let results = (outs Tile_SharedMemoryType:$result);
  let assemblyFormat = "$buffer $permutation attr-dict `:` type($buffer) `->` "
                       "type($result)";
  let hasVerifier = 1;
}

def Tile_SmemViewOp : Tile_Op<"smem_view", [Pure]> {
  let summary = "a shared memory buffer's first bytes as a buffer of "
                "another type";
  let description = [{
    The bytes of `buffer` from its start, as a buffer of the result's
    shape, element type and shared layout: its type alone tells its
    readers and writers where each element is. The result takes at most
    the buffer's bytes and starts at the buffer's own alignment (its
    swizzle's, which must be a multiple of the result's). A ring slot that
    a loop holds after its last trip stages a tile of another type there
    (tile-stage-in-held-slots).

    ```mlir
    %v = tile.smem_view %slot : !tile.smem<[64, 256], f16, #shared> -> !tile.smem<[128, 128], f16, #shared1>
    ```
  }];
  let arguments = (ins Tile_SharedMemoryType:$buffer);
  let results = (outs Tile_SharedMemoryType:$result);
  let assemblyFormat = "$buffer attr-dict `:` type($buffer) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_AsyncCopyOp : Tile_Op<"async_copy", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "copy a tile from global to shared memory without registers";
  let description = [{
    Starts copying the tile `tile.load` would read (the same `indices`,
    `order` and bounds, a tile of shape `shape`; elements outside the tensor
    read as `padding`, zero when absent) into `buffer`, which holds the tile with its size-1
    dimensions dropped. `layout`, a blocked layout of the buffer's shape,
    says which thread copies which elements. With `if %pred` false, nothing
    is copied. Each copy is one group of the thread's asynchronous copies,
    predicated off or not: `tile.async_wait` counts them. `latency` is the
    pipelining hint of the load it was made from.

    With `boxes` and `box_dim`, view dimension `box_dim` is gathered in
    boxes as `tile.load` reads it.

    On sm_80 and later this is `cp.async` (4, 8 or 16 bytes per thread and
    vector) followed by `cp.async.commit_group`; a vector outside the
    tensor is filled with zeros by the copy, or, with a `padding` other than
    zero, stored as the padding by `st.shared` instead of copied.

    ```mlir
    tile.async_copy %K[%b, %h, %c0, %j], %buf if %p {shape = array<i64: 1, 1, 128, 64>,
        order = array<i32: 0, 1, 3, 2>, layout = #blocked}
        : !tile.global<f16, 4>, !tile.smem<[128, 64], f16, #shared>
    ```
  }];
  let arguments = (ins Tile_GlobalTensorType:$tensor, Variadic<I32>:$indices,
                       Optional<Tile_IntTile>:$boxes,
                       Tile_SharedMemoryType:$buffer, Optional<I1>:$pred,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntNonNegative]>>:$box_dim,
                       DenseI64ArrayAttr:$shape,
                       OptionalAttr<DenseI32ArrayAttr>:$order,
                       Tile_BlockedLayoutAttr:$layout,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntPositive]>>:$latency,
                       OptionalAttr<TypedAttrInterface>:$padding);
  let assemblyFormat = [{
    $tensor `[` $indices `]` (`boxes` `(` $boxes^ `:` type($boxes) `)`)? `,` $buffer (`if` $pred^)? attr-dict `:` type($tensor) `,` type($buffer)
  }];
  let hasVerifier = 1;
}

def Tile_AsyncWaitOp : Tile_Op<"async_wait", [
    MemoryEffects<[MemRead<SharedMemoryResource>, MemWrite<SharedMemoryResource>]>]> {
  let summary = "wait until this thread's async copies have landed";
  let description = [{
    Waits until at most `pending` of this thread's `tile.async_copy` groups
    are still in flight (copies complete in the order they were issued, so
    `pending` counts the copies issued after the one waited for). The
    `buffers` are the ones whose copies this completes: their data is then
    visible to this thread; other threads see it after a `tile.barrier`
    (which `tile-insert-barriers` places).

    ```mlir
    tile.async_wait %k {pending = 1 : i32} : !tile.smem<[128, 64], f16, #shared>
    tile.async_wait all {pending = 0 : i32}
    ```

    Without buffers the op is written `tile.async_wait all`: a bare
    `tile.async_wait` followed by `%x = ...` on the next line would read
    `%x` as a buffer.
  }];
  let arguments = (ins Variadic<Tile_SharedMemoryType>:$buffers,
                       DefaultValuedAttr<ConfinedAttr<I32Attr, [IntNonNegative]>, "0">:$pending);
  let assemblyFormat =
      "($buffers^) : (`all`)? attr-dict (`:` type($buffers)^)?";
}

def Tile_MbarrierAllocOp : Tile_Op<"mbarrier_alloc", [
    MemoryEffects<[MemAlloc<SharedMemoryResource>]>]> {
  let summary = "a ring of mbarriers in shared memory";
  let description = [{
    Shared memory for `count` mbarriers, uninitialized until
    `tile.mbarrier_init`. `tile-allocate-shared-memory` gives it its offset.

    ```mlir
    %bars = tile.mbarrier_alloc : !tile.mbarrier<2>
    ```
  }];
  let results = (outs Tile_MbarrierType:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Tile_MbarrierInitOp : Tile_Op<"mbarrier_init", [
    MemoryEffects<[MemWrite<SharedMemoryResource>]>]> {
  let summary = "initialize every mbarrier of a ring";
  let description = [{
    One thread initializes each barrier of `barriers` for `count` arrivals
    per phase, in phase 0, and fences the initialization for the async
    proxy. Other threads may use the barriers after a `tile.barrier`
    (`tile-insert-barriers` places it).

    ```mlir
    tile.mbarrier_init %bars {count = 1 : i32} : !tile.mbarrier<2>
    ```
  }];
  let arguments = (ins Tile_MbarrierType:$barriers,
                       ConfinedAttr<I32Attr, [IntPositive]>:$count);
  let assemblyFormat = "$barriers attr-dict `:` type($barriers)";
}

def Tile_MbarrierInvalOp : Tile_Op<"mbarrier_inval", [
    MemoryEffects<[MemWrite<SharedMemoryResource>]>]> {
  let summary = "invalidate every mbarrier of a ring";
  let description = [{
    One thread invalidates each barrier of `barriers`, so that the memory
    may hold other data (or barriers initialized anew) afterwards. No
    thread may still be using them: `tile-insert-barriers` places a
    `tile.barrier` before it.

    ```mlir
    tile.mbarrier_inval %bars : !tile.mbarrier<2>
    ```
  }];
  let arguments = (ins Tile_MbarrierType:$barriers);
  let assemblyFormat = "$barriers attr-dict `:` type($barriers)";
}

def Tile_MbarrierWaitOp : Tile_Op<"mbarrier_wait", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead<SharedMemoryResource>, MemWrite<SharedMemoryResource>]>]> {
  let summary = "wait until an mbarrier completes a phase";
  let description = [{
    Every thread waits until barrier `slot` of `barriers` has completed the
    phase of parity `phase` (0 or 1: the barrier's uses so far, modulo 2).
    The data of the TMA copies that completed on it, into `buffers`, is
    then visible to every waiting thread: no `tile.barrier` is needed to
    read it. With `if %pred` false, the thread does not wait. A barrier
    that has not completed any phase yet counts its phase of parity 1 as
    complete (the one before phase 0), so that a producer's first wait for
    a free slot passes at once.

    ```mlir
    tile.mbarrier_wait %bars[%slot], %phase, %k : !tile.mbarrier<2>, !tile.smem<[64, 128], f16, #shared>
    tile.mbarrier_wait %empty[%slot], %phase if %p : !tile.mbarrier<2>
    ```
  }];
  let arguments = (ins Tile_MbarrierType:$barriers, I32:$slot, I32:$phase,
                       Variadic<Tile_SharedMemoryType>:$buffers,
                       Optional<I1>:$pred);
  let assemblyFormat = [{
    $barriers `[` $slot `]` `,` $phase (`,` $buffers^)? (`if` $pred^)? attr-dict `:` type($barriers) (`,` type($buffers)^)?
  }];
}

def Tile_MbarrierArriveOp : Tile_Op<"mbarrier_arrive", [
    MemoryEffects<[MemRead<SharedMemoryResource>, MemWrite<SharedMemoryResource>]>]> {
  let summary = "release a ring slot: every thread arrives on its mbarrier";
  let description = [{
    Every thread arrives once on barrier `slot` of `barriers` (if `pred`),
    saying that it is done reading `buffer`, the slot of a ring that a
    producer refills once the barrier completes its phase (an "empty"
    barrier, initialized for as many arrivals as there are consumer
    threads). Shared memory accesses made before the arrival happen before
    the producer's wait that sees the phase complete. Passes that move
    refills treat a release as the refill it stands for: it comes after
    the last read of the slot, multiplies in flight included.

    With `cluster` (a kernel launched in clusters, `tile.cluster`), the
    slot is released in every block of the cluster: the barrier of each
    block counts one arrival per warp of the releasing threads and block
    (lane r of each warp arrives on block r's barrier, after the warp's
    threads are done), for a ring that the cluster's producers fill
    together (`tile.tma_load multicast`, `tile.tile_claim` with a full
    barrier).

    ```mlir
    tile.mbarrier_arrive %empty[%slot], %k if %p : !tile.mbarrier<2>, !tile.smem<[64, 128], f16, #shared>
    tile.mbarrier_arrive %empty[%slot], %k {cluster} : !tile.mbarrier<2>, !tile.smem<[64, 128], f16, #shared>
    ```
  }];
  let arguments = (ins Tile_MbarrierType:$barriers, I32:$slot,
                       Tile_SharedMemoryType:$buffer, Optional<I1>:$pred,
                       UnitAttr:$cluster);
  let hasVerifier = 1;
  let assemblyFormat = [{
    $barriers `[` $slot `]` `,` $buffer (`if` $pred^)? attr-dict `:` type($barriers) `,` type($buffer)
  }];
}

def Tile_TmaLoadOp : Tile_Op<"tma_load", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead, MemRead<SharedMemoryResource>, MemWrite<SharedMemoryResource>]>]> {
  let summary = "copy a tile from global to shared memory with TMA";
  let description = [{
    One thread starts copying into `buffer` the boxes of the tensor that
    `map` describes at element coordinates `coords` (one per tensor
    dimension, outermost first; elements outside the tensor read as zero),
    completing on barrier `slot` of `barriers`, whose transaction count it
    raises by the bytes copied. The buffer's fastest dimension lies along
    the tensor's innermost one; when it is wider than the map's box, the
    copy moves one box per block of the buffer's shared layout (the next
    box starting `box` elements further along the innermost dimension).
    With `if %pred` false, nothing is copied and the barrier is not
    touched. The copying thread is thread 0 of the block, or thread
    `issuer` (a warp-specialized kernel's producer). Lowers to
    `mbarrier.arrive.expect_tx` and `cp.async.bulk.tensor`.

    With `boxes` (L entries) and `box_dim` (a tensor dimension), the buffer
    holds L slabs along its slowest dimension, each the map's box along
    `box_dim`: slab k is copied at coordinate `coords[box_dim] + boxes[k] *
    box[box_dim]` (the pages of a paged KV cache, one box per page).

    With `multicast` (a kernel launched in clusters, `tile.cluster`), every
    block of the cluster copies the same tile into the same buffer: block
    r issues the boxes k with k mod size = r, each written to every block
    of the cluster and completing on each block's barrier `slot`, and each
    block's issuer still expects the bytes of the whole copy on its own.
    The cluster's blocks must issue the copy alike (the same coordinates,
    the same predicate), and none may refill a slot before every block's
    consumers have released it (`tile.mbarrier_arrive {cluster}`).

    ```mlir
    tile.tma_load %map[%c0, %h, %j, %c0], %k, %bars[%slot] if %p
        : !tile.tensor_map<[1, 1, 64, 64], f16, swizzle = 128>,
          !tile.smem<[64, 128], f16, #shared>, !tile.mbarrier<2>
    ```
  }];
  let arguments = (ins Tile_TensorMapType:$map, Variadic<I32>:$coords,
                       Optional<Tile_IntTile>:$boxes,
                       Tile_SharedMemoryType:$buffer,
                       Tile_MbarrierType:$barriers, I32:$slot,
                       Optional<I1>:$pred,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntNonNegative]>>:$box_dim,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntNonNegative]>>:$issuer,
                       UnitAttr:$multicast);
  let assemblyFormat = [{
    $map `[` $coords `]` (`boxes` `(` $boxes^ `:` type($boxes) `)`)? `,` $buffer `,` $barriers `[` $slot `]` (`if` $pred^)? attr-dict `:` type($map) `,` type($buffer) `,` type($barriers)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The boxes one copy moves: the buffer's elements over a box's.
    int64_t getNumBoxes();
    /// The slabs of gathered boxes (the entries of `boxes`), or 1.
    int64_t getNumSlabs();
  }];
}

def Tile_TmaStoreOp : Tile_Op<"tma_store", [AttrSizedOperandSegments,
    MemoryEffects<[MemWrite, MemRead<SharedMemoryResource>]>]> {
  let summary = "copy a tile from shared to global memory with TMA";
  let description = [{
    Thread 0 of the block (of the consumers, in a warp-specialized kernel)
    starts copying `buffer` to the boxes of the tensor that `map` describes
    at element coordinates `coords` (one per tensor dimension, outermost
    first; elements outside the tensor are not written), one box per block
    of the buffer's shared layout as `tile.tma_load` reads them, and commits
    them as one bulk group. The copy engine reads the buffer through the
    async proxy: the threads that wrote it fence and meet at a barrier
    first (tile-insert-barriers), and nothing may write the buffer again
    before a `tile.tma_store_wait` naming it. Lowers to
    `cp.async.bulk.tensor.global.shared::cta` and
    `cp.async.bulk.commit_group`. With `issuer`, a lane of the warp of
    thread `issuer` copies instead (a warp-specialized kernel's producer:
    tile-warp-specialize's producer-stores, after the consumers staged the
    buffer and said so on an mbarrier). With `pred`, only where it holds (no
    group is committed where it does not: a loop's first trip has no
    previous trip's store to issue, tile-defer-loop-stores), with no
    branch around it.

    With `reduce`, each element of the buffer is combined with the
    tensor's element at its place instead of replacing it, atomically as
    `tile.atomic_rmw` combines (`sum` on f32, f16, bf16 and i32; `max` and
    `min` on f16, bf16 and i32): `cp.reduce.async.bulk.tensor`.

    ```mlir
    tile.tma_store %map[%b, %h, %m, %c0], %buf
        : !tile.tensor_map<[1, 1, 128, 64], f16, swizzle = 128>,
          !tile.smem<[128, 128], f16, #shared>
    tile.tma_store %map[%b, %m, %c0], %buf reduce sum
        : !tile.tensor_map<[1, 64, 32], f32, swizzle = 128>,
          !tile.smem<[64, 128], f32, #shared>
    ```
  }];
  let arguments = (ins Tile_TensorMapType:$map, Variadic<I32>:$coords,
                       Tile_SharedMemoryType:$buffer, Optional<I1>:$pred,
                       OptionalAttr<Tile_ReduceKind>:$reduce,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntNonNegative]>>:$issuer);
  let assemblyFormat = [{
    $map `[` $coords `]` `,` $buffer (`if` $pred^)? (`reduce` $reduce^)?
    attr-dict `:` type($map) `,` type($buffer)
  }];
  let extraClassDeclaration = [{
    /// Whether cp.reduce.async.bulk.tensor combines elements of `type`
    /// with `kind`.
    static bool isSupportedReduction(ReduceKind kind, Type type);
  }];
  let hasVerifier = 1;
}

def Tile_TmaStoreWaitOp : Tile_Op<"tma_store_wait", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead<SharedMemoryResource>, MemWrite<SharedMemoryResource>]>]> {
  let summary = "wait until this thread's TMA stores have read their buffers";
  let description = [{
    `cp.async.bulk.wait_group.read 0` (see `pending`) in the thread that
    issues TMA stores (thread 0's warp, or `issuer`'s, as the stores'):
    the buffers its earlier `tile.tma_store`s read (named here, so that they
    stay allocated until then) may be written again once every thread has
    passed a barrier after the wait (tile-insert-barriers counts the wait
    as a read of them; its write effect keeps it in place). The global
    writes themselves complete later, by the end of the kernel. With
    `pred`, only where it holds (a loop's first trip:
    tile-stage-in-held-slots), with no branch around it. With `pending`
    N, the thread's N most recent bulk groups may still be reading
    (`cp.async.bulk.wait_group.read N`): the copies that read the named
    buffers must be older than every path to the wait commits N newer
    ones (tile-stage-in-held-slots counts the parts copied after a slot's
    part), and the wait does not move above a `tile.tma_store`.

    ```mlir
    tile.tma_store_wait %buf : !tile.smem<[128, 128], f16, #shared>
    tile.tma_store_wait %ring : !tile.smem<[4, 64, 256], f16, #shared> if %first
    tile.tma_store_wait %ring : !tile.smem<[4, 64, 256], f16, #shared> if %first {pending = 2 : i32}
    ```
  }];
  let arguments = (ins Variadic<Tile_SharedMemoryType>:$buffers,
                       Optional<I1>:$pred,
                       DefaultValuedAttr<ConfinedAttr<I32Attr, [IntNonNegative]>, "0">:$pending,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntNonNegative]>>:$issuer);
  // (The short form: a wait for everything, by thread 0's warp.)
  let builders = [
    OpBuilder<(ins "::mlir::ValueRange":$buffers, "::mlir::Value":$pred), [{
      build($_builder, $_state, buffers, pred, 0u, ::mlir::IntegerAttr());
    }]>
  ];
  let assemblyFormat =
      "($buffers^ `:` type($buffers))? (`if` $pred^)? attr-dict";
}

def Tile_TileClaimOp : Tile_Op<"tile_claim", [
    MemoryEffects<[MemRead, MemWrite, MemWrite<SharedMemoryResource>]>]> {
  let summary = "claim a dynamically scheduled persistent kernel's next tile";
  let description = [{
    Thread `issuer` of the block adds 1 to the tile counter at the global
    address `counter` (the first of the two 32-bit words a persistent
    kernel takes, zero when a launch starts) and stores `offset` plus the
    count it read into slot `slot` of `ring`, a ring of i32: the block's
    next tile. The other threads do nothing; every thread reads the slot
    with `tile.tile_read` after the slot's mbarrier says it is written
    (`tile-dynamic-schedule` builds the protocol around it).

    In a kernel launched in clusters (`tile.cluster`), with `full` the
    ring's full barriers: the claim is the cluster's. Block 0's issuer
    claims and writes the tile into the slot of every block of the
    cluster (`st.async`, completing 4 bytes on each block's barrier
    `slot` of `full`); every block's issuer expects those 4 bytes on its
    own barrier.

    ```mlir
    tile.tile_claim %counter + %blocks -> %ring[%slot] {issuer = 256 : i32} : !tile.smem<[4], i32, #s>
    tile.tile_claim %counter + %clusters -> %ring[%slot], %full {issuer = 256 : i32} : !tile.smem<[4], i32, #s>, !tile.mbarrier<4>
    ```
  }];
  let arguments = (ins I64:$counter, I32:$offset, Tile_SharedMemoryType:$ring,
                       I32:$slot, Optional<Tile_MbarrierType>:$full,
                       ConfinedAttr<I32Attr, [IntNonNegative]>:$issuer);
  let assemblyFormat = [{
    $counter `+` $offset `->` $ring `[` $slot `]` (`,` $full^)? attr-dict `:` type($ring) (`,` type($full)^)?
  }];
  let hasVerifier = 1;
}

def Tile_TileReadOp : Tile_Op<"tile_read", [
    MemoryEffects<[MemRead<SharedMemoryResource>]>]> {
  let summary = "read a claimed tile from its ring";
  let description = [{
    Every thread loads the i32 at slot `slot` of `ring`, a tile that
    `tile.tile_claim` stored there.

    ```mlir
    %t = tile.tile_read %ring[%slot] : !tile.smem<[4], i32, #s>
    ```
  }];
  let arguments = (ins Tile_SharedMemoryType:$ring, I32:$slot);
  let results = (outs I32:$result);
  let assemblyFormat = "$ring `[` $slot `]` attr-dict `:` type($ring)";
  let hasVerifier = 1;
}

def Tile_TimestampOp : Tile_Op<"timestamp", [
    MemoryEffects<[MemWrite]>]> {
  let summary = "record when a point of the kernel is reached (timeline)";
  let description = [{
    The first thread of each warpgroup that reaches it appends a record
    to its warpgroup's log in `buffer` (the kernel's timeline parameter,
    tile-timeline): 16 bytes, the global timer (ns) then the low 32 bits
    of the multiprocessor's clock and, above them, `site`. A block's
    warpgroups each have `records` entries, one log after another, the
    block's after the previous block's (blocks in x, y, z order); a log
    keeps its first `records` - 1 records and its latest (`records` is a
    power of two).

    ```mlir
    tile.timestamp %buffer {records = 256 : i32, site = 3 : i32}
    ```
  }];
  let arguments = (ins I64:$buffer,
                       ConfinedAttr<I32Attr, [IntNonNegative]>:$site,
                       ConfinedAttr<I32Attr, [IntPositive]>:$records);
  let assemblyFormat = "$buffer attr-dict";
}

def Tile_TileCounterDoneOp : Tile_Op<"tile_counter_done", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "reset the tile counter after the launch's last claim";
  let description = [{
    Thread `issuer` of the block, after its last `tile.tile_claim`, adds 1
    to the second word at `counter` (acquire-release, at GPU scope); the
    block that completes the count (the launch's last: every block's
    claims came before its count) sets both words back to zero for the next
    launch.

    ```mlir
    tile.tile_counter_done %counter {issuer = 256 : i32}
    ```
  }];
  let arguments = (ins I64:$counter,
                       ConfinedAttr<I32Attr, [IntNonNegative]>:$issuer);
  let assemblyFormat = "$counter attr-dict";
}

def Tile_GridDependencyWaitOp : Tile_Op<"grid_dependency_wait", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait for the grids this launch depends on (sm_90)";
  let description = [{
    Programmatic dependent launch: a kernel launched with programmatic
    stream serialization may start while the kernel before it in its stream
    runs; each thread waits here (`griddepcontrol.wait`) until that kernel
    has completed and its memory is visible. Placed by
    `tile-dependent-launch` before the kernel's first access to global
    memory. In a kernel launched without the attribute it returns at once.

    ```mlir
    tile.grid_dependency_wait
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_LaunchDependentsOp : Tile_Op<"launch_dependents", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "let the next kernel in the stream start (sm_90)";
  let description = [{
    Programmatic dependent launch: once every block of this grid has
    executed `griddepcontrol.launch_dependents` (or exited), the kernel
    launched after it with programmatic stream serialization may start; its
    blocks run up to their `tile.grid_dependency_wait`, which waits for this
    grid's completion. Has no effect on a kernel launched otherwise.

    ```mlir
    tile.launch_dependents
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_BarrierOp : Tile_Op<"barrier", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "synchronize a set of threads of the block";
  let description = [{
    Waits until every thread of the set has reached the barrier; shared
    memory accesses made before it by these threads are visible to them
    after it. Without attributes the set is the whole thread block
    (`bar.sync 0`), or in the consumer region of a `tile.warp_specialize`
    the consumers (their named barrier 1); with `id` and `num_threads`, it
    is the named barrier `id` shared by `num_threads` threads (a multiple
    of 32), as warp specialized code uses to synchronize a subset of
    warps. With `cluster`, the set is every thread of every block of the
    kernel's cluster (`tile.cluster`), and mbarrier initializations made
    before it are visible to the cluster's blocks after it, as are global
    memory writes (release before, acquire after: the language's
    `cluster_barrier()`, so that it also reads and writes global memory as
    far as other passes are concerned). A cluster barrier with `arrive` is
    its first half only (`barrier.cluster.arrive.release`: this thread has
    arrived and goes on), one with `wait` its second
    (`barrier.cluster.wait.acquire`: until every thread of the cluster has
    arrived); each thread alternates them, and neither orders the block's
    threads as a whole barrier does (tile-exchange-in-cluster splits one
    around a kernel's work: arrived at the top, waited for before the first
    exchange). With
    `warpgroup`, each warpgroup (128 threads: thread / 128) meets on a named
    barrier of its own (`kFirstWarpgroupBarrierId` + thread / 128): the
    warpgroup's shared memory accesses are ordered, no other's
    (tile-insert-barriers places it between accesses that each warpgroup
    makes only to its own part of a buffer).

    ```mlir
    tile.barrier
    tile.barrier {id = 1 : i32, num_threads = 256 : i32}
    tile.barrier {cluster}
    tile.barrier {cluster, arrive}
    tile.barrier {warpgroup}
    ```
  }];
  let arguments = (ins
      OptionalAttr<ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<15>]>>:$id,
      OptionalAttr<ConfinedAttr<I32Attr, [IntPositive]>>:$num_threads,
      UnitAttr:$cluster, UnitAttr:$warpgroup, UnitAttr:$arrive,
      UnitAttr:$wait);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// A whole cluster barrier: `cluster`, neither `arrive` nor `wait`.
    bool isWholeCluster() { return getCluster() && !getArrive() && !getWait(); }
  }];
}

def Tile_WarpgroupTurnOp : Tile_Op<"warpgroup_turn", [
    MemoryEffects<[MemRead<SharedMemoryResource>, MemWrite<SharedMemoryResource>]>]> {
  let summary = "take turns between the consumer warpgroups (ping-pong)";
  let description = [{
    A step of a round-robin order between the `groups` consumer warpgroups
    of a warp-specialized kernel (threads 0 .. 128 * groups), on the named
    barriers `barrier` .. `barrier + groups - 1`, one per warpgroup, each
    for the 256 threads of two warpgroups:

    - `start`: the last warpgroup gives warpgroup 0 its first turn
      (`bar.arrive barrier, 256`); once, before any `wait`;
    - `wait`: warpgroup g waits for its turn (`bar.sync barrier + g, 256`),
      which the previous warpgroup gives when it passes;
    - `pass`: warpgroup g gives the turn to the next one
      (`bar.arrive barrier + (g + 1) % groups, 256`);
    - `finish`: warpgroup 0 takes the last warpgroup's final pass
      (`bar.sync barrier, 256`), so that no barrier is left half arrived.

    With `threads` (128 by default: a warpgroup), the groups taking turns
    are groups of consumers of that many threads each
    (tile-consumer-groups), group g = thread / `threads`, the barriers for
    2 * `threads` threads.

    Code between a `wait` and the next `pass` runs one warpgroup at a time,
    in order: tile-ping-pong puts the issue of the multiplies there, so
    that one warpgroup's tensor-core work runs under another's softmax.
    Every warpgroup must meet the same sequence of steps.

    ```mlir
    tile.warpgroup_turn wait {barrier = 2 : i32, groups = 2 : i32}
    ```
  }];
  let arguments = (ins Tile_TurnKind:$kind,
                       ConfinedAttr<I32Attr, [IntMinValue<1>, IntMaxValue<15>]>:$barrier,
                       ConfinedAttr<I32Attr, [IntMinValue<2>]>:$groups,
                       DefaultValuedAttr<ConfinedAttr<I32Attr, [IntPositive]>, "128">:$threads);
  let assemblyFormat = "$kind attr-dict";
  let hasVerifier = 1;
}

def Tile_WarpSpecializeOp : Tile_Op<"warp_specialize", [SingleBlock,
    NoTerminator, RecursiveMemoryEffects]> {
  let summary = "split the thread block into a producer and consumers";
  let description = [{
    A warp-specialized kernel body (`tile-warp-specialize`). The block has
    `consumer_warps` warps of consumers (threads 0 .. 32 * consumer_warps,
    which the kernel's layouts describe) and one more warpgroup, the
    producers'. The consumers run `consumer`; warp r of the producer
    warpgroup runs the r-th `producer` region (one to four of them), the
    rest of the warpgroup nothing. Producers and consumers communicate
    only through mbarriers (full and empty barriers of each ring slot), so
    `consumer` synchronizes with named barriers of its own threads, never
    a block-wide one. In the text, the producer regions come first.

    With `consumer_groups` = G > 1 (tile-consumer-groups), G groups of
    `consumer_warps` warps each run `consumer` side by side (threads 0 ..
    32 * consumer_warps * G): each group sees its threads as 0 ..
    32 * consumer_warps (the layouts'), synchronizes on a named barrier of
    its own and has its own copy of every buffer the region allocates;
    `tile.consumer_group` says which group a thread is in.

    With `producer_registers` set, the producer warpgroup gives its
    registers up to that many per thread (`setmaxnreg.dec`) and the
    consumers take what that frees (`setmaxnreg.inc`, up to 240), within
    the register file the kernel's occupancy leaves a block.

    ```mlir
    tile.warp_specialize {consumer_warps = 4 : i32, producer_registers = 24 : i32} producer {
      tile.tma_load ... {issuer = 128 : i32}
    } producer {
      tile.tma_load ... {issuer = 160 : i32}
    } consumer {
      tile.mbarrier_wait ...
    }
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntPositive]>:$consumer_warps,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntMinValue<24>, IntMaxValue<256>]>>:$producer_registers,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntMinValue<2>, IntMaxValue<3>]>>:$consumer_groups);
  // ODS puts the variadic region last; the text and the shared-memory
  // liveness (tile-allocate-shared-memory) take the producers first.
  let regions = (region SizedRegion<1>:$consumer,
                        VariadicRegion<SizedRegion<1>>:$producers);
  // Custom: the regions belong to the operation state while they are
  // parsed, so that a parse error after a forward reference resolved in
  // them does not leave the reference to a destroyed value.
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Threads of one group of consumers (of all of them without
    /// `consumer_groups`).
    int64_t getNumConsumerThreads() { return int64_t(getConsumerWarps()) * 32; }
    /// Groups of consumers: 1 without `consumer_groups`.
    int64_t getNumConsumerGroups() { return getConsumerGroups().value_or(1); }
    /// Threads of every group of consumers: the producers' first thread is
    /// this one.
    int64_t getAllConsumerThreads() {
      return getNumConsumerThreads() * getNumConsumerGroups();
    }
    /// The most producer regions: one per warp of the producer warpgroup.
    static constexpr unsigned kMaxProducers = 4;
  }];
}

#endif // TILE_OPS_TD
