//===- tilec.cpp - The tilec executable -----------------------------------===//
//
//   tilec FILE [-DNAME=VALUE ...] [--kernel NAME]
//         [--emit=ast|tile|layout|nvvm|llvm|ptx] [--arch=sm_90a] [-o OUT]
//
// The compiler itself is libtile's; see lib/Driver/TilecMain.cpp.
//
//===----------------------------------------------------------------------===//

extern "C" int tile_tilec_main(int argc, char **argv);

int main(int argc, char **argv) { return tile_tilec_main(argc, argv); }
