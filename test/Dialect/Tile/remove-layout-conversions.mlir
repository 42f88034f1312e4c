// RUN: tile-opt %s -split-input-file --tile-remove-layout-conversions | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-assign-layouts --tile-remove-layout-conversions | FileCheck %s --check-prefix=PIPE

// tile-remove-layout-conversions drops the conversions that layout
// assignment leaves behind but that need not move any data: conversions of
// values that are free to re-create in any layout (splat constants,
// tile.full, tile.arange), chains of conversions, and conversions to the
// layout a value already has; a narrowing cast of a conversion's only
// result runs before it, a widening cast of one runs after it, and so does
// an elementwise op whose other operands are cheap in the source's layout.

#blocked = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#rows = #tile.slice<dim = 1, parent = #mma>
#cols = #tile.slice<dim = 0, parent = #mma>

// Splats and aranges are re-created in the layout the conversion asked for;
// the originals and the conversions are gone.
// CHECK:       #[[BLK:blocked]] = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK:       #[[ROWS:slice]] = #tile.slice<dim = 1, parent = #mma>
// CHECK-LABEL: func.func @splats
// CHECK-SAME:  (%[[X:.*]]: f32)
// CHECK-NOT:   tile.convert_layout
// CHECK-DAG:   %[[T:.*]] = arith.constant dense<true> : tensor<64x64xi1, #[[BLK]]>
// CHECK-DAG:   %[[C:.*]] = arith.constant dense<1.500000e+00> : tensor<64x64xf32, #[[BLK]]>
// CHECK-DAG:   %[[F:.*]] = tile.full %[[X]] : tensor<64x64xf32, #[[BLK]]>
// CHECK-DAG:   %[[R:.*]] = tile.arange : tensor<64xi32, #[[ROWS]]>
// CHECK-NOT:   tile.convert_layout
// CHECK-NOT:   #mma
// CHECK:       return %[[C]], %[[F]], %[[R]], %[[T]] :
func.func @splats(%x: f32) -> (tensor<64x64xf32, #blocked>, tensor<64x64xf32, #blocked>, tensor<64xi32, #rows>, tensor<64x64xi1, #blocked>) {
  %c = arith.constant dense<1.5> : tensor<64x64xf32, #mma>
  %0 = tile.convert_layout %c : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
  %f = tile.full %x : tensor<64x64xf32, #mma>
  %1 = tile.convert_layout %f : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
  %r = tile.arange : tensor<64xi32, #cols>
  %2 = tile.convert_layout %r : tensor<64xi32, #cols> -> tensor<64xi32, #rows>
  %t = arith.constant dense<true> : tensor<64x64xi1, #mma>
  %3 = tile.convert_layout %t : tensor<64x64xi1, #mma> -> tensor<64x64xi1, #blocked>
  return %0, %1, %2, %3 : tensor<64x64xf32, #blocked>, tensor<64x64xf32, #blocked>, tensor<64xi32, #rows>, tensor<64x64xi1, #blocked>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>

// convert(convert(x)) is one conversion from x, or x itself when it comes
// back to x's layout; a conversion to the same layout is no conversion.
// CHECK-LABEL: func.func @chains
// CHECK-SAME:  (%[[X:.*]]: tensor<64x64xf16, #blocked>, %[[Y:.*]]: tensor<64x64xf16, #mma>)
// CHECK-NEXT:  %[[A:.*]] = tile.convert_layout %[[X]] : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #dot_a>
// CHECK-NEXT:  return %[[A]], %[[X]], %[[Y]] :
func.func @chains(%x: tensor<64x64xf16, #blocked>, %y: tensor<64x64xf16, #mma>) -> (tensor<64x64xf16, #dot_a>, tensor<64x64xf16, #blocked>, tensor<64x64xf16, #mma>) {
  %0 = tile.convert_layout %x : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #mma>
  %1 = tile.convert_layout %0 : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #dot_a>
  %2 = tile.convert_layout %0 : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
  %3 = tile.convert_layout %y : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #mma>
  return %1, %2, %3 : tensor<64x64xf16, #dot_a>, tensor<64x64xf16, #blocked>, tensor<64x64xf16, #mma>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1d = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>

// Conversions of computed values, and of constants that are not splats, stay.
// CHECK-LABEL: func.func @kept
// CHECK-SAME:  (%[[X:.*]]: tensor<64x64xf32, #mma>)
// CHECK-NEXT:  %[[C:.*]] = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi32, #slice>
// CHECK-NEXT:  %[[A:.*]] = tile.convert_layout %[[X]] : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
// CHECK-NEXT:  %[[B:.*]] = tile.convert_layout %[[C]] : tensor<4xi32, #slice> -> tensor<4xi32, #blocked1>
// CHECK-NEXT:  return %[[A]], %[[B]] :
func.func @kept(%x: tensor<64x64xf32, #mma>) -> (tensor<64x64xf32, #blocked>, tensor<4xi32, #blocked1d>) {
  %0 = tile.convert_layout %x : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
  %c = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi32, #tile.slice<dim = 1, parent = #blocked>>
  %1 = tile.convert_layout %c : tensor<4xi32, #tile.slice<dim = 1, parent = #blocked>> -> tensor<4xi32, #blocked1d>
  return %0, %1 : tensor<64x64xf32, #blocked>, tensor<4xi32, #blocked1d>
}

// -----

// After layout assignment: one arange that indexes both the rows and the
// columns of an mma tile is converted from one slice to the other; the
// conversion becomes a second arange, made directly in the other slice.
// PIPE:       #dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>
// PIPE-NEXT:  #[[COLS:slice]] = #tile.slice<dim = 0, parent = #mma>
// PIPE-NEXT:  #[[ROWS:slice1]] = #tile.slice<dim = 1, parent = #mma>
// PIPE-LABEL: func.func @mask
// PIPE:       tile.mma
// PIPE-NEXT:  %[[C:.*]] = tile.arange : tensor<64xi32, #[[COLS]]>
// PIPE-NEXT:  %[[R:.*]] = tile.arange : tensor<64xi32, #[[ROWS]]>
// PIPE-NEXT:  tile.expand_dims %[[R]] {axis = 1 : i32} : tensor<64xi32, #[[ROWS]]> -> tensor<64x1xi32, #mma>
// PIPE-NEXT:  tile.expand_dims %[[C]] {axis = 0 : i32} : tensor<64xi32, #[[COLS]]> -> tensor<1x64xi32, #mma>
// PIPE-NEXT:  tile.broadcast
// PIPE-NEXT:  tile.broadcast
// PIPE-NEXT:  arith.cmpi sge, %{{.*}}, %{{.*}} : tensor<64x64xi32, #mma>
func.func @mask(%A: !tile.global<f16, 2>, %C: !tile.global<f32, 2>, %i: i32) attributes {tile.kernel} {
  %a = tile.load %A[%i, %i] : !tile.global<f16, 2> -> tensor<64x16xf16>
  %b = tile.load %A[%i, %i] : !tile.global<f16, 2> -> tensor<16x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.mma %a, %b, %z : tensor<64x16xf16>, tensor<16x64xf16>, tensor<64x64xf32>
  %r = tile.arange : tensor<64xi32>
  %r0 = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %r1 = tile.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %rb0 = tile.broadcast %r0 : tensor<64x1xi32> -> tensor<64x64xi32>
  %rb1 = tile.broadcast %r1 : tensor<1x64xi32> -> tensor<64x64xi32>
  %mask = arith.cmpi sge, %rb0, %rb1 : tensor<64x64xi32>
  %g = arith.select %mask, %d, %z : tensor<64x64xi1>, tensor<64x64xf32>
  tile.store %C[%i, %i], %g : !tile.global<f32, 2>, tensor<64x64xf32>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked4 = #tile.blocked<sizePerThread = [1, 1, 1, 4], threadsPerWarp = [1, 1, 2, 16], warpsPerCTA = [1, 1, 4, 1], order = [3, 2, 1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>

// An epilogue's f32 -> f16 cast of a conversion's (through a reshape) only
// result moves before both: the conversion moves f16.
// CHECK-LABEL: func.func @narrow_first
// CHECK-SAME:  (%[[X:.*]]: tensor<64x64xf32, #mma>)
// CHECK-NEXT:  %[[T:.*]] = arith.truncf %[[X]] : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
// CHECK-NEXT:  %[[C:.*]] = tile.convert_layout %[[T]] : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #[[B:blocked[0-9]*]]>
// CHECK-NEXT:  %[[R:.*]] = tile.reshape %[[C]] : tensor<64x64xf16, #[[B]]> -> tensor<1x1x64x64xf16, #{{blocked[0-9]*}}>
// CHECK-NEXT:  return %[[R]]
func.func @narrow_first(%x: tensor<64x64xf32, #mma>) -> tensor<1x1x64x64xf16, #blocked4> {
  %c = tile.convert_layout %x : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
  %r = tile.reshape %c : tensor<64x64xf32, #blocked> -> tensor<1x1x64x64xf32, #blocked4>
  %t = arith.truncf %r : tensor<1x1x64x64xf32, #blocked4> to tensor<1x1x64x64xf16, #blocked4>
  return %t : tensor<1x1x64x64xf16, #blocked4>
}

// A conversion whose f32 result has another use stays where it is.
// CHECK-LABEL: func.func @narrow_shared
// CHECK:       %[[C:.*]] = tile.convert_layout %{{.*}} : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #[[B:blocked[0-9]*]]>
// CHECK-NEXT:  %[[T:.*]] = arith.truncf %[[C]] : tensor<64x64xf32, #[[B]]> to tensor<64x64xf16, #[[B]]>
// CHECK-NEXT:  return %[[T]], %[[C]]
func.func @narrow_shared(%x: tensor<64x64xf32, #mma>) -> (tensor<64x64xf16, #blocked>, tensor<64x64xf32, #blocked>) {
  %c = tile.convert_layout %x : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
  %t = arith.truncf %c : tensor<64x64xf32, #blocked> to tensor<64x64xf16, #blocked>
  return %t, %c : tensor<64x64xf16, #blocked>, tensor<64x64xf32, #blocked>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>

// A bias and a relu on an mma accumulator (a GEMM epilogue, as layout
// assignment leaves it: the accumulator converted for the store's layout):
// both run in the accumulator's layout, the bias row converted instead (64
// elements, not 4096), and the conversion moves the f16 result.
// CHECK-LABEL: func.func @sink_epilogue
// CHECK-SAME:  (%[[ACC:.*]]: tensor<64x64xf32, #mma>, %[[BIAS:.*]]: tensor<1x64xf32, #blocked>)
// CHECK:       %[[B:.*]] = tile.convert_layout %[[BIAS]] : tensor<1x64xf32, #blocked> -> tensor<1x64xf32, #mma>
// CHECK-NEXT:  %[[BB:.*]] = tile.broadcast %[[B]] : tensor<1x64xf32, #mma> -> tensor<64x64xf32, #mma>
// CHECK-NEXT:  %[[ADD:.*]] = arith.addf %[[ACC]], %[[BB]] : tensor<64x64xf32, #mma>
// CHECK-NEXT:  %[[RELU:.*]] = arith.maxnumf %[[ADD]], %{{.*}} : tensor<64x64xf32, #mma>
// CHECK-NEXT:  %[[H:.*]] = arith.truncf %[[RELU]] : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
// CHECK-NEXT:  %[[C:.*]] = tile.convert_layout %[[H]] : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
// CHECK-NEXT:  return %[[C]]
func.func @sink_epilogue(%acc: tensor<64x64xf32, #mma>, %bias: tensor<1x64xf32, #blocked>) -> tensor<64x64xf16, #blocked> {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #blocked>
  %c = tile.convert_layout %acc : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
  %b = tile.broadcast %bias : tensor<1x64xf32, #blocked> -> tensor<64x64xf32, #blocked>
  %a = arith.addf %c, %b : tensor<64x64xf32, #blocked>
  %r = arith.maxnumf %a, %zero : tensor<64x64xf32, #blocked>
  %h = arith.truncf %r : tensor<64x64xf32, #blocked> to tensor<64x64xf16, #blocked>
  return %h : tensor<64x64xf16, #blocked>
}

// A scale known at run time (a splat of a scalar, `acc * scale`) and a
// per-row scale (a (64, 1) column broadcast): both multiply the accumulator
// in its layout, the f16 result is converted.
// CHECK-LABEL: func.func @sink_scales
// CHECK-SAME:  (%[[ACC:.*]]: tensor<64x64xf32, #mma>, %[[S:.*]]: f32, %[[ROW:.*]]: tensor<64x1xf32, #blocked>)
// CHECK:       %[[F:.*]] = tile.full %[[S]] : tensor<64x64xf32, #mma>
// CHECK-NEXT:  %[[M:.*]] = arith.mulf %[[ACC]], %[[F]] : tensor<64x64xf32, #mma>
// CHECK-NEXT:  %[[R:.*]] = tile.convert_layout %[[ROW]] : tensor<64x1xf32, #blocked> -> tensor<64x1xf32, #mma>
// CHECK-NEXT:  %[[RB:.*]] = tile.broadcast %[[R]] : tensor<64x1xf32, #mma> -> tensor<64x64xf32, #mma>
// CHECK-NEXT:  %[[M2:.*]] = arith.mulf %[[M]], %[[RB]] : tensor<64x64xf32, #mma>
// CHECK-NEXT:  %[[H:.*]] = arith.truncf %[[M2]] : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
// CHECK-NEXT:  %[[C:.*]] = tile.convert_layout %[[H]] : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
// CHECK-NEXT:  return %[[C]]
func.func @sink_scales(%acc: tensor<64x64xf32, #mma>, %s: f32, %row: tensor<64x1xf32, #blocked>) -> tensor<64x64xf16, #blocked> {
  %f = tile.full %s : tensor<64x64xf32, #blocked>
  %c = tile.convert_layout %acc : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
  %m = arith.mulf %c, %f : tensor<64x64xf32, #blocked>
  %rb = tile.broadcast %row : tensor<64x1xf32, #blocked> -> tensor<64x64xf32, #blocked>
  %m2 = arith.mulf %m, %rb : tensor<64x64xf32, #blocked>
  %h = arith.truncf %m2 : tensor<64x64xf32, #blocked> to tensor<64x64xf16, #blocked>
  return %h : tensor<64x64xf16, #blocked>
}

// A conversion used by two elementwise ops that both sink (a relu as
// select(x > 0, x, 0): the compare and the select read the converted x):
// both run in the accumulator's layout, one conversion is left, of the f16
// result. Not when one user cannot sink (the full-size operand): the
// conversion stays for both.
// CHECK-LABEL: func.func @sink_past_two_users
// CHECK-SAME:  (%[[ACC:.*]]: tensor<64x64xf32, #mma>
// CHECK-NOT:   tile.convert_layout
// CHECK:       %[[GT:.*]] = arith.cmpf ogt, %[[ACC]], %{{.*}} : tensor<64x64xf32, #mma>
// CHECK-NEXT:  %[[SEL:.*]] = arith.select %[[GT]], %[[ACC]], %{{.*}} : tensor<64x64xi1, #mma>, tensor<64x64xf32, #mma>
// CHECK-NEXT:  %[[H:.*]] = arith.truncf %[[SEL]] : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
// CHECK-NEXT:  %[[C:.*]] = tile.convert_layout %[[H]] : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
// CHECK-NEXT:  return %[[C]]
func.func @sink_past_two_users(%acc: tensor<64x64xf32, #mma>) -> tensor<64x64xf16, #blocked> {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #blocked>
  %c = tile.convert_layout %acc : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
  %gt = arith.cmpf ogt, %c, %zero : tensor<64x64xf32, #blocked>
  %r = arith.select %gt, %c, %zero : tensor<64x64xi1, #blocked>, tensor<64x64xf32, #blocked>
  %h = arith.truncf %r : tensor<64x64xf32, #blocked> to tensor<64x64xf16, #blocked>
  return %h : tensor<64x64xf16, #blocked>
}

// CHECK-LABEL: func.func @no_sink_one_user_stays
// CHECK:       %[[C:.*]] = tile.convert_layout %{{.*}} : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
// CHECK-NEXT:  arith.cmpf ogt, %[[C]], %{{.*}} : tensor<64x64xf32, #blocked>
// CHECK-NEXT:  arith.addf %[[C]], %{{.*}} : tensor<64x64xf32, #blocked>
// CHECK-NOT:   tile.convert_layout
func.func @no_sink_one_user_stays(%acc: tensor<64x64xf32, #mma>, %y: tensor<64x64xf32, #blocked>) -> (tensor<64x64xi1, #blocked>, tensor<64x64xf32, #blocked>) {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #blocked>
  %c = tile.convert_layout %acc : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
  %gt = arith.cmpf ogt, %c, %zero : tensor<64x64xf32, #blocked>
  %a = arith.addf %c, %y : tensor<64x64xf32, #blocked>
  return %gt, %a : tensor<64x64xi1, #blocked>, tensor<64x64xf32, #blocked>
}

// silu, x * sigmoid(x): the conversion's users (the negation and the
// product) read it at different depths of a chain; the chain between them
// comes along, and one conversion is left, of the f16 result.
// CHECK-LABEL: func.func @sink_through_chain
// CHECK-SAME:  (%[[ACC:.*]]: tensor<64x64xf32, #mma>
// CHECK-NOT:   tile.convert_layout
// CHECK:       %[[N:.*]] = arith.negf %[[ACC]] : tensor<64x64xf32, #mma>
// CHECK-NEXT:  %[[E:.*]] = math.exp %[[N]] : tensor<64x64xf32, #mma>
// CHECK-NEXT:  %[[D:.*]] = arith.addf %[[E]], %{{.*}} : tensor<64x64xf32, #mma>
// CHECK-NEXT:  %[[S:.*]] = tile.div %{{.*}}, %[[D]] approx : tensor<64x64xf32, #mma>
// CHECK-NEXT:  %[[M:.*]] = arith.mulf %[[ACC]], %[[S]] : tensor<64x64xf32, #mma>
// CHECK-NEXT:  %[[H:.*]] = arith.truncf %[[M]] : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
// CHECK-NEXT:  %[[C:.*]] = tile.convert_layout %[[H]] : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
// CHECK-NEXT:  return %[[C]]
func.func @sink_through_chain(%acc: tensor<64x64xf32, #mma>) -> tensor<64x64xf16, #blocked> {
  %one = arith.constant dense<1.0> : tensor<64x64xf32, #blocked>
  %c = tile.convert_layout %acc : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
  %n = arith.negf %c : tensor<64x64xf32, #blocked>
  %e = math.exp %n : tensor<64x64xf32, #blocked>
  %d = arith.addf %e, %one : tensor<64x64xf32, #blocked>
  %s = tile.div %one, %d approx : tensor<64x64xf32, #blocked>
  %m = arith.mulf %c, %s : tensor<64x64xf32, #blocked>
  %h = arith.truncf %m : tensor<64x64xf32, #blocked> to tensor<64x64xf16, #blocked>
  return %h : tensor<64x64xf16, #blocked>
}

// Two of the chain's values leave it (the negation is returned too): one
// conversion would become two, so nothing moves.
// CHECK-LABEL: func.func @no_sink_chain_two_values_leave
// CHECK:       %[[C:.*]] = tile.convert_layout %{{.*}} : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
// CHECK-NEXT:  arith.negf %[[C]] : tensor<64x64xf32, #blocked>
// CHECK-NOT:   tile.convert_layout
func.func @no_sink_chain_two_values_leave(%acc: tensor<64x64xf32, #mma>) -> (tensor<64x64xf32, #blocked>, tensor<64x64xf32, #blocked>) {
  %c = tile.convert_layout %acc : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
  %n = arith.negf %c : tensor<64x64xf32, #blocked>
  %e = math.exp %n : tensor<64x64xf32, #blocked>
  %m = arith.mulf %c, %e : tensor<64x64xf32, #blocked>
  return %n, %m : tensor<64x64xf32, #blocked>, tensor<64x64xf32, #blocked>
}

// A user of the conversion adds a full-size tile of the target layout (%y):
// it cannot move (that tile would need a conversion of its own), nor can
// the product computed from it, so the conversion stays.
// CHECK-LABEL: func.func @no_sink_chain_full_operand
// CHECK:       %[[C:.*]] = tile.convert_layout %{{.*}} : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
// CHECK-NEXT:  arith.negf %[[C]] : tensor<64x64xf32, #blocked>
// CHECK-NOT:   tile.convert_layout
func.func @no_sink_chain_full_operand(%acc: tensor<64x64xf32, #mma>, %y: tensor<64x64xf32, #blocked>) -> tensor<64x64xf32, #blocked> {
  %c = tile.convert_layout %acc : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
  %n = arith.negf %c : tensor<64x64xf32, #blocked>
  %e = math.exp %n : tensor<64x64xf32, #blocked>
  %a = arith.addf %c, %y : tensor<64x64xf32, #blocked>
  %m = arith.mulf %a, %e : tensor<64x64xf32, #blocked>
  return %m : tensor<64x64xf32, #blocked>
}

// An operand as large as the tile would need a conversion of its own:
// nothing moves.
// CHECK-LABEL: func.func @no_sink_full_operand
// CHECK:       %[[C:.*]] = tile.convert_layout %{{.*}} : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
// CHECK-NEXT:  arith.addf %[[C]], %{{.*}} : tensor<64x64xf32, #blocked>
func.func @no_sink_full_operand(%acc: tensor<64x64xf32, #mma>, %y: tensor<64x64xf32, #blocked>) -> tensor<64x64xf32, #blocked> {
  %c = tile.convert_layout %acc : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
  %a = arith.addf %c, %y : tensor<64x64xf32, #blocked>
  return %a : tensor<64x64xf32, #blocked>
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1]>
#rows = #tile.slice<dim = 1, parent = #mma>
#cols = #tile.slice<dim = 0, parent = #mma>

// A converted arange plus a splat (row offsets: an arange shared with the
// columns' offsets, in their layout): the conversion is not sunk below
// the add (it would become a real one), it folds into a new arange.
// CHECK-LABEL: func.func @no_sink_remade
// CHECK-NOT:   tile.convert_layout
// CHECK:       %[[F:.*]] = tile.full
// CHECK:       %[[A:.*]] = tile.arange
// CHECK-NEXT:  arith.addi %[[A]], %[[F]]
// CHECK-NOT:   tile.convert_layout
// CHECK:       return
func.func @no_sink_remade(%x: i32) -> (tensor<64xi32, #rows>, tensor<64xi32, #cols>) {
  %a = tile.arange : tensor<64xi32, #cols>
  %f = tile.full %x : tensor<64xi32, #rows>
  %c = tile.convert_layout %a : tensor<64xi32, #cols> -> tensor<64xi32, #rows>
  %s = arith.addi %c, %f : tensor<64xi32, #rows>
  return %s, %a : tensor<64xi32, #rows>, tensor<64xi32, #cols>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>

// A row of at most one element per thread loaded for a conversion into an
// accumulator's layout is loaded in that layout; a larger tile, or a load
// with another use, is converted.
// CHECK-LABEL: func.func @small_loads
// CHECK:       %[[ROW:.*]] = tile.load %{{.*}} : <f32, 2> -> tensor<1x64xf32, #mma>
// CHECK-NEXT:  %[[BIG:.*]] = tile.load %{{.*}} : <f32, 2> -> tensor<64x64xf32, #blocked>
// CHECK-NEXT:  %[[TWICE:.*]] = tile.load %{{.*}} : <f32, 2> -> tensor<1x64xf32, #blocked>
// CHECK-NEXT:  tile.convert_layout %[[BIG]]
// CHECK-NEXT:  tile.convert_layout %[[TWICE]]
// CHECK-NEXT:  return %[[ROW]]
func.func @small_loads(%T: !tile.global<f32, 2>, %i: i32) -> (tensor<1x64xf32, #mma>, tensor<64x64xf32, #mma>, tensor<1x64xf32, #mma>, tensor<1x64xf32, #blocked>) attributes {tile.num_warps = 4 : i32} {
  %row = tile.load %T[%i, %i] : <f32, 2> -> tensor<1x64xf32, #blocked>
  %big = tile.load %T[%i, %i] : <f32, 2> -> tensor<64x64xf32, #blocked>
  %twice = tile.load %T[%i, %i] : <f32, 2> -> tensor<1x64xf32, #blocked>
  %a = tile.convert_layout %row : tensor<1x64xf32, #blocked> -> tensor<1x64xf32, #mma>
  %b = tile.convert_layout %big : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #mma>
  %c = tile.convert_layout %twice : tensor<1x64xf32, #blocked> -> tensor<1x64xf32, #mma>
  return %a, %b, %c, %twice : tensor<1x64xf32, #mma>, tensor<64x64xf32, #mma>, tensor<1x64xf32, #mma>, tensor<1x64xf32, #blocked>
}

// In a loop the conversion stays (tile-stage-converted-loads makes its load
// a ring copy that the pipeline issues trips ahead); in a persistent
// kernel's tile loop the load takes the layout.
// CHECK-LABEL: func.func @small_loads_in_loops
// CHECK:       scf.for
// CHECK-NEXT:    tile.load %{{.*}} -> tensor<1x64xf32, #blocked>
// CHECK-NEXT:    tile.convert_layout
// CHECK:       scf.for
// CHECK-NEXT:    tile.load %{{.*}} -> tensor<1x64xf32, #mma>
// CHECK-NOT:     tile.convert_layout
// CHECK:       } {tile.tile_loop}
func.func @small_loads_in_loops(%T: !tile.global<f32, 2>, %n: i32, %x: tensor<1x64xf32, #mma>) -> (tensor<1x64xf32, #mma>, tensor<1x64xf32, #mma>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<1x64xf32, #mma>) : i32 {
    %row = tile.load %T[%i, %c0] : <f32, 2> -> tensor<1x64xf32, #blocked>
    %a = tile.convert_layout %row : tensor<1x64xf32, #blocked> -> tensor<1x64xf32, #mma>
    %s = arith.addf %acc, %a : tensor<1x64xf32, #mma>
    scf.yield %s : tensor<1x64xf32, #mma>
  }
  %t = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<1x64xf32, #mma>) : i32 {
    %row = tile.load %T[%i, %c0] : <f32, 2> -> tensor<1x64xf32, #blocked>
    %a = tile.convert_layout %row : tensor<1x64xf32, #blocked> -> tensor<1x64xf32, #mma>
    %s = arith.addf %acc, %a : tensor<1x64xf32, #mma>
    scf.yield %s : tensor<1x64xf32, #mma>
  } {tile.tile_loop}
  return %r, %t : tensor<1x64xf32, #mma>, tensor<1x64xf32, #mma>
}

// -----

#rows2 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]>
#row1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>
#vec = #tile.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// A vector loaded to be broadcast over a multi-row tile (a norm's weights:
// load, extf, reshape to (1, N)), converted to the tile's layout, whose
// warps split the rows: loaded in the slice of that layout instead, the
// reshape then moves nothing and no conversion is left. Not when the
// load has another use, nor in a loop (its ring copy is issued ahead).
// CHECK:       #[[S:slice[0-9]*]] = #tile.slice<dim = 0, parent = #[[ROWS:blocked[0-9]*]]>
// CHECK-LABEL: func.func @vector_for_rows
// CHECK-SAME:  (%{{.*}}: !tile.global<bf16, 1>, %[[X:.*]]: tensor<2x512xf32, #[[ROWS]]>
// CHECK:       %[[W:.*]] = tile.load %{{.*}} -> tensor<512xbf16, #[[S]]>
// CHECK-NEXT:  %[[WF:.*]] = arith.extf %[[W]] : tensor<512xbf16, #[[S]]> to tensor<512xf32, #[[S]]>
// CHECK-NEXT:  %[[R:.*]] = tile.reshape %[[WF]] : tensor<512xf32, #[[S]]> -> tensor<1x512xf32, #[[ROWS]]>
// CHECK-NEXT:  %[[B:.*]] = tile.broadcast %[[R]]
// CHECK-NEXT:  arith.mulf %[[X]], %[[B]] : tensor<2x512xf32, #[[ROWS]]>
// CHECK-NEXT:  %[[V:.*]] = tile.load %{{.*}} -> tensor<512xbf16, #{{blocked[0-9]*}}>
// CHECK:       tile.convert_layout
// CHECK:       scf.for
// CHECK:         tile.convert_layout
func.func @vector_for_rows(%W: !tile.global<bf16, 1>, %x: tensor<2x512xf32, #rows2>, %n: i32) -> (tensor<2x512xf32, #rows2>, tensor<512xbf16, #vec>, tensor<1x512xf32, #rows2>) attributes {tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %w = tile.load %W[%c0] : <bf16, 1> -> tensor<512xbf16, #vec>
  %wf = arith.extf %w : tensor<512xbf16, #vec> to tensor<512xf32, #vec>
  %r = tile.reshape %wf : tensor<512xf32, #vec> -> tensor<1x512xf32, #row1>
  %c = tile.convert_layout %r : tensor<1x512xf32, #row1> -> tensor<1x512xf32, #rows2>
  %b = tile.broadcast %c : tensor<1x512xf32, #rows2> -> tensor<2x512xf32, #rows2>
  %y = arith.mulf %x, %b : tensor<2x512xf32, #rows2>
  %v = tile.load %W[%c0] : <bf16, 1> -> tensor<512xbf16, #vec>
  %vf = arith.extf %v : tensor<512xbf16, #vec> to tensor<512xf32, #vec>
  %vr = tile.reshape %vf : tensor<512xf32, #vec> -> tensor<1x512xf32, #row1>
  %vc = tile.convert_layout %vr : tensor<1x512xf32, #row1> -> tensor<1x512xf32, #rows2>
  %vb = tile.broadcast %vc : tensor<1x512xf32, #rows2> -> tensor<2x512xf32, #rows2>
  %z = arith.addf %y, %vb : tensor<2x512xf32, #rows2>
  %l = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %vc) -> (tensor<1x512xf32, #rows2>) : i32 {
    %u = tile.load %W[%i] : <bf16, 1> -> tensor<512xbf16, #vec>
    %uf = arith.extf %u : tensor<512xbf16, #vec> to tensor<512xf32, #vec>
    %ur = tile.reshape %uf : tensor<512xf32, #vec> -> tensor<1x512xf32, #row1>
    %uc = tile.convert_layout %ur : tensor<1x512xf32, #row1> -> tensor<1x512xf32, #rows2>
    %s = arith.addf %acc, %uc : tensor<1x512xf32, #rows2>
    scf.yield %s : tensor<1x512xf32, #rows2>
  }
  return %z, %v, %l : tensor<2x512xf32, #rows2>, tensor<512xbf16, #vec>, tensor<1x512xf32, #rows2>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>

// A conversion to a type without a layout (IR a fuzzer made) is left as it
// is, not taken for a small load's layout.
// CHECK-LABEL: func.func @to_no_layout
// CHECK:       tile.load %{{.*}} -> tensor<1x64xf32, #blocked>
// CHECK-NEXT:  tile.convert_layout
func.func @to_no_layout(%T: !tile.global<f32, 2>, %i: i32) -> tensor<1x64xf32> attributes {tile.num_warps = 4 : i32} {
  %r = tile.load %T[%i, %i] : <f32, 2> -> tensor<1x64xf32, #blocked>
  %c = tile.convert_layout %r : tensor<1x64xf32, #blocked> -> tensor<1x64xf32>
  return %c : tensor<1x64xf32>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>

// A widening cast whose only use is a conversion runs after it (a 16-bit
// residual tile on its way to an accumulator's layout moves in 16 bits);
// an elementwise op is not sunk back past it.
// CHECK-LABEL: func.func @widen_after
// CHECK-SAME:  (%[[X:.*]]: tensor<64x64xf16, #[[B:blocked]]>, %[[ACC:.*]]: tensor<64x64xf32, #mma>)
// CHECK-NEXT:  %[[C:.*]] = tile.convert_layout %[[X]] : tensor<64x64xf16, #[[B]]> -> tensor<64x64xf16, #mma>
// CHECK-NEXT:  %[[W:.*]] = arith.extf %[[C]] : tensor<64x64xf16, #mma> to tensor<64x64xf32, #mma>
// CHECK-NEXT:  %[[S:.*]] = arith.addf %[[ACC]], %[[W]] : tensor<64x64xf32, #mma>
// CHECK-NEXT:  return %[[S]]
// A conversion whose wide source has another use stays where it is.
// CHECK-LABEL: func.func @widen_shared
// CHECK:       %[[W:.*]] = arith.extf %{{.*}} : tensor<64x64xf16, #[[B:blocked]]> to tensor<64x64xf32, #[[B]]>
// CHECK-NEXT:  tile.convert_layout %[[W]] : tensor<64x64xf32, #[[B]]> -> tensor<64x64xf32, #mma>
func.func @widen_after(%x: tensor<64x64xf16, #blocked>, %acc: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
  %w = arith.extf %x : tensor<64x64xf16, #blocked> to tensor<64x64xf32, #blocked>
  %c = tile.convert_layout %w : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #mma>
  %s = arith.addf %acc, %c : tensor<64x64xf32, #mma>
  return %s : tensor<64x64xf32, #mma>
}

func.func @widen_shared(%x: tensor<64x64xf16, #blocked>, %acc: tensor<64x64xf32, #mma>) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #blocked>) {
  %w = arith.extf %x : tensor<64x64xf16, #blocked> to tensor<64x64xf32, #blocked>
  %c = tile.convert_layout %w : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #mma>
  %s = arith.addf %acc, %c : tensor<64x64xf32, #mma>
  return %s, %w : tensor<64x64xf32, #mma>, tensor<64x64xf32, #blocked>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>

// The elementwise ops of one element type between a widening cast and the
// conversion (a tanh, a product with a splat of a scalar) move after the
// conversion with it: `acc * tanh(z * s)` with z in 16 bits converts z, not
// the 32-bit tanh; the splat is made in the conversion's layout.
// CHECK-LABEL: func.func @widen_chain_after
// CHECK-SAME:  (%[[X:.*]]: tensor<64x64xf16, #[[B:blocked]]>, %[[ACC:.*]]: tensor<64x64xf32, #mma>, %[[T:.*]]: f32)
// CHECK-NEXT:  %[[C:.*]] = tile.convert_layout %[[X]] : tensor<64x64xf16, #[[B]]> -> tensor<64x64xf16, #mma>
// CHECK-NEXT:  %[[W:.*]] = arith.extf %[[C]] : tensor<64x64xf16, #mma> to tensor<64x64xf32, #mma>
// CHECK-NEXT:  %[[S:.*]] = tile.full %[[T]] : tensor<64x64xf32, #mma>
// CHECK-NEXT:  %[[M:.*]] = arith.mulf %[[W]], %[[S]] : tensor<64x64xf32, #mma>
// CHECK-NEXT:  %[[H:.*]] = math.tanh %[[M]] : tensor<64x64xf32, #mma>
// CHECK-NEXT:  %[[P:.*]] = arith.mulf %[[ACC]], %[[H]] : tensor<64x64xf32, #mma>
// CHECK-NEXT:  return %[[P]]
// Not past a cast in the chain (a narrowing one: the moved conversion's
// elements would be no narrower), nor past an op of two loaded tiles.
// CHECK-LABEL: func.func @widen_chain_kept
// CHECK:       arith.truncf
// CHECK-NEXT:  math.absf
// CHECK-NEXT:  tile.convert_layout %{{.*}} : tensor<64x64xf16, #[[B:blocked]]> -> tensor<64x64xf16, #mma>
// CHECK:       arith.addf %{{.*}}, %{{.*}} : tensor<64x64xf32, #[[B]]>
// CHECK-NEXT:  tile.convert_layout %{{.*}} : tensor<64x64xf32, #[[B]]> -> tensor<64x64xf32, #mma>
func.func @widen_chain_after(%x: tensor<64x64xf16, #blocked>, %acc: tensor<64x64xf32, #mma>, %t: f32) -> tensor<64x64xf32, #mma> {
  %w = arith.extf %x : tensor<64x64xf16, #blocked> to tensor<64x64xf32, #blocked>
  %s = tile.full %t : tensor<64x64xf32, #blocked>
  %m = arith.mulf %w, %s : tensor<64x64xf32, #blocked>
  %h = math.tanh %m : tensor<64x64xf32, #blocked>
  %c = tile.convert_layout %h : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #mma>
  %p = arith.mulf %acc, %c : tensor<64x64xf32, #mma>
  return %p : tensor<64x64xf32, #mma>
}

func.func @widen_chain_kept(%x: tensor<64x64xf32, #blocked>, %y: tensor<64x64xf16, #blocked>, %acc: tensor<64x64xf32, #mma>) -> (tensor<64x64xf16, #mma>, tensor<64x64xf32, #mma>) {
  %n = arith.truncf %x : tensor<64x64xf32, #blocked> to tensor<64x64xf16, #blocked>
  %a = math.absf %n : tensor<64x64xf16, #blocked>
  %c = tile.convert_layout %a : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #mma>
  %w = arith.extf %y : tensor<64x64xf16, #blocked> to tensor<64x64xf32, #blocked>
  %s = arith.addf %w, %x : tensor<64x64xf32, #blocked>
  %d = tile.convert_layout %s : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #mma>
  return %c, %d : tensor<64x64xf16, #mma>, tensor<64x64xf32, #mma>
}
