//===- CacheProbe.cpp - Compile one kernel to PTX and print the stats -----===//
//
// Used by TwoProcessCache.cmake: the second of two processes sharing a
// TILEC_CACHE_DIR must find the PTX on disk and compile nothing. Needs no
// GPU (the arch is given).
//
//===----------------------------------------------------------------------===//

#include "tile/Tile.h"

#include <cstdio>
#include <fstream>
#include <sstream>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::printf("usage: %s FILE.tile\n", argv[0]);
    return 1;
  }
  std::ifstream in(argv[1]);
  std::stringstream source;
  source << in.rdbuf();
  tile::CompileOptions options;
  options.arch = "sm_90a";
  options.constants = {{"DTYPE", "f16"}};
  tile::Expected<std::string> ptx =
      tile::Runtime::get().compileToPTX(source.str(), argv[1], options);
  if (!ptx) {
    std::printf("error: %s\n", ptx.status().message().c_str());
    return 1;
  }
  tile::RuntimeStats stats = tile::Runtime::get().stats();
  std::printf("ptx_bytes=%zu compiles=%llu disk_hits=%llu disk_writes=%llu\n",
              ptx->size(), (unsigned long long)stats.compiles,
              (unsigned long long)stats.diskHits,
              (unsigned long long)stats.diskWrites);
  return 0;
}
