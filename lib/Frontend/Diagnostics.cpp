//===- Diagnostics.cpp - Located front-end diagnostics --------------------===//

#include "tilec/Frontend/Diagnostics.h"

using namespace tilec;

void DiagnosticEngine::emit(llvm::SMLoc loc, llvm::SourceMgr::DiagKind kind,
                            const llvm::Twine &msg,
                            llvm::ArrayRef<llvm::SMRange> ranges) {
  if (kind == llvm::SourceMgr::DK_Error) {
    if (numErrors >= maxErrors) {
      if (!limitReported) {
        limitReported = true;
        os << "error: too many errors emitted, stopping now\n";
      }
      ++numErrors;
      return;
    }
    ++numErrors;
  } else if (numErrors > maxErrors) {
    return; // notes of suppressed errors
  }
  // A problem with no place in the source (a bad -D option) is reported
  // against the main file as a whole.
  if (!loc.isValid() || !srcMgr.FindBufferContainingLoc(loc)) {
    if (srcMgr.getNumBuffers() != 0)
      os << srcMgr.getMemoryBuffer(srcMgr.getMainFileID())
                ->getBufferIdentifier()
         << ": ";
    os << (kind == llvm::SourceMgr::DK_Error ? "error: " : "note: ") << msg
       << "\n";
    return;
  }
  srcMgr.PrintMessage(os, loc, kind, msg, ranges);
}

void DiagnosticEngine::error(llvm::SMLoc loc, const llvm::Twine &msg) {
  emit(loc, llvm::SourceMgr::DK_Error, msg, {});
}

void DiagnosticEngine::error(llvm::SMRange range, const llvm::Twine &msg) {
  // Only underline ranges on a single line; SourceMgr prints one line.
  emit(range.Start, llvm::SourceMgr::DK_Error, msg, {});
}

void DiagnosticEngine::note(llvm::SMLoc loc, const llvm::Twine &msg) {
  emit(loc, llvm::SourceMgr::DK_Note, msg, {});
}
