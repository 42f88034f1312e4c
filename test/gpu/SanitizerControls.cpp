//===- SanitizerControls.cpp - tile-kernel-gpu-tests ----------------------===//
//
// Planted bugs that compute-sanitizer must report (scripts/gpu-sanitize.sh).
//
//===----------------------------------------------------------------------===//

#include "KernelGpuHarness.h"

namespace kernelgpu {

//===----------------------------------------------------------------------===//
// Planted bugs, for scripts/gpu-sanitize.sh
//===----------------------------------------------------------------------===//

// Hand-written PTX kernels with one bug each, loaded through libtile like
// every kernel of the tests (loadPTX), so that a sanitizer run that catches
// nothing can be told from one that does not see libtile's kernels at all:
//   memcheck   thread 0 writes the element one past the end of X
//   racecheck  every thread writes and reads the same shared word, unsynced
//   synccheck  bar.sync reached by the even lanes of each warp only
// Each takes one f32 tensor (the kernel ABI: base, size, stride).
const char *const kControlHeader =
    R"(// tilec-kernel: {"abi":1,"arch":"sm_80","constants":[],"loop_split":true,"name":"control","num_stages":0,"num_warps":4,"params":[{"alignment":16,"contiguous":true,"dtype":"f32","kind":"tensor","name":"X","rank":1}],"shared_bytes":0}
.version 7.8
.target sm_80
.address_size 64
)";

// The entry every control shares, and the shared word racecheck's races on.
const char *const kControlEntry = R"(
.shared .align 4 .b32 cell[32];
.visible .entry control(.param .u64 control_param_0,
                        .param .u32 control_param_1,
                        .param .u64 control_param_2)
.maxntid 128, 1, 1
)";

const char *const kControlMemcheck = R"(
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .reg .f32 %f<2>;
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra DONE;
  ld.param.u64 %rd1, [control_param_0];
  ld.param.u32 %r2, [control_param_1];
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  mov.f32 %f1, 0f3F800000;
  st.global.f32 [%rd3], %f1;
DONE:
  ret;
}
)";

const char *const kControlRacecheck = R"(
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  st.volatile.shared.u32 [cell], %r1;
  ld.volatile.shared.u32 %r2, [cell];
  ld.param.u64 %rd1, [control_param_0];
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
)";

const char *const kControlSynccheck = R"(
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 1;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 bra SKIP;
  bar.sync 0;
SKIP:
  ld.param.u64 %rd1, [control_param_0];
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}
)";

/// Runs the planted bug for `tool`; 0 whatever the kernel did (the
/// sanitizer's report is what counts), 1 when it could not be launched.
int sanitizerControl(const std::string &tool) {
  const char *body = tool == "memcheck"    ? kControlMemcheck
                     : tool == "racecheck" ? kControlRacecheck
                     : tool == "synccheck" ? kControlSynccheck
                                           : nullptr;
  if (!body) {
    std::printf("--sanitize-control: no planted bug for '%s' (memcheck, "
                "racecheck, synccheck)\n",
                tool.c_str());
    return 1;
  }
  tile::Expected<Kernel> kernel = tile::Runtime::get().loadPTX(
      std::string(kControlHeader) + kControlEntry + body);
  if (!kernel) {
    std::printf("control %s: FAIL: %s\n", tool.c_str(),
                kernel.status().message().c_str());
    return 1;
  }
  const int64_t n = 128;
  DeviceBuffer x(n * 4);
  tile::Status status = kernel->launch(tile::Dim3(1), nullptr,
                                       {Tensor(x.get(), DType::F32, {n}, {1})});
  if (status.ok())
    status = tile::synchronize();
  std::printf("control %s: the planted bug ran (%s); the sanitizer must "
              "report it\n",
              tool.c_str(),
              status.ok() ? "no error from CUDA" : status.message().c_str());
  std::fflush(stdout);
  // A DeviceBuffer freed after a fault would exit through check().
  std::_Exit(0);
}

} // namespace kernelgpu
