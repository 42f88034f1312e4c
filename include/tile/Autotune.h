//===- Autotune.h - libtile: pick the fastest kernel configuration -*- C++
//-*-===//
//
// A general autotuner for any tile kernel: the caller gives the kernel's
// source, a list of candidate configurations (constants x compile options),
// a problem key (what makes two calls the same tuning problem: shapes,
// dtypes, flags, in the caller's words) and a function that launches a
// compiled candidate on a stream. autotune() compiles the candidates (in
// parallel; one that fails to compile is skipped with a note, as is one
// that spills where another does not), times each
// (after the caller's stream's work) as one CUDA graph of its launches,
// captured on a stream of its own that it passes to the launch function
// (which must launch on the stream it is given; launches that cannot be
// captured are timed as they come, with a note), and remembers the winner in
// memory and on disk, keyed by the GPU, the driver, the compiler version,
// the kernel source, the compile options, the candidates and the problem
// key. A later call, in this process or another, launches nothing to tune.
//
//   std::vector<tile::TuneCandidate> candidates = {
//       *tile::TuneCandidate::parse("TILE_M=128,TILE_N=64,num_stages=2"),
//       *tile::TuneCandidate::parse("TILE_M=64,TILE_N=64,num_stages=2")};
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
/// the base CompileOptions, and compile options that replace the base's
/// (any of tile/Options.def: num_warps, num_stages, warp_specialize, ...;
/// unset ones keep the base's, or the kernel's @hints).
struct TILE_API TuneCandidate {
  std::vector<std::pair<std::string, std::string>> constants;
  Options options;

  /// "TILE_M=128,TILE_N=64,num_warps=4,num_stages=2": the constants, then
  /// the options set (Options::text).
  std::string describe() const;

  /// A candidate from describe()'s text: each NAME=VALUE whose name is an
  /// option sets it, any other is a constant. An error names a bad option.
  static Expected<TuneCandidate> parse(const std::string &text);
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

/// The schedules tried for each of a kernel's constant combinations when
/// autotuning has no candidates: the compiler's choice (auto_schedule),
/// it not persistent with its rings and with rings of 2, 3 and 4 stages,
/// persistent (with the choice's rings, with 2 and 3, with
/// tile_stages=1, and two with rescale_in_trip), and persistent in two
/// consumer groups (consumer_groups=2); variants that would
/// replace an option `given` by the caller are left out. (autotune times
/// candidates that compile to the same kernel once.)
TILE_API std::vector<Options> scheduleVariants(const Options &given = {});

/// The candidates autotuning tries when it is given none: every
/// combination of the values `kernel`'s @tune(...) lists for its constants
/// (one, with none, without @tune), each with every scheduleVariants(given);
/// an error past 256 candidates.
TILE_API Expected<std::vector<TuneCandidate>>
tuneSpaceCandidates(const Kernel &kernel, const Options &given = {});

/// Picks the fastest of `candidates` for `problemKey` (see above); with no
/// candidates, tuneSpaceCandidates(kernel, base). Fails
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
