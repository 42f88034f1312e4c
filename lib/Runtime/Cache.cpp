//===- Cache.cpp - Cache keys, the on-disk PTX cache, PTX headers ---------===//

#include "RuntimeImpl.h"

#include "tilec/Support/Files.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>

using namespace tile;
using namespace tile::detail;

/// Bump when the cache's file format or the key's fields change (v3: kernel
/// descriptions may carry tensor maps, which the runtime passes to the kernel).
static constexpr llvm::StringLiteral kCacheFormat = "tile-ptx-cache-v5";
static constexpr llvm::StringLiteral kHeaderPrefix = "// tilec-kernel: ";
static constexpr llvm::StringLiteral kTrailerPrefix = "// tilec-cache-sha256: ";

static std::string sha256Hex(llvm::StringRef data) {
  std::array<uint8_t, 32> digest = llvm::SHA256::hash(
      llvm::ArrayRef<uint8_t>(data.bytes_begin(), data.bytes_end()));
  return llvm::toHex(digest, /*LowerCase=*/true);
}

std::string tile::detail::cacheKey(const tilec::CompileRequest &request,
                                   llvm::StringRef compilerVersion) {
  llvm::SHA256 hasher;
  // Every field is length-prefixed, so that no two requests hash the same
  // bytes ("ab"+"c" vs "a"+"bc").
  auto add = [&](llvm::StringRef field) {
    uint64_t size = field.size();
    uint8_t bytes[8];
    for (int i = 0; i < 8; ++i)
      bytes[i] = static_cast<uint8_t>(size >> (8 * i));
    hasher.update(llvm::ArrayRef<uint8_t>(bytes));
    hasher.update(field);
  };
  add(kCacheFormat);
  add(compilerVersion);
  add(request.source);
  add(request.kernelName);
  add(request.arch);
  // Every compile option (tile/Options.def), as Options::keyText says.
  add(request.keyText());
  // Constants sorted by name; a name given twice keeps its order (the
  // compiler takes the last).
  std::vector<std::pair<std::string, std::string>> defines = request.defines;
  std::stable_sort(
      defines.begin(), defines.end(),
      [](const auto &a, const auto &b) { return a.first < b.first; });
  add(std::to_string(defines.size()));
  for (const auto &[name, value] : defines) {
    add(name);
    add(value);
  }
  std::array<uint8_t, 32> digest = hasher.final();
  return llvm::toHex(digest, /*LowerCase=*/true);
}

std::string tile::detail::defaultCacheDirectory() {
  if (const char *dir = std::getenv("TILEC_CACHE_DIR"); dir && *dir) {
    llvm::StringRef value(dir);
    if (value.equals_insensitive("off") || value == "0")
      return "";
    return dir;
  }
  llvm::SmallString<256> path;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    path = xdg;
  } else if (const char *home = std::getenv("HOME"); home && *home) {
    path = home;
    llvm::sys::path::append(path, ".cache");
  } else {
    return "";
  }
  llvm::sys::path::append(path, "tilec");
  return std::string(path);
}

Expected<tilec::KernelInfo> tile::detail::parsePTXHeader(llvm::StringRef ptx) {
  if (!ptx.starts_with(kHeaderPrefix))
    return Status::error("not a tilec PTX file: the first line must be "
                         "`// tilec-kernel: {json}` (as `tilec --emit=ptx` "
                         "writes it)");
  llvm::StringRef line = ptx.split('\n').first.drop_front(kHeaderPrefix.size());
  std::string error;
  std::optional<tilec::KernelInfo> info =
      tilec::KernelInfo::fromJSON(line.rtrim("\r ").str(), error);
  if (!info)
    return Status::error("bad `// tilec-kernel:` line: " + error);
  return std::move(*info);
}

std::string DiskCache::entryPath(llvm::StringRef key) const {
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, key + ".ptx");
  return std::string(path);
}

std::optional<std::string> DiskCache::read(llvm::StringRef key) const {
  if (!enabled())
    return std::nullopt;
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(entryPath(key), /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false,
                                  /*IsVolatile=*/true);
  if (!buffer)
    return std::nullopt;
  // The last line holds the SHA-256 of everything before it.
  llvm::StringRef text = (*buffer)->getBuffer();
  if (!text.ends_with("\n"))
    return std::nullopt;
  size_t lineStart = text.drop_back().rfind('\n');
  if (lineStart == llvm::StringRef::npos)
    return std::nullopt;
  llvm::StringRef body = text.take_front(lineStart + 1);
  llvm::StringRef trailer = text.drop_front(lineStart + 1).drop_back();
  if (!trailer.consume_front(kTrailerPrefix) || trailer != sha256Hex(body))
    return std::nullopt;
  return body.str();
}

/// Writes `contents` beside `path` and renames it over `path`
/// (tilec/Support/Files.h): readers see the old file or the new one, never
/// half of one.
static Status writeAtomically(const std::string &path,
                              llvm::StringRef contents) {
  std::string error;
  if (!tilec::writeFileSafely(path, contents, error))
    return Status::error(error);
  return Status();
}

Status DiskCache::write(llvm::StringRef key, llvm::StringRef ptx) const {
  if (!enabled())
    return Status();
  if (std::error_code ec = llvm::sys::fs::create_directories(directory))
    return Status::error("cannot create the cache directory '" + directory +
                         "': " + ec.message());
  std::string body = ptx.str();
  if (!llvm::StringRef(body).ends_with("\n"))
    body += '\n';

  return writeAtomically(entryPath(key),
                         body + kTrailerPrefix.str() + sha256Hex(body) + "\n");
}

//===----------------------------------------------------------------------===//
// Binary entries (the autotuner's choices)
//===----------------------------------------------------------------------===//

/// A binary entry is its bytes followed by this magic and their SHA-256.
static constexpr llvm::StringLiteral kBinaryMagic = "tilec-binary-v1:";

std::string DiskCache::binaryPath(llvm::StringRef name) const {
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, name);
  return std::string(path);
}

std::optional<std::string> DiskCache::readBinary(llvm::StringRef name) const {
  if (!enabled())
    return std::nullopt;
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(binaryPath(name), /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false,
                                  /*IsVolatile=*/true);
  if (!buffer)
    return std::nullopt;
  llvm::StringRef data = (*buffer)->getBuffer();
  size_t trailer = kBinaryMagic.size() + 32;
  if (data.size() <= trailer)
    return std::nullopt;
  llvm::StringRef bytes = data.drop_back(trailer);
  llvm::StringRef tail = data.take_back(trailer);
  if (!tail.consume_front(kBinaryMagic))
    return std::nullopt;
  std::array<uint8_t, 32> digest = llvm::SHA256::hash(
      llvm::ArrayRef<uint8_t>(bytes.bytes_begin(), bytes.bytes_end()));
  if (tail != llvm::StringRef(reinterpret_cast<const char *>(digest.data()),
                              digest.size()))
    return std::nullopt;
  return bytes.str();
}

Status DiskCache::writeBinary(llvm::StringRef name,
                              llvm::StringRef bytes) const {
  if (!enabled())
    return Status();
  if (std::error_code ec = llvm::sys::fs::create_directories(directory))
    return Status::error("cannot create the cache directory '" + directory +
                         "': " + ec.message());
  std::array<uint8_t, 32> digest = llvm::SHA256::hash(
      llvm::ArrayRef<uint8_t>(bytes.bytes_begin(), bytes.bytes_end()));
  std::string contents = bytes.str();
  contents += kBinaryMagic;
  contents.append(reinterpret_cast<const char *>(digest.data()), digest.size());
  return writeAtomically(binaryPath(name), contents);
}
