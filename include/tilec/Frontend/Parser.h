//===- Parser.h - Parser of the .tile language -------------------*- C++
//-*-===//
//
// A recursive-descent parser over the token stream of Lexer.h. It recovers at
// statement boundaries so that one run reports several syntax errors, and it
// bounds its recursion depth so that no input can exhaust the stack.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_PARSER_H
#define TILEC_FRONTEND_PARSER_H

#include "tilec/Frontend/AST.h"
#include "tilec/Frontend/Diagnostics.h"

#include <memory>

namespace tilec {

/// Parses the buffer `bufferId` of the engine's SourceMgr. Always returns a
/// module (possibly partial); the caller checks `diag.hasErrors()`.
std::unique_ptr<ast::Module> parseModule(unsigned bufferId,
                                         DiagnosticEngine &diag);

} // namespace tilec

#endif // TILEC_FRONTEND_PARSER_H
