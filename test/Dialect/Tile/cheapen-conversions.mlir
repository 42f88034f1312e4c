// RUN: tile-opt %s -split-input-file --tile-cheapen-conversions | FileCheck %s

// tile-cheapen-conversions: integer-to-float conversions whose operand the
// integer range analysis bounds become an OR into a float's mantissa bits
// and a subtraction, and a product rounded to 16 bits whose f32 value is
// exact is computed in 16 bits.

// A W4A16 weight: two nibbles of each byte (ranges through expand_dims,
// concat and reshape), centred to [-8, 7], times a bf16 scale broadcast
// down the tile, rounded to bf16. The product is made in bf16 (the scale's
// broadcast cloned onto the bf16 scale), the conversion by bf16's 128 + u
// (u = the nibble: the centring and its undoing cancel) minus 136.
// CHECK-LABEL: func.func @dequantize_bf16
// CHECK-SAME:  (%[[Q:.*]]: tensor<32x128xi8>, %[[S:.*]]: tensor<1x128xbf16>)
// CHECK:       %[[W:.*]] = tile.reshape
// CHECK-NEXT:  %[[U:.*]] = arith.extui %[[W]] : tensor<64x128xi8> to tensor<64x128xi16>
// CHECK-NEXT:  %[[M:.*]] = arith.constant dense<17152> : tensor<64x128xi16>
// CHECK-NEXT:  %[[B:.*]] = arith.ori %[[U]], %[[M]] : tensor<64x128xi16>
// CHECK-NEXT:  %[[F:.*]] = arith.bitcast %[[B]] : tensor<64x128xi16> to tensor<64x128xbf16>
// CHECK-NEXT:  %[[C:.*]] = arith.constant dense<1.360000e+02> : tensor<64x128xbf16>
// CHECK-NEXT:  %[[X:.*]] = arith.subf %[[F]], %[[C]] : tensor<64x128xbf16>
// CHECK-NEXT:  %[[SB:.*]] = tile.broadcast %[[S]] : tensor<1x128xbf16> -> tensor<64x128xbf16>
// CHECK-NEXT:  %[[P:.*]] = arith.mulf %[[X]], %[[SB]] : tensor<64x128xbf16>
// CHECK-NEXT:  return %[[P]]
// CHECK-NOT:   arith.sitofp
// CHECK-NOT:   arith.truncf
func.func @dequantize_bf16(%q: tensor<32x128xi8>, %s: tensor<1x128xbf16>) -> tensor<64x128xbf16> {
  %c15 = arith.constant dense<15> : tensor<32x128xi8>
  %c4 = arith.constant dense<4> : tensor<32x128xi8>
  %c8 = arith.constant dense<8> : tensor<64x128xi8>
  %lo = arith.andi %q, %c15 : tensor<32x128xi8>
  %sh = arith.shrsi %q, %c4 : tensor<32x128xi8>
  %hi = arith.andi %sh, %c15 : tensor<32x128xi8>
  %l3 = tile.expand_dims %lo {axis = 1 : i32} : tensor<32x128xi8> -> tensor<32x1x128xi8>
  %h3 = tile.expand_dims %hi {axis = 1 : i32} : tensor<32x128xi8> -> tensor<32x1x128xi8>
  %j = tile.concat %l3, %h3 {axis = 1 : i32} : tensor<32x1x128xi8>, tensor<32x1x128xi8> -> tensor<32x2x128xi8>
  %w = tile.reshape %j : tensor<32x2x128xi8> -> tensor<64x128xi8>
  %c = arith.subi %w, %c8 : tensor<64x128xi8>
  %f = arith.sitofp %c : tensor<64x128xi8> to tensor<64x128xf32>
  %se = arith.extf %s : tensor<1x128xbf16> to tensor<1x128xf32>
  %sb = tile.broadcast %se : tensor<1x128xf32> -> tensor<64x128xf32>
  %p = arith.mulf %f, %sb : tensor<64x128xf32>
  %t = arith.truncf %p : tensor<64x128xf32> to tensor<64x128xbf16>
  return %t : tensor<64x128xbf16>
}

// -----

// Any i8 to f16 (255 < 2^10): 1024 + (q + 128), minus 1152; the offset
// added in i8, wrapping.
// CHECK-LABEL: func.func @int8_to_f16
// CHECK-SAME:  (%[[Q:.*]]: tensor<64xi8>)
// CHECK-NEXT:  %[[LO:.*]] = arith.constant dense<-128> : tensor<64xi8>
// CHECK-NEXT:  %[[D:.*]] = arith.subi %[[Q]], %[[LO]] : tensor<64xi8>
// CHECK-NEXT:  %[[U:.*]] = arith.extui %[[D]] : tensor<64xi8> to tensor<64xi16>
// CHECK-NEXT:  %[[M:.*]] = arith.constant dense<25600> : tensor<64xi16>
// CHECK-NEXT:  %[[B:.*]] = arith.ori %[[U]], %[[M]] : tensor<64xi16>
// CHECK-NEXT:  %[[F:.*]] = arith.bitcast %[[B]] : tensor<64xi16> to tensor<64xf16>
// CHECK-NEXT:  %[[C:.*]] = arith.constant dense<1.152000e+03> : tensor<64xf16>
// CHECK-NEXT:  %[[R:.*]] = arith.subf %[[F]], %[[C]] : tensor<64xf16>
// CHECK-NEXT:  return %[[R]]
func.func @int8_to_f16(%q: tensor<64xi8>) -> tensor<64xf16> {
  %f = arith.sitofp %q : tensor<64xi8> to tensor<64xf16>
  return %f : tensor<64xf16>
}

// -----

// An arange (tile.arange's range, [0, 63]) to f32: 2^23 + a, minus 2^23.
// CHECK-LABEL: func.func @arange_to_f32
// CHECK-NEXT:  %[[A:.*]] = tile.arange : tensor<64xi32>
// CHECK-NEXT:  %[[M:.*]] = arith.constant dense<1258291200> : tensor<64xi32>
// CHECK-NEXT:  %[[B:.*]] = arith.ori %[[A]], %[[M]] : tensor<64xi32>
// CHECK-NEXT:  %[[F:.*]] = arith.bitcast %[[B]] : tensor<64xi32> to tensor<64xf32>
// CHECK-NEXT:  %[[C:.*]] = arith.constant dense<0x4B000000> : tensor<64xf32>
// CHECK-NEXT:  %[[R:.*]] = arith.subf %[[F]], %[[C]] : tensor<64xf32>
// CHECK-NEXT:  return %[[R]]
func.func @arange_to_f32() -> tensor<64xf32> {
  %a = tile.arange : tensor<64xi32>
  %f = arith.uitofp %a : tensor<64xi32> to tensor<64xf32>
  return %f : tensor<64xf32>
}

// -----

// Any i8 to bf16: 255 values are too many for bf16's 7 mantissa bits, but
// bf16 holds each: made in f32 (2^23 + (q + 128), minus 2^23 + 128), then
// the f32's top half. An i32 of unknown range to f32: left to cvt.
// CHECK-LABEL: func.func @too_wide
// CHECK-SAME:  (%[[Q:.*]]: tensor<64xi8>, %[[I:.*]]: tensor<64xi32>)
// CHECK:       %[[D:.*]] = arith.subi %[[Q]], %{{.*}} : tensor<64xi8>
// CHECK-NEXT:  %[[U:.*]] = arith.extui %[[D]] : tensor<64xi8> to tensor<64xi32>
// CHECK-NEXT:  %[[M:.*]] = arith.constant dense<1258291200> : tensor<64xi32>
// CHECK-NEXT:  %[[B:.*]] = arith.ori %[[U]], %[[M]] : tensor<64xi32>
// CHECK-NEXT:  %[[F:.*]] = arith.bitcast %[[B]] : tensor<64xi32> to tensor<64xf32>
// CHECK-NEXT:  %[[C:.*]] = arith.constant dense<0x4B000080> : tensor<64xf32>
// CHECK-NEXT:  %[[X:.*]] = arith.subf %[[F]], %[[C]] : tensor<64xf32>
// CHECK-NEXT:  %[[XB:.*]] = arith.bitcast %[[X]] : tensor<64xf32> to tensor<64xi32>
// CHECK-NEXT:  %[[S:.*]] = arith.constant dense<16> : tensor<64xi32>
// CHECK-NEXT:  %[[T:.*]] = arith.shrui %[[XB]], %[[S]] : tensor<64xi32>
// CHECK-NEXT:  %[[H:.*]] = arith.trunci %[[T]] : tensor<64xi32> to tensor<64xi16>
// CHECK-NEXT:  %[[R:.*]] = arith.bitcast %[[H]] : tensor<64xi16> to tensor<64xbf16>
// CHECK-NEXT:  %[[G:.*]] = arith.sitofp %[[I]] : tensor<64xi32> to tensor<64xf32>
// CHECK-NEXT:  return %[[R]], %[[G]]
func.func @too_wide(%q: tensor<64xi8>, %i: tensor<64xi32>) -> (tensor<64xbf16>, tensor<64xf32>) {
  %b = arith.sitofp %q : tensor<64xi8> to tensor<64xbf16>
  %f = arith.sitofp %i : tensor<64xi32> to tensor<64xf32>
  return %b, %f : tensor<64xbf16>, tensor<64xf32>
}

// -----

// f16 times f16 is exact in f32 (22 bits, least bit 2^-48): one f16
// multiply. bf16 times bf16 may fall below f32's least subnormal (2^-266),
// where the f32 product is rounded before bf16's rounding: left as it is.
// CHECK-LABEL: func.func @products_f16
// CHECK-SAME:  (%[[A:.*]]: tensor<64xf16>, %[[B:.*]]: tensor<64xf16>,
// CHECK-NEXT:  %[[P:.*]] = arith.mulf %[[A]], %[[B]] : tensor<64xf16>
// CHECK-NEXT:  arith.extf
// CHECK-NEXT:  arith.extf
// CHECK-NEXT:  %[[Q:.*]] = arith.mulf %{{.*}}, %{{.*}} : tensor<64xf32>
// CHECK-NEXT:  %[[T:.*]] = arith.truncf %[[Q]] : tensor<64xf32> to tensor<64xbf16>
// CHECK-NEXT:  return %[[P]], %[[T]]
func.func @products_f16(%a: tensor<64xf16>, %b: tensor<64xf16>, %x: tensor<64xbf16>, %y: tensor<64xbf16>) -> (tensor<64xf16>, tensor<64xbf16>) {
  %ae = arith.extf %a : tensor<64xf16> to tensor<64xf32>
  %be = arith.extf %b : tensor<64xf16> to tensor<64xf32>
  %p = arith.mulf %ae, %be : tensor<64xf32>
  %pt = arith.truncf %p : tensor<64xf32> to tensor<64xf16>
  %xe = arith.extf %x : tensor<64xbf16> to tensor<64xf32>
  %ye = arith.extf %y : tensor<64xbf16> to tensor<64xf32>
  %q = arith.mulf %xe, %ye : tensor<64xf32>
  %qt = arith.truncf %q : tensor<64xf32> to tensor<64xbf16>
  return %pt, %qt : tensor<64xf16>, tensor<64xbf16>
}

// -----

// A product the kernel also uses in f32 stays in f32 (narrowing would
// multiply twice); its i8 conversion still goes by exponent bits.
// CHECK-LABEL: func.func @product_used_twice
// CHECK-NOT:   arith.sitofp
// CHECK:       %[[F:.*]] = arith.subf %{{.*}}, %{{.*}} : tensor<64xf32>
// CHECK:       %[[P:.*]] = arith.mulf %[[F]], %{{.*}} : tensor<64xf32>
// CHECK-NEXT:  %[[T:.*]] = arith.truncf %[[P]] : tensor<64xf32> to tensor<64xf16>
// CHECK-NEXT:  return %[[T]], %[[P]]
func.func @product_used_twice(%q: tensor<64xi8>, %s: tensor<64xf16>) -> (tensor<64xf16>, tensor<64xf32>) {
  %f = arith.sitofp %q : tensor<64xi8> to tensor<64xf32>
  %se = arith.extf %s : tensor<64xf16> to tensor<64xf32>
  %p = arith.mulf %f, %se : tensor<64xf32>
  %t = arith.truncf %p : tensor<64xf32> to tensor<64xf16>
  return %t, %p : tensor<64xf16>, tensor<64xf32>
}

// -----

// An unsigned nibble times a constant bf16 holds (0.5): the constant made
// in bf16.
// CHECK-LABEL: func.func @scaled_by_constant
// CHECK:       %[[X:.*]] = arith.subf %{{.*}}, %{{.*}} : tensor<64xbf16>
// CHECK-NEXT:  %[[H:.*]] = arith.constant dense<5.000000e-01> : tensor<64xbf16>
// CHECK-NEXT:  %[[P:.*]] = arith.mulf %[[X]], %[[H]] : tensor<64xbf16>
// CHECK-NEXT:  return %[[P]]
func.func @scaled_by_constant(%q: tensor<64xi8>) -> tensor<64xbf16> {
  %c15 = arith.constant dense<15> : tensor<64xi8>
  %half = arith.constant dense<0.5> : tensor<64xf32>
  %n = arith.andi %q, %c15 : tensor<64xi8>
  %f = arith.uitofp %n : tensor<64xi8> to tensor<64xf32>
  %p = arith.mulf %f, %half : tensor<64xf32>
  %t = arith.truncf %p : tensor<64xf32> to tensor<64xbf16>
  return %t : tensor<64xbf16>
}

// -----

// An f32 operand that is a block argument, and a constant under a
// broadcast (made in bf16 at its own shape, then broadcast): the first
// product stays in f32, the second is narrowed.
// CHECK-LABEL: func.func @operands_from_anywhere
// CHECK-SAME:  (%[[X:.*]]: tensor<64x8xf32>, %[[N:.*]]: tensor<64x8xi8>)
// CHECK:       %[[P:.*]] = arith.mulf %[[X]], %{{.*}} : tensor<64x8xf32>
// CHECK-NEXT:  %[[T:.*]] = arith.truncf %[[P]] : tensor<64x8xf32> to tensor<64x8xbf16>
// CHECK:       %[[C:.*]] = arith.constant dense<2.500000e-01> : tensor<1x8xbf16>
// CHECK-NEXT:  %[[CB:.*]] = tile.broadcast %[[C]] : tensor<1x8xbf16> -> tensor<64x8xbf16>
// CHECK-NEXT:  %[[Q:.*]] = arith.mulf %{{.*}}, %[[CB]] : tensor<64x8xbf16>
// CHECK-NEXT:  return %[[T]], %[[Q]]
func.func @operands_from_anywhere(%x: tensor<64x8xf32>, %n: tensor<64x8xi8>) -> (tensor<64x8xbf16>, tensor<64x8xbf16>) {
  %c7 = arith.constant dense<7> : tensor<64x8xi8>
  %q = arith.andi %n, %c7 : tensor<64x8xi8>
  %f = arith.uitofp %q : tensor<64x8xi8> to tensor<64x8xf32>
  %p = arith.mulf %x, %f : tensor<64x8xf32>
  %t = arith.truncf %p : tensor<64x8xf32> to tensor<64x8xbf16>
  %c = arith.constant dense<0.25> : tensor<1x8xf32>
  %cb = tile.broadcast %c : tensor<1x8xf32> -> tensor<64x8xf32>
  %g = arith.uitofp %q : tensor<64x8xi8> to tensor<64x8xf32>
  %r = arith.mulf %g, %cb : tensor<64x8xf32>
  %u = arith.truncf %r : tensor<64x8xf32> to tensor<64x8xbf16>
  return %t, %u : tensor<64x8xbf16>, tensor<64x8xbf16>
}
