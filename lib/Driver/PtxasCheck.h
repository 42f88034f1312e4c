//===- PtxasCheck.h - Spills in tilec's PTX, from ptxas --------*- C++ -*-===//
//
// Where ptxas is on the machine, `tilec --emit=ptx` has it compile the PTX
// it wrote and says which kernels spill (the register allocation is
// ptxas's: the compiler cannot see spills itself).
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
/// ("<source>: warning: kernel 'k' spills: ...") for each kernel ptxas
/// reports spill stores or loads for, and one if ptxas fails. Returns the
/// number of warnings.
unsigned reportPtxasSpills(llvm::StringRef ptxas, llvm::StringRef ptx,
                           llvm::StringRef arch, llvm::StringRef source,
                           llvm::raw_ostream &os);

/// The spill warnings of ptxas's `-v` output (`log`), as above.
unsigned parsePtxasSpills(llvm::StringRef log, llvm::StringRef arch,
                          llvm::StringRef source, llvm::raw_ostream &os);

} // namespace tilec

#endif // TILEC_DRIVER_PTXASCHECK_H
