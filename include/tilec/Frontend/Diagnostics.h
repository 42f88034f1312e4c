//===- Diagnostics.h - Located front-end diagnostics ------------*- C++ -*-===//
//
// Every front-end error is reported as `file:line:col: error: message`
// followed by the source line and a caret, through llvm::SourceMgr. Errors are
// counted, not thrown: the lexer, parser and emitter keep going to report
// several problems per run, and stop once `maxErrors` have been reported.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_DIAGNOSTICS_H
#define TILEC_FRONTEND_DIAGNOSTICS_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

namespace tilec {

class DiagnosticEngine {
public:
  explicit DiagnosticEngine(llvm::SourceMgr &srcMgr,
                            llvm::raw_ostream &os = llvm::errs())
      : srcMgr(srcMgr), os(os) {}

  void error(llvm::SMLoc loc, const llvm::Twine &msg);
  void error(llvm::SMRange range, const llvm::Twine &msg);
  void note(llvm::SMLoc loc, const llvm::Twine &msg);

  unsigned getNumErrors() const { return numErrors; }
  bool hasErrors() const { return numErrors != 0; }
  /// True once the error limit was reached: callers should stop early.
  bool tooManyErrors() const { return numErrors >= maxErrors; }
  void setMaxErrors(unsigned n) { maxErrors = n; }

  llvm::SourceMgr &getSourceMgr() { return srcMgr; }
  llvm::raw_ostream &getStream() { return os; }

private:
  void emit(llvm::SMLoc loc, llvm::SourceMgr::DiagKind kind,
            const llvm::Twine &msg, llvm::ArrayRef<llvm::SMRange> ranges);

  llvm::SourceMgr &srcMgr;
  llvm::raw_ostream &os;
  unsigned numErrors = 0;
  unsigned maxErrors = 20;
  bool limitReported = false;
};

} // namespace tilec

#endif // TILEC_FRONTEND_DIAGNOSTICS_H
