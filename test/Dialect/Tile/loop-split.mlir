// RUN: tile-opt %s --tile-loop-split | FileCheck %s
// RUN: tile-opt %s --tile-loop-split=max-ops=5 | FileCheck %s --check-prefix=SMALL
// Asked for (warn): a loop too large to split, and a function with no loop
// to split, are said (not the declaration @sink).
// RUN: tile-opt %s --tile-loop-split="max-ops=5 warn=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARN
// WARN-NOT: warning
// WARN: loop-split.mlir:{{[0-9]+}}:{{[0-9]+}}: warning: loop_split does not apply to this loop: its body has 7 ops, more than the 5 a split copies
// WARN: loop-split.mlir:{{[0-9]+}}:1: warning: loop_split does not apply to this kernel: no loop branches on a comparison of its induction variable with a bound fixed for the loop (as a causal mask's)
// With the kernel's loop_split off, only loops whose schedule asks are split:
// RUN: tile-opt %s --tile-loop-split=enabled=false | FileCheck %s --check-prefix=OFF

// tile-loop-split splits an scf.for whose body branches on a comparison of
// the induction variable with a loop-invariant bound into two loops, at the
// first iteration where the comparison changes value (aligned to the step
// and clamped to the bounds), and folds the branch in each copy.

func.func private @sink(f32)

// iv >= b, the flash-attention shape: an scf.if with results on a
// loop-carried value. The first loop runs [lb, max(lb, min(b, ub))) and
// takes the else branch; the second one takes the then branch and starts
// from the first one's results.
// CHECK-LABEL: func.func @sge
// OFF-LABEL:   func.func @sge
// OFF:         scf.for
// OFF:           arith.cmpi sge
// OFF:           scf.if
// OFF:         return
// CHECK-SAME:  (%[[LB:.*]]: i32, %[[UB:.*]]: i32, %[[B:.*]]: i32, %[[INIT:.*]]: f32)
// CHECK-DAG:   %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG:   %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-DAG:   %[[C1:.*]] = arith.constant 1 : i32
// CHECK:       %[[MIN:.*]] = arith.minsi %[[B]], %[[UB]] : i32
// CHECK:       %[[S:.*]] = arith.maxsi %[[LB]], %[[MIN]] : i32
// CHECK:       %[[R1:.*]] = scf.for %[[I1:.*]] = %[[LB]] to %[[S]] step %[[C1]] iter_args(%[[A1:.*]] = %[[INIT]]) -> (f32) : i32 {
// CHECK-NEXT:    %[[X1:.*]] = arith.addf %[[A1]], %[[ONE]] : f32
// CHECK-NEXT:    scf.yield %[[X1]] : f32
// CHECK-NEXT:  }
// CHECK-NEXT:  %[[R2:.*]] = scf.for %[[I2:.*]] = %[[S]] to %[[UB]] step %[[C1]] iter_args(%[[A2:.*]] = %[[R1]]) -> (f32) : i32 {
// CHECK-NEXT:    %[[X2:.*]] = arith.mulf %[[A2]], %[[TWO]] : f32
// CHECK-NEXT:    scf.yield %[[X2]] : f32
// CHECK-NEXT:  }
// CHECK-NEXT:  return %[[R2]] : f32
func.func @sge(%lb: i32, %ub: i32, %b: i32, %init: f32) -> f32 {
  %c1 = arith.constant 1 : i32
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %r = scf.for %i = %lb to %ub step %c1 iter_args(%acc = %init) -> (f32) : i32 {
    %c = arith.cmpi sge, %i, %b : i32
    %v = scf.if %c -> (f32) {
      %m = arith.mulf %acc, %two : f32
      scf.yield %m : f32
    } else {
      %a = arith.addf %acc, %one : f32
      scf.yield %a : f32
    }
    scf.yield %v : f32
  }
  return %r : f32
}

// iv > b on an arith.select: the split point is b + 1, computed without
// overflow as `b < ub ? b + 1 : ub`.
// CHECK-LABEL: func.func @sgt_select
// CHECK-SAME:  (%[[LB:.*]]: i32, %[[UB:.*]]: i32, %[[B:.*]]: i32, %[[X:.*]]: f32, %[[Y:.*]]: f32)
// CHECK:       %[[C1:.*]] = arith.constant 1 : i32
// CHECK:       %[[BELOW:.*]] = arith.cmpi slt, %[[B]], %[[UB]] : i32
// CHECK:       %[[NEXT:.*]] = arith.addi %[[B]], %{{.*}} : i32
// CHECK:       %[[SEL:.*]] = arith.select %[[BELOW]], %[[NEXT]], %[[UB]] : i32
// CHECK:       %[[S:.*]] = arith.maxsi %[[LB]], %[[SEL]] : i32
// CHECK:       scf.for %{{.*}} = %[[LB]] to %[[S]] step %[[C1]] : i32 {
// CHECK-NEXT:    func.call @sink(%[[Y]]) : (f32) -> ()
// CHECK-NEXT:  }
// CHECK-NEXT:  scf.for %{{.*}} = %[[S]] to %[[UB]] step %[[C1]] : i32 {
// CHECK-NEXT:    func.call @sink(%[[X]]) : (f32) -> ()
// CHECK-NEXT:  }
func.func @sgt_select(%lb: i32, %ub: i32, %b: i32, %x: f32, %y: f32) {
  %c1 = arith.constant 1 : i32
  scf.for %i = %lb to %ub step %c1 : i32 {
    %c = arith.cmpi sgt, %i, %b : i32
    %v = arith.select %c, %x, %y : f32
    func.call @sink(%v) : (f32) -> ()
  }
  return
}

// iv < b on an scf.if without results: true before the split point.
// CHECK-LABEL: func.func @slt
// CHECK-SAME:  (%[[LB:.*]]: i32, %[[UB:.*]]: i32, %[[B:.*]]: i32, %[[X:.*]]: f32, %[[Y:.*]]: f32)
// CHECK:       %[[MIN:.*]] = arith.minsi %[[B]], %[[UB]] : i32
// CHECK:       %[[S:.*]] = arith.maxsi %[[LB]], %[[MIN]] : i32
// CHECK:       scf.for %{{.*}} = %[[LB]] to %[[S]]
// CHECK-NEXT:    func.call @sink(%[[X]])
// CHECK-NEXT:  }
// CHECK-NEXT:  scf.for %{{.*}} = %[[S]] to %[[UB]]
// CHECK-NEXT:    func.call @sink(%[[Y]])
// CHECK-NEXT:  }
// CHECK-NOT:   scf.if
func.func @slt(%lb: i32, %ub: i32, %b: i32, %x: f32, %y: f32) {
  %c1 = arith.constant 1 : i32
  scf.for %i = %lb to %ub step %c1 : i32 {
    %c = arith.cmpi slt, %i, %b : i32
    scf.if %c {
      func.call @sink(%x) : (f32) -> ()
    } else {
      func.call @sink(%y) : (f32) -> ()
    }
  }
  return
}

// iv <= b: split at b + 1, true before it.
// CHECK-LABEL: func.func @sle
// CHECK-SAME:  (%[[LB:.*]]: i32, %[[UB:.*]]: i32, %[[B:.*]]: i32, %[[X:.*]]: f32, %[[Y:.*]]: f32)
// CHECK:       %[[BELOW:.*]] = arith.cmpi slt, %[[B]], %[[UB]] : i32
// CHECK:       %[[NEXT:.*]] = arith.addi %[[B]], %{{.*}} : i32
// CHECK:       %[[SEL:.*]] = arith.select %[[BELOW]], %[[NEXT]], %[[UB]] : i32
// CHECK:       %[[S:.*]] = arith.maxsi %[[LB]], %[[SEL]] : i32
// CHECK:       scf.for %{{.*}} = %[[LB]] to %[[S]]
// CHECK-NEXT:    func.call @sink(%[[X]])
// CHECK-NEXT:  }
// CHECK-NEXT:  scf.for %{{.*}} = %[[S]] to %[[UB]]
// CHECK-NEXT:    func.call @sink(%[[Y]])
// CHECK-NEXT:  }
func.func @sle(%lb: i32, %ub: i32, %b: i32, %x: f32, %y: f32) {
  %c1 = arith.constant 1 : i32
  scf.for %i = %lb to %ub step %c1 : i32 {
    %c = arith.cmpi sle, %i, %b : i32
    %v = arith.select %c, %x, %y : f32
    func.call @sink(%v) : (f32) -> ()
  }
  return
}

// The bound on the left: b >= iv is iv <= b (split at b + 1, true before),
// b < iv is iv > b (split at b + 1, false before).
// CHECK-LABEL: func.func @swapped
// CHECK-SAME:  (%[[LB:.*]]: i32, %[[UB:.*]]: i32, %[[B:.*]]: i32, %[[X:.*]]: f32, %[[Y:.*]]: f32)
// CHECK:       %[[BELOW:.*]] = arith.cmpi slt, %[[B]], %[[UB]] : i32
// CHECK:       %[[NEXT:.*]] = arith.addi %[[B]], %{{.*}} : i32
// CHECK:       %[[SEL:.*]] = arith.select %[[BELOW]], %[[NEXT]], %[[UB]] : i32
// CHECK:       %[[S:.*]] = arith.maxsi %[[LB]], %[[SEL]] : i32
// CHECK:       scf.for %{{.*}} = %[[LB]] to %[[S]]
// CHECK-NEXT:    func.call @sink(%[[X]])
// CHECK-NEXT:    func.call @sink(%[[X]])
// CHECK-NEXT:  }
// CHECK-NEXT:  scf.for %{{.*}} = %[[S]] to %[[UB]]
// CHECK-NEXT:    func.call @sink(%[[Y]])
// CHECK-NEXT:    func.call @sink(%[[Y]])
// CHECK-NEXT:  }
func.func @swapped(%lb: i32, %ub: i32, %b: i32, %x: f32, %y: f32) {
  %c1 = arith.constant 1 : i32
  scf.for %i = %lb to %ub step %c1 : i32 {
    %c = arith.cmpi sge, %b, %i : i32
    %v = arith.select %c, %x, %y : f32
    func.call @sink(%v) : (f32) -> ()
    %d = arith.cmpi slt, %b, %i : i32
    %w = arith.select %d, %y, %x : f32
    func.call @sink(%w) : (f32) -> ()
  }
  return
}

// Unsigned comparisons, with a lower bound that is known to be
// non-negative: iv <u b is true on [lb, minui(b, ub)) (a bound that is
// negative as a signed value is above every iteration); iv >u b (here as
// b <u iv) splits at `b <u ub ? b + 1 : ub`.
// CHECK-LABEL: func.func @ult
// CHECK-SAME:  (%[[UB:.*]]: i32, %[[B:.*]]: i32, %[[X:.*]]: f32, %[[Y:.*]]: f32)
// CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG:   %[[C1:.*]] = arith.constant 1 : i32
// CHECK:       %[[MIN:.*]] = arith.minui %[[B]], %[[UB]] : i32
// CHECK:       %[[S:.*]] = arith.maxsi %[[MIN]], %[[C0]] : i32
// CHECK:       scf.for %{{.*}} = %[[C0]] to %[[S]] step %[[C1]] : i32 {
// CHECK-NEXT:    func.call @sink(%[[X]])
// CHECK-NEXT:  }
// CHECK-NEXT:  scf.for %{{.*}} = %[[S]] to %[[UB]] step %[[C1]] : i32 {
// CHECK-NEXT:    func.call @sink(%[[Y]])
// CHECK-NEXT:  }
func.func @ult(%ub: i32, %b: i32, %x: f32, %y: f32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %ub step %c1 : i32 {
    %c = arith.cmpi ult, %i, %b : i32
    %v = arith.select %c, %x, %y : f32
    func.call @sink(%v) : (f32) -> ()
  }
  return
}

// CHECK-LABEL: func.func @ugt_swapped
// CHECK-SAME:  (%[[LB0:.*]]: i32, %[[UB:.*]]: i32, %[[B:.*]]: i32, %[[X:.*]]: f32, %[[Y:.*]]: f32)
// CHECK:       %[[LB:.*]] = tile.bid 0
// CHECK:       %[[BELOW:.*]] = arith.cmpi ult, %[[B]], %[[UB]] : i32
// CHECK:       %[[NEXT:.*]] = arith.addi %[[B]], %{{.*}} : i32
// CHECK:       %[[SEL:.*]] = arith.select %[[BELOW]], %[[NEXT]], %[[UB]] : i32
// CHECK:       %[[S:.*]] = arith.maxsi %[[LB]], %[[SEL]] : i32
// CHECK:       scf.for %{{.*}} = %[[LB]] to %[[S]]
// CHECK-NEXT:    func.call @sink(%[[Y]])
// CHECK-NEXT:  }
// CHECK-NEXT:  scf.for %{{.*}} = %[[S]] to %[[UB]]
// CHECK-NEXT:    func.call @sink(%[[X]])
// CHECK-NEXT:  }
func.func @ugt_swapped(%unused: i32, %ub: i32, %b: i32, %x: f32, %y: f32) {
  %c1 = arith.constant 1 : i32
  %lb = tile.bid 0
  scf.for %i = %lb to %ub step %c1 : i32 {
    %c = arith.cmpi ult, %b, %i : i32
    %v = arith.select %c, %x, %y : f32
    func.call @sink(%v) : (f32) -> ()
  }
  return
}

// uge with a lower bound that is non-negative through max/min.
// CHECK-LABEL: func.func @uge_clamped_lb
// CHECK:       %[[LB:.*]] = arith.maxsi
// CHECK:       %[[MIN:.*]] = arith.minui %{{.*}}, %{{.*}} : i32
// CHECK:       %[[S:.*]] = arith.maxsi %[[LB]], %[[MIN]] : i32
// CHECK:       scf.for %{{.*}} = %[[LB]] to %[[S]]
// CHECK:       scf.for %{{.*}} = %[[S]] to
// CHECK-NOT:   arith.cmpi
func.func @uge_clamped_lb(%lb0: i32, %ub: i32, %b: i32, %x: f32, %y: f32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %lb = arith.maxsi %lb0, %c0 : i32
  scf.for %i = %lb to %ub step %c1 : i32 {
    %c = arith.cmpi uge, %i, %b : i32
    %v = arith.select %c, %x, %y : f32
    func.call @sink(%v) : (f32) -> ()
  }
  return
}

// A step other than 1: the split point is rounded up to an iteration,
// lb + ceildiv(s - lb, step) * step, and clamped to ub again.
// CHECK-LABEL: func.func @step
// CHECK-SAME:  (%[[LB:.*]]: i32, %[[UB:.*]]: i32, %[[ST:.*]]: i32, %[[B:.*]]: i32, %[[X:.*]]: f32, %[[Y:.*]]: f32)
// CHECK:       %[[MIN:.*]] = arith.minsi %[[B]], %[[UB]] : i32
// CHECK:       %[[S:.*]] = arith.maxsi %[[LB]], %[[MIN]] : i32
// CHECK:       %[[D:.*]] = arith.subi %[[S]], %[[LB]] : i32
// CHECK:       %[[K:.*]] = arith.ceildivsi %[[D]], %[[ST]] : i32
// CHECK:       %[[KS:.*]] = arith.muli %[[K]], %[[ST]] : i32
// CHECK:       %[[A:.*]] = arith.addi %[[LB]], %[[KS]] : i32
// CHECK:       %[[S2:.*]] = arith.minsi %[[A]], %[[UB]] : i32
// CHECK:       scf.for %{{.*}} = %[[LB]] to %[[S2]] step %[[ST]] : i32 {
// CHECK-NEXT:    func.call @sink(%[[Y]])
// CHECK-NEXT:  }
// CHECK-NEXT:  scf.for %{{.*}} = %[[S2]] to %[[UB]] step %[[ST]] : i32 {
// CHECK-NEXT:    func.call @sink(%[[X]])
// CHECK-NEXT:  }
func.func @step(%lb: i32, %ub: i32, %st: i32, %b: i32, %x: f32, %y: f32) {
  scf.for %i = %lb to %ub step %st : i32 {
    %c = arith.cmpi sge, %i, %b : i32
    %v = arith.select %c, %x, %y : f32
    func.call @sink(%v) : (f32) -> ()
  }
  return
}

// Constant bounds and step: 0 to 10 step 3 split at iv >= 4 runs 0 and 3
// in the first loop, 6 and 9 in the second.
// CHECK-LABEL: func.func @constant_step
// CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG:   %[[C3:.*]] = arith.constant 3 : i32
// CHECK-DAG:   %[[C6:.*]] = arith.constant 6 : i32
// CHECK-DAG:   %[[C10:.*]] = arith.constant 10 : i32
// CHECK:       scf.for %{{.*}} = %[[C0]] to %[[C6]] step %[[C3]]
// CHECK:       scf.for %{{.*}} = %[[C6]] to %[[C10]] step %[[C3]]
func.func @constant_step(%x: f32, %y: f32) {
  %c0 = arith.constant 0 : i32
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  %c10 = arith.constant 10 : i32
  scf.for %i = %c0 to %c10 step %c3 : i32 {
    %c = arith.cmpi sge, %i, %c4 : i32
    %v = arith.select %c, %x, %y : f32
    func.call @sink(%v) : (f32) -> ()
  }
  return
}

// Constant bounds, run-time bound: the clamp to [0, 10] is emitted.
// CHECK-LABEL: func.func @constant_bounds
// CHECK-SAME:  (%[[B:.*]]: i32, %[[X:.*]]: f32, %[[Y:.*]]: f32)
// CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG:   %[[C10:.*]] = arith.constant 10 : i32
// CHECK:       %[[MIN:.*]] = arith.minsi %[[B]], %[[C10]] : i32
// CHECK:       %[[S:.*]] = arith.maxsi %[[MIN]], %[[C0]] : i32
// CHECK:       scf.for %{{.*}} = %[[C0]] to %[[S]]
// CHECK:       scf.for %{{.*}} = %[[S]] to %[[C10]]
func.func @constant_bounds(%b: i32, %x: f32, %y: f32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c10 = arith.constant 10 : i32
  scf.for %i = %c0 to %c10 step %c1 : i32 {
    %c = arith.cmpi sge, %i, %b : i32
    %v = arith.select %c, %x, %y : f32
    func.call @sink(%v) : (f32) -> ()
  }
  return
}

// A split point that is statically after ub (20 > 10) or before lb
// (-5 < 0): the clamp folds to a bound, so one loop would run zero times;
// the loop is kept whole with the comparison's only value.
// CHECK-LABEL: func.func @split_after_ub
// CHECK-SAME:  (%[[X:.*]]: f32, %[[Y:.*]]: f32)
// CHECK:       scf.for
// CHECK-NEXT:    func.call @sink(%[[Y]])
// CHECK-NEXT:  }
// CHECK-NOT:   scf.for
func.func @split_after_ub(%x: f32, %y: f32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c10 = arith.constant 10 : i32
  %c20 = arith.constant 20 : i32
  scf.for %i = %c0 to %c10 step %c1 : i32 {
    %c = arith.cmpi sge, %i, %c20 : i32
    %v = arith.select %c, %x, %y : f32
    func.call @sink(%v) : (f32) -> ()
  }
  return
}

// CHECK-LABEL: func.func @split_before_lb
// CHECK-SAME:  (%[[X:.*]]: f32, %[[Y:.*]]: f32)
// CHECK:       scf.for
// CHECK-NEXT:    func.call @sink(%[[X]])
// CHECK-NEXT:  }
// CHECK-NOT:   scf.for
func.func @split_before_lb(%x: f32, %y: f32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c10 = arith.constant 10 : i32
  %cm5 = arith.constant -5 : i32
  scf.for %i = %c0 to %c10 step %c1 : i32 {
    %c = arith.cmpi sgt, %i, %cm5 : i32
    %v = arith.select %c, %x, %y : f32
    func.call @sink(%v) : (f32) -> ()
  }
  return
}

// iv > 4 with a constant bound: the split point 5 is folded, no select.
// CHECK-LABEL: func.func @sgt_constant
// CHECK-SAME:  (%[[LB:.*]]: i32, %[[UB:.*]]: i32, %[[X:.*]]: f32, %[[Y:.*]]: f32)
// CHECK:       %[[C5:.*]] = arith.constant 5 : i32
// CHECK:       %[[MIN:.*]] = arith.minsi %[[UB]], %[[C5]] : i32
// CHECK:       %[[S:.*]] = arith.maxsi %[[LB]], %[[MIN]] : i32
// CHECK:       scf.for %{{.*}} = %[[LB]] to %[[S]]
// CHECK-NEXT:    func.call @sink(%[[Y]])
// CHECK-NEXT:  }
// CHECK-NEXT:  scf.for %{{.*}} = %[[S]] to %[[UB]]
// CHECK-NEXT:    func.call @sink(%[[X]])
// CHECK-NEXT:  }
func.func @sgt_constant(%lb: i32, %ub: i32, %x: f32, %y: f32) {
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  scf.for %i = %lb to %ub step %c1 : i32 {
    %c = arith.cmpi sgt, %i, %c4 : i32
    %v = arith.select %c, %x, %y : f32
    func.call @sink(%v) : (f32) -> ()
  }
  return
}

// iv <= INT_MAX holds on every iteration (b + 1 would overflow): the loop
// is kept whole.
// CHECK-LABEL: func.func @sle_int_max
// CHECK-SAME:  (%[[UB:.*]]: i32, %[[X:.*]]: f32, %[[Y:.*]]: f32)
// CHECK:       scf.for %{{.*}} = %{{.*}} to %[[UB]]
// CHECK-NEXT:    func.call @sink(%[[X]])
// CHECK-NEXT:  }
// CHECK-NOT:   scf.for
func.func @sle_int_max(%ub: i32, %x: f32, %y: f32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %max = arith.constant 2147483647 : i32
  scf.for %i = %c0 to %ub step %c1 : i32 {
    %c = arith.cmpi sle, %i, %max : i32
    %v = arith.select %c, %x, %y : f32
    func.call @sink(%v) : (f32) -> ()
  }
  return
}

// An index loop, the comparison inside a nested scf.if, and combined with
// another condition through arith.andi: the first loop drops the inner
// branch, the second keeps it on the other condition alone.
// CHECK-LABEL: func.func @index_nested_andi
// CHECK-SAME:  (%[[LB:.*]]: index, %[[UB:.*]]: index, %[[B:.*]]: index, %[[P:.*]]: i1, %[[Q:.*]]: i1, %[[X:.*]]: f32, %[[Y:.*]]: f32)
// CHECK:       %[[MIN:.*]] = arith.minsi %[[B]], %[[UB]] : index
// CHECK:       %[[S:.*]] = arith.maxsi %[[LB]], %[[MIN]] : index
// CHECK:       scf.for %{{.*}} = %[[LB]] to %[[S]] step %{{.*}} {
// CHECK-NEXT:    scf.if %[[Q]] {
// CHECK-NEXT:      func.call @sink(%[[Y]])
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NEXT:  scf.for %{{.*}} = %[[S]] to %[[UB]] step %{{.*}} {
// CHECK-NEXT:    scf.if %[[Q]] {
// CHECK-NEXT:      %[[V:.*]] = arith.select %[[P]], %[[X]], %[[Y]] : f32
// CHECK-NEXT:      func.call @sink(%[[V]])
// CHECK-NEXT:    }
// CHECK-NEXT:  }
func.func @index_nested_andi(%lb: index, %ub: index, %b: index, %p: i1, %q: i1, %x: f32, %y: f32) {
  %c1 = arith.constant 1 : index
  scf.for %i = %lb to %ub step %c1 {
    scf.if %q {
      %c = arith.cmpi sge, %i, %b : index
      %d = arith.andi %c, %p : i1
      %v = arith.select %d, %x, %y : f32
      func.call @sink(%v) : (f32) -> ()
    }
  }
  return
}

// Two comparisons with different bounds: the loop is split on one, then
// each half on the other, until no comparison of the IV is left. The
// attributes of the loop are kept on every copy.
// CHECK-LABEL: func.func @two_bounds
// OFF-LABEL:   func.func @two_bounds
// OFF-COUNT-4: } {tile.schedule = #tile.schedule<num_stages = 3, loop_split = true>}
// CHECK-SAME:  (%[[LB:.*]]: i32, %[[UB:.*]]: i32, %[[B1:.*]]: i32, %[[B2:.*]]: i32, %[[X:.*]]: f32, %[[Y:.*]]: f32)
// CHECK:       %[[MIN1:.*]] = arith.minsi %[[B1]], %[[UB]] : i32
// CHECK:       %[[S1:.*]] = arith.maxsi %[[LB]], %[[MIN1]] : i32
// CHECK:       %[[MIN2:.*]] = arith.minsi %[[B2]], %[[S1]] : i32
// CHECK:       %[[S2:.*]] = arith.maxsi %[[LB]], %[[MIN2]] : i32
// CHECK:       scf.for %{{.*}} = %[[LB]] to %[[S2]]
// CHECK-NEXT:    func.call @sink(%[[Y]])
// CHECK-NEXT:    func.call @sink(%[[X]])
// CHECK-NEXT:  } {tile.schedule = #tile.schedule<num_stages = 3, loop_split = true>}
// CHECK-NEXT:  scf.for %{{.*}} = %[[S2]] to %[[S1]]
// CHECK-NEXT:    func.call @sink(%[[Y]])
// CHECK-NEXT:    func.call @sink(%[[Y]])
// CHECK-NEXT:  } {tile.schedule = #tile.schedule<num_stages = 3, loop_split = true>}
// CHECK-NEXT:  %[[MIN3:.*]] = arith.minsi %[[B2]], %[[UB]] : i32
// CHECK-NEXT:  %[[S3:.*]] = arith.maxsi %[[S1]], %[[MIN3]] : i32
// CHECK-NEXT:  scf.for %{{.*}} = %[[S1]] to %[[S3]]
// CHECK-NEXT:    func.call @sink(%[[X]])
// CHECK-NEXT:    func.call @sink(%[[X]])
// CHECK-NEXT:  } {tile.schedule = #tile.schedule<num_stages = 3, loop_split = true>}
// CHECK-NEXT:  scf.for %{{.*}} = %[[S3]] to %[[UB]]
// CHECK-NEXT:    func.call @sink(%[[X]])
// CHECK-NEXT:    func.call @sink(%[[Y]])
// CHECK-NEXT:  } {tile.schedule = #tile.schedule<num_stages = 3, loop_split = true>}
// CHECK-NEXT:  return
func.func @two_bounds(%lb: i32, %ub: i32, %b1: i32, %b2: i32, %x: f32, %y: f32) {
  %c1 = arith.constant 1 : i32
  scf.for %i = %lb to %ub step %c1 : i32 {
    %c = arith.cmpi sge, %i, %b1 : i32
    %v = arith.select %c, %x, %y : f32
    func.call @sink(%v) : (f32) -> ()
    %d = arith.cmpi slt, %i, %b2 : i32
    %w = arith.select %d, %x, %y : f32
    func.call @sink(%w) : (f32) -> ()
  } {tile.schedule = #tile.schedule<num_stages = 3, loop_split = true>}
  return
}

//===----------------------------------------------------------------------===//
// Loops that are left alone
//===----------------------------------------------------------------------===//

// The bound changes in the loop (a loop-carried value).
// CHECK-LABEL: func.func @bound_not_invariant
// CHECK:       scf.for
// CHECK:         arith.cmpi sge
// CHECK:         arith.select
// CHECK-NOT:   scf.for
func.func @bound_not_invariant(%lb: i32, %ub: i32, %b: i32, %x: f32, %y: f32) -> i32 {
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %lb to %ub step %c1 iter_args(%bound = %b) -> (i32) : i32 {
    %c = arith.cmpi sge, %i, %bound : i32
    %v = arith.select %c, %x, %y : f32
    func.call @sink(%v) : (f32) -> ()
    %n = arith.addi %bound, %c1 : i32
    scf.yield %n : i32
  }
  return %r : i32
}

// The comparison is on a value computed from the IV, not on the IV.
// CHECK-LABEL: func.func @not_the_iv
// CHECK:       scf.for
// CHECK:         arith.cmpi sge
// CHECK-NOT:   scf.for
func.func @not_the_iv(%lb: i32, %ub: i32, %b: i32, %x: f32, %y: f32) {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  scf.for %i = %lb to %ub step %c1 : i32 {
    %j = arith.muli %i, %c2 : i32
    %c = arith.cmpi sge, %j, %b : i32
    %v = arith.select %c, %x, %y : f32
    func.call @sink(%v) : (f32) -> ()
  }
  return
}

// eq and ne are true on one iteration only: no split.
// CHECK-LABEL: func.func @eq
// CHECK:       scf.for
// CHECK:         arith.cmpi eq
// CHECK:         arith.cmpi ne
// CHECK-NOT:   scf.for
func.func @eq(%lb: i32, %ub: i32, %b: i32, %x: f32, %y: f32) {
  %c1 = arith.constant 1 : i32
  scf.for %i = %lb to %ub step %c1 : i32 {
    %c = arith.cmpi eq, %i, %b : i32
    %v = arith.select %c, %x, %y : f32
    func.call @sink(%v) : (f32) -> ()
    %d = arith.cmpi ne, %b, %i : i32
    %w = arith.select %d, %x, %y : f32
    func.call @sink(%w) : (f32) -> ()
  }
  return
}

// The comparison decides no branch.
// CHECK-LABEL: func.func @not_a_condition
// CHECK:       scf.for
// CHECK:         arith.cmpi sge
// CHECK:         arith.extui
// CHECK-NOT:   scf.for
func.func @not_a_condition(%lb: i32, %ub: i32, %b: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %lb to %ub step %c1 iter_args(%n = %lb) -> (i32) : i32 {
    %c = arith.cmpi sge, %i, %b : i32
    %e = arith.extui %c : i1 to i32
    %s = arith.addi %n, %e : i32
    scf.yield %s : i32
  }
  return %r : i32
}

// Unsigned comparison, lower bound that may be negative.
// CHECK-LABEL: func.func @unsigned_signed_lb
// CHECK:       scf.for
// CHECK:         arith.cmpi ult
// CHECK-NOT:   scf.for
func.func @unsigned_signed_lb(%lb: i32, %ub: i32, %b: i32, %x: f32, %y: f32) {
  %c1 = arith.constant 1 : i32
  scf.for %i = %lb to %ub step %c1 : i32 {
    %c = arith.cmpi ult, %i, %b : i32
    %v = arith.select %c, %x, %y : f32
    func.call @sink(%v) : (f32) -> ()
  }
  return
}

// The opt-out: the loop's schedule says loop_split = false.
// CHECK-LABEL: func.func @opt_out
// CHECK:       scf.for
// CHECK:         arith.cmpi sge
// CHECK:       } {tile.schedule = #tile.schedule<loop_split = false>}
// CHECK-NOT:   scf.for
func.func @opt_out(%lb: i32, %ub: i32, %b: i32, %x: f32, %y: f32) {
  %c1 = arith.constant 1 : i32
  scf.for %i = %lb to %ub step %c1 : i32 {
    %c = arith.cmpi sge, %i, %b : i32
    %v = arith.select %c, %x, %y : f32
    func.call @sink(%v) : (f32) -> ()
  } {tile.schedule = #tile.schedule<loop_split = false>}
  return
}

// Unsigned loop bounds (unsignedCmp): not handled.
// CHECK-LABEL: func.func @unsigned_loop
// CHECK:       scf.for unsigned
// CHECK:         arith.cmpi sge
// CHECK-NOT:   scf.for
func.func @unsigned_loop(%lb: i32, %ub: i32, %b: i32, %x: f32, %y: f32) {
  %c1 = arith.constant 1 : i32
  scf.for unsigned %i = %lb to %ub step %c1 : i32 {
    %c = arith.cmpi sge, %i, %b : i32
    %v = arith.select %c, %x, %y : f32
    func.call @sink(%v) : (f32) -> ()
  }
  return
}

// max-ops: a body of 4 operations (cmpi, select, call, yield) is split
// with max-ops=5, one of 6 is not.
// SMALL-LABEL: func.func @small_body
// SMALL-COUNT-2: scf.for
// SMALL-LABEL: func.func @large_body
// SMALL:       scf.for
// SMALL:         arith.cmpi sge
// SMALL-NOT:   scf.for
// SMALL-LABEL: func.func @after_large_body
// CHECK-LABEL: func.func @small_body
// CHECK-COUNT-2: scf.for
// CHECK-LABEL: func.func @large_body
// CHECK-COUNT-2: scf.for
func.func @small_body(%lb: i32, %ub: i32, %b: i32, %x: f32, %y: f32) {
  %c1 = arith.constant 1 : i32
  scf.for %i = %lb to %ub step %c1 : i32 {
    %c = arith.cmpi sge, %i, %b : i32
    %v = arith.select %c, %x, %y : f32
    func.call @sink(%v) : (f32) -> ()
  }
  return
}

func.func @large_body(%lb: i32, %ub: i32, %b: i32, %x: f32, %y: f32) {
  %c1 = arith.constant 1 : i32
  scf.for %i = %lb to %ub step %c1 : i32 {
    %c = arith.cmpi sge, %i, %b : i32
    %v = arith.select %c, %x, %y : f32
    func.call @sink(%v) : (f32) -> ()
    %w = arith.addf %v, %x : f32
    func.call @sink(%w) : (f32) -> ()
  }
  return
}

func.func @after_large_body() {
  return
}
