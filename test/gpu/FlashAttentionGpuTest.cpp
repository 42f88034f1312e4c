//===- FlashAttentionGpuTest.cpp - tile-kernel-gpu-tests ------------------===//
//
// Kernels/flash_attention.tile: every schedule against a float64 reference.
//
//===----------------------------------------------------------------------===//

#include "KernelGpuHarness.h"

namespace kernelgpu {

//===----------------------------------------------------------------------===//
// flash attention
//===----------------------------------------------------------------------===//

struct Attention {
  DType dtype;
  int64_t d;
  bool causal;
  int64_t group;
  int64_t seqQ, seqK, inputPos;
  int64_t batch = 2, heads = 8;   // heads is the kernel's constant H
  unsigned stages = 0;            // CompileOptions::numStages; 0: the hints
  bool split = true;              // CompileOptions::loopSplit
  bool specialize = false;        // CompileOptions::warpSpecialize
  int64_t tileM = 64;             // TILE_M (128: two warpgroups of 4 warps)
  int64_t tileN = 64;             // TILE_N, keys a trip
  unsigned warps = 4;             // CompileOptions::numWarps
  bool pingPong = false;          // CompileOptions::pingPong
  bool viaHints = false;          // the options as the kernel's @hints
  bool persistent = false;        // CompileOptions::persistent
  unsigned tileStages = 0;        // CompileOptions::tileStages; 0: default
  bool tileRefill = false;        // CompileOptions::tileRefillAfterRead
  bool deferEpilogue = false;     // CompileOptions::deferEpilogue
  bool rescaleInTrip = false;     // CompileOptions::rescaleInTrip
  unsigned cluster = 1;           // CompileOptions::cluster
  int64_t groupBytes = 0;         // GROUP_BYTES (causal grid order); 0: default
  int kLatency = 0, vLatency = 0; // K_LATENCY, V_LATENCY (ring depths with
                                  // stages = 0); 0: the kernel's defaults
};

Build attentionBuild(const Attention &t) {
  Build build;
  build.kernel = "fmha";
  Constants &constants = build.constants;
  constants = {{"DTYPE", tile::dtypeName(t.dtype)},
               {"TILE_D", std::to_string(t.d)},
               {"H", std::to_string(t.heads)},
               {"TILE_M", std::to_string(t.tileM)},
               {"TILE_N", std::to_string(t.tileN)},
               {"QUERY_GROUP_SIZE", std::to_string(t.group)},
               {"CAUSAL", t.causal ? "True" : "False"},
               {"EVEN_K", t.seqK % t.tileN == 0 ? "True" : "False"}};
  tile::Options &options = build.options;
  options = codegen(t.stages, t.split, t.specialize, t.warps);
  options.pingPong = t.pingPong;
  options.persistent = t.persistent;
  if (t.tileStages)
    options.tileStages = t.tileStages;
  if (t.tileRefill)
    options.tileRefillAfterRead = true;
  if (t.deferEpilogue)
    options.deferEpilogue = true;
  if (t.rescaleInTrip)
    options.rescaleInTrip = true;
  if (t.cluster > 1)
    options.cluster = t.cluster;
  build.viaHints = t.viaHints;
  if (t.groupBytes)
    constants.push_back({"GROUP_BYTES", std::to_string(t.groupBytes)});
  if (t.kLatency)
    constants.push_back({"K_LATENCY", std::to_string(t.kLatency)});
  if (t.vLatency)
    constants.push_back({"V_LATENCY", std::to_string(t.vLatency)});
  return build;
}

/// The persistent, specialized 128 x 128 kernel at head dim 128 with
/// `seq` queries and keys (the attention API's pick there, 2 stages).
Attention persistentD128(int64_t seq) {
  Attention t{DType::F16, 128, false, 1, seq, seq, 0};
  t.split = false;
  t.specialize = true;
  t.tileM = t.tileN = 128;
  t.warps = 8;
  t.stages = 2;
  t.persistent = true;
  return t;
}

/// The warp-specialized kernels of the attention API at head dim 128
/// (persistent, 2 consumer warpgroups, setmaxnreg; and its pick without a
/// mask: Q in one slot refilled after its last read, O * alpha at the end of
/// its trip) as the driver built them, JIT and AOT: no local memory. ptxas
/// spills it (176 bytes a thread) and serializes its wgmmas where it ignores
/// setmaxnreg, as it does when it compiles PTX as a relocatable unit (the
/// driver's JIT linker, cuLink*): a load path that did so would run the kernel
/// at 0.6-0.8x its speed.
void wholeProgramCheck() {
  if (config.arch != "sm_90a")
    return;
  Attention pick = persistentD128(256);
  pick.tileStages = 1;
  pick.tileRefill = true;
  pick.rescaleInTrip = true;
  for (const Attention &t : {persistentD128(256), pick})
    for (Mode mode : modes()) {
      tile::Expected<Kernel> kernel =
          kernels.get(mode, "flash_attention", attentionBuild(t));
      std::string name = std::string("specialized attention") +
                         (t.rescaleInTrip ? " (pick)" : "") +
                         " compiled whole [" + modeName(mode) + "]";
      if (!kernel) {
        std::printf("%-64s FAIL: %s\n", name.c_str(),
                    kernel.status().message().c_str());
        ++failures;
        continue;
      }
      bool ok = kernel->registers() > 0 && kernel->localBytes() == 0;
      std::printf("%-64s %s: %u registers, %u bytes of local memory\n",
                  name.c_str(), ok ? "PASS" : "FAIL", kernel->registers(),
                  kernel->localBytes());
      tally(ok);
    }
}

/// A kernel launched in clusters of two refuses a grid whose x is odd (a
/// cluster runs two neighbouring query tiles), saying why, and launches
/// nothing.
void clusterGridCheck() {
  if (config.arch != "sm_90a")
    return;
  Attention t = persistentD128(128);
  t.cluster = 2;
  DeviceBuffer buffer(size_t(128) * 128 * 2);
  Tensor x = Tensor::contiguous(buffer.get(), DType::F16, {1, 1, 128, 128});
  std::vector<Arg> args = {x, x, x, x, 1.0f, int64_t(0)};
  for (Mode mode : modes()) {
    std::string name =
        std::string("clustered attention, odd grid x refused [") +
        modeName(mode) + "]";
    tile::Expected<Kernel> kernel =
        kernels.get(mode, "flash_attention", attentionBuild(t));
    tile::Status status = kernel
                              ? kernel->launch(tile::Dim3(1, 1), nullptr, args)
                              : kernel.status();
    bool ok = kernel && !status.ok() &&
              status.message().find("does not split into clusters of 2") !=
                  std::string::npos;
    std::printf("%-64s %s%s%s\n", name.c_str(), ok ? "PASS" : "FAIL",
                status.ok() ? "" : ": ", status.message().c_str());
    tally(ok);
  }
}

void flashAttention(const Attention &t, std::mt19937_64 &rng) {
  const int64_t batch = t.batch, heads = t.heads, kvHeads = heads / t.group;
  const int64_t tileM = t.tileM;
  Build build = attentionBuild(t);

  std::normal_distribution<double> normal(0, 1);
  std::uniform_real_distribution<double> uniform(-1, 1);
  HostTensor q(t.dtype, batch * heads * t.seqQ * t.d),
      k(t.dtype, batch * kvHeads * t.seqK * t.d),
      v(t.dtype, batch * kvHeads * t.seqK * t.d),
      o(t.dtype, batch * heads * t.seqQ * t.d);
  for (size_t i = 0; i < q.size(); ++i)
    q.set(i, normal(rng));
  for (size_t i = 0; i < k.size(); ++i)
    k.set(i, normal(rng));
  for (size_t i = 0; i < v.size(); ++i)
    v.set(i, uniform(rng));
  DeviceBuffer dq(q.bytes.size()), dk(k.bytes.size()), dv(v.bytes.size()),
      dout(o.bytes.size());
  dq.upload(q);
  dk.upload(k);
  dv.upload(v);
  double scale = 1.0 / std::sqrt(double(t.d));
  // The rounded inputs, in float64 for the reference.
  auto widen = [](const HostTensor &tensor) {
    std::vector<double> values(tensor.size());
    for (size_t i = 0; i < values.size(); ++i)
      values[i] = tensor.get(i);
    return values;
  };
  std::vector<double> qd = widen(q), kd = widen(k), vd = widen(v);

  // Which (batch, head) pairs and query rows to check: all of them when the
  // reference is cheap, else a sample with the tile boundaries.
  std::vector<std::pair<int64_t, int64_t>> pairs;
  std::vector<int64_t> rows;
  double cost = double(batch) * heads * t.seqQ * t.seqK * t.d;
  if (cost <= 5e8) {
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t h = 0; h < heads; ++h)
        pairs.push_back({b, h});
    for (int64_t i = 0; i < t.seqQ; ++i)
      rows.push_back(i);
  } else {
    pairs = {{0, 0},
             {batch - 1, heads - 1},
             {int64_t(rng() % batch), int64_t(rng() % heads)}};
    for (int64_t i : {int64_t(0), tileM - 1, tileM, t.seqQ - 1})
      rows.push_back(std::min(i, t.seqQ - 1));
    for (int i = 0; i < 60; ++i)
      rows.push_back(int64_t(rng() % t.seqQ));
  }

  // float64 reference: O = softmax(scale Q K^T + mask) V, with the causal
  // mask q_pos + input_pos >= k_pos.
  std::vector<double> ref(pairs.size() * rows.size() * t.d);
  parallelFor(pairs.size() * rows.size(), [&](size_t job) {
    auto [b, h] = pairs[job / rows.size()];
    int64_t i = rows[job % rows.size()];
    int64_t kvh = h / t.group;
    size_t qBase = ((b * heads + h) * t.seqQ + i) * t.d;
    size_t kvBase = (b * kvHeads + kvh) * t.seqK * t.d;
    int64_t visible = t.causal ? std::min(t.seqK, i + t.inputPos + 1) : t.seqK;
    std::vector<double> logits(visible);
    double max = -INFINITY;
    for (int64_t j = 0; j < visible; ++j) {
      double dot = 0;
      for (int64_t e = 0; e < t.d; ++e)
        dot += qd[qBase + e] * kd[kvBase + j * t.d + e];
      logits[j] = scale * dot;
      max = std::max(max, logits[j]);
    }
    double sum = 0;
    for (double &l : logits)
      sum += (l = std::exp(l - max));
    double *out = &ref[job * t.d];
    std::fill(out, out + t.d, 0.0);
    for (int64_t j = 0; j < visible; ++j)
      for (int64_t e = 0; e < t.d; ++e)
        out[e] += logits[j] / sum * vd[kvBase + j * t.d + e];
  });

  std::string base =
      std::string("fmha ") + tile::dtypeName(t.dtype) +
      " D=" + std::to_string(t.d) + (t.causal ? " causal" : " full") +
      " g=" + std::to_string(t.group) + " B=" + std::to_string(batch) +
      " H=" + std::to_string(heads) + " sq=" + std::to_string(t.seqQ) +
      " sk=" + std::to_string(t.seqK) + " pos=" + std::to_string(t.inputPos) +
      " stages=" + std::to_string(t.stages) +
      " split=" + (t.split ? "on" : "off") + (t.specialize ? " ws" : "") +
      (t.warps != 4 ? " M=" + std::to_string(t.tileM) +
                          " warps=" + std::to_string(t.warps)
                    : std::string()) +
      (t.tileN != 64 ? " N=" + std::to_string(t.tileN) : std::string()) +
      (t.pingPong ? " ping-pong" : "") + (t.persistent ? " persistent" : "") +
      (t.tileStages ? " tile_stages=" + std::to_string(t.tileStages)
                    : std::string()) +
      (t.tileRefill ? " refill_after_read" : "") +
      (t.deferEpilogue ? " defer_epilogue" : "") +
      (t.rescaleInTrip ? " rescale_in_trip" : "") +
      (t.cluster > 1 ? " cluster=" + std::to_string(t.cluster)
                     : std::string()) +
      (t.groupBytes ? " group_bytes=" + std::to_string(t.groupBytes)
                    : std::string()) +
      (t.kLatency || t.vLatency ? " k_latency=" + std::to_string(t.kLatency) +
                                      " v_latency=" + std::to_string(t.vLatency)
                                : std::string()) +
      (t.seqK == 0                    ? " (launch only)"
       : rows.size() < size_t(t.seqQ) ? " (sampled)"
                                      : "");
  for (Mode mode : modes()) {
    std::string name = base + " [" + modeName(mode) + "]";
    dout.poison();
    std::vector<Arg> args = {
        Tensor::contiguous(dq.get(), t.dtype, {batch, heads, t.seqQ, t.d}),
        Tensor::contiguous(dk.get(), t.dtype, {batch, kvHeads, t.seqK, t.d}),
        Tensor::contiguous(dv.get(), t.dtype, {batch, kvHeads, t.seqK, t.d}),
        Tensor::contiguous(dout.get(), t.dtype, {batch, heads, t.seqQ, t.d}),
        static_cast<float>(scale),
        t.inputPos};
    if (!launch(name, mode, "flash_attention", build,
                tile::Dim3(static_cast<unsigned>(cdiv(t.seqQ, tileM)),
                           static_cast<unsigned>(batch * heads)),
                args))
      continue;
    if (t.seqK == 0) {
      // No keys: the loop runs 0 times and the output is 0/0, undefined on
      // both sides; the case only checks that the kernel (its pipeline
      // prologue and epilogue) runs without a fault.
      std::printf("%-64s launched, output not checked (no keys) PASS\n",
                  name.c_str());
      std::fflush(stdout);
      tally(true);
      continue;
    }
    dout.download(o);
    ErrorMeter meter;
    for (size_t i = 0; i < o.size(); ++i)
      if (!std::isfinite(o.get(i)))
        meter.add(NAN, 0, i);
    for (size_t job = 0; job < pairs.size() * rows.size(); ++job) {
      auto [b, h] = pairs[job / rows.size()];
      int64_t i = rows[job % rows.size()];
      size_t oBase = ((b * heads + h) * t.seqQ + i) * t.d;
      for (int64_t e = 0; e < t.d; ++e)
        meter.add(o.get(oBase + e), ref[job * t.d + e], oBase + e);
    }
    tally(report(name, meter.finish(), dtypeBound(t.dtype, 5e-3, 1.5e-2)));
  }
}

/// Cases of the software pipeline and of loop splitting: the K/V loop with
/// num_stages in {1, 2, 3, 4, 0} and the causal loop split or whole.
void pipelineAttentionCases(std::vector<Attention> &cases) {
  auto add = [&](DType dtype, int64_t d, bool causal, int64_t group,
                 int64_t seqQ, int64_t seqK, int64_t pos, int64_t heads,
                 unsigned stages, bool split) {
    Attention t{dtype, d, causal, group, seqQ, seqK, pos};
    t.batch = 1;
    t.heads = heads;
    t.stages = stages;
    t.split = split;
    cases.push_back(t);
  };
  const DType f16 = DType::F16;
  std::vector<unsigned> stagesSwept = {1, 2, 3, 4, 0};
  // With TILE_N=64, seq_k = 1, 63, 64: one key tile (ragged or whole); 65:
  // two; 130: three; 200: four; 1000: sixteen (ragged). Under the causal
  // mask with seq_q = seq_k, query block i visits i + 1 key tiles, so the
  // larger ones cover every trip count up to there.
  std::vector<int64_t> seqs = {1, 63, 64, 65, 130, 200, 1000};
  std::vector<int64_t> seqs128 = {65, 200, 1000};
  if (config.quick) {
    stagesSwept = {1, 3, 0};
    seqs = {1, 65, 200};
    seqs128 = {200};
  }
  for (unsigned stages : stagesSwept)
    for (bool split : {true, false})
      for (bool causal : {false, true}) {
        for (int64_t seq : seqs)
          add(f16, 64, causal, 1, seq, seq, 0, 2, stages, split);
        // Queries after a prefix of keys: the causal loop splits late
        // (14 unmasked tiles, then 2 masked), in the middle, and after its
        // first tile with a ragged end; non-causal, the ragged last tile
        // is the masked part.
        add(f16, 64, causal, 1, 64, 1000, 936, 2, stages, split);
        if (causal && !config.quick) {
          add(f16, 64, true, 1, 100, 200, 100, 2, stages, split);
          add(f16, 64, true, 1, 17, 130, 113, 2, stages, split);
        }
        // D=128: twice the shared memory per stage.
        if (split || causal)
          for (int64_t seq : seqs128)
            if (!config.quick || split)
              add(f16, 128, causal, 1, seq, seq, 0, 2, stages, split);
      }
  // bf16 and GQA (two query heads per K/V head) through the ring.
  for (unsigned stages : {2u, 3u})
    for (bool causal : {false, true})
      if (!config.quick || stages == 3)
        add(DType::BF16, 64, causal, 1, 200, 200, 0, 2, stages, true);
  for (unsigned stages : {1u, 3u, 0u})
    add(f16, 64, true, 2, 200, 200, 0, 4, stages, true);
  add(f16, 128, false, 2, 130, 130, 0, 4, 3, true);
  // Warp specialized (sm_90a), the loop whole and, causal, split after
  // specialization (the producer and the rings run on from the unmasked
  // loop into the masked one): every trip count above, masking, and D=128.
  for (unsigned stages : {2u, 4u, 0u})
    for (bool causal : {false, true})
      for (bool split : {false, true}) {
        if (split && !causal)
          continue;
        for (int64_t seq : seqs) {
          add(f16, 64, causal, 1, seq, seq, 0, 2, stages, split);
          cases.back().specialize = true;
        }
        add(f16, 64, causal, 1, 64, 1000, 936, 2, stages, split);
        cases.back().specialize = true;
        for (int64_t seq : seqs128) {
          add(f16, 128, causal, 1, seq, seq, 0, 2, stages, split);
          cases.back().specialize = true;
        }
      }
  // Two consumer warpgroups (128 rows, 8 warps), free or taking turns
  // to issue their multiplies (tile-ping-pong): 1, 2, 3, 4 and 16 key
  // tiles (the last ragged), masked and not, a query tile past the keys'
  // prefix, and query rows that end inside the first warpgroup's half.
  auto twoGroups = [&](bool pingPong) {
    cases.back().specialize = true;
    cases.back().tileM = 128;
    cases.back().warps = 8;
    cases.back().pingPong = pingPong;
  };
  // Causal, the loop whole and split.
  for (bool pingPong : {false, true})
    for (unsigned stages : {2u, 0u})
      for (bool causal : {false, true})
        for (bool split : {false, true}) {
          if (split && !causal)
            continue;
          for (int64_t d : {64, 128})
            for (int64_t seq : {int64_t(1), int64_t(64), int64_t(130),
                                int64_t(200), int64_t(1000)}) {
              add(f16, d, causal, 1, seq, seq, 0, 2, stages, split);
              twoGroups(pingPong);
            }
          add(f16, 128, causal, 1, 64, 1000, 936, 2, stages, split);
          twoGroups(pingPong);
        }
  // The causal grid order in groups of heads: 15 (batch, head) pairs in
  // groups of 4 (GROUP_BYTES = 4 heads' K and V at 200 keys, D=64), the
  // last group of 3, and of 1; 4 query tiles each.
  for (int64_t groupBytes : {int64_t(4 * 200 * 64 * 4), int64_t(1)})
    for (bool specialize : {false, true}) {
      add(f16, 64, true, 1, 200, 200, 0, 5, 2, false);
      cases.back().batch = 3;
      cases.back().groupBytes = groupBytes;
      if (specialize)
        twoGroups(false);
    }
  // The attention API's deeper rings for two consumer warpgroups: 3
  // stages (all the shared memory there is at head dim 128), 4 at 64.
  for (auto [d, stages] :
       {std::pair<int64_t, unsigned>{64, 3}, {128, 3}, {64, 4}})
    for (bool causal : {false, true})
      for (int64_t seq :
           {int64_t(1), int64_t(130), int64_t(200), int64_t(1000)}) {
        add(f16, d, causal, 1, seq, seq, 0, 2, stages, false);
        twoGroups(false);
      }
  // Rings of different depths for K and V (the attention API's head dim
  // 256 candidate: 3 stages of K, 2 of V, from the kernel's K_LATENCY and
  // V_LATENCY with stages = 0), and the reverse, so that the slots of the
  // two rings wrap at different trips: 1, 2, 3, 4 and 16 key tiles, masked
  // and not, a query tile past the keys' prefix.
  for (auto [d, kLatency, vLatency] :
       {std::tuple<int64_t, int, int>{256, 3, 2}, {64, 2, 3}})
    for (bool causal : {false, true}) {
      // At 256 the rings take 224 KiB: more than an sm_80 block may have
      // (163 KiB on an A100), so the compiler refuses it for sm_80.
      if (d == 256 && !config.sm90a())
        continue;
      for (int64_t seq : {int64_t(1), int64_t(130), int64_t(200), int64_t(256),
                          int64_t(1000)}) {
        add(f16, d, causal, 1, seq, seq, 0, 2, 0, false);
        twoGroups(false);
        cases.back().kLatency = kLatency;
        cases.back().vLatency = vLatency;
        if (causal) { // split after specialization, too
          cases.push_back(cases.back());
          cases.back().split = true;
        }
      }
      add(f16, d, causal, 1, 64, 1000, 936, 2, 0, false);
      twoGroups(false);
      cases.back().kLatency = kLatency;
      cases.back().vLatency = vLatency;
    }
  // Persistent (3 blocks, $TILEC_PERSISTENT_BLOCKS), so that each block
  // runs many query tiles of different trip counts (causal: 1 to 16 key
  // tiles; more queries than keys): two consumer warpgroups
  // with the rings running on from tile to tile, one warpgroup with and
  // without the producer warp, the causal loop split (per-tile rings) and
  // whole.
  for (unsigned stages : {2u, 0u})
    for (bool causal : {false, true}) {
      for (int64_t seq : {int64_t(1), int64_t(130), int64_t(1000)}) {
        add(f16, 128, causal, 1, seq, seq, 0, 2, 2, false);
        twoGroups(false);
        cases.back().persistent = true;
        if (causal) { // split after specialization, in the tile loop
          cases.push_back(cases.back());
          cases.back().split = true;
        }
        add(f16, 64, causal, 1, seq, seq, 0, 2, stages, false);
        cases.back().specialize = true;
        cases.back().persistent = true;
        for (bool split : {true, false}) {
          add(f16, 64, causal, 1, seq, seq, 0, 2, stages, split);
          cases.back().persistent = true;
        }
      }
      add(f16, 64, causal, 1, 64, 1000, 936, 2, stages, false);
      cases.back().specialize = true;
      cases.back().persistent = true;
    }
  // Persistent with K and V rings of 3 and 2 (the epilogue staged in the
  // tile's Q slot leaves room for them): head dim 128 and, with 32 keys a
  // trip, 256. sm_90a only: elsewhere the epilogue's conversion needs
  // shared memory of its own, more than there is.
  for (bool causal : {false, true})
    for (int64_t d : {128, 256}) {
      if (!config.sm90a())
        break;
      add(f16, d, causal, 1, 1000, 1000, 0, 2, 0, false);
      twoGroups(false);
      cases.back().persistent = true;
      cases.back().kLatency = 3;
      cases.back().vLatency = 2;
      if (d == 256)
        cases.back().tileN = 32;
    }
  // Persistent with each tile's Q in one slot (tile-stages=1: the producer
  // fills it at the tile's start, once the consumers have released it and
  // the previous tile's output staged there has left): head dims 128 and
  // 256 (the attention API's pick there), 1, 3 and up to 16 key tiles a
  // query tile, masked and not, and more queries than keys.
  for (bool causal : {false, true})
    for (int64_t d : {128, 256}) {
      if (!config.sm90a())
        break;
      // Each also with the slot refilled for the next tile after the
      // tile's last read (tile-refill-after-read: the release ahead of the
      // last P V; at 256 the output staged in two column halves through a
      // buffer of half its size), and with no keys at all (every tile
      // releases the slot without reading it); and that with each tile's
      // epilogue under the next tile's first multiply (tile-defer-epilogue:
      // the last tile's after the loop, a keyless tile's at its start).
      for (int variant : {0, 1, 2}) {
        bool refill = variant >= 1, defer = variant == 2;
        for (int64_t seq : {int64_t(1), int64_t(130), int64_t(1000)}) {
          add(f16, d, causal, 1, seq, seq, 0, 2, 2, false);
          twoGroups(false);
          cases.back().persistent = true;
          cases.back().tileStages = 1;
          cases.back().tileRefill = refill;
          cases.back().deferEpilogue = defer;
        }
        add(f16, d, causal, 1, 1000, 200, 0, 2, 2, false);
        twoGroups(false);
        cases.back().persistent = true;
        cases.back().tileStages = 1;
        cases.back().tileRefill = refill;
        cases.back().deferEpilogue = defer;
        if (refill) {
          add(f16, d, false, 1, 300, 0, 0, 2, 2, false);
          twoGroups(false);
          cases.back().persistent = true;
          cases.back().tileStages = 1;
          cases.back().tileRefill = true;
          cases.back().deferEpilogue = defer;
        }
        // At 256 with K and V rings of 3 and 2: not even a quarter of the
        // output's buffer fits beside them, and it is stored from the
        // accumulator's registers.
        if (refill && d == 256) {
          add(f16, d, causal, 1, 1000, 1000, 0, 2, 0, false);
          twoGroups(false);
          cases.back().persistent = true;
          cases.back().kLatency = 3;
          cases.back().vLatency = 2;
          cases.back().tileStages = 1;
          cases.back().tileRefill = true;
          cases.back().deferEpilogue = defer;
        }
      }
    }
  // The compiler's choice for a specialized kernel with a per-block
  // operand (ScheduleChoice.cpp): persistent, Q in one slot refilled after
  // its last read, the rescaling at its trip's end; two consumer
  // warpgroups at head dims 64 and 128 with 64 and 128 keys a trip: 1, 3
  // and 16 key tiles (the pipelined loop run 0, 2 and 15 times), more
  // queries than keys, no keys at all, and masked.
  for (int64_t d : {64, 128})
    for (int64_t tileN : {64, 128}) {
      if (!config.sm90a())
        break;
      auto chosen = [&](bool causal, int64_t seqQ, int64_t seqK) {
        add(f16, d, causal, 1, seqQ, seqK, 0, 2, 2, false);
        twoGroups(false);
        cases.back().tileN = tileN;
        cases.back().persistent = true;
        cases.back().tileStages = 1;
        cases.back().tileRefill = true;
        cases.back().rescaleInTrip = true;
      };
      for (int64_t seq : {int64_t(1), int64_t(130), int64_t(1000)})
        chosen(false, seq, seq);
      chosen(false, 1000, 200);
      chosen(false, 300, 0);
      chosen(true, 1000, 1000);
    }
  // The rotated key loop's O * alpha at the end of its trip
  // (tilec --rescale-in-trip: the peeled first trip rescales the initial
  // accumulator, the last P V after the loop continues the loop's result
  // in registers of its own): the attention API's candidates with it, the
  // persistent kernel with Q in one slot refilled after its last read at
  // head dims 128 and 256 and the persistent one of 4 stages at 64, and
  // the launched one with two warpgroups at 128; one key tile (the loop
  // not run), 2, 3 and 8 (at 256, 16), ragged, more queries than keys and
  // no keys at all, masked and not.
  for (bool causal : {false, true})
    for (int variant : {0, 1, 2, 3}) {
      if (!config.sm90a())
        break;
      int64_t d = variant == 0 ? 64 : variant == 3 ? 256 : 128;
      auto inTrip = [&](int64_t seqQ, int64_t seqK) {
        add(f16, d, causal, 1, seqQ, seqK, 0, 2, variant == 0 ? 4 : 2, false);
        twoGroups(false);
        cases.back().tileN = d == 256 ? 64 : 128;
        cases.back().rescaleInTrip = true;
        if (variant == 2)
          return;
        cases.back().persistent = true;
        if (variant != 0) {
          cases.back().tileStages = 1;
          cases.back().tileRefill = true;
        }
      };
      for (int64_t seq :
           {int64_t(1), int64_t(130), int64_t(300), int64_t(1000)})
        inTrip(seq, seq);
      inTrip(1000, 200);
      inTrip(300, 0);
    }
  // Persistent in clusters of two blocks (tilec --cluster=2; launched as
  // whole clusters, one with $TILEC_PERSISTENT_BLOCKS=3): without a
  // mask K and V are multicast, each block copying half of every tile for
  // both, their slots released in both blocks; with one each block copies
  // its own. The attention API's kernel at head dim 128 (Q refilled after
  // its last read) and the plain persistent one; 1, 2 and 8 key tiles and
  // 2 to 8 query tiles (x even, as clusters need), keys not a multiple of
  // the trip (masked in place, the same in both blocks), no keys at all.
  for (bool causal : {false, true})
    for (bool refill : {false, true}) {
      if (!config.sm90a())
        break;
      auto clustered = [&](int64_t seqQ, int64_t seqK) {
        add(f16, 128, causal, 1, seqQ, seqK, 0, 2, 2, false);
        twoGroups(false);
        cases.back().persistent = true;
        cases.back().cluster = 2;
        if (refill) {
          cases.back().tileStages = 1;
          cases.back().tileRefill = true;
        }
      };
      for (int64_t seq : {int64_t(130), int64_t(256), int64_t(1000)})
        clustered(seq, seq);
      clustered(1000, 200);
      clustered(512, 0);
    }
  // Causal with the loop split (its unmasked and masked loops, each with
  // rings of its own, made and invalidated inside the tile loop), the
  // default kernel persistent in clusters of 2, 4 and 8 (which failed the
  // verifier before: tile-insert-barriers moved the rings' invalidations
  // out of the loop): 1 to 16 query tiles of 1 to 16 key tiles, queries
  // after a prefix of keys, fewer keys than queries, no keys.
  for (unsigned cluster : {2u, 4u, 8u}) {
    if (!config.sm90a())
      break;
    auto clustered = [&](int64_t seqQ, int64_t seqK, int64_t pos) {
      add(f16, 64, true, 1, seqQ, seqK, pos, 2, 2, true);
      cases.back().persistent = true;
      cases.back().cluster = cluster;
    };
    clustered(64 * cluster, 64 * cluster, 0);
    clustered(1024, 1024, 0);
    clustered(1024, 1000, 0);
    clustered(64 * cluster, 1000, 1000 - 64 * cluster);
    clustered(64 * cluster, 0, 0);
  }
  // Persistent with fewer tiles than blocks (2 query tiles, 3 blocks): a
  // block that claims no tile at all, and one whose first claim ends it;
  // one and two consumer warpgroups.
  for (bool causal : {false, true})
    for (int64_t tileM : {64, 128}) {
      add(f16, 64, causal, 1, 64, 200, 136, 2, 2, false);
      cases.back().specialize = true;
      cases.back().persistent = true;
      if (tileM == 128)
        twoGroups(false);
    }
  // Two consumer warpgroups asked for by the kernel's own @hints.
  for (bool causal : {false, true})
    for (int64_t seq : {int64_t(64), int64_t(1000)}) {
      add(f16, 128, causal, 1, seq, seq, 0, 2, 2, false);
      twoGroups(false);
      cases.back().viaHints = true;
    }
}

/// No keys at all (launch only: the output is undefined): the loop runs 0
/// times. Run last, so that a fault here cannot take other cases with it.
void emptyAttentionCases(std::vector<Attention> &cases) {
  for (unsigned stages : {1u, 3u, 0u})
    for (bool causal : {false, true})
      if (!config.quick || stages == 3) {
        Attention t{DType::F16, 64, causal, 1, 64, 0, 0};
        t.batch = 1;
        t.heads = 2;
        t.stages = stages;
        cases.push_back(t);
        t.split = false;
        t.specialize = true;
        cases.push_back(t);
        t.tileM = 128; // two consumer warpgroups, taking turns
        t.warps = 8;
        t.pingPong = true;
        cases.push_back(t);
        // Persistent (3 blocks, claimed tiles): 2 tiles of no trips, so
        // that a block also claims none.
        t.pingPong = false;
        t.persistent = true;
        cases.push_back(t);
      }
}

std::vector<Attention> attentionCases() {
  std::vector<Attention> cases;
  if (config.sanitize) {
    // Tiny, for compute-sanitizer: three key tiles (the last ragged),
    // without pipelining and with the hinted stages; then one query tile
    // over sixteen key tiles, the causal loop split after fourteen or
    // whole, through a 3-stage ring and the hinted one; a 4-stage ring at
    // D=128 on a whole loop; and no keys at all (launch only).
    auto add = [&](int64_t d, bool causal, int64_t seqQ, int64_t seqK,
                   int64_t pos, unsigned stages, bool split) {
      Attention t{DType::F16, d, causal, 1, seqQ, seqK, pos};
      t.batch = 1;
      t.heads = 2;
      t.stages = stages;
      t.split = split;
      cases.push_back(t);
    };
    for (int64_t d : {64, 128})
      for (bool causal : {false, true})
        for (unsigned stages : {1u, 0u})
          add(d, causal, 130, 130, 0, stages, true);
    for (unsigned stages : {3u, 0u})
      for (bool split : {true, false})
        add(64, true, 64, 1000, 936, stages, split);
    add(128, true, 130, 130, 0, 4, false);
    add(64, true, 64, 0, 0, 3, true);
    // Warp specialized: 0, 1, 3 and 16 key tiles, masked and not; the
    // masked ones with the loop split after specialization (the producer
    // runs ahead across the split), and one kept whole. (In the sets
    // below, too, the causal cases are split.)
    for (auto [causal, seqQ, seqK, pos] :
         {std::tuple<bool, int64_t, int64_t, int64_t>{false, 130, 130, 0},
          {true, 130, 130, 0},
          {true, 64, 1000, 936},
          {false, 64, 64, 0},
          {true, 64, 0, 0}}) {
      add(64, causal, seqQ, seqK, pos, 2, causal);
      cases.back().specialize = true;
    }
    add(64, true, 64, 1000, 936, 2, false); // whole
    cases.back().specialize = true;
    add(128, false, 130, 130, 0, 0, false);
    cases.back().specialize = true;
    // Two consumer warpgroups on 3-stage rings (the attention API's):
    // 0, 1 and 2 key tiles (the last ragged).
    for (auto [causal, seqQ, seqK] :
         {std::tuple<bool, int64_t, int64_t>{false, 130, 130},
          {true, 130, 130},
          {false, 64, 64},
          {true, 64, 0}}) {
      add(64, causal, seqQ, seqK, 0, 3, causal);
      cases.back().specialize = true;
      cases.back().tileM = 128;
      cases.back().warps = 8;
    }
    // K and V rings of different depths (3 and 2, the API's at head dim
    // 256): 1, 3 and 4 key tiles (the last ragged), masked and not.
    for (auto [causal, seqK] : {std::pair<bool, int64_t>{false, 64},
                                {false, 200},
                                {true, 200},
                                {true, 256}}) {
      add(256, causal, 256, seqK, 0, 0, causal);
      cases.back().specialize = true;
      cases.back().tileM = 128;
      cases.back().warps = 8;
      cases.back().kLatency = 3;
      cases.back().vLatency = 2;
    }
    // Persistent (3 blocks): 3 query tiles of 1 to 3 key tiles on each,
    // specialized with one and two consumer warpgroups, and not.
    for (bool causal : {false, true}) {
      add(64, causal, 1000, 130, 0, 2, false);
      cases.back().specialize = true;
      cases.back().persistent = true;
      add(64, causal, 1000, 130, 0, 2, false);
      cases.back().specialize = true;
      cases.back().tileM = 128;
      cases.back().warps = 8;
      cases.back().persistent = true;
      add(64, causal, 1000, 130, 0, 2, true);
      cases.back().persistent = true;
    }
    // Two consumer warpgroups taking turns: 0, 1 and 3 key tiles.
    for (auto [causal, seqK] : {std::pair<bool, int64_t>{false, 130},
                                {true, 130},
                                {false, 64},
                                {true, 0}}) {
      add(64, causal, causal && !seqK ? 64 : 130, seqK, 0, 2, causal);
      cases.back().specialize = true;
      cases.back().tileM = 128;
      cases.back().warps = 8;
      cases.back().pingPong = true;
    }
    // Persistent, claiming its tiles: 2 query tiles on 3 blocks (a block
    // with none), of 0 and 2 key tiles, with two consumer warpgroups.
    for (int64_t seqK : {0, 130}) {
      add(64, seqK > 0, 64, seqK, seqK > 0 ? 66 : 0, 2, false);
      cases.back().specialize = true;
      cases.back().tileM = 128;
      cases.back().warps = 8;
      cases.back().persistent = true;
    }
    // The attention API's persistent pick at head dim 128 (sm_90a): two
    // consumer warpgroups, 128 x 128, Q in one slot refilled after its
    // last read.
    auto pick128 = [&](bool causal, int64_t seqQ, int64_t seqK) {
      add(128, causal, seqQ, seqK, 0, 2, false);
      cases.back().specialize = true;
      cases.back().tileM = 128;
      cases.back().tileN = 128;
      cases.back().warps = 8;
      cases.back().persistent = true;
      cases.back().tileStages = 1;
      cases.back().tileRefill = true;
    };
    // Persistent in clusters of two (K and V multicast without a mask):
    // 8 query tiles of 2 key tiles (the last ragged) on one cluster, 2 of 1
    // key tile, no keys; masked (clustered, nothing multicast).
    for (auto [causal, seqQ, seqK] :
         {std::tuple<bool, int64_t, int64_t>{false, 1000, 130},
          {false, 130, 64},
          {false, 256, 0},
          {true, 256, 256}}) {
      if (!config.sm90a())
        break;
      pick128(causal, seqQ, seqK);
      cases.back().cluster = 2;
    }
    // Causal, the loop split, the default kernel persistent in clusters of
    // 2 and 4: each split loop's rings made and invalidated per tile, the
    // claims cluster-wide; 4 query tiles of 1 to 4 key tiles (the last
    // ragged), and no keys.
    for (unsigned cluster : {2u, 4u})
      for (int64_t seqK : {int64_t(250), int64_t(0)}) {
        if (!config.sm90a())
          break;
        add(64, true, 256, seqK, 0, 2, true);
        cases.back().persistent = true;
        cases.back().cluster = cluster;
      }
    // Persistent with its epilogue under the next tile's first multiply
    // (tile-defer-epilogue): 8 query tiles of 2 key tiles on 3 blocks, 2
    // query tiles of 1 key tile (a block with none), no keys.
    for (auto [seqQ, seqK] :
         {std::pair<int64_t, int64_t>{1000, 130}, {130, 64}, {130, 0}}) {
      add(64, false, seqQ, seqK, 0, 2, false);
      cases.back().specialize = true;
      cases.back().tileM = 128;
      cases.back().warps = 8;
      cases.back().persistent = true;
      cases.back().deferEpilogue = true;
    }
    // The rotated loop's O * alpha at the end of its trip
    // (rescale-in-trip) on that pick: 4 query tiles on 3 blocks of 1 to 4
    // key tiles (causal) and of 2 (the last ragged), and 2 of 1 key tile
    // (the loop not run).
    for (auto [causal, seqQ, seqK] :
         {std::tuple<bool, int64_t, int64_t>{true, 400, 400},
          {false, 400, 200},
          {false, 130, 64}}) {
      if (!config.sm90a())
        break;
      pick128(causal, seqQ, seqK);
      cases.back().rescaleInTrip = true;
    }
    // Persistent at head dim 128 with K and V rings of 3 and 2, the
    // epilogue staged in the tile's Q slot: 4 query tiles on 3 blocks.
    add(128, true, 400, 400, 0, 0, false);
    cases.back().specialize = true;
    cases.back().tileM = 128;
    cases.back().warps = 8;
    cases.back().persistent = true;
    cases.back().kLatency = 3;
    cases.back().vLatency = 2;
    // Persistent with each tile's Q in one slot (tile-stages=1), which
    // stages the output too: 4 query tiles on 3 blocks, 1 to 4 key tiles
    // (causal), at head dims 128 and 256; 0 key tiles. The same with the
    // slot refilled after each tile's last read (tile-refill-after-read:
    // the consumers release it inside the rotated loop's branch, and at
    // 256 stage the output in two halves through a buffer of its own).
    for (bool refill : {false, true})
      for (auto [d, causal, seqK] :
           {std::tuple<int64_t, bool, int64_t>{128, true, 400},
            {256, true, 400},
            {128, false, 0}}) {
        add(d, causal, 400, seqK, 0, 2, false);
        cases.back().specialize = true;
        cases.back().tileM = 128;
        cases.back().warps = 8;
        cases.back().persistent = true;
        cases.back().tileStages = 1;
        cases.back().tileRefill = refill;
      }
    return cases;
  }
  std::vector<int64_t> seqs = {1, 17, 64, 100, 128, 1000, 1024};
  if (config.quick)
    seqs = {17, 128, 1000};
  for (DType dtype : {DType::F16, DType::BF16})
    for (int64_t d : {64, 128})
      for (bool causal : {false, true})
        for (int64_t group : {1, 4, 8}) {
          for (int64_t seq : seqs)
            cases.push_back({dtype, d, causal, group, seq, seq, 0});
          // Queries after a prefix of keys (input_pos > 0, seq_q < seq_k).
          cases.push_back({dtype, d, causal, group, 100, 200, 100});
          if (!config.quick)
            cases.push_back({dtype, d, causal, group, 17, 1000, 983});
        }
  if (!config.quick)
    for (DType dtype : {DType::F16, DType::BF16})
      for (int64_t d : {64, 128}) {
        cases.push_back({dtype, d, true, 4, 4096, 4096, 0});
        cases.push_back({dtype, d, false, 1, 4096, 4096, 0});
      }
  pipelineAttentionCases(cases);
  emptyAttentionCases(cases);
  return cases;
}

void prepareFlashAttention(Wanted &wanted) {
  for (const Attention &t : attentionCases())
    for (Mode mode : modes())
      wanted.emplace_back(mode, "flash_attention", attentionBuild(t));
}

void runFlashAttention(std::mt19937_64 &rng) {
  wholeProgramCheck();
  clusterGridCheck();
  for (const Attention &t : attentionCases())
    flashAttention(t, rng);
}

} // namespace kernelgpu
