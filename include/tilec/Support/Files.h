//===- Files.h - Reading and writing the user's files safely ---*- C++ -*-===//
//
// The tools read their inputs with a bound on the size (a device such as
// /dev/zero never ends) and write their outputs so that nothing the user
// had is lost: a regular file is written beside the target and renamed over
// it only after a complete write, so a full disk or a failure leaves the old
// file as it was; a device or a pipe is written in place, and every write
// error is reported, never an abort.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_SUPPORT_FILES_H
#define TILEC_SUPPORT_FILES_H

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <string>

namespace tilec {

/// Reads `path` ("-": standard input) into `text`, at most `maxBytes` of
/// `what` ("a .tile source"). On failure returns false and sets `error` to
/// a sentence naming the file.
bool readFileBounded(llvm::StringRef path, size_t maxBytes,
                     llvm::StringRef what, std::string &text,
                     std::string &error);

/// "'NAME' is larger than N MiB, the most WHAT may hold".
std::string tooLargeMessage(llvm::StringRef name, size_t maxBytes,
                            llvm::StringRef what);

/// Writes `text` to `path` ("-": standard output) as the header describes.
/// On failure returns false and sets `error` ("cannot write 'x': ...").
/// With `removeOnSignal` (a tool's own output), an interrupt also removes
/// the temporary file: that installs LLVM's signal handlers, which a
/// library embedded in another program (libtile's cache) must not do.
bool writeFileSafely(llvm::StringRef path, llvm::StringRef text,
                     std::string &error, bool removeOnSignal = false);

/// Whether `path` names the file open as standard input (a source given as
/// "-" that was redirected from it).
bool isStandardInput(llvm::StringRef path);

/// Whether `a` and `b` name one existing file ("-" names standard input).
bool sameFile(llvm::StringRef a, llvm::StringRef b);

/// Checks that no file the tool may write is its input: the output file
/// (`outputFile`, "-" for standard output) and the files named by the
/// registered command-line options that write one (MLIR's crash reproducer,
/// mlir-opt's action log). Returns false and sets `error` when one is the
/// input, named or redirected to standard input ("-").
bool checkWritesSpareInput(llvm::StringRef inputFile,
                           llvm::StringRef outputFile, std::string &error);

} // namespace tilec

#endif // TILEC_SUPPORT_FILES_H
