//===- Source.cpp - Reading .tile sources ---------------------------------===//

#include "tilec/Frontend/Source.h"

#include "tilec/Support/Files.h"

#include "llvm/Support/MemoryBuffer.h"

using namespace tilec;

std::string tilec::sourceSizeError(llvm::StringRef name, size_t size) {
  if (size <= kMaxSourceBytes)
    return "";
  return tooLargeMessage(name, kMaxSourceBytes, "a .tile source");
}

bool tilec::readSource(llvm::StringRef path, std::string &text,
                       std::string &error) {
  return readFileBounded(path, kMaxSourceBytes, "a .tile source", text,
                         error);
}

std::string tilec::normalizeLineEndings(llvm::StringRef text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (c != '\r') {
      out.push_back(c);
      continue;
    }
    out.push_back('\n');
    if (i + 1 < e && text[i + 1] == '\n')
      ++i;
  }
  return out;
}

unsigned tilec::addSourceBuffer(llvm::SourceMgr &sourceMgr,
                                llvm::StringRef text, llvm::StringRef name) {
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      text.contains('\r')
          ? llvm::MemoryBuffer::getMemBufferCopy(normalizeLineEndings(text),
                                                 name)
          : llvm::MemoryBuffer::getMemBufferCopy(text, name);
  return sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
}
