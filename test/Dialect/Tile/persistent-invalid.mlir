// RUN: tile-opt %s -split-input-file --tile-persistent -verify-diagnostics

// A kernel that loops over its tiles already, without the attribute that
// says so (tile-persistent leaves a kernel with 'tile.persistent' alone),
// is refused rather than wrapped in a second tile loop.
// expected-error @+1 {{the kernel loops over its tiles already (a 'tile.tile_loop' loop) but has no 'tile.persistent'}}
func.func @looped(%n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %t = %c0 to %n step %c1 : i32 {
  } {tile.tile_loop}
  return
}

// -----

// A kernel of more than one block.
// expected-error @+1 {{a persistent kernel must have a single block}}
func.func @blocks(%c: i1) attributes {tile.kernel} {
  cf.cond_br %c, ^a, ^b
^a:
  return
^b:
  return
}
