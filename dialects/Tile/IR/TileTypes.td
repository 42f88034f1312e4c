//===- TileTypes.td - Types of the tile dialect ------------*- tablegen -*-===//

#ifndef TILE_TYPES_TD
#define TILE_TYPES_TD

include "TileDialect.td"
include "TileAttrs.td"
include "mlir/IR/BuiltinTypeInterfaces.td"
include "mlir/IR/CommonTypeConstraints.td"

def Tile_GlobalTensorType : TypeDef<Tile_Dialect, "GlobalTensor"> {
  let mnemonic = "global";
  let summary = "a tensor in global memory, passed to a kernel";
  let description = [{
    A kernel argument naming a tensor in device memory. Only its element type
    and rank are known at compile time; its base address, shape and strides
    (in elements) are run-time values. Tiles are loaded from and stored to it.

    ```mlir
    !tile.global<f16, 4>
    ```
  }];
  let parameters = (ins "::mlir::Type":$elementType, "unsigned":$rank);
  let assemblyFormat = "`<` $elementType `,` $rank `>`";
  let genVerifyDecl = 1;
}

def Tile_SharedMemoryType : TypeDef<Tile_Dialect, "SharedMemory"> {
  let mnemonic = "smem";
  let summary = "a tile held in shared memory";
  let description = [{
    A buffer in the thread block's shared memory holding a tile of the given
    shape and element type, laid out by a `#tile.shared` layout. A shape
    whose dimensions are not powers of two is stored padded to powers of two
    (getStorageShape; the padding holds undefined values), but for the rows
    a layout with `rows` gives. Created by
    `tile.smem_alloc` (then written by `tile.async_copy`) or
    `tile.local_alloc` (written from registers), read (whole or in parts) by
    `tile.local_load`. A ring of buffers for a pipelined loop has a leading
    stage dimension and is indexed with `tile.smem_slot`.

    ```mlir
    !tile.smem<[64, 128], f16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>
    ```
  }];
  let parameters = (ins Tile_I64List:$shape, "::mlir::Type":$elementType,
                        "SharedLayoutAttr":$layout);
  let assemblyFormat = "`<` $shape `,` $elementType `,` $layout `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The shape the buffer is stored in: its dimensions padded to powers
    /// of two (tile::paddedShape), the layout's `rows` along its second
    /// fastest dimension where it has them. A ring's stages are not padded: its
    /// allocation holds as many stages as it has (getAllocationBytes).
    ::llvm::SmallVector<int64_t> getStorageShape() const;
    /// The elements stored, padding included.
    int64_t getNumElements() const;
  }];
}

def Tile_MbarrierType : TypeDef<Tile_Dialect, "Mbarrier"> {
  let mnemonic = "mbarrier";
  let summary = "a ring of mbarriers in shared memory";
  let description = [{
    `count` transaction barriers (PTX `mbarrier` objects, 8 bytes each) in
    the thread block's shared memory, one per stage of a pipelined loop's
    ring of buffers: a TMA copy into stage `s` completes on barrier `s`, and
    the threads reading the stage wait on it. Created by
    `tile.mbarrier_alloc`; `tile-allocate-shared-memory` places it.

    ```mlir
    !tile.mbarrier<3>
    ```
  }];
  let parameters = (ins "unsigned":$count);
  let assemblyFormat = "`<` $count `>`";
  let genVerifyDecl = 1;
}

def Tile_TensorMapType : TypeDef<Tile_Dialect, "TensorMap"> {
  let mnemonic = "tensor_map";
  let summary = "a TMA descriptor of a kernel's tensor argument";
  let description = [{
    A kernel parameter holding a CUtensorMap (a TMA descriptor), which the
    runtime encodes at launch from one of the kernel's tensor arguments. The
    type fixes what the descriptor describes besides the tensor: its
    element type, the box one copy moves (per tensor dimension, outermost
    first) and the shared-memory swizzle span in bytes (0, 32, 64 or 128).
    The kernel's `tile.tensor_maps` attribute says which tensor argument
    each such parameter describes.

    ```mlir
    !tile.tensor_map<[1, 1, 64, 64], f16, swizzle = 128>
    ```
  }];
  let parameters = (ins Tile_I64List:$box, "::mlir::Type":$elementType,
                        "unsigned":$swizzle);
  let assemblyFormat =
      "`<` $box `,` $elementType `,` `swizzle` `=` $swizzle `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Elements of one box.
    int64_t getBoxElements() const {
      int64_t n = 1;
      for (int64_t d : getBox())
        n *= d;
      return n;
    }
  }];
}

// Element types a tile may hold. The 8-bit floats are for storage, conversion
// and mma only (no arithmetic): the front end converts them first.
def Tile_ElementType : AnyTypeOf<[F16, BF16, F32, I32, I64, I16, I8, I1, F8E4M3FN, F8E5M2]>;
def Tile_FloatElementType : AnyTypeOf<[F16, BF16, F32]>;

def Tile_Tile : Type<
    And<[CPred<"::llvm::isa<::mlir::RankedTensorType>($_self)">, HasStaticShapePred,
         SubstLeaves<"$_self", "::llvm::cast<::mlir::ShapedType>($_self).getElementType()",
                     Tile_ElementType.predicate>]>,
    "tile (statically shaped tensor of f16, bf16, f32, i32, i64, i16, i8, i1, f8E4M3FN or f8E5M2)",
    "::mlir::RankedTensorType">;

def Tile_FloatTile : Type<
    And<[CPred<"::llvm::isa<::mlir::RankedTensorType>($_self)">, HasStaticShapePred,
         SubstLeaves<"$_self", "::llvm::cast<::mlir::ShapedType>($_self).getElementType()",
                     Tile_FloatElementType.predicate>]>,
    "tile of f16, bf16 or f32", "::mlir::RankedTensorType">;

def Tile_MmaOperandTile : Type<
    And<[CPred<"::llvm::isa<::mlir::RankedTensorType>($_self)">, HasStaticShapePred,
         SubstLeaves<"$_self", "::llvm::cast<::mlir::ShapedType>($_self).getElementType()",
                     AnyTypeOf<[F16, BF16, F32, F8E4M3FN, F8E5M2, I8]>.predicate>]>,
    "tile of f16, bf16, f32, f8E4M3FN, f8E5M2 or i8", "::mlir::RankedTensorType">;

// An mma's accumulator: f32, or i32 for i8 operands.
def Tile_AccumulatorTile : Type<
    And<[CPred<"::llvm::isa<::mlir::RankedTensorType>($_self)">, HasStaticShapePred,
         SubstLeaves<"$_self", "::llvm::cast<::mlir::ShapedType>($_self).getElementType()",
                     AnyTypeOf<[F32, I32]>.predicate>]>,
    "tile of f32 or i32", "::mlir::RankedTensorType">;

def Tile_IntTile : Type<
    And<[CPred<"::llvm::isa<::mlir::RankedTensorType>($_self)">, HasStaticShapePred,
         SubstLeaves<"$_self", "::llvm::cast<::mlir::ShapedType>($_self).getElementType()",
                     I32.predicate>]>,
    "tile of i32", "::mlir::RankedTensorType">;

// A scalar or a tile of floats: exp2 and div apply to either.
def Tile_FloatLike : AnyTypeOf<[Tile_FloatElementType, Tile_FloatTile]>;

#endif // TILE_TYPES_TD
