//===- PtxasCheck.cpp - Spills and serialized wgmma, from ptxas -----------===//

#include "PtxasCheck.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

#include <cstdlib>
#include <optional>

using namespace llvm;

std::string tilec::findPtxas() {
  if (const char *env = std::getenv("TILEC_PTXAS")) {
    StringRef v(env);
    if (v == "off" || v == "0" || v.empty())
      return "";
    return v.str();
  }
  if (ErrorOr<std::string> found = sys::findProgramByName("ptxas"))
    return *found;
  if (sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    return "/usr/local/cuda/bin/ptxas";
  return "";
}

/// The integer before `what` in `line` ("688 bytes spill stores").
static std::optional<unsigned> countBefore(StringRef line, StringRef what) {
  size_t at = line.find(what);
  if (at == StringRef::npos)
    return std::nullopt;
  StringRef head = line.take_front(at).rtrim();
  size_t start = head.find_last_not_of("0123456789");
  unsigned value = 0;
  if (head.drop_front(start == StringRef::npos ? 0 : start + 1)
          .getAsInteger(10, value))
    return std::nullopt;
  return value;
}

unsigned tilec::parsePtxasWarnings(StringRef log, StringRef arch,
                                   StringRef source, raw_ostream &os) {
  SmallVector<StringRef> lines;
  log.split(lines, '\n');
  std::string kernel;
  unsigned warned = 0;
  std::optional<unsigned> stores, loads;
  auto flush = [&](std::optional<unsigned> registers) {
    if (!kernel.empty() && ((stores && *stores) || (loads && *loads))) {
      os << source << ": warning: kernel '" << kernel << "' spills: ptxas ("
         << arch << ") reports " << stores.value_or(0)
         << " bytes of spill stores and " << loads.value_or(0)
         << " bytes of spill loads";
      if (registers)
        os << " beside " << *registers << " registers";
      os << " (smaller tiles, more warps or a lower occupancy give a "
            "thread more registers)\n";
      ++warned;
    }
    stores.reset();
    loads.reset();
  };
  // "(C7515) Potential Performance Loss: wgmma.mma_async instructions are
  // serialized due to <why> in the function '<kernel>'" (ptxas 12-13), or
  // "... due to insufficient register resources for the function
  // '<kernel>'" (C7512).
  constexpr StringLiteral serialized =
      "wgmma.mma_async instructions are serialized due to ";
  for (StringRef line : lines) {
    if (size_t at = line.find(serialized); at != StringRef::npos) {
      StringRef rest = line.drop_front(at + serialized.size());
      size_t fn = StringRef::npos, skip = 0;
      for (StringRef marker : {" in the function '", " for the function '"})
        if (size_t m = rest.find(marker); m < fn) {
          fn = m;
          skip = marker.size();
        }
      StringRef why = rest.take_front(fn).rtrim();
      StringRef name = fn == StringRef::npos
                           ? StringRef()
                           : rest.drop_front(fn + skip).take_until(
                                 [](char c) { return c == '\''; });
      size_t code = line.find("(C");
      os << source << ": warning: kernel '" << name << "': ptxas (" << arch
         << ") serializes its wgmma instructions (";
      if (code != StringRef::npos && code < at)
        os << line.slice(code + 1, line.find(')', code)) << ": ";
      os << why
         << "): its multiplies do not overlap one another or other "
            "work\n";
      ++warned;
      continue;
    }
    size_t at = line.find("Compiling entry function '");
    if (at != StringRef::npos) {
      StringRef rest = line.drop_front(at + 26);
      kernel = rest.take_until([](char c) { return c == '\''; }).str();
      stores.reset();
      loads.reset();
      continue;
    }
    if (auto s = countBefore(line, "bytes spill stores"))
      stores = s;
    if (auto l = countBefore(line, "bytes spill loads"))
      loads = l;
    if (auto r = countBefore(line, "registers")) {
      flush(r);
      kernel.clear();
    }
  }
  flush(std::nullopt);
  return warned;
}

std::string tilec::ptxasFailure(StringRef log) {
  // ptxas's own reason ("ptxas fatal   : (C7602) Insufficient registers
  // ..."), before any other line that says error or fatal, and its closing
  // "Ptx assembly aborted due to errors" only where nothing else does.
  SmallVector<StringRef> lines;
  log.split(lines, '\n');
  StringRef best;
  int bestRank = 3;
  for (StringRef line : lines) {
    if (!line.contains_insensitive("error") &&
        !line.contains_insensitive("fatal"))
      continue;
    int rank = line.contains("aborted due to errors") ? 2
               : line.contains("(C")                  ? 0
                                                      : 1;
    if (rank < bestRank) {
      best = line;
      bestRank = rank;
    }
  }
  // Past "ptxas fatal   : " or "ptxas error   : ".
  size_t colon = best.find(" : ");
  return (colon == StringRef::npos ? best : best.drop_front(colon + 3))
      .trim()
      .str();
}

/// One module of `ptxas -v`: the warnings it gives.
static unsigned checkModule(StringRef ptxas, StringRef ptx, StringRef arch,
                            StringRef source, raw_ostream &os);

unsigned tilec::reportPtxasWarnings(StringRef ptxas, StringRef ptx,
                                    StringRef arch, StringRef source,
                                    raw_ostream &os) {
  // Each kernel is a module of its own, after its description line.
  constexpr StringLiteral marker = "// tilec-kernel:";
  unsigned warned = 0;
  size_t start = ptx.find(marker);
  if (start == StringRef::npos)
    return checkModule(ptxas, ptx, arch, source, os);
  while (start != StringRef::npos) {
    size_t next = ptx.find(marker, start + marker.size());
    warned += checkModule(ptxas, ptx.slice(start, next), arch, source, os);
    start = next;
  }
  return warned;
}

static unsigned checkModule(StringRef ptxas, StringRef ptx, StringRef arch,
                            StringRef source, raw_ostream &os) {
  SmallString<128> input, log;
  int fd = -1;
  if (sys::fs::createTemporaryFile("tilec", "ptx", fd, input))
    return 0;
  {
    raw_fd_ostream out(fd, /*shouldClose=*/true);
    out << ptx;
    out.close();
    if (out.has_error()) { // (a full disk, a file size limit): no check
      out.clear_error();
      sys::fs::remove(input);
      return 0;
    }
  }
  if (sys::fs::createTemporaryFile("tilec-ptxas", "log", log)) {
    sys::fs::remove(input);
    return 0;
  }
  std::string archFlag = ("-arch=" + arch).str();
  SmallVector<StringRef> args = {ptxas, "-v", archFlag,
                                 input, "-o", "/dev/null"};
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log),
                                          StringRef(log)};
  std::string error;
  int rc = sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects,
                               /*SecondsToWait=*/120, 0, &error);
  unsigned warned = 0;
  ErrorOr<std::unique_ptr<MemoryBuffer>> text = MemoryBuffer::getFile(log);
  if (rc != 0) {
    std::string why =
        tilec::ptxasFailure(text ? (*text)->getBuffer() : StringRef(error));
    os << source << ": warning: ptxas (" << ptxas
       << ") did not compile the PTX to count spills: "
       << (why.empty() ? "exit " + std::to_string(rc) : why) << "\n";
    warned = 1;
  } else if (text) {
    warned = tilec::parsePtxasWarnings((*text)->getBuffer(), arch, source, os);
  }
  sys::fs::remove(input);
  sys::fs::remove(log);
  return warned;
}
