//===- PtxasCheck.h - Spills and serialized wgmma, from ptxas ---*- C++ -*-===//
//
// Where ptxas is on the machine, `tilec --emit=ptx` has it compile the PTX
// it wrote and says which kernels spill and which have their wgmma
// instructions serialized (the register allocation and the wgmma pipeline
// are ptxas's: the compiler cannot see either itself).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DRIVER_PTXASCHECK_H
#define TILEC_DRIVER_PTXASCHECK_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace tilec {

/// The ptxas to run: $TILEC_PTXAS (a path; "off" for none), else ptxas on
/// the PATH, else /usr/local/cuda/bin/ptxas; "" when there is none.
std::string findPtxas();

/// Compiles `ptx` for `arch` with `ptxas -v` and writes a warning to `os`
/// for each kernel ptxas reports spill stores or loads for ("<source>:
/// warning: kernel 'k' spills: ..."), each kernel whose wgmma instructions
/// it serializes ("... kernel 'k': ptxas (sm_90a) serializes its wgmma
/// instructions (C7515: <ptxas's reason>) ..."), and one if ptxas fails.
/// Returns the number of warnings.
unsigned reportPtxasWarnings(llvm::StringRef ptxas, llvm::StringRef ptx,
                             llvm::StringRef arch, llvm::StringRef source,
                             llvm::raw_ostream &os);

/// The warnings of ptxas's `-v` output (`log`), as above.
unsigned parsePtxasWarnings(llvm::StringRef log, llvm::StringRef arch,
                            llvm::StringRef source, llvm::raw_ostream &os);

/// What a failed ptxas says of why, from its output: its first line with
/// an error or fatal message code ("(C7602) Insufficient registers ..."),
/// past the "ptxas fatal   : " prefix; else its first line that says error
/// or fatal; "" where none does.
std::string ptxasFailure(llvm::StringRef log);

} // namespace tilec

#endif // TILEC_DRIVER_PTXASCHECK_H
