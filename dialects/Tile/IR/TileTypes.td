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
    shape and element type, laid out by a `#tile.shared` layout. Created by
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
    int64_t getNumElements() const {
      int64_t n = 1;
      for (int64_t d : getShape())
        n *= d;
      return n;
    }
  }];
}

// Element types a tile may hold (fp8 has room to be added here).
def Tile_ElementType : AnyTypeOf<[F16, BF16, F32, I32, I1]>;
def Tile_FloatElementType : AnyTypeOf<[F16, BF16, F32]>;

def Tile_Tile : Type<
    And<[CPred<"::llvm::isa<::mlir::RankedTensorType>($_self)">, HasStaticShapePred,
         SubstLeaves<"$_self", "::llvm::cast<::mlir::ShapedType>($_self).getElementType()",
                     Tile_ElementType.predicate>]>,
    "tile (statically shaped tensor of f16, bf16, f32, i32 or i1)",
    "::mlir::RankedTensorType">;

def Tile_FloatTile : Type<
    And<[CPred<"::llvm::isa<::mlir::RankedTensorType>($_self)">, HasStaticShapePred,
         SubstLeaves<"$_self", "::llvm::cast<::mlir::ShapedType>($_self).getElementType()",
                     Tile_FloatElementType.predicate>]>,
    "tile of f16, bf16 or f32", "::mlir::RankedTensorType">;

def Tile_IntTile : Type<
    And<[CPred<"::llvm::isa<::mlir::RankedTensorType>($_self)">, HasStaticShapePred,
         SubstLeaves<"$_self", "::llvm::cast<::mlir::ShapedType>($_self).getElementType()",
                     I32.predicate>]>,
    "tile of i32", "::mlir::RankedTensorType">;

// A scalar or a tile of floats: exp2 and div apply to either.
def Tile_FloatLike : AnyTypeOf<[Tile_FloatElementType, Tile_FloatTile]>;

#endif // TILE_TYPES_TD
