//===- JITTest.cpp - tile-runtime-tests -----------------------------------===//
//
// The options schema (tile/Options.def) from the text form to the compiler, and
// the JIT's caches with a fake compiler and the real one.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestSupport.h"

//===----------------------------------------------------------------------===//
// The options schema (tile/Options.def)
//===----------------------------------------------------------------------===//

/// A valid value of `info` other than its default.
static unsigned otherValue(const OptionInfo &info) {
  if (info.isBool)
    return info.defaultValue ? 0 : 1;
  return info.defaultValue == info.max ? info.min : info.max;
}

TEST(Options, EveryOptionRoundTrips) {
  size_t count;
  const OptionInfo *infos = optionInfos(count);
  ASSERT_GE(count, 17u);
  std::string cList = tile_option_list();
  std::set<std::string> keys;
  std::string dir = temporaryDirectory("tile-options");
  auto compiler = std::make_shared<FakeCompiler>();
  RuntimeImpl runtime(fakeConfig(dir, compiler));
  tilec::CompileRequest base;
  base.source = "kernel k(A: Tensor[f32, 1]):\n    pass\n";
  base.arch = "sm_90a";
  std::set<std::string> cacheKeys = {cacheKey(base, "v1")};
  for (size_t i = 0; i < count; ++i) {
    const OptionInfo &info = infos[i];
    SCOPED_TRACE(info.key);
    EXPECT_TRUE(keys.insert(info.key).second) << "a key given twice";
    // The C API lists it.
    EXPECT_NE(("," + cList + ",").find(std::string(",") + info.key + ","),
              std::string::npos);
    // Text: set by name, printed, parsed back.
    unsigned value = otherValue(info);
    std::string text =
        std::string(info.key) + "=" +
        (info.isBool ? (value ? "on" : "off") : std::to_string(value));
    Options o;
    ASSERT_EQ(o.parse(text), "");
    EXPECT_EQ(o.text(), text);
    Options back;
    ASSERT_EQ(back.parse(o.text()), "");
    EXPECT_TRUE(back == o);
    // Out of range, or not a value of its type: refused by name.
    Options bad;
    std::string error =
        bad.set(info.key, info.isBool ? "maybe" : std::to_string(info.max + 1));
    EXPECT_NE(error.find(info.key), std::string::npos) << error;
    // The cache key sees it: each value has its own key; the default
    // keys as unset unless a kernel's @hints may give the option.
    tilec::CompileRequest request = base;
    static_cast<Options &>(request) = o;
    EXPECT_TRUE(cacheKeys.insert(cacheKey(request, "v1")).second);
    request = base;
    request.set(info.key, std::to_string(info.defaultValue));
    if (info.flags & TILE_OPTION_HINT)
      EXPECT_NE(cacheKey(request, "v1"), cacheKey(base, "v1"));
    else
      EXPECT_EQ(cacheKey(request, "v1"), cacheKey(base, "v1"));
    // A tuning candidate carries it.
    Expected<TuneCandidate> candidate = TuneCandidate::parse("TILE=1," + text);
    ASSERT_TRUE(candidate.ok()) << candidate.status().message();
    EXPECT_TRUE(candidate->options == o);
    EXPECT_EQ(candidate->describe(), "TILE=1," + text);
    // The JIT hands it to the compiler as given (tile_refill_after_read
    // needs tile_stages=1 beside it).
    CompileOptions options = sm90();
    static_cast<Options &>(options) = o;
    if (o.tileRefillAfterRead.value_or(false))
      options.tileStages = 1;
    Expected<std::string> ptx =
        runtime.compileToPTX(base.source, "k.tile", options);
    ASSERT_TRUE(ptx.ok()) << ptx.status().message();
    EXPECT_TRUE(static_cast<const Options &>(compiler->last) ==
                static_cast<const Options &>(options));
  }
}

TEST(JIT, MemoryAndDiskCaches) {
  std::string dir = temporaryDirectory("tile-jit-cache");
  auto compiler = std::make_shared<FakeCompiler>();
  const std::string source = "kernel k(...)";
  {
    RuntimeImpl runtime(fakeConfig(dir, compiler));
    Expected<std::string> ptx =
        runtime.compileToPTX(source, "k.tile", sm90({{"TILE", "64"}}));
    ASSERT_TRUE(ptx) << ptx.status().message();
    EXPECT_EQ(ptx->rfind("// tilec-kernel: {", 0), 0u);
    EXPECT_EQ(runtime.stats().compiles, 1u);
    EXPECT_EQ(runtime.stats().diskWrites, 1u);
    EXPECT_EQ(countFiles(dir), 1u);

    // Same request: from memory.
    Expected<std::string> again =
        runtime.compileToPTX(source, "k.tile", sm90({{"TILE", "64"}}));
    ASSERT_TRUE(again);
    EXPECT_EQ(*again, *ptx);
    EXPECT_EQ(runtime.stats().memoryHits, 1u);
    EXPECT_EQ(runtime.stats().compiles, 1u);

    // A different constant compiles again.
    ASSERT_TRUE(runtime.compileToPTX(source, "k.tile", sm90({{"TILE", "32"}})));
    EXPECT_EQ(runtime.stats().compiles, 2u);
    EXPECT_EQ(countFiles(dir), 2u);
  }
  {
    // A fresh runtime (as in a second process) finds both on disk.
    RuntimeImpl runtime(fakeConfig(dir, compiler));
    ASSERT_TRUE(runtime.compileToPTX(source, "k.tile", sm90({{"TILE", "64"}})));
    ASSERT_TRUE(runtime.compileToPTX(source, "k.tile", sm90({{"TILE", "32"}})));
    EXPECT_EQ(runtime.stats().compiles, 0u);
    EXPECT_EQ(runtime.stats().diskHits, 2u);
    EXPECT_EQ(compiler->calls.load(), 2);
  }
  {
    // Corrupt every entry: the next runtime compiles and rewrites them.
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(dir, ec), end; !ec && it != end;
         it.increment(ec)) {
      llvm::raw_fd_ostream os(it->path(), ec);
      os << "// tilec-kernel: {\"name\":\"k\"\ntruncated";
    }
    RuntimeImpl runtime(fakeConfig(dir, compiler));
    ASSERT_TRUE(runtime.compileToPTX(source, "k.tile", sm90({{"TILE", "64"}})));
    EXPECT_EQ(runtime.stats().compiles, 1u);
    EXPECT_EQ(runtime.stats().diskHits, 0u);
    EXPECT_EQ(runtime.stats().diskWrites, 1u);
    RuntimeImpl next(fakeConfig(dir, compiler));
    ASSERT_TRUE(next.compileToPTX(source, "k.tile", sm90({{"TILE", "64"}})));
    EXPECT_EQ(next.stats().diskHits, 1u);
  }
  llvm::sys::fs::remove_directories(dir);
}

TEST(JIT, ConcurrentRequestsCompileOnce) {
  auto compiler = std::make_shared<FakeCompiler>();
  compiler->delayMs = 100;
  RuntimeImpl runtime(fakeConfig("", compiler));
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&, i] {
      // Two distinct kernels, four threads each.
      if (!runtime.compileToPTX("kernel", "k.tile",
                                sm90({{"TILE", i % 2 ? "1" : "2"}})))
        ++failures;
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(compiler->calls.load(), 2);
  EXPECT_EQ(runtime.stats().memoryHits, 6u);
}

TEST(JIT, StagesAndLoopSplitAreCachedApart) {
  std::string dir = temporaryDirectory("tile-jit-stages");
  auto compiler = std::make_shared<FakeCompiler>();
  const std::string source = "kernel k(...)";
  auto options = [](unsigned stages, bool split) {
    CompileOptions o = sm90({{"TILE", "64"}});
    o.numStages = stages;
    o.loopSplit = split;
    return o;
  };
  const std::pair<unsigned, bool> settings[] = {
      {0, true}, {1, true}, {2, true}, {3, true}, {3, false}, {0, false}};
  {
    RuntimeImpl runtime(fakeConfig(dir, compiler));
    for (auto [stages, split] : settings) {
      Expected<std::string> ptx =
          runtime.compileToPTX(source, "k.tile", options(stages, split));
      ASSERT_TRUE(ptx) << ptx.status().message();
      // The request reached the compiler, whose description records it.
      Expected<KernelInfo> info = parsePTXHeader(*ptx);
      ASSERT_TRUE(info) << info.status().message();
      EXPECT_EQ(info->numStages, stages);
      EXPECT_EQ(info->loopSplit, split);
    }
    EXPECT_EQ(runtime.stats().compiles, std::size(settings));
    EXPECT_EQ(countFiles(dir), std::size(settings));
    // Asked again: every one from memory.
    for (auto [stages, split] : settings)
      ASSERT_TRUE(
          runtime.compileToPTX(source, "k.tile", options(stages, split)));
    EXPECT_EQ(runtime.stats().compiles, std::size(settings));
    EXPECT_EQ(runtime.stats().memoryHits, std::size(settings));
  }
  {
    // A second process: every one from disk, each its own.
    RuntimeImpl runtime(fakeConfig(dir, compiler));
    for (auto [stages, split] : settings) {
      Expected<std::string> ptx =
          runtime.compileToPTX(source, "k.tile", options(stages, split));
      ASSERT_TRUE(ptx);
      Expected<KernelInfo> info = parsePTXHeader(*ptx);
      ASSERT_TRUE(info);
      EXPECT_EQ(info->numStages, stages);
      EXPECT_EQ(info->loopSplit, split);
    }
    EXPECT_EQ(runtime.stats().compiles, 0u);
    EXPECT_EQ(runtime.stats().diskHits, std::size(settings));
  }
  llvm::sys::fs::remove_directories(dir);

  RuntimeImpl runtime(fakeConfig("", compiler));
  Expected<std::string> bad =
      runtime.compileToPTX(source, "k.tile", options(17, true));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.status().message(),
            "CompileOptions: num_stages must be 0 or an integer from 1 to 16, "
            "got 17");
}

// The real compiler: the options reach the kernel's description, and an
// out-of-range stage count is a clear error.
TEST(Compile, StagesAndLoopSplitOptions) {
  tilec::CompileRequest request;
  request.source = "kernel copy(A: Tensor[f32, 1], B: Tensor[f32, 1],\n"
                   "         TILE: const int = 128):\n"
                   "    i = bid(0)\n"
                   "    store(B, index=(i,), tile=load(A, index=(i,), "
                   "shape=(TILE,)))\n";
  request.bufferName = "copy.tile";
  request.arch = "sm_80";
  request.numStages = 3;
  request.loopSplit = false;
  tilec::CompileResult result = tilec::compile(request, tilec::Stage::PTX);
  ASSERT_TRUE(result.ok) << result.diagnostics;
  ASSERT_EQ(result.kernels.size(), 1u);
  EXPECT_EQ(result.kernels[0].info.numStages, 3u);
  EXPECT_FALSE(result.kernels[0].info.loopSplit);
  Expected<KernelInfo> header = parsePTXHeader(result.kernels[0].ptx);
  ASSERT_TRUE(header) << header.status().message();
  EXPECT_EQ(header->numStages, 3u);
  EXPECT_FALSE(header->loopSplit);

  for (unsigned stages : {0u, 1u, 8u}) {
    request.numStages = stages;
    EXPECT_TRUE(tilec::compile(request, tilec::Stage::Layout).ok)
        << "stages " << stages;
  }
  request.numStages = 17;
  result = tilec::compile(request, tilec::Stage::PTX);
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.diagnostics, "tilec: error: num_stages must be 0 or an "
                                "integer from 1 to 16, got 17\n");
}

TEST(Compile, WarningsInTheDescription) {
  // A persistent kernel that stores in its tile loop into the lengths its
  // loop bound comes from cannot have its producer warp read them ahead:
  // the kernel is not warp-specialized, and its description says why, at
  // the kernel.
  tilec::CompileRequest request;
  request.source =
      "kernel paged(Lens: Tensor[i32, 1], Table: Tensor[i32, 2],\n"
      "             Q: Tensor[f16, 2], K: Tensor[f16, 2], Out: Tensor[f32, "
      "2]):\n"
      "    b = bid(0)\n"
      "    n = load(Lens, index=(b,), shape=(1,))\n"
      "    q = load(Q, index=(b, 0), shape=(64, 64))\n"
      "    acc = zeros((64, 64))\n"
      "    for j in range(cdiv(n, 64)):\n"
      "        page = load(Table, index=(b, j), shape=(1, 1))\n"
      "        k = load(K, index=(0, page), shape=(64, 64), order=(1, 0),\n"
      "                 latency=2)\n"
      "        acc = mma(q, k, acc)\n"
      "    store(Out, index=(b, 0), tile=acc)\n"
      "    store(Lens, index=(b,), tile=n - n)\n";
  request.bufferName = "paged.tile";
  request.arch = "sm_90a";
  request.warpSpecialize = true;
  request.persistent = true;
  tilec::CompileResult result = tilec::compile(request, tilec::Stage::PTX);
  ASSERT_TRUE(result.ok) << result.diagnostics;
  ASSERT_EQ(result.kernels.size(), 1u);
  const std::vector<std::string> &warnings = result.kernels[0].info.warnings;
  ASSERT_EQ(warnings.size(), 1u) << result.diagnostics;
  EXPECT_EQ(warnings[0], "paged.tile:1:8: warning: kernel 'paged' is not "
                         "warp-specialized: a copy's coordinates depend on "
                         "'tile.load'");
  EXPECT_NE(result.diagnostics.find(warnings[0]), std::string::npos);
  Expected<KernelInfo> header = parsePTXHeader(result.kernels[0].ptx);
  ASSERT_TRUE(header) << header.status().message();
  EXPECT_EQ(header->warnings, warnings);

  // Not persistent, the producer reads them itself: no warning.
  request.persistent = false;
  result = tilec::compile(request, tilec::Stage::PTX);
  ASSERT_TRUE(result.ok) << result.diagnostics;
  EXPECT_TRUE(result.kernels[0].info.warnings.empty()) << result.diagnostics;
}

TEST(JIT, CompileErrors) {
  auto compiler = std::make_shared<FakeCompiler>();
  RuntimeImpl runtime(fakeConfig("", compiler));
  Expected<std::string> ptx =
      runtime.compileToPTX("syntax error", "bad.tile", sm90());
  ASSERT_FALSE(ptx);
  EXPECT_EQ(ptx.status().message(),
            "compiling bad.tile failed:\nbad.tile:1:1: error: syntax error\n");
  // Failures are not cached.
  EXPECT_FALSE(runtime.compileToPTX("syntax error", "bad.tile", sm90()));
  EXPECT_EQ(compiler->calls.load(), 2);

  ptx = runtime.compileToPTX("two kernels", "two.tile", sm90());
  ASSERT_FALSE(ptx);
  EXPECT_EQ(ptx.status().message(),
            "two.tile defines 2 kernels (k, other); choose one with "
            "CompileOptions::kernel");
  CompileOptions pick = sm90();
  pick.kernel = "other";
  ptx = runtime.compileToPTX("two kernels", "two.tile", pick);
  ASSERT_TRUE(ptx) << ptx.status().message();
  EXPECT_NE(ptx->find(".entry other"), std::string::npos);

  // The JIT checks the options as the compiler does (a power of two of
  // warps: it accepted 3 before), before compiling anything.
  CompileOptions bad = sm90();
  bad.numWarps = 3;
  EXPECT_NE(runtime.compileToPTX("k", "k.tile", bad)
                .status()
                .message()
                .find("num_warps must be a power of two from 1 to 32, got 3"),
            std::string::npos);
  bad.numWarps = 0;
  EXPECT_NE(runtime.compileToPTX("k", "k.tile", bad)
                .status()
                .message()
                .find("num_warps must be a power of two from 1 to 32, got 0"),
            std::string::npos);
  bad = sm90();
  bad.tensorAlignment = 12;
  EXPECT_NE(runtime.compileToPTX("k", "k.tile", bad)
                .status()
                .message()
                .find("alignment must be a power of two from 1 to 256, got 12"),
            std::string::npos);
}
