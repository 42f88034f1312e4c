//===- CacheTest.cpp - tile-runtime-tests ---------------------------------===//
//
// The cache key, the on-disk PTX cache and the PTX header.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestSupport.h"

//===----------------------------------------------------------------------===//
// Cache key and disk cache
//===----------------------------------------------------------------------===//

static tilec::CompileRequest sampleRequest() {
  tilec::CompileRequest request;
  request.source = "kernel k(A: Tensor[f32, 1]):\n    pass\n";
  request.bufferName = "k.tile";
  request.defines = {{"TILE", "128"}, {"DTYPE", "f16"}};
  request.kernelName = "k";
  request.arch = "sm_90a";
  request.numWarps = 4;
  request.tensorAlignment = 16;
  return request;
}

TEST(CacheKey, StableAndSensitive) {
  tilec::CompileRequest request = sampleRequest();
  std::string key = cacheKey(request, "v1");
  EXPECT_EQ(key.size(), 64u);
  EXPECT_EQ(key, cacheKey(sampleRequest(), "v1"));

  // The constants' order does not matter; the buffer name neither.
  tilec::CompileRequest reordered = request;
  std::swap(reordered.defines[0], reordered.defines[1]);
  reordered.bufferName = "elsewhere/k.tile";
  EXPECT_EQ(cacheKey(reordered, "v1"), key);

  std::vector<std::function<void(tilec::CompileRequest &)>> changes = {
      [](auto &r) { r.source += " "; },
      [](auto &r) { r.defines[0].second = "256"; },
      [](auto &r) { r.defines[1].first = "DTYPE2"; },
      [](auto &r) {
        r.defines.push_back({"X", "1"});
      },
      [](auto &r) { r.defines.pop_back(); },
      [](auto &r) { r.kernelName = ""; },
      [](auto &r) { r.arch = "sm_80"; },
      [](auto &r) { r.numWarps = 8; },
      [](auto &r) { r.tensorAlignment = 4; },
      [](auto &r) { r.numStages = 2; },
      [](auto &r) { r.loopSplit = false; },
      [](auto &r) { r.rotateWgmma = false; },
      [](auto &r) { r.persistent = true; },
      [](auto &r) { r.tileStages = 1; },
      [](auto &r) { r.tileRefillAfterRead = true; },
      [](auto &r) { r.dynamicSchedule = false; },
      [](auto &r) { r.stageInRingSlots = false; },
      [](auto &r) { r.deferEpilogue = true; },
      [](auto &r) { r.rescaleInTrip = true; },
      // Field boundaries: moving a character between two fields.
      [](auto &r) {
        r.defines[0].first = "TIL";
        r.defines[0].second = "E128";
      },
  };
  for (size_t i = 0; i < changes.size(); ++i) {
    tilec::CompileRequest changed = request;
    changes[i](changed);
    EXPECT_NE(cacheKey(changed, "v1"), key) << "change " << i;
  }
  EXPECT_NE(cacheKey(request, "v2"), key) << "compiler version";
}

TEST(CacheKey, StagesAndLoopSplit) {
  // Every pair of (stages, split) settings has its own key.
  std::set<std::string> keys;
  for (unsigned stages = 0; stages <= 8; ++stages)
    for (bool split : {true, false}) {
      tilec::CompileRequest request = sampleRequest();
      request.numStages = stages;
      request.loopSplit = split;
      EXPECT_TRUE(keys.insert(cacheKey(request, "v1")).second)
          << "stages " << stages << ", split " << split;
    }
  // Split is the default. Stages left unset are the kernel's @hints' (or
  // the latency hints'), which need not be an explicit 0's.
  tilec::CompileRequest defaults = sampleRequest();
  tilec::CompileRequest explicitDefaults = sampleRequest();
  explicitDefaults.loopSplit = true;
  EXPECT_EQ(cacheKey(defaults, "v1"), cacheKey(explicitDefaults, "v1"));
  explicitDefaults.numStages = 0;
  EXPECT_NE(cacheKey(defaults, "v1"), cacheKey(explicitDefaults, "v1"));
}

TEST(DiskCache, WriteReadCorrupt) {
  std::string dir = temporaryDirectory("tile-disk-cache");
  DiskCache cache(dir + "/nested/cache");
  std::string key(64, 'a');
  EXPECT_FALSE(cache.read(key));
  std::string ptx = "// tilec-kernel: {}\n.version 8.0\n";
  ASSERT_TRUE(cache.write(key, ptx).ok());
  std::optional<std::string> back = cache.read(key);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, ptx);
  EXPECT_EQ(countFiles(dir + "/nested/cache"), 1u) << "no temporaries left";

  // Corruptions: truncation, a flipped byte, a missing trailer, garbage.
  std::string path = cache.entryPath(key);
  auto contents = [&] {
    return (*llvm::MemoryBuffer::getFile(path))->getBuffer().str();
  };
  auto overwrite = [&](const std::string &text) {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec);
    os << text;
  };
  std::string intact = contents();
  for (std::string corrupt :
       {intact.substr(0, intact.size() - 5), intact.substr(0, 10),
        std::string(), ptx, std::string("\xff\xfe garbage\n")}) {
    overwrite(corrupt);
    EXPECT_FALSE(cache.read(key)) << corrupt;
  }
  std::string flipped = intact;
  flipped[20] ^= 1;
  overwrite(flipped);
  EXPECT_FALSE(cache.read(key));
  // Rewriting repairs the entry.
  ASSERT_TRUE(cache.write(key, ptx).ok());
  EXPECT_EQ(cache.read(key).value_or(""), ptx);

  // An unwritable directory is an error, not a crash.
  DiskCache bad("/proc/no-such-dir/tile");
  EXPECT_FALSE(bad.write(key, ptx).ok());
  EXPECT_FALSE(bad.read(key));
  llvm::sys::fs::remove_directories(dir);
}

TEST(DiskCache, BinaryEntries) {
  std::string dir = temporaryDirectory("tile-binary-cache");
  DiskCache cache(dir + "/c");
  std::string key(64, 'b');
  std::string name = key + ".tune";
  EXPECT_FALSE(cache.readBinary(name));
  // Binary data, NULs and newlines included.
  std::string cubin("\x7f"
                    "ELF\0\0\n\x01\xff binary",
                    16);
  ASSERT_TRUE(cache.writeBinary(name, cubin).ok());
  EXPECT_EQ(cache.readBinary(name).value_or(""), cubin);
  EXPECT_EQ(countFiles(dir + "/c"), 1u) << "no temporaries left";

  std::string path = cache.binaryPath(name);
  std::string intact = (*llvm::MemoryBuffer::getFile(path))->getBuffer().str();
  auto overwrite = [&](const std::string &bytes) {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec);
    os << bytes;
  };
  std::string flipped = intact;
  flipped[3] ^= 1;
  for (const std::string &corrupt :
       {intact.substr(0, intact.size() - 1), intact.substr(0, 8), cubin,
        std::string(), flipped}) {
    overwrite(corrupt);
    EXPECT_FALSE(cache.readBinary(name));
  }
  ASSERT_TRUE(cache.writeBinary(name, cubin).ok());
  EXPECT_EQ(cache.readBinary(name).value_or(""), cubin);
  EXPECT_FALSE(DiskCache("/proc/no-such-dir/t").writeBinary(name, cubin).ok());
  llvm::sys::fs::remove_directories(dir);
}

TEST(DiskCache, DefaultDirectory) {
  std::string savedDir = std::getenv("TILEC_CACHE_DIR") ?: "";
  std::string savedHome = std::getenv("HOME") ?: "";
  setenv("TILEC_CACHE_DIR", "/tmp/x-tile", 1);
  EXPECT_EQ(defaultCacheDirectory(), "/tmp/x-tile");
  setenv("TILEC_CACHE_DIR", "off", 1);
  EXPECT_EQ(defaultCacheDirectory(), "");
  unsetenv("TILEC_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  EXPECT_EQ(defaultCacheDirectory(), "/tmp/xdg/tilec");
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(defaultCacheDirectory(), "/home/someone/.cache/tilec");
  setenv("HOME", savedHome.c_str(), 1);
  setenv("TILEC_CACHE_DIR", savedDir.c_str(), 1);
}

TEST(PTXHeader, Parse) {
  KernelInfo info = fmhaInfo();
  std::string ptx = "// tilec-kernel: " + info.toJSON() + "\r\n.version 8.0\n";
  Expected<KernelInfo> parsed = parsePTXHeader(ptx);
  ASSERT_TRUE(parsed) << parsed.status().message();
  EXPECT_EQ(parsed->name, "fmha");
  EXPECT_FALSE(parsePTXHeader(".version 8.0\n"));
  EXPECT_NE(parsePTXHeader("// tilec-kernel: {\"name\":1}\n")
                .status()
                .message()
                .find("bad `// tilec-kernel:` line"),
            std::string::npos);
}
