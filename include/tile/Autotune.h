//===- Autotune.h - libtile: pick the fastest kernel configuration -*- C++
//-*-===//
//
// A general autotuner for any tile kernel: the caller gives the kernel's
// source, a list of candidate configurations (constants x warps x stages),
// a problem key (what makes two calls the same tuning problem: shapes,
// dtypes, flags, in the caller's words) and a function that launches a
// compiled candidate on a stream. autotune() compiles the candidates (in
// parallel; one that fails to compile is skipped with a note), times each
// with CUDA events on the caller's stream, and remembers the winner in
// memory and on disk, keyed by the GPU, the driver, the compiler version,
// the kernel source, the compile options, the candidates and the problem
// key. A later call, in this process or another, launches nothing to tune.
//
//   std::vector<tile::TuneCandidate> candidates = {
//       {{{"TILE_M", "128"}, {"TILE_N", "64"}}, 4, 2},
//       {{{"TILE_M", "64"}, {"TILE_N", "64"}}, 4, 2}};
//   tile::Expected<tile::TuneResult> best = tile::autotune(
//       source, "gemm.tile", options, candidates, "M=4096,N=4096,K=4096",
//       [&](const tile::Kernel &k, const tile::TuneCandidate &c, tile::Stream
//       s) {
//         return k.launch(gridFor(c), s, args);
//       }, stream);
//
// While a tuning takes more than a second, a progress line goes to stderr.
// TILEC_AUTOTUNE=off (or 0) turns tuning off: the first candidate that
// compiles is used, nothing is timed or stored. TILEC_AUTOTUNE=verbose
// prints every step, each candidate's time and the finalists' rounds.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_AUTOTUNE_H
#define TILE_AUTOTUNE_H

#include "tile/Tile.h"

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tile {

/// One configuration to try: constants added to (or replacing) those of
/// the base CompileOptions, and the warps and pipeline stages.
struct TILE_API TuneCandidate {
  std::vector<std::pair<std::string, std::string>> constants;
  unsigned numWarps = 4;
  unsigned numStages = 0;
  /// Loop splitting (CompileOptions::loopSplit); unset keeps the base's.
  std::optional<bool> loopSplit;
  /// Warp specialization (CompileOptions::warpSpecialize); unset keeps the
  /// base's.
  std::optional<bool> warpSpecialize;
  /// A persistent kernel (CompileOptions::persistent); unset keeps the
  /// base's.
  std::optional<bool> persistent;
  /// A persistent kernel's per-tile stages (CompileOptions::tileStages);
  /// unset keeps the base's.
  std::optional<unsigned> tileStages;
  /// With tileStages 1, the refill after the tile's last read
  /// (CompileOptions::tileRefillAfterRead); unset keeps the base's.
  std::optional<bool> tileRefillAfterRead;
  /// The epilogue under the next tile's first multiply
  /// (CompileOptions::deferEpilogue); unset keeps the base's.
  std::optional<bool> deferEpilogue;
  /// The accumulator's rescaling at its trip's end
  /// (CompileOptions::rescaleInTrip); unset keeps the base's.
  std::optional<bool> rescaleInTrip;

  /// "TILE_M=128,TILE_N=64,warps=4,stages=2", then ",split=off" (or on)
  /// when loopSplit is set, ",ws=on" (or off) when warpSpecialize is,
  /// ",persistent=on" (or off) when persistent is, ",tile-stages=N"
  /// when tileStages is, ",refill-after-read=on" (or off) when
  /// tileRefillAfterRead is, ",defer-epilogue=on" (or off) when
  /// deferEpilogue is and ",rescale-in-trip=on" (or off) when
  /// rescaleInTrip is.
  std::string describe() const;
};

struct TuneResult {
  Kernel kernel;        // the winner, compiled and loaded
  size_t index = 0;     // its position in the candidates
  TuneCandidate config; // = candidates[index]
  /// Where the choice came from: "memory", "disk", "tuned", or "default"
  /// (tuning off, or a single candidate).
  std::string source;
  float ms = 0;                   // the winner's time per launch; 0 untimed
  std::vector<std::string> notes; // candidates skipped, and why
};

/// Launches `kernel`, compiled for `candidate`, once on `stream`.
using TuneLaunch = std::function<Status(
    const Kernel &kernel, const TuneCandidate &candidate, Stream stream)>;

struct TuneOptions {
  unsigned warmup = 2;     // untimed launches per candidate
  unsigned iterations = 8; // timed launches per candidate, back to back
};

/// Picks the fastest of `candidates` for `problemKey` (see above). Fails
/// only when no candidate compiles and launches, with every note.
TILE_API Expected<TuneResult>
autotune(const std::string &source, const std::string &name,
         const CompileOptions &base,
         const std::vector<TuneCandidate> &candidates,
         const std::string &problemKey, const TuneLaunch &launch,
         Stream stream = nullptr, const TuneOptions &options = {});

/// Whether TILEC_AUTOTUNE turns tuning off.
TILE_API bool autotuneDisabled();

/// Whether TILEC_AUTOTUNE=verbose asks for every candidate's time.
TILE_API bool autotuneVerbose();

} // namespace tile

#endif // TILE_AUTOTUNE_H
