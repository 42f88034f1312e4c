//===- CompileStub.cpp - Stand-in for tilec::compile
//-----------------------===//
//
// Linked instead of the code generator (TilecTarget) until it exists, so
// that libtile and its tests build. Every compile fails with a message; the
// unit tests give the runtime a fake compiler of their own.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/Compile.h"

tilec::CompileResult tilec::compile(const CompileRequest &request,
                                    Stage stage) {
  CompileResult result;
  result.ok = false;
  result.diagnostics =
      request.bufferName +
      ": error: this libtile was built without the code generator "
      "(TilecTarget); tilec::compile is a stub\n";
  return result;
}

const char *tilec::compilerVersion() { return "tilec-compile-stub"; }
