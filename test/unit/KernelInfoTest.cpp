//===- KernelInfoTest.cpp - tile-runtime-tests ----------------------------===//
//
// KernelInfo's JSON form: the kernel's description.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestSupport.h"

//===----------------------------------------------------------------------===//
// KernelInfo
//===----------------------------------------------------------------------===//

TEST(KernelInfoJSON, RoundTrip) {
  KernelInfo info = fmhaInfo();
  info.params[1].contiguous = false;
  info.params[2].alignment = 4;
  info.params[3].element = ElementKind::BF16;
  info.params[0].element = ElementKind::I64;
  info.params[1].element = ElementKind::I8;
  info.params.push_back(scalarParam("flag", ScalarKind::Bool));
  info.params.push_back(scalarParam("offset", ScalarKind::I64));
  info.constants.push_back({"NAME \"quoted\"", "a\nb"});
  info.numStages = 3;
  info.loopSplit = false;
  info.persistent = true;
  info.tileCounter = true;
  info.cluster = 2;
  info.dependentLaunch = true;
  info.warnings = {"k.tile:3:8: warning: \"quoted\"", "second"};
  info.tune = {{"TILE_M", {"64", "128"}}, {"DTYPE", {"f16"}}};
  std::string json = info.toJSON();
  EXPECT_EQ(json.find('\n'), std::string::npos) << "must fit on one line";

  std::string error;
  std::optional<KernelInfo> back = KernelInfo::fromJSON(json, error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->name, info.name);
  EXPECT_EQ(back->numWarps, info.numWarps);
  EXPECT_EQ(back->sharedBytes, info.sharedBytes);
  EXPECT_EQ(back->arch, info.arch);
  EXPECT_EQ(back->numStages, 3u);
  EXPECT_FALSE(back->loopSplit);
  EXPECT_TRUE(back->persistent);
  EXPECT_TRUE(back->tileCounter);
  EXPECT_EQ(back->cluster, 2u);
  EXPECT_TRUE(back->dependentLaunch);
  EXPECT_EQ(back->warnings, info.warnings);
  EXPECT_EQ(back->tune, info.tune);
  EXPECT_EQ(back->constants, info.constants);
  ASSERT_EQ(back->params.size(), info.params.size());
  for (size_t i = 0; i < info.params.size(); ++i) {
    const KernelParam &a = info.params[i], &b = back->params[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.isTensor, b.isTensor);
    if (a.isTensor) {
      EXPECT_EQ(a.element, b.element);
      EXPECT_EQ(a.rank, b.rank);
      EXPECT_EQ(a.alignment, b.alignment);
      EXPECT_EQ(a.contiguous, b.contiguous);
    } else {
      EXPECT_EQ(a.scalar, b.scalar);
    }
  }
  EXPECT_EQ(back->toJSON(), json);
}

TEST(KernelInfoJSON, Elements) {
  EXPECT_EQ(tilec::elementBytes(ElementKind::F16), 2u);
  EXPECT_EQ(tilec::elementBytes(ElementKind::BF16), 2u);
  EXPECT_EQ(tilec::elementBytes(ElementKind::F32), 4u);
  EXPECT_EQ(tilec::elementBytes(ElementKind::I32), 4u);
  EXPECT_EQ(tilec::elementBytes(ElementKind::Bool), 1u);
  EXPECT_EQ(tilec::elementBytes(ElementKind::I64), 8u);
  EXPECT_EQ(tilec::elementBytes(ElementKind::I8), 1u);
  EXPECT_STREQ(tilec::elementName(ElementKind::I64), "i64");
  EXPECT_STREQ(tilec::elementName(ElementKind::I8), "i8");
  EXPECT_STREQ(tilec::elementName(ElementKind::BF16), "bf16");
  EXPECT_STREQ(tilec::elementName(ElementKind::Bool), "bool");
}

TEST(KernelInfoJSON, RejectsMalformed) {
  const std::string params = R"("params":[])";
  struct Case {
    std::string json;
    const char *expected;
  } cases[] = {
      {"", "invalid kernel description JSON"},
      {"{", "invalid kernel description JSON"},
      {"[]", "expected a JSON object"},
      {"42", "expected a JSON object"},
      {R"({"num_warps":4,"shared_bytes":0,)" + params + "}",
       "missing \"name\""},
      {R"({"name":7,"num_warps":4,"shared_bytes":0,)" + params + "}",
       "\"name\" must be a string"},
      {R"({"name":"","num_warps":4,"shared_bytes":0,)" + params + "}",
       "empty kernel name"},
      {R"({"name":"k","num_warps":0,"shared_bytes":0,)" + params + "}",
       "\"num_warps\" is 0"},
      {R"({"name":"k","num_warps":4.5,"shared_bytes":0,)" + params + "}",
       "\"num_warps\" must be an integer"},
      {R"({"name":"k","num_warps":4,"shared_bytes":-1,)" + params + "}",
       "\"shared_bytes\" is -1"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0})", "missing \"params\""},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"cluster":3,)" + params +
           "}",
       "\"cluster\" must be 1, 2, 4, 8 or 16"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"cluster":32,)" + params +
           "}",
       "\"cluster\" is 32"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"timeline_records":3,)" +
           params + "}",
       "\"timeline_records\" must be 0 or a power of two"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"timeline_sites":[1],)" +
           params + "}",
       "timeline_sites"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":{}})",
       "\"params\" must be an array"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[3]})",
       "params[0]: expected an object"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[{"name":"A","kind":"matrix"}]})",
       "params[0] ('A'): unknown parameter kind 'matrix'"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[{"name":"A","kind":"tensor","dtype":"f64","rank":1}]})",
       "unknown dtype 'f64'"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[{"name":"A","kind":"tensor","dtype":"f16","rank":-1}]})",
       "\"rank\" is -1"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[{"name":"A","kind":"tensor","dtype":"f16"}]})",
       "missing \"rank\""},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[{"name":"A","kind":"tensor","dtype":"f16","rank":2,"alignment":12}]})",
       "expected a power of two"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[{"name":"A","kind":"tensor","dtype":"f16","rank":2,"contiguous":"yes"}]})",
       "\"contiguous\" must be true or false"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[],"constants":[["A"]]})",
       "constants[0] must be a [name, value] pair"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[],"abi":2})",
       "unsupported kernel ABI version 2"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[],"num_stages":-1})",
       "\"num_stages\" is -1"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[],"num_stages":"2"})",
       "\"num_stages\" must be an integer"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[],"loop_split":1})",
       "\"loop_split\" must be true or false"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[],"persistent":"yes"})",
       "\"persistent\" must be true or false"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[],"tile_counter":1})",
       "\"tile_counter\" must be true or false"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[],"dependent_launch":"yes"})",
       "\"dependent_launch\" must be true or false"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[],"tune":{}})",
       "\"tune\" must be an array of [name, [values]] pairs"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[],"tune":[["A",[]]]})",
       "tune[0] must be a [name, [values]] pair of strings"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[],"tune":[["A",[1]]]})",
       "tune[0] must be a [name, [values]] pair of strings"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[],"warnings":"w"})",
       "\"warnings\" must be an array of strings"},
      {R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[],"warnings":[1]})",
       "warnings[0] must be a string"},
      {std::string(100000, '['), "nests deeper than"},
  };
  for (const Case &c : cases) {
    std::string error;
    EXPECT_FALSE(KernelInfo::fromJSON(c.json, error)) << c.json;
    EXPECT_NE(error.find(c.expected), std::string::npos)
        << "input: " << c.json.substr(0, 200) << "\nerror: " << error;
  }
}

TEST(KernelInfoJSON, BuildOptions) {
  // Written before "num_stages" and "loop_split" were recorded: the
  // defaults.
  std::string error;
  std::optional<KernelInfo> old = KernelInfo::fromJSON(
      R"({"name":"k","num_warps":4,"shared_bytes":0,"params":[]})", error);
  ASSERT_TRUE(old) << error;
  EXPECT_EQ(old->numStages, 0u);
  EXPECT_TRUE(old->loopSplit);
  EXPECT_FALSE(old->persistent);
  EXPECT_FALSE(old->tileCounter);

  KernelInfo info = fmhaInfo();
  info.numStages = 2;
  info.loopSplit = false;
  std::string json = info.toJSON();
  EXPECT_NE(json.find(R"("num_stages":2)"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("loop_split":false)"), std::string::npos) << json;
  // The kernel handle reports them.
  Kernel kernel = makeUnloadedKernel(info);
  EXPECT_EQ(kernel.numStages(), 2u);
  EXPECT_FALSE(kernel.loopSplit());
  EXPECT_FALSE(kernel.persistent());
  EXPECT_EQ(json.find("persistent"), std::string::npos) << json;
  info.persistent = true;
  EXPECT_TRUE(makeUnloadedKernel(info).persistent());
  tile_kernel handle = reinterpret_cast<tile_kernel>(kernel.get());
  EXPECT_EQ(tile_kernel_num_stages(handle), 2u);
  EXPECT_EQ(tile_kernel_loop_split(handle), 0);
  EXPECT_EQ(tile_kernel_num_stages(nullptr), 0u);
  EXPECT_EQ(tile_kernel_loop_split(nullptr), 0);
  EXPECT_EQ(tile_kernel_loop_split(reinterpret_cast<tile_kernel>(
                makeUnloadedKernel(fmhaInfo()).get())),
            1);
}

TEST(KernelInfoJSON, MutationsNeverCrash) {
  std::string json = fmhaInfo().toJSON();
  // Every prefix, then random byte edits: parse or fail with a message.
  for (size_t n = 0; n < json.size(); ++n) {
    std::string error;
    if (!KernelInfo::fromJSON(json.substr(0, n), error)) {
      EXPECT_FALSE(error.empty());
    }
  }
  std::mt19937 rng(1234);
  const char alphabet[] = "{}[]\",:0123456789-.eEtrufalsn \\x\x80\xff";
  for (int i = 0; i < 5000; ++i) {
    std::string mutated = json;
    int edits = 1 + rng() % 4;
    for (int e = 0; e < edits; ++e) {
      size_t at = rng() % mutated.size();
      char c = alphabet[rng() % (sizeof(alphabet) - 1)];
      switch (rng() % 3) {
      case 0:
        mutated[at] = c;
        break;
      case 1:
        mutated.insert(mutated.begin() + at, c);
        break;
      default:
        mutated.erase(at, 1 + rng() % 8);
        break;
      }
      if (mutated.empty())
        mutated = "{";
    }
    std::string error;
    std::optional<KernelInfo> info = KernelInfo::fromJSON(mutated, error);
    if (!info) {
      EXPECT_FALSE(error.empty());
    } else {
      // Whatever parses must describe a usable kernel.
      EXPECT_FALSE(info->name.empty());
      EXPECT_GE(info->numWarps, 1u);
      for (const KernelParam &param : info->params)
        EXPECT_TRUE(!param.isTensor || param.rank <= 16);
    }
  }
}
