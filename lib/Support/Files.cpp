//===- Files.cpp - Reading and writing the user's files safely -----------===//

#include "tilec/Support/Files.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

using namespace tilec;
namespace fs = llvm::sys::fs;

std::string tilec::tooLargeMessage(llvm::StringRef name, size_t maxBytes,
                                   llvm::StringRef what) {
  std::string size = maxBytes % (1 << 20) == 0
                         ? std::to_string(maxBytes >> 20) + " MiB"
                         : std::to_string(maxBytes) + " bytes";
  return "'" + name.str() + "' is larger than " + size + ", the most " +
         what.str() + " may hold";
}

bool tilec::readFileBounded(llvm::StringRef path, size_t maxBytes,
                            llvm::StringRef what, std::string &text,
                            std::string &error) {
  bool stdinput = path == "-";
  std::string name = stdinput ? "<stdin>" : path.str();
  fs::file_t file = fs::getStdinHandle();
  if (!stdinput) {
    llvm::Expected<fs::file_t> opened = fs::openNativeFileForRead(path);
    if (!opened) {
      error = "cannot read '" + name +
              "': " + llvm::toString(opened.takeError());
      return false;
    }
    file = *opened;
  }
  // In chunks, up to a byte past the bound: a device or a pipe has no size
  // to ask for first.
  text.clear();
  constexpr size_t kChunk = 64 * 1024;
  bool ok = true;
  while (ok) {
    size_t used = text.size();
    text.resize(used + kChunk);
    llvm::Expected<size_t> n = fs::readNativeFile(
        file, llvm::MutableArrayRef<char>(text.data() + used, kChunk));
    if (!n) {
      error = "cannot read '" + name + "': " + llvm::toString(n.takeError());
      ok = false;
      break;
    }
    text.resize(used + *n);
    if (*n == 0)
      break;
    if (text.size() > maxBytes) {
      error = tooLargeMessage(name, maxBytes, what);
      ok = false;
    }
  }
  if (!stdinput)
    fs::closeFile(file);
  if (!ok)
    text.clear();
  return ok;
}

/// Writes all of `text` to `fd`; the errno of a failed write, or 0.
static int writeAll(int fd, llvm::StringRef text) {
  const char *p = text.data();
  size_t left = text.size();
  while (left) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return errno;
    }
    p += n;
    left -= size_t(n);
  }
  return 0;
}

bool tilec::writeFileSafely(llvm::StringRef path, llvm::StringRef text,
                            std::string &error, bool removeOnSignal) {
  auto fail = [&](const std::string &what) {
    error = "cannot write '" + (path == "-" ? std::string("<stdout>")
                                            : path.str()) +
            "': " + what;
    return false;
  };
  if (path == "-") {
    if (int e = writeAll(STDOUT_FILENO, text))
      return fail(std::strerror(e));
    return true;
  }
  // A device, a pipe or a socket is written in place: it has no folder to
  // put a temporary file in, and renaming over it would replace it.
  fs::file_status status;
  bool exists = !fs::status(path, status);
  if (exists && status.type() == fs::file_type::directory_file)
    return fail("it is a directory");
  if (exists && status.type() != fs::file_type::regular_file) {
    int fd = -1;
    if (std::error_code ec =
            fs::openFileForWrite(path, fd, fs::CD_OpenExisting, fs::OF_None))
      return fail(ec.message());
    int e = writeAll(fd, text);
    int c = ::close(fd);
    if (e || c)
      return fail(std::strerror(e ? e : errno));
    return true;
  }
  // A regular file (or a new one): written beside the target, then renamed
  // over it. The temporary file is removed on any failure.
  llvm::SmallString<256> model(path);
  model += ".tmp-%%%%%%%%";
  llvm::SmallString<256> temp;
  int fd = -1;
  unsigned mode = exists ? unsigned(status.permissions())
                         : unsigned(fs::all_read | fs::all_write);
  if (std::error_code ec =
          fs::createUniqueFile(model, fd, temp, fs::OF_None, mode))
    return fail(ec.message());
  // Interrupted (Ctrl-C) or killed by a signal LLVM handles, the tool
  // leaves no temporary file behind.
  if (removeOnSignal)
    llvm::sys::RemoveFileOnSignal(temp);
  int e = writeAll(fd, text);
  if (!e && ::fsync(fd) != 0 && errno != EINVAL && errno != EROFS)
    e = errno;
  if (::close(fd) != 0 && !e)
    e = errno;
  std::error_code renamed;
  if (!e)
    renamed = fs::rename(temp, path);
  if (e || renamed)
    fs::remove(temp);
  if (removeOnSignal)
    llvm::sys::DontRemoveFileOnSignal(temp);
  if (e)
    return fail(std::strerror(e));
  if (renamed)
    return fail(renamed.message());
  return true;
}

bool tilec::isStandardInput(llvm::StringRef path) {
  fs::file_status in, named;
  if (fs::status(STDIN_FILENO, in) || fs::status(path, named))
    return false;
  return fs::equivalent(in, named);
}

bool tilec::sameFile(llvm::StringRef a, llvm::StringRef b) {
  if (a == "-" && b == "-")
    return false; // stdin and stdout are different streams
  if (a == "-")
    return isStandardInput(b);
  if (b == "-")
    return isStandardInput(a);
  return fs::equivalent(a, b);
}

bool tilec::checkWritesSpareInput(llvm::StringRef inputFile,
                                  llvm::StringRef outputFile,
                                  std::string &error) {
  llvm::SmallVector<std::pair<std::string, std::string>> targets;
  if (outputFile != "-")
    targets.push_back({"the output file", outputFile.str()});
  // Options whose value is a file the tool writes.
  auto &options = llvm::cl::getRegisteredOptions();
  for (llvm::StringRef name :
       {"mlir-pass-pipeline-crash-reproducer", "log-actions-to"}) {
    auto it = options.find(name);
    if (it == options.end() || !it->second->getNumOccurrences())
      continue;
    auto *path = static_cast<llvm::cl::opt<std::string> *>(it->second);
    if (!path->getValue().empty() && path->getValue() != "-")
      targets.push_back({"--" + name.str(), path->getValue()});
  }
  for (auto &[what, path] : targets) {
    if (!sameFile(inputFile, path))
      continue;
    error = what + " '" + path + "' is the input " +
            (inputFile == "-" ? "(standard input)" : "file") +
            "; refusing to overwrite it";
    return false;
  }
  return true;
}
