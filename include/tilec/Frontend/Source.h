//===- Source.h - Reading .tile sources ------------------------*- C++ -*-===//
//
// Every way a .tile source enters the compiler (tilec's file or standard
// input, libtile's compileFile and compileSource) goes through here: sources
// are read with a bound on their size, and their line endings are made one
// kind before the lexer and the diagnostics see them, so that a file with
// CR-only (old Mac), CRLF (Windows) or LF line endings lexes alike and every
// location names the line a user's editor shows.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_SOURCE_H
#define TILEC_FRONTEND_SOURCE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SourceMgr.h"

#include <cstddef>
#include <string>

namespace tilec {

/// The largest source the compiler reads: far beyond any kernel file, small
/// enough that reading a device such as /dev/zero stops at once.
constexpr size_t kMaxSourceBytes = size_t(16) << 20;

/// Reads `path` ("-": standard input) into `text`, at most kMaxSourceBytes.
/// On failure returns false and sets `error` to a sentence that names the
/// file ("cannot read 'x': ...", "'x' is larger than ...").
bool readSource(llvm::StringRef path, std::string &text, std::string &error);

/// The error for a source of `size` bytes over kMaxSourceBytes, or "".
std::string sourceSizeError(llvm::StringRef name, size_t size);

/// `text` with every "\r\n" and every lone "\r" made "\n".
std::string normalizeLineEndings(llvm::StringRef text);

/// Adds `text` (line endings normalized) to `sourceMgr` as `name`; returns
/// its buffer id.
unsigned addSourceBuffer(llvm::SourceMgr &sourceMgr, llvm::StringRef text,
                         llvm::StringRef name);

} // namespace tilec

#endif // TILEC_FRONTEND_SOURCE_H
