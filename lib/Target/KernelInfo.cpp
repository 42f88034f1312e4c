//===- KernelInfo.cpp - Kernel descriptions as JSON -----------------------===//
//
// The JSON form of a KernelInfo, as written after `// tilec-kernel: ` on the
// first line of every PTX file tilec emits:
//
//   {"abi":1,"arch":"sm_90a","constants":[["DTYPE","f16"],["TILE_D","64"]],
//    "loop_split":true,"name":"fmha","num_stages":0,"num_warps":4,
//    "shared_bytes":32768,
//    "params":[{"name":"Q","kind":"tensor","dtype":"f16","rank":4,
//               "alignment":16,"contiguous":true},
//              {"name":"qk_scale","kind":"float"},
//              {"name":"input_pos","kind":"int"}]}
//
// Parameter kinds are "tensor", "int", "float" and "bool"; element types are
// spelled as in the DSL (f16, bf16, f32, i32, bool). Unknown keys are ignored
// so that newer compilers can add fields; "abi" names the kernel ABI of
// KernelInfo.h and is rejected when it is not 1. "num_stages" and
// "loop_split" record how the code was built (tilec --num-stages,
// --loop-split) and are optional.
//
// Kernels that copy with TMA (sm_90a) also carry, written only when
// non-empty and read as empty when absent:
//
//   "tensor_maps":[{"param":0,"box":[1,1,64,64],"swizzle":128,"fill":"zero"},
//                  ...],
//   "tma_fallback":["K: strides[2] is not a multiple of 16 bytes", ...]
//
// one TensorMapInfo per descriptor the kernel takes after its ordinary
// parameters ("param" indexes "params"; "box" is in the tensor's dimension
// order, outermost first; "swizzle" is 0, 32, 64 or 128 bytes; "fill" is
// "zero" or "nan"), and free text saying why some loads use cp.async. A
// persistent kernel (which takes its logical grid after the ordinary
// parameters) carries "persistent":true; absent, it is false. One that takes
// the address of its tile counter after the grid carries "tile_counter":true
// (every persistent kernel since the counter came; absent, false). One
// launched in clusters carries "cluster":C (2, 4, 8 or 16; absent, 1). One
// that waits for the kernel before it (tile-dependent-launch) carries
// "dependent_launch":true (absent, false). A tensor parameter a
// warp-specialized producer reads ahead of the kernel's writes carries
// "read_ahead":true, and then every tensor the kernel writes
// "written":true (absent, false); launches refuse an overlap of the two. A
// kernel the compiler warned about carries "warnings":["f.tile:3:8: warning:
// kernel 'k' is not warp-specialized: ...", ...], each as printed (absent,
// none); one with a @tune carries "tune":[["TILE_M",["64","128"]], ...].
// One instrumented for a timeline (tile-timeline) carries
// "timeline_records":N and "timeline_sites":["start", ...]: it takes, after
// its ordinary (and persistent) parameters and before its TMA descriptors,
// the address of a buffer of N 16-byte records per warpgroup of each
// launched block (absent: none).
//
// fromJSON checks everything the runtime relies on and reports the first
// problem; it never crashes, whatever the input.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/KernelInfo.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"

using namespace tilec;
namespace json = llvm::json;

/// The kernel ABI described in KernelInfo.h.
static constexpr int64_t kKernelABI = 1;
/// Limits that keep a corrupt description from driving the runtime into
/// absurd allocations; no real kernel comes near them.
static constexpr int64_t kMaxRank = 16;
static constexpr int64_t kMaxParams = 1024;
static constexpr int64_t kMaxNesting = 64;
static constexpr int64_t kMaxStages = 64;

unsigned tilec::elementBytes(ElementKind kind) {
  switch (kind) {
  case ElementKind::F16:
  case ElementKind::BF16:
    return 2;
  case ElementKind::F32:
  case ElementKind::I32:
    return 4;
  case ElementKind::I64:
    return 8;
  case ElementKind::I8:
  case ElementKind::Bool:
  case ElementKind::F8E4M3:
  case ElementKind::F8E5M2:
    return 1;
  }
  return 0;
}

const char *tilec::elementName(ElementKind kind) {
  switch (kind) {
  case ElementKind::F16:
    return "f16";
  case ElementKind::BF16:
    return "bf16";
  case ElementKind::F32:
    return "f32";
  case ElementKind::I32:
    return "i32";
  case ElementKind::Bool:
    return "bool";
  case ElementKind::F8E4M3:
    return "f8e4m3";
  case ElementKind::F8E5M2:
    return "f8e5m2";
  case ElementKind::I64:
    return "i64";
  case ElementKind::I8:
    return "i8";
  }
  return "?";
}

static const char *scalarName(ScalarKind kind) {
  switch (kind) {
  case ScalarKind::I32:
    return "int";
  case ScalarKind::I64:
    return "i64";
  case ScalarKind::F32:
    return "float";
  case ScalarKind::Bool:
    return "bool";
  }
  return "?";
}

std::string tilec::tensorMapProblem(const TensorMapInfo &map,
                                    const KernelParam &param) {
  if (!param.isTensor)
    return "parameter '" + param.name + "' is not a tensor";
  if (param.rank < 1 || param.rank > kTensorMapMaxRank)
    return "parameter '" + param.name + "' has rank " +
           std::to_string(param.rank) + "; a tensor map needs rank 1 to " +
           std::to_string(kTensorMapMaxRank);
  if (param.element == ElementKind::Bool)
    return "parameter '" + param.name +
           "' is a bool tensor; tensor maps take f16, bf16, f32, i32 and the "
           "8-bit floats";
  if (map.box.size() != param.rank)
    return "\"box\" has " + std::to_string(map.box.size()) +
           " entries; parameter '" + param.name + "' has rank " +
           std::to_string(param.rank);
  for (size_t d = 0; d < map.box.size(); ++d)
    if (map.box[d] < 1 || map.box[d] > kTensorMapMaxBox)
      return "box[" + std::to_string(d) + "] is " + std::to_string(map.box[d]) +
             ", expected a value in [1, " + std::to_string(kTensorMapMaxBox) +
             "]";
  if (map.swizzle != 0 && map.swizzle != 32 && map.swizzle != 64 &&
      map.swizzle != 128)
    return "\"swizzle\" is " + std::to_string(map.swizzle) +
           ", expected 0, 32, 64 or 128 (bytes)";
  unsigned innerBytes = map.box.back() * elementBytes(param.element);
  if (innerBytes % 16)
    return "the innermost box dimension is " + std::to_string(innerBytes) +
           " bytes (" + std::to_string(map.box.back()) + " x " +
           elementName(param.element) + "), not a multiple of 16 bytes";
  if (map.swizzle && innerBytes > map.swizzle)
    return "the innermost box dimension is " + std::to_string(innerBytes) +
           " bytes (" + std::to_string(map.box.back()) + " x " +
           elementName(param.element) + "), more than the " +
           std::to_string(map.swizzle) + "-byte swizzle span";
  if (map.fill == TensorMapFill::NaN &&
      (param.element == ElementKind::I32 || param.element == ElementKind::I64 ||
       param.element == ElementKind::I8))
    return "\"fill\": \"nan\" needs a floating-point tensor; parameter '" +
           param.name + "' is " + elementName(param.element);
  return "";
}

static std::optional<ElementKind> parseElement(llvm::StringRef name) {
  for (ElementKind kind :
       {ElementKind::F16, ElementKind::BF16, ElementKind::F32, ElementKind::I32,
        ElementKind::Bool, ElementKind::F8E4M3, ElementKind::F8E5M2,
        ElementKind::I64, ElementKind::I8})
    if (name == elementName(kind))
      return kind;
  return std::nullopt;
}

std::string KernelInfo::toJSON() const {
  json::Array paramArray;
  for (const KernelParam &param : params) {
    json::Object object{{"name", param.name}};
    if (param.isTensor) {
      object["kind"] = "tensor";
      object["dtype"] = elementName(param.element);
      object["rank"] = static_cast<int64_t>(param.rank);
      object["alignment"] = static_cast<int64_t>(param.alignment);
      object["contiguous"] = param.contiguous;
      if (param.readAhead)
        object["read_ahead"] = true;
      if (param.written)
        object["written"] = true;
    } else {
      object["kind"] = scalarName(param.scalar);
    }
    paramArray.push_back(std::move(object));
  }
  json::Array constantArray;
  for (const auto &[key, value] : constants)
    constantArray.push_back(json::Array{key, value});

  json::Array mapArray;
  for (const TensorMapInfo &map : tensorMaps) {
    json::Array box;
    for (unsigned size : map.box)
      box.push_back(static_cast<int64_t>(size));
    mapArray.push_back(json::Object{
        {"param", static_cast<int64_t>(map.param)},
        {"box", std::move(box)},
        {"swizzle", static_cast<int64_t>(map.swizzle)},
        {"fill", map.fill == TensorMapFill::NaN ? "nan" : "zero"}});
  }

  json::Object root{{"abi", kKernelABI},
                    {"name", name},
                    {"num_warps", static_cast<int64_t>(numWarps)},
                    {"num_stages", static_cast<int64_t>(numStages)},
                    {"loop_split", loopSplit},
                    {"shared_bytes", static_cast<int64_t>(sharedBytes)},
                    {"arch", arch},
                    {"params", std::move(paramArray)},
                    {"constants", std::move(constantArray)}};
  // Written only when there are any, so that kernels without TMA are
  // described as before.
  if (!mapArray.empty())
    root["tensor_maps"] = std::move(mapArray);
  if (persistent)
    root["persistent"] = true;
  if (tileCounter)
    root["tile_counter"] = true;
  if (cluster > 1)
    root["cluster"] = static_cast<int64_t>(cluster);
  if (dependentLaunch)
    root["dependent_launch"] = true;
  if (!tmaFallback.empty()) {
    json::Array reasons;
    for (const std::string &reason : tmaFallback)
      reasons.push_back(reason);
    root["tma_fallback"] = std::move(reasons);
  }
  if (timelineRecords) {
    root["timeline_records"] = static_cast<int64_t>(timelineRecords);
    json::Array sites;
    for (const std::string &site : timelineSites)
      sites.push_back(site);
    root["timeline_sites"] = std::move(sites);
  }
  if (!warnings.empty()) {
    json::Array list;
    for (const std::string &w : warnings)
      list.push_back(w);
    root["warnings"] = std::move(list);
  }
  if (!tune.empty()) {
    json::Array entries;
    for (const auto &[name, values] : tune) {
      json::Array list;
      for (const std::string &v : values)
        list.push_back(v);
      entries.push_back(json::Array{name, std::move(list)});
    }
    root["tune"] = std::move(entries);
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << json::Value(std::move(root));
  return text;
}

/// llvm::json's parser recurses once per nesting level; refuse deeply nested
/// input before it can exhaust the stack.
static bool nestingWithin(llvm::StringRef text, int64_t limit) {
  int64_t depth = 0;
  bool inString = false, escaped = false;
  for (char c : text) {
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"')
      inString = true;
    else if (c == '[' || c == '{') {
      if (++depth > limit)
        return false;
    } else if (c == ']' || c == '}')
      --depth;
  }
  return true;
}

namespace {
/// Reads the fields of one JSON object, remembering the first error.
class Reader {
public:
  Reader(std::string &error) : error(error) {}

  bool fail(const llvm::Twine &message) {
    if (error.empty())
      error = message.str();
    return false;
  }

  bool getString(const json::Object &object, llvm::StringRef key,
                 const llvm::Twine &where, std::string &out,
                 bool required = true) {
    const json::Value *value = object.get(key);
    if (!value)
      return !required || fail(where + ": missing \"" + key + "\" (a string)");
    std::optional<llvm::StringRef> str = value->getAsString();
    if (!str)
      return fail(where + ": \"" + key + "\" must be a string");
    out = str->str();
    return true;
  }

  bool getInt(const json::Object &object, llvm::StringRef key,
              const llvm::Twine &where, int64_t min, int64_t max, unsigned &out,
              bool required = true) {
    const json::Value *value = object.get(key);
    if (!value)
      return !required ||
             fail(where + ": missing \"" + key + "\" (an integer)");
    std::optional<int64_t> number = value->getAsInteger();
    if (!number)
      return fail(where + ": \"" + key + "\" must be an integer");
    if (*number < min || *number > max)
      return fail(where + ": \"" + key + "\" is " + llvm::Twine(*number) +
                  ", expected a value in [" + llvm::Twine(min) + ", " +
                  llvm::Twine(max) + "]");
    out = static_cast<unsigned>(*number);
    return true;
  }

  bool getBool(const json::Object &object, llvm::StringRef key,
               const llvm::Twine &where, bool &out) {
    const json::Value *value = object.get(key);
    if (!value)
      return true; // optional: `out` keeps its default
    std::optional<bool> b = value->getAsBoolean();
    if (!b)
      return fail(where + ": \"" + key + "\" must be true or false");
    out = *b;
    return true;
  }

private:
  std::string &error;
};
} // namespace

static bool readParam(Reader &reader, const json::Value &value, size_t index,
                      KernelParam &param) {
  std::string where = "params[" + std::to_string(index) + "]";
  const json::Object *object = value.getAsObject();
  if (!object)
    return reader.fail(where + ": expected an object");
  if (!reader.getString(*object, "name", where, param.name))
    return false;
  if (param.name.empty())
    return reader.fail(where + ": empty parameter name");
  where += " ('" + param.name + "')";

  std::string kind;
  if (!reader.getString(*object, "kind", where, kind))
    return false;
  if (kind == "int") {
    param.scalar = ScalarKind::I32;
    return true;
  }
  if (kind == "i64") {
    param.scalar = ScalarKind::I64;
    return true;
  }
  if (kind == "float") {
    param.scalar = ScalarKind::F32;
    return true;
  }
  if (kind == "bool") {
    param.scalar = ScalarKind::Bool;
    return true;
  }
  if (kind != "tensor")
    return reader.fail(where + ": unknown parameter kind '" + kind +
                       "' (expected tensor, int, i64, float or bool)");
  param.isTensor = true;

  std::string dtype;
  if (!reader.getString(*object, "dtype", where, dtype))
    return false;
  std::optional<ElementKind> element = parseElement(dtype);
  if (!element)
    return reader.fail(
        where + ": unknown dtype '" + dtype +
        "' (expected f16, bf16, f32, i32, i64, i8, bool, f8e4m3 or f8e5m2)");
  param.element = *element;
  if (!reader.getInt(*object, "rank", where, 0, kMaxRank, param.rank))
    return false;
  param.alignment = 1;
  if (!reader.getInt(*object, "alignment", where, 1, 1 << 16, param.alignment,
                     /*required=*/false))
    return false;
  if (!llvm::isPowerOf2_32(param.alignment))
    return reader.fail(where + ": \"alignment\" is " +
                       llvm::Twine(param.alignment) +
                       ", expected a power of two");
  return reader.getBool(*object, "contiguous", where, param.contiguous) &&
         reader.getBool(*object, "read_ahead", where, param.readAhead) &&
         reader.getBool(*object, "written", where, param.written);
}

static bool readTensorMap(Reader &reader, const json::Value &value,
                          size_t index, const std::vector<KernelParam> &params,
                          TensorMapInfo &map) {
  std::string where = "tensor_maps[" + std::to_string(index) + "]";
  const json::Object *object = value.getAsObject();
  if (!object)
    return reader.fail(where + ": expected an object");
  if (!reader.getInt(*object, "param", where, 0, kMaxParams, map.param))
    return false;
  if (map.param >= params.size())
    return reader.fail(where + ": \"param\" is " + llvm::Twine(map.param) +
                       " but the kernel has " + llvm::Twine(params.size()) +
                       " parameters");
  where += " (parameter '" + params[map.param].name + "')";

  const json::Value *box = object->get("box");
  const json::Array *boxArray = box ? box->getAsArray() : nullptr;
  if (!boxArray)
    return reader.fail(where + ": " +
                       (box ? "\"box\" must be" : "missing \"box\"") +
                       " an array of integers");
  if (boxArray->size() > kTensorMapMaxRank)
    return reader.fail(where + ": \"box\" has " +
                       llvm::Twine(boxArray->size()) +
                       " entries; a tensor map has at most " +
                       llvm::Twine(kTensorMapMaxRank) + " dimensions");
  for (size_t d = 0; d < boxArray->size(); ++d) {
    std::optional<int64_t> size = (*boxArray)[d].getAsInteger();
    if (!size || *size < 1 || *size > kTensorMapMaxBox)
      return reader.fail(where + ": box[" + llvm::Twine(d) +
                         "] must be an integer in [1, " +
                         llvm::Twine(kTensorMapMaxBox) + "]");
    map.box.push_back(static_cast<unsigned>(*size));
  }
  if (!reader.getInt(*object, "swizzle", where, 0, 128, map.swizzle))
    return false;
  std::string fill;
  if (!reader.getString(*object, "fill", where, fill))
    return false;
  if (fill == "zero")
    map.fill = TensorMapFill::Zero;
  else if (fill == "nan")
    map.fill = TensorMapFill::NaN;
  else
    return reader.fail(where + ": unknown \"fill\" '" + fill +
                       "' (expected zero or nan)");
  std::string problem = tensorMapProblem(map, params[map.param]);
  if (!problem.empty())
    return reader.fail(where + ": " + problem);
  return true;
}

std::optional<KernelInfo> KernelInfo::fromJSON(const std::string &text,
                                               std::string &error) {
  error.clear();
  if (!nestingWithin(text, kMaxNesting)) {
    error = "kernel description nests deeper than " +
            std::to_string(kMaxNesting) + " levels";
    return std::nullopt;
  }
  llvm::Expected<json::Value> parsed = json::parse(text);
  if (!parsed) {
    error = "invalid kernel description JSON: " +
            llvm::toString(parsed.takeError());
    return std::nullopt;
  }
  const json::Object *root = parsed->getAsObject();
  if (!root) {
    error = "kernel description: expected a JSON object";
    return std::nullopt;
  }

  Reader reader(error);
  KernelInfo info;
  const char *where = "kernel description";
  if (const json::Value *abi = root->get("abi")) {
    std::optional<int64_t> version = abi->getAsInteger();
    if (!version) {
      reader.fail("kernel description: \"abi\" must be an integer");
      return std::nullopt;
    }
    if (*version != kKernelABI) {
      reader.fail("kernel description: unsupported kernel ABI version " +
                  llvm::Twine(*version) + " (this runtime supports " +
                  llvm::Twine(kKernelABI) + ")");
      return std::nullopt;
    }
  }
  if (!reader.getString(*root, "name", where, info.name))
    return std::nullopt;
  if (info.name.empty()) {
    reader.fail("kernel description: empty kernel name");
    return std::nullopt;
  }
  if (!reader.getInt(*root, "num_warps", where, 1, 32, info.numWarps) ||
      !reader.getInt(*root, "shared_bytes", where, 0, UINT32_MAX,
                     info.sharedBytes) ||
      !reader.getString(*root, "arch", where, info.arch, /*required=*/false) ||
      !reader.getInt(*root, "num_stages", where, 0, kMaxStages, info.numStages,
                     /*required=*/false) ||
      !reader.getBool(*root, "loop_split", where, info.loopSplit) ||
      !reader.getBool(*root, "persistent", where, info.persistent) ||
      !reader.getBool(*root, "tile_counter", where, info.tileCounter) ||
      !reader.getBool(*root, "dependent_launch", where, info.dependentLaunch) ||
      !reader.getInt(*root, "cluster", where, 1, 16, info.cluster,
                     /*required=*/false) ||
      !reader.getInt(*root, "timeline_records", where, 0, 65536,
                     info.timelineRecords, /*required=*/false))
    return std::nullopt;
  if (info.cluster & (info.cluster - 1)) {
    reader.fail("kernel description: \"cluster\" must be 1, 2, 4, 8 or 16");
    return std::nullopt;
  }
  // The kernel's logs wrap at a power of two (tile-timeline).
  if (info.timelineRecords == 1 ||
      (info.timelineRecords & (info.timelineRecords - 1))) {
    reader.fail("kernel description: \"timeline_records\" must be 0 or a "
                "power of two from 2 to 65536");
    return std::nullopt;
  }

  const json::Value *params = root->get("params");
  if (!params) {
    reader.fail("kernel description: missing \"params\" (an array)");
    return std::nullopt;
  }
  const json::Array *paramArray = params->getAsArray();
  if (!paramArray) {
    reader.fail("kernel description: \"params\" must be an array");
    return std::nullopt;
  }
  if (static_cast<int64_t>(paramArray->size()) > kMaxParams) {
    reader.fail("kernel description: too many parameters (" +
                llvm::Twine(paramArray->size()) + ")");
    return std::nullopt;
  }
  for (size_t i = 0; i < paramArray->size(); ++i) {
    KernelParam param;
    if (!readParam(reader, (*paramArray)[i], i, param))
      return std::nullopt;
    info.params.push_back(std::move(param));
  }

  if (const json::Value *constants = root->get("constants")) {
    const json::Array *constantArray = constants->getAsArray();
    if (!constantArray) {
      reader.fail("kernel description: \"constants\" must be an array of "
                  "[name, value] pairs");
      return std::nullopt;
    }
    for (size_t i = 0; i < constantArray->size(); ++i) {
      const json::Array *pair = (*constantArray)[i].getAsArray();
      std::optional<llvm::StringRef> key, value;
      if (pair && pair->size() == 2) {
        key = (*pair)[0].getAsString();
        value = (*pair)[1].getAsString();
      }
      if (!key || !value) {
        reader.fail("kernel description: constants[" + llvm::Twine(i) +
                    "] must be a [name, value] pair of strings");
        return std::nullopt;
      }
      info.constants.emplace_back(key->str(), value->str());
    }
  }

  if (const json::Value *maps = root->get("tensor_maps")) {
    const json::Array *mapArray = maps->getAsArray();
    if (!mapArray) {
      reader.fail("kernel description: \"tensor_maps\" must be an array");
      return std::nullopt;
    }
    if (mapArray->size() > kMaxTensorMaps) {
      reader.fail("kernel description: " + llvm::Twine(mapArray->size()) +
                  " tensor maps; a kernel takes at most " +
                  llvm::Twine(kMaxTensorMaps));
      return std::nullopt;
    }
    for (size_t i = 0; i < mapArray->size(); ++i) {
      TensorMapInfo map;
      if (!readTensorMap(reader, (*mapArray)[i], i, info.params, map))
        return std::nullopt;
      info.tensorMaps.push_back(std::move(map));
    }
  }

  if (const json::Value *tune = root->get("tune")) {
    const json::Array *entries = tune->getAsArray();
    if (!entries) {
      reader.fail("kernel description: \"tune\" must be an array of "
                  "[name, [values]] pairs");
      return std::nullopt;
    }
    for (size_t i = 0; i < entries->size(); ++i) {
      const json::Array *pair = (*entries)[i].getAsArray();
      std::optional<llvm::StringRef> name =
          pair && pair->size() == 2 ? (*pair)[0].getAsString() : std::nullopt;
      const json::Array *values =
          pair && pair->size() == 2 ? (*pair)[1].getAsArray() : nullptr;
      std::vector<std::string> texts;
      bool ok = name && values && !values->empty();
      for (size_t j = 0; ok && j < values->size(); ++j) {
        std::optional<llvm::StringRef> v = (*values)[j].getAsString();
        ok = v.has_value();
        if (ok)
          texts.push_back(v->str());
      }
      if (!ok) {
        reader.fail("kernel description: tune[" + llvm::Twine(i) +
                    "] must be a [name, [values]] pair of strings");
        return std::nullopt;
      }
      info.tune.emplace_back(name->str(), std::move(texts));
    }
  }
  // Optional arrays of strings.
  for (auto [key, list] : {std::pair<const char *, std::vector<std::string> *>{
                               "tma_fallback", &info.tmaFallback},
                           {"warnings", &info.warnings},
                           {"timeline_sites", &info.timelineSites}}) {
    const json::Value *value = root->get(key);
    if (!value)
      continue;
    const json::Array *items = value->getAsArray();
    if (!items) {
      reader.fail("kernel description: \"" + llvm::Twine(key) +
                  "\" must be an array of strings");
      return std::nullopt;
    }
    for (size_t i = 0; i < items->size(); ++i) {
      std::optional<llvm::StringRef> item = (*items)[i].getAsString();
      if (!item) {
        reader.fail("kernel description: " + llvm::Twine(key) + "[" +
                    llvm::Twine(i) + "] must be a string");
        return std::nullopt;
      }
      list->push_back(item->str());
    }
  }
  return info;
}
