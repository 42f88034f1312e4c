//===- AttentionGpuTest.cpp - tile::attention and tile::autotune on a GPU -===//
//
//   tile-attention-gpu-tests [--seed=N] [--kernels=DIR]
//
// tile::attention against a float64 CPU reference on fresh random inputs
// (outputs poisoned first): head dims 32 to 256 with the padded ones (80,
// 96, 192), GQA/MQA, seq_q != seq_k, causal with input_pos, (B, N, H, D)
// views, f16 and bf16, tuned and untuned; an empty problem; the general
// autotuner on kernels/vector_add.tile (a candidate that cannot compile is
// skipped with a note; the second call is remembered); an int that is no
// exact float refused at launch; tile::attentionWithLse and
// tile::attentionBackward against a float64 reference (out and the
// gradients; GQA, seq_q != seq_k, causal, head dims 64, 96, 128, 192, 256, f16
// and bf16; the gradients the same bits on two runs). Exits 77 without a GPU.
//
//===----------------------------------------------------------------------===//

#include "GpuTest.h"

#include "tile/Attention.h"
#include "tile/Autotune.h"
#include "tile/tile.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <tuple>

using namespace gputest;

namespace {

struct Case {
  int B, Hq, Hkv, Sq, Sk, D;
  bool causal;
  int inputPos;
  tile::DType dtype;
  bool bnhd; // (B, N, H, D) memory viewed as (B, H, N, D)
  bool tune;
};

std::string describe(const Case &c) {
  char text[200];
  std::snprintf(text, sizeof(text),
                "attention B=%d Hq=%d Hkv=%d Sq=%d Sk=%d D=%d %s%s pos=%d %s%s",
                c.B, c.Hq, c.Hkv, c.Sq, c.Sk, c.D, tile::dtypeName(c.dtype),
                c.causal ? " causal" : "", c.inputPos, c.bnhd ? "BNHD" : "BHND",
                c.tune ? " tuned" : "");
  return text;
}

/// Element offsets of a (B, H, N, D) view over BHND or BNHD memory.
std::vector<int64_t> stridesFor(const Case &c, int heads, int seq) {
  if (c.bnhd)
    return {int64_t(seq) * heads * c.D, c.D, int64_t(heads) * c.D, 1};
  return {int64_t(heads) * seq * c.D, int64_t(seq) * c.D, c.D, 1};
}

/// Element offset of (b, h, n, d) in a (B, H, N, D) view with strides `s`.
size_t offsetOf(const std::vector<int64_t> &s, int b, int h, int n, int d) {
  return size_t(b * s[0] + h * s[1] + n * s[2] + d * s[3]);
}

/// The float64 softmax row of query i of head h (K/V head kh) over the keys
/// up to `lastKey` (inclusive; all of them when it is past the end) into p.
void softmaxRow(const Case &c, const HostTensor &q, const HostTensor &k,
                const std::vector<int64_t> &qs, const std::vector<int64_t> &ks,
                int b, int h, int kh, int i, int64_t lastKey,
                std::vector<double> &p) {
  double scale = 1.0 / std::sqrt(double(c.D));
  double mx = -INFINITY;
  for (int j = 0; j < c.Sk; ++j) {
    p[j] = -INFINITY;
    if (j > lastKey)
      continue;
    double s = 0;
    for (int d = 0; d < c.D; ++d)
      s += q.get(offsetOf(qs, b, h, i, d)) * k.get(offsetOf(ks, b, kh, j, d));
    p[j] = s * scale;
    mx = std::max(mx, p[j]);
  }
  double sum = 0;
  for (int j = 0; j < c.Sk; ++j) {
    p[j] = p[j] == -INFINITY ? 0.0 : std::exp(p[j] - mx);
    sum += p[j];
  }
  for (int j = 0; j < c.Sk; ++j)
    p[j] /= sum;
}

bool runCase(const Case &c, std::mt19937_64 &rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  size_t qCount = size_t(c.B) * c.Hq * c.Sq * c.D;
  size_t kCount = size_t(c.B) * c.Hkv * c.Sk * c.D;
  HostTensor q(c.dtype, qCount), k(c.dtype, kCount), v(c.dtype, kCount),
      out(c.dtype, qCount);
  for (HostTensor *t : {&q, &k, &v})
    for (size_t i = 0; i < t->size(); ++i)
      t->set(i, normal(rng));
  std::vector<int64_t> qs = stridesFor(c, c.Hq, c.Sq),
                       ks = stridesFor(c, c.Hkv, c.Sk);
  DeviceBuffer dq(q.bytes.size()), dk(k.bytes.size()), dv(v.bytes.size()),
      dout(out.bytes.size());
  check(tile::copyToDevice(dq.get(), q.bytes.data(), q.bytes.size()), "copy");
  check(tile::copyToDevice(dk.get(), k.bytes.data(), k.bytes.size()), "copy");
  check(tile::copyToDevice(dv.get(), v.bytes.data(), v.bytes.size()), "copy");
  check(tile::deviceMemset(dout.get(), 0xff, out.bytes.size()), "poison");

  tile::Tensor tq(dq.get(), c.dtype, {c.B, c.Hq, c.Sq, c.D}, qs);
  tile::Tensor tk(dk.get(), c.dtype, {c.B, c.Hkv, c.Sk, c.D}, ks);
  tile::Tensor tv(dv.get(), c.dtype, {c.B, c.Hkv, c.Sk, c.D}, ks);
  tile::Tensor to(dout.get(), c.dtype, {c.B, c.Hq, c.Sq, c.D}, qs);
  tile::AttentionOptions options;
  options.causal = c.causal;
  options.inputPos = c.inputPos;
  options.autotune = c.tune;
  tile::Status status = tile::attention(tq, tk, tv, to, options);
  if (!status.ok()) {
    std::printf("%-64s FAIL: %s\n", describe(c).c_str(),
                status.message().c_str());
    return false;
  }
  check(tile::synchronize(), "synchronize");
  check(tile::copyToHost(out.bytes.data(), dout.get(), out.bytes.size()),
        "copy back");

  ErrorMeter meter;
  std::vector<double> p(c.Sk);
  for (int b = 0; b < c.B; ++b)
    for (int h = 0; h < c.Hq; ++h) {
      int kh = h / (c.Hq / c.Hkv);
      for (int i = 0; i < c.Sq; ++i) {
        softmaxRow(c, q, k, qs, ks, b, h, kh, i,
                   c.causal ? int64_t(c.inputPos) + i : INT64_MAX, p);
        for (int d = 0; d < c.D; ++d) {
          double o = 0;
          for (int j = 0; j < c.Sk; ++j)
            o += p[j] * v.get(offsetOf(ks, b, kh, j, d));
          size_t index = offsetOf(qs, b, h, i, d);
          meter.add(out.get(index), o, index);
        }
      }
    }
  double bound = c.dtype == tile::DType::BF16 ? 2e-2 : 4e-3;
  return report(describe(c), meter.finish(), bound);
}

/// tile::attentionWithLse then tile::attentionBackward (row-major tensors,
/// outputs poisoned) against a float64 reference of out and the gradients;
/// the backward run again through the C API (tile_attention_backward) must
/// give the same bits.
bool runBackwardCase(const Case &c, std::mt19937_64 &rng) {
  std::string name = "backward " + describe(c);
  std::normal_distribution<double> normal(0.0, 1.0);
  size_t qCount = size_t(c.B) * c.Hq * c.Sq * c.D;
  size_t kCount = size_t(c.B) * c.Hkv * c.Sk * c.D;
  int64_t rows = tile::attentionLseRows(c.Sq);
  size_t lseCount = size_t(c.B) * c.Hq * rows;
  HostTensor q(c.dtype, qCount), k(c.dtype, kCount), v(c.dtype, kCount),
      dout(c.dtype, qCount), out(c.dtype, qCount), dq(c.dtype, qCount),
      dk(c.dtype, kCount), dv(c.dtype, kCount);
  for (HostTensor *t : {&q, &k, &v, &dout})
    for (size_t i = 0; i < t->size(); ++i)
      t->set(i, normal(rng));
  DeviceBuffer bq(q.bytes.size()), bk(k.bytes.size()), bv(v.bytes.size()),
      bdo(dout.bytes.size()), bo(out.bytes.size()), bdq(dq.bytes.size()),
      bdk(dk.bytes.size()), bdv(dv.bytes.size()), blse(lseCount * 4),
      bdelta(lseCount * 4);
  for (auto [buf, host] : {std::pair(&bq, &q), std::pair(&bk, &k),
                           std::pair(&bv, &v), std::pair(&bdo, &dout)})
    check(
        tile::copyToDevice(buf->get(), host->bytes.data(), host->bytes.size()),
        "copy");
  for (DeviceBuffer *buf : {&bo, &bdq, &bdk, &bdv})
    check(tile::deviceMemset(buf->get(), 0xff, buf->size()), "poison");
  check(tile::deviceMemset(blse.get(), 0xff, lseCount * 4), "poison");
  auto t4 = [&](DeviceBuffer &b, int heads, int seq) {
    return tile::Tensor::contiguous(b.get(), c.dtype, {c.B, heads, seq, c.D});
  };
  auto t3 = [&](DeviceBuffer &b) {
    return tile::Tensor::contiguous(b.get(), tile::DType::F32,
                                    {c.B, c.Hq, rows});
  };
  tile::AttentionTrainingOptions options;
  options.causal = c.causal;
  tile::Status status = tile::attentionWithLse(
      t4(bq, c.Hq, c.Sq), t4(bk, c.Hkv, c.Sk), t4(bv, c.Hkv, c.Sk),
      t4(bo, c.Hq, c.Sq), t3(blse), options);
  std::vector<std::vector<uint8_t>> runs;
  // The second run through the C API (tile_attention_backward).
  for (int run = 0; run < 2 && status.ok(); ++run) {
    tile::Tensor args[10] = {t4(bq, c.Hq, c.Sq),
                             t4(bk, c.Hkv, c.Sk),
                             t4(bv, c.Hkv, c.Sk),
                             t4(bo, c.Hq, c.Sq),
                             t3(blse),
                             t4(bdo, c.Hq, c.Sq),
                             t4(bdq, c.Hq, c.Sq),
                             t4(bdk, c.Hkv, c.Sk),
                             t4(bdv, c.Hkv, c.Sk),
                             t3(bdelta)};
    for (DeviceBuffer *buf : {&bdq, &bdk, &bdv})
      check(tile::deviceMemset(buf->get(), 0xff, buf->size()), "poison");
    if (run == 0) {
      status = tile::attentionBackward(args[0], args[1], args[2], args[3],
                                       args[4], args[5], args[6], args[7],
                                       args[8], args[9], options);
    } else {
      tile_tensor ct[10];
      for (int i = 0; i < 10; ++i)
        ct[i] = {args[i].data, static_cast<tile_dtype>(args[i].dtype),
                 static_cast<int32_t>(args[i].shape.size()),
                 args[i].shape.data(), args[i].strides.data()};
      tile_attention_training_options o = {};
      o.causal = c.causal;
      if (tile_attention_backward(&ct[0], &ct[1], &ct[2], &ct[3], &ct[4],
                                  &ct[5], &ct[6], &ct[7], &ct[8], &ct[9], &o,
                                  nullptr) != TILE_OK)
        status = tile::Status::error(tile_last_error());
    }
    if (!status.ok())
      break;
    check(tile::synchronize(), "synchronize");
    std::vector<uint8_t> bits;
    for (auto [buf, host] :
         {std::pair(&bdq, &dq), std::pair(&bdk, &dk), std::pair(&bdv, &dv)}) {
      check(
          tile::copyToHost(host->bytes.data(), buf->get(), host->bytes.size()),
          "copy back");
      bits.insert(bits.end(), host->bytes.begin(), host->bytes.end());
    }
    runs.push_back(std::move(bits));
  }
  if (!status.ok()) {
    std::printf("%-64s FAIL: %s\n", name.c_str(), status.message().c_str());
    return false;
  }
  check(tile::copyToHost(out.bytes.data(), bo.get(), out.bytes.size()),
        "copy back");
  bool same = runs[0] == runs[1];

  // float64 reference: P = softmax(scale * Q K^T), dV = P^T dO,
  // dP = dO V^T, dS = P * (dP - rowsum(dO * O)), dQ = scale dS K,
  // dK = scale dS^T Q (dK, dV summed over the query heads of a K/V head).
  double scale = 1.0 / std::sqrt(double(c.D));
  std::vector<int64_t> qs = {int64_t(c.Hq) * c.Sq * c.D, int64_t(c.Sq) * c.D,
                             c.D, 1},
                       ks = {int64_t(c.Hkv) * c.Sk * c.D, int64_t(c.Sk) * c.D,
                             c.D, 1};
  auto qi = [&](int b, int h, int n, int d) {
    return offsetOf(qs, b, h, n, d);
  };
  auto ki = [&](int b, int h, int n, int d) {
    return offsetOf(ks, b, h, n, d);
  };
  std::vector<double> rdq(qCount, 0.0), rdk(kCount, 0.0), rdv(kCount, 0.0),
      ro(qCount, 0.0);
  std::vector<double> p(c.Sk), dp(c.Sk);
  for (int b = 0; b < c.B; ++b)
    for (int h = 0; h < c.Hq; ++h) {
      int kh = h / (c.Hq / c.Hkv);
      for (int i = 0; i < c.Sq; ++i) {
        softmaxRow(c, q, k, qs, ks, b, h, kh, i, c.causal ? i : INT64_MAX, p);
        double delta = 0;
        for (int d = 0; d < c.D; ++d) {
          double o = 0;
          for (int j = 0; j < c.Sk; ++j)
            o += p[j] * v.get(ki(b, kh, j, d));
          ro[qi(b, h, i, d)] = o;
          delta += o * dout.get(qi(b, h, i, d));
        }
        for (int j = 0; j < c.Sk; ++j) {
          double x = 0;
          for (int d = 0; d < c.D; ++d)
            x += dout.get(qi(b, h, i, d)) * v.get(ki(b, kh, j, d));
          dp[j] = p[j] * (x - delta) * scale;
        }
        for (int j = 0; j < c.Sk; ++j)
          for (int d = 0; d < c.D; ++d) {
            rdq[qi(b, h, i, d)] += dp[j] * k.get(ki(b, kh, j, d));
            rdk[ki(b, kh, j, d)] += dp[j] * q.get(qi(b, h, i, d));
            rdv[ki(b, kh, j, d)] += p[j] * dout.get(qi(b, h, i, d));
          }
      }
    }
  double bound = c.dtype == tile::DType::BF16 ? 3e-2 : 6e-3;
  bool ok = true;
  for (auto [label, host, ref] :
       {std::tuple("out", &out, &ro), std::tuple("dq", &dq, &rdq),
        std::tuple("dk", &dk, &rdk), std::tuple("dv", &dv, &rdv)}) {
    ErrorMeter meter;
    for (size_t i = 0; i < host->size(); ++i)
      meter.add(host->get(i), (*ref)[i], i);
    ok &= report(name + " " + label, meter.finish(), bound);
  }
  if (!same)
    std::printf("%-64s FAIL: the C++ and C API runs gave different "
                "gradients\n",
                name.c_str());
  return ok && same;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool testAutotune(const std::string &kernelsDir) {
  std::string source = readFile(kernelsDir + "/vector_add.tile");
  if (source.empty()) {
    std::printf("autotune: FAIL: cannot read %s/vector_add.tile\n",
                kernelsDir.c_str());
    return false;
  }
  const int n = 1 << 20;
  DeviceBuffer a(n * 4), b(n * 4), c(n * 4);
  check(tile::deviceMemset(a.get(), 0, n * 4), "memset");
  check(tile::deviceMemset(b.get(), 0, n * 4), "memset");
  tile::CompileOptions base;
  base.constants = {{"DTYPE", "f32"}};
  std::vector<tile::TuneCandidate> candidates;
  for (const char *text :
       {"TILE=256,num_warps=4", "TILE=1024,num_warps=4",
        // cannot compile: skipped
        "TILE=not-a-number,num_warps=4", "TILE=2048,num_warps=8"})
    candidates.push_back(*tile::TuneCandidate::parse(text));
  int launches = 0;
  tile::TuneLaunch launch = [&](const tile::Kernel &kernel,
                                const tile::TuneCandidate &candidate,
                                tile::Stream stream) {
    ++launches;
    int tileSize = std::atoi(candidate.constants[0].second.c_str());
    auto t = [&](void *p) {
      return tile::Tensor::contiguous(p, tile::DType::F32, {n});
    };
    return kernel.launch(tile::Dim3((n + tileSize - 1) / tileSize), stream,
                         {t(a.get()), t(b.get()), t(c.get())});
  };
  tile::Expected<tile::Stream> stream = tile::createStream();
  check(stream.status(), "createStream");
  std::string key = "n=" + std::to_string(n);
  tile::Expected<tile::TuneResult> first = tile::autotune(
      source, "vector_add.tile", base, candidates, key, launch, *stream);
  bool ok = true;
  if (!first) {
    std::printf("autotune: FAIL: %s\n", first.status().message().c_str());
    return false;
  }
  std::printf("autotune: chose %s (%s, %.4f ms), %zu note(s)\n",
              first->config.describe().c_str(), first->source.c_str(),
              first->ms, first->notes.size());
  for (const std::string &note : first->notes)
    std::printf("  note: %.160s\n", note.c_str());
  bool fresh = first->source == "tuned" || first->source == "disk";
  if (!fresh || first->index == 2 ||
      (first->source == "tuned" &&
       (first->notes.size() != 1 || launches < 3))) {
    std::printf("autotune: FAIL: expected a tuning with one skipped "
                "candidate\n");
    ok = false;
  }
  int before = launches;
  tile::Expected<tile::TuneResult> second = tile::autotune(
      source, "vector_add.tile", base, candidates, key, launch, *stream);
  if (!second || second->source != "memory" || launches != before ||
      second->index != first->index) {
    std::printf("autotune: FAIL: the second call should be remembered\n");
    ok = false;
  }
  check(tile::destroyStream(*stream), "destroyStream");

  // Scalars: an int with no exact float is refused at launch.
  tile::CompileOptions fmhaOptions;
  fmhaOptions.constants = {{"TILE_D", "64"}, {"H", "1"}};
  fmhaOptions.kernel = "fmha";
  tile::Expected<tile::Kernel> fmha = tile::Runtime::get().compileFile(
      kernelsDir + "/flash_attention.tile", fmhaOptions);
  check(fmha.status(), "compile fmha");
  auto t = [&](void *p) {
    return tile::Tensor::contiguous(p, tile::DType::F16, {1, 1, 64, 64});
  };
  DeviceBuffer buffers[4] = {DeviceBuffer(8192), DeviceBuffer(8192),
                             DeviceBuffer(8192), DeviceBuffer(8192)};
  tile::Status refused = fmha->launch(tile::Dim3(1, 1), nullptr,
                                      {t(buffers[0].get()), t(buffers[1].get()),
                                       t(buffers[2].get()), t(buffers[3].get()),
                                       (1 << 24) + 1, 0});
  if (refused.ok() ||
      refused.message().find("no exact 32-bit float") == std::string::npos) {
    std::printf("scalars: FAIL: 16777217 for a float was not refused (%s)\n",
                refused.message().c_str());
    ok = false;
  } else {
    std::printf("scalars: PASS (%s)\n", refused.message().c_str());
  }
  return ok;
}

} // namespace

int main(int argc, char **argv) {
  requireGpu("tile-attention-gpu-tests");
  std::string kernelsDir = "kernels";
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--kernels=", 10) == 0)
      kernelsDir = argv[i] + 10;
  uint64_t seed = pickSeed(argc, argv);
  std::printf("seed %llu\n", (unsigned long long)seed);
  std::mt19937_64 rng(seed);
  using tile::DType;
  const Case cases[] = {
      // B Hq Hkv  Sq  Sk   D  causal pos dtype bnhd tune
      {1, 2, 2, 128, 128, 64, false, 0, DType::F16, false, false},
      {1, 2, 2, 130, 70, 32, false, 0, DType::F16, false, false},
      {2, 4, 1, 77, 200, 80, true, 0, DType::F16, false, false},
      {1, 8, 2, 64, 96, 96, true, 32, DType::F16, true, false},
      {1, 3, 3, 100, 100, 128, true, 0, DType::BF16, false, false},
      {1, 2, 1, 33, 65, 192, false, 0, DType::BF16, true, false},
      {1, 2, 2, 96, 130, 256, true, 34, DType::F16, false, false},
      {1, 8, 1, 1, 257, 128, true, 256, DType::F16, false, false},
      {1, 4, 2, 200, 300, 64, true, 100, DType::F16, false, true},
  };
  bool ok = true;
  for (const Case &c : cases)
    ok &= runCase(c, rng);
  const Case backwardCases[] = {
      // B Hq Hkv  Sq  Sk   D  causal pos dtype bnhd tune
      {2, 4, 2, 128, 128, 64, false, 0, DType::F16, false, false},
      {1, 4, 1, 77, 200, 96, true, 0, DType::BF16, false, false},
      {1, 2, 2, 130, 70, 128, true, 0, DType::F16, false, false},
      {1, 2, 1, 100, 100, 128, false, 0, DType::BF16, false, false},
      {1, 4, 2, 130, 190, 256, true, 0, DType::BF16, false, false},
      {1, 4, 2, 200, 130, 192, true, 0, DType::F16, false, false},
      {2, 2, 2, 128, 128, 192, false, 0, DType::BF16, false, false},
  };
  for (const Case &c : backwardCases)
    ok &= runBackwardCase(c, rng);

  // Empty problems run nothing and succeed.
  tile::Tensor empty(nullptr, DType::F16, {0, 2, 16, 64}, {2048, 1024, 64, 1});
  if (!tile::attention(empty, empty, empty, empty).ok()) {
    std::printf("empty: FAIL\n");
    ok = false;
  }
  ok &= testAutotune(kernelsDir);

  // Host time per tile::attention call once tuned (B=1, H=8, N=256, D=64,
  // causal): the checks, the look-up and the launch.
  {
    tile::Tensor t(nullptr, DType::F16, {1, 8, 256, 64},
                   {8 * 256 * 64, 256 * 64, 64, 1});
    DeviceBuffer buffers[4] = {DeviceBuffer(1 << 18), DeviceBuffer(1 << 18),
                               DeviceBuffer(1 << 18), DeviceBuffer(1 << 18)};
    tile::Tensor q = t, k = t, v = t, out = t;
    q.data = buffers[0].get();
    k.data = buffers[1].get();
    v.data = buffers[2].get();
    out.data = buffers[3].get();
    tile::AttentionOptions options;
    options.causal = true;
    check(tile::attention(q, k, v, out, options), "attention");
    check(tile::synchronize(), "synchronize");
    const int calls = 500;
    double best = 1e30;
    for (int round = 0; round < 5; ++round) {
      auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < calls; ++i)
        check(tile::attention(q, k, v, out, options), "attention");
      double us = std::chrono::duration<double, std::micro>(
                      std::chrono::steady_clock::now() - start)
                      .count() /
                  calls;
      best = std::min(best, us);
      check(tile::synchronize(), "synchronize");
    }
    std::printf("attention host overhead: %.2f us per tile::attention call "
                "(C++, tuned, best of 5 rounds of %d)\n",
                best, calls);
  }
  std::printf("%s\n", ok ? "ALL PASSED" : "SOME FAILED");
  return ok ? 0 : 1;
}
