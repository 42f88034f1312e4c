//===- KernelGpuTest.cpp - The project's kernels on a GPU, through libtile ===//
//
// Runs kernels/{vector_add,softmax,gemm,flash_attention}.tile on the GPU and
// compares every output with a float64 CPU reference. Each case runs twice:
//   [jit]  compiled at run time (tile::Runtime::compileFile), on tensors in
//          their natural layout: rows that are not 16-byte aligned make the
//          runtime compile an alignment variant;
//   [aot]  compiled ahead of time by `tilec --emit=ptx` and loaded with
//          tile::Runtime::loadPTXFile, on tensors whose rows are padded to
//          16 bytes (an AOT kernel assumes the default alignment). Padding is
//          NaN, so a kernel that reads it fails.
// Outputs are poisoned (0xFF bytes: NaN) before every run, every element is
// checked, inputs are fresh random numbers per case, seeded from the clock
// (the seed is printed; --seed=N repeats a run).
//
//   tile-kernel-gpu-tests --kernels=DIR --tilec=PATH [--family=NAME]
//                         [--quick | --sanitize-subset] [--seed=N]
//                         [--jit-only | --aot-only] [--jobs=N]
//                         [--arch=sm_80|sm_90a]
//
// Families: vector_add, softmax, gemm, flash_attention, all (the default).
// One line per case: name, relative error, PASS/FAIL. Exit 0 when all pass,
// 1 on any failure, 77 (skip) without a GPU.
//
// Software pipelining and loop splitting: besides the default build
// (num_stages=0: stages from the kernels' `latency` hints; loop splitting
// on), GEMM and flash attention run sweeps over num_stages in {1 (no
// pipelining), 2, 3, 4, 0} and, for attention, loop splitting on and off,
// with trip counts of the pipelined loops of 0, 1, 2, 3, 5 and many, ragged
// last tiles, and split points of the causal loop early, late and at the
// end. CompileOptions::numStages / loopSplit in JIT, --num-stages /
// --loop-split in AOT; every kernel is checked to say it was built with what
// was asked for. Case names carry `stages=N` (and `split=on|off`).
//
// --quick runs a subset of every family (the stage sweeps included).
// --sanitize-subset runs only a few tiny GEMM and attention cases, for
// scripts/gpu-sanitize.sh (compute-sanitizer slows every launch a lot);
// --sanitize-control=TOOL runs a kernel with a bug that TOOL must report
// (memcheck, racecheck, synccheck), to show that the sanitizer sees the
// kernels libtile loads.
//
// Flash attention: with input_pos >= 0 and seq_k >= 1, key 0 is visible to
// every query under the causal mask (q_pos = i + input_pos >= 0 = k_pos), so
// no row is fully masked and both the kernel and the reference are defined
// everywhere; the cases keep to that (a negative input_pos could mask whole
// rows, which both sides leave undefined). Rows past seq_q are computed by
// the last block but not stored.
//
//===----------------------------------------------------------------------===//

#include "KernelGpuHarness.h"

#include <chrono>
#include <cstring>

using namespace kernelgpu;

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *prefix) -> const char * {
      size_t n = std::strlen(prefix);
      return arg.compare(0, n, prefix) == 0 ? argv[i] + n : nullptr;
    };
    if (const char *v = value("--kernels="))
      config.kernelsDir = v;
    else if (const char *v = value("--tilec="))
      config.tilec = v;
    else if (const char *v = value("--family="))
      config.family = v;
    else if (arg == "--quick")
      config.quick = true;
    else if (arg == "--sanitize-subset")
      config.sanitize = true;
    else if (const char *v = value("--sanitize-control=")) {
      requireGpu("tile-kernel-gpu-tests");
      return sanitizerControl(v);
    } else if (arg == "--jit-only")
      config.jitOnly = true;
    else if (arg == "--aot-only")
      config.aotOnly = true;
    else if (const char *v = value("--jobs="))
      config.jobs = static_cast<unsigned>(std::atoi(v));
    else if (const char *v = value("--arch="))
      config.arch = v;
    else if (value("--seed=")) {
    } else {
      std::printf(
          "unknown argument '%s'\nusage: %s --kernels=DIR "
          "--tilec=PATH [--family=NAME] [--quick | --sanitize-subset] "
          "[--jit-only | --aot-only] [--seed=N] [--jobs=N] [--arch=sm_XX]\n",
          argv[i], argv[0]);
      return 1;
    }
  }
  if (config.kernelsDir.empty() || (config.tilec.empty() && !config.jitOnly)) {
    std::printf("%s: --kernels and --tilec are required\n", argv[0]);
    return 1;
  }
  requireGpu("tile-kernel-gpu-tests");
  // Persistent kernels: few blocks, many tiles each.
  setenv("TILEC_PERSISTENT_BLOCKS", "3", /*overwrite=*/0);
  config.seed = pickSeed(argc, argv);
  std::printf("seed: %llu (rerun with --seed=%llu)\n",
              (unsigned long long)config.seed, (unsigned long long)config.seed);
  char work[] = "/tmp/tile-gpu-tests-XXXXXX";
  if (!mkdtemp(work)) {
    std::printf("cannot create a temporary directory\n");
    return 1;
  }
  config.workDir = work;

  auto wants = [](const char *family) {
    // --sanitize-subset: GEMM and flash attention only.
    if (config.sanitize && std::strcmp(family, "gemm") != 0 &&
        std::strcmp(family, "flash_attention") != 0)
      return false;
    return config.family == "all" || config.family == family;
  };
  // Compile every kernel the cases need up front, on all cores. (JIT
  // kernels that a launch finds too aligned for its tensors compile an
  // alignment variant then.)
  Wanted wanted;
  if (wants("gemm"))
    prepareGemm(wanted);
  if (wants("flash_attention"))
    prepareFlashAttention(wanted);
  auto start = std::chrono::steady_clock::now();
  kernels.prepare(wanted);
  if (!wanted.empty())
    std::printf(
        "compiled the gemm and flash attention kernels in %.1f s\n",
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());

  std::mt19937_64 rng(config.seed);
  if (wants("vector_add"))
    vectorAddCases(rng);
  if (wants("softmax"))
    softmaxCases(rng);
  if (wants("gemm"))
    runGemm(rng);
  if (wants("flash_attention"))
    runFlashAttention(rng);

  tile::RuntimeStats stats = tile::Runtime::get().stats();
  std::printf("runtime stats: compiles=%llu disk_hits=%llu memory_hits=%llu "
              "modules_loaded=%llu alignment_variants=%llu\n",
              (unsigned long long)stats.compiles,
              (unsigned long long)stats.diskHits,
              (unsigned long long)stats.memoryHits,
              (unsigned long long)stats.modulesLoaded,
              (unsigned long long)stats.alignmentVariants);
  std::printf("%d passed, %d failed\n", passes, failures);
  return failures ? 1 : 0;
}
