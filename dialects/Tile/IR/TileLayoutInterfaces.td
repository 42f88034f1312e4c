//===- TileLayoutInterfaces.td - Interfaces of layouts -----*- tablegen -*-===//
//
// What every layout attribute answers, so that the passes and the lowering
// ask the interface instead of switching over the attributes: a new layout
// is one new attribute that implements one of these.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LAYOUT_INTERFACES_TD
#define TILE_LAYOUT_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Tile_DistributedLayoutInterface
    : AttrInterface<"DistributedLayoutInterface"> {
  let cppNamespace = "::mlir::tile";
  let description = [{
    A layout of a tile in registers: which thread (warp, lane) holds which
    element in which register. Its linear form maps (register, lane, warp,
    block) to tile coordinates (dim0, dim1, ...); the lowering works on that
    form only.
  }];
  let methods = [
    InterfaceMethod<[{
        The linear form on a tile of `shape` (of the layout's rank, power-of-
        two dimensions): (register, lane, warp, block) -> (dim0, ...),
        normalized (no zero or duplicate register bases, bases within the
        shape).
      }], "::mlir::tile::LinearLayout", "toLinearLayout",
      (ins "::llvm::ArrayRef<int64_t>":$shape)>,
    InterfaceMethod<"The rank of the tiles the layout applies to.",
      "unsigned", "getRank">,
    InterfaceMethod<"The number of warps the layout spreads a tile over.",
      "unsigned", "getNumWarps">,
  ];
}

def Tile_SharedLayoutInterface : AttrInterface<"SharedLayoutInterface"> {
  let cppNamespace = "::mlir::tile";
  let description = [{
    A layout of a tile in shared memory: which element lies at which offset
    of a buffer. Its linear form maps the element `offset` to tile
    coordinates (dim0, dim1, ...); swizzles are XORs of row bits into column
    bits, so the map is linear and, for a buffer of power-of-two dimensions,
    bijective: its inverse gives the offset of each element.
  }];
  let methods = [
    InterfaceMethod<[{
        The linear form on a buffer of `shape` (of the layout's rank, power-
        of-two dimensions) of `elementType`: offset -> (dim0, ...).
      }], "::mlir::tile::LinearLayout", "toLinearLayout",
      (ins "::llvm::ArrayRef<int64_t>":$shape, "::mlir::Type":$elementType)>,
    InterfaceMethod<[{
        The dimensions from the fastest varying in memory: a row of the
        buffer runs along the first. Attributes provide it as their `order`
        parameter.
      }], "::llvm::ArrayRef<unsigned>", "getOrder", (ins), [{
        return $_attr.getOrder();
      }]>,
    InterfaceMethod<"The rank of the buffers the layout applies to.",
      "unsigned", "getRank", (ins), [{
        return $_attr.getOrder().size();
      }]>,
  ];
  let extraClassDeclaration = [{
    /// (dim0, ...) -> offset: where each element lies.
    ::mlir::tile::LinearLayout
    toOffsetLayout(::llvm::ArrayRef<int64_t> shape,
                   ::mlir::Type elementType) const {
      return toLinearLayout(shape, elementType).invert();
    }
  }];
}

#endif // TILE_LAYOUT_INTERFACES_TD
