//===- CApiTest.cpp - tile-runtime-tests ----------------------------------===//
//
// The driver-loading failure path, AOT PTX files, and the C API's error
// reporting.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestSupport.h"

//===----------------------------------------------------------------------===//
// Without a GPU
//===----------------------------------------------------------------------===//

static bool haveDriver() {
  std::string error;
  return CudaDriver::get(error) != nullptr;
}

TEST(Driver, MissingLibraryIsAClearError) {
  std::string error;
  std::unique_ptr<CudaDriver> driver =
      CudaDriver::load({"/nonexistent/libcuda.so.1", "libnocuda.so.9"}, error);
  EXPECT_FALSE(driver);
  EXPECT_EQ(error.rfind("CUDA driver not found: "
                        "dlopen(/nonexistent/libcuda.so.1) failed: ",
                        0),
            0u)
      << error;
  EXPECT_NE(error.find("(also tried libnocuda.so.9)"), std::string::npos)
      << error;

  if (haveDriver())
    GTEST_SKIP() << "a CUDA driver is installed; the no-driver path of the "
                    "process-wide runtime cannot be exercised here";
  const CudaDriver *global = CudaDriver::get(error);
  EXPECT_FALSE(global);
  EXPECT_TRUE(error.rfind("CUDA driver not found: dlopen(libcuda.so.1) "
                          "failed: ",
                          0) == 0 ||
              error.rfind("no CUDA device", 0) == 0)
      << error;

  // Everything that needs the GPU says so, and keeps saying so.
  for (int i = 0; i < 2; ++i) {
    Expected<DeviceInfo> info = deviceInfo();
    ASSERT_FALSE(info);
    EXPECT_EQ(info.status().message(), error);
  }
  Expected<void *> memory = deviceAlloc(1024);
  ASSERT_FALSE(memory);
  EXPECT_EQ(memory.status().message(), error);
  EXPECT_FALSE(synchronize().ok());
  EXPECT_FALSE(Event::create());

  // Compiling for "the current GPU" needs one; loading PTX too.
  auto compiler = std::make_shared<FakeCompiler>();
  RuntimeImpl runtime(fakeConfig("", compiler));
  Expected<Kernel> kernel = runtime.compile("k", "k.tile", CompileOptions());
  ASSERT_FALSE(kernel);
  EXPECT_EQ(kernel.status().message(),
            "cannot choose an arch for the current GPU (set "
            "CompileOptions::arch to compile without one): " +
                error);
  kernel = runtime.compile("k", "k.tile", sm90());
  ASSERT_FALSE(kernel);
  EXPECT_EQ(kernel.status().message(), error);
  EXPECT_EQ(compiler->calls.load(), 1) << "compiled before needing the GPU";
}

TEST(LoadPTX, ChecksTheFile) {
  auto compiler = std::make_shared<FakeCompiler>();
  RuntimeImpl runtime(fakeConfig("", compiler));
  Expected<Kernel> kernel = runtime.loadPTX(".version 8.0\n", "x.ptx");
  ASSERT_FALSE(kernel);
  EXPECT_EQ(kernel.status().message().rfind("x.ptx: not a tilec PTX file", 0),
            0u)
      << kernel.status().message();

  KernelInfo info;
  info.name = "k";
  std::string header = "// tilec-kernel: " + info.toJSON() + "\n";
  kernel = runtime.loadPTX(header + ".visible .entry a() { ret; }\n"
                                    ".visible .entry b() { ret; }\n",
                           "two.ptx");
  ASSERT_FALSE(kernel);
  EXPECT_EQ(kernel.status().message(),
            "two.ptx: holds 2 kernel entry points; libtile loads PTX files of "
            "exactly one kernel");
  if (haveDriver())
    return;
  kernel = runtime.loadPTX(header + ".visible .entry k() { ret; }\n", "k.ptx");
  ASSERT_FALSE(kernel);
  EXPECT_NE(kernel.status().message().find("CUDA driver not found"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// The C API
//===----------------------------------------------------------------------===//

TEST(CApi, ErrorsPropagate) {
  tile_kernel kernel = reinterpret_cast<tile_kernel>(0x1);
  EXPECT_EQ(tile_compile_file("/nonexistent/k.tile", nullptr, &kernel),
            TILE_ERROR);
  EXPECT_EQ(kernel, nullptr);
  std::string message = tile_last_error();
  EXPECT_EQ(message.rfind("cannot read '/nonexistent/k.tile': ", 0), 0u)
      << message;

  EXPECT_EQ(tile_load_ptx("/nonexistent/k.ptx", &kernel), TILE_ERROR);
  EXPECT_NE(std::string(tile_last_error()).find("/nonexistent/k.ptx"),
            std::string::npos);
  EXPECT_EQ(tile_compile_source(nullptr, "x", nullptr, &kernel), TILE_ERROR);
  EXPECT_EQ(tile_kernel_launch(nullptr, 1, 1, 1, nullptr, nullptr, 0),
            TILE_ERROR);
  EXPECT_STREQ(tile_last_error(), "tile_kernel_launch: NULL kernel");

  tile_constant constant = {"TILE", nullptr};
  tile_compile_options options = {&constant, 1, nullptr, "sm_90a", nullptr};
  EXPECT_EQ(tile_compile_source("kernel", "k.tile", &options, &kernel),
            TILE_ERROR);
  EXPECT_STREQ(tile_last_error(),
               "tile_compile_options: constants[0] has a NULL name or value");
  // The options' text reaches CompileOptions (and is checked before
  // compiling): a value out of range, a name that is no option.
  tile_compile_options stages = {};
  stages.arch = "sm_90a";
  stages.options = "num_stages=17,loop_split=off";
  EXPECT_EQ(tile_compile_source("kernel", "k.tile", &stages, &kernel),
            TILE_ERROR);
  EXPECT_STREQ(tile_last_error(),
               "tile_compile_options: num_stages must be 0 or an integer "
               "from 1 to 16, got 17");
  stages.options = "num_warp=8";
  EXPECT_EQ(tile_compile_source("kernel", "k.tile", &stages, &kernel),
            TILE_ERROR);
  EXPECT_EQ(std::string(tile_last_error())
                .rfind("tile_compile_options: unknown option 'num_warp' (the "
                       "options are num_warps, num_stages,",
                       0),
            0u)
      << tile_last_error();

  // Arguments, on a kernel built from its description.
  tile_kernel fmha =
      reinterpret_cast<tile_kernel>(makeUnloadedKernel(fmhaInfo()).get());
  EXPECT_STREQ(tile_kernel_name(fmha), "fmha");
  EXPECT_EQ(tile_kernel_num_params(fmha), 6u);
  EXPECT_EQ(tile_kernel_num_warps(fmha), 4u);
  EXPECT_EQ(tile_kernel_shared_bytes(fmha), 65536u);
  // Not loaded: no machine code, no occupancy.
  EXPECT_EQ(tile_kernel_registers(fmha), 0u);
  EXPECT_EQ(tile_kernel_blocks_per_sm(fmha), 0u);
  EXPECT_EQ(tile_kernel_blocks_per_sm(nullptr), 0u);
  int64_t shape[4] = {2, 8, 128, 64}, strides[4] = {65536, 8192, 64, 1};
  tile_arg args[6];
  for (int i = 0; i < 4; ++i) {
    args[i].kind = TILE_ARG_TENSOR;
    args[i].value.tensor = {fakePointer(256), TILE_F16, 4, shape, strides};
  }
  args[4].kind = TILE_ARG_FLOAT;
  args[4].value.f = 0.125f;
  args[5].kind = TILE_ARG_INT;
  args[5].value.i = 0;
  EXPECT_EQ(tile_kernel_check(fmha, args, 6), TILE_OK) << tile_last_error();
  args[1].value.tensor.rank = 3;
  EXPECT_EQ(tile_kernel_check(fmha, args, 6), TILE_ERROR);
  EXPECT_STREQ(tile_last_error(), "kernel 'fmha': argument 2 ('K'): expected "
                                  "a rank-4 tensor, got rank 3");
  args[1].value.tensor.rank = 4;
  args[1].value.tensor.shape = nullptr;
  EXPECT_EQ(tile_kernel_check(fmha, args, 6), TILE_ERROR);
  EXPECT_STREQ(tile_last_error(),
               "kernel 'fmha': argument 2 ('K'): null shape or strides array");
  args[1].value.tensor.shape = shape;
  args[2].kind = static_cast<tile_arg_kind>(9);
  EXPECT_EQ(tile_kernel_launch(fmha, 1, 1, 1, nullptr, args, 6), TILE_ERROR);
  EXPECT_STREQ(tile_last_error(), "argument 3: unknown tile_arg kind 9");
  EXPECT_EQ(tile_kernel_check(fmha, nullptr, 6), TILE_ERROR);
  EXPECT_STREQ(tile_last_error(),
               "tile_kernel_launch: num_args is 6 but args is NULL");
  EXPECT_EQ(tile_kernel_check(fmha, args, 0), TILE_ERROR);
  std::string mine = tile_last_error();
  EXPECT_EQ(mine, "kernel 'fmha': expected 6 arguments (Q, K, V, Out, "
                  "qk_scale, input_pos), got 0");

  // The message is per thread.
  std::string other;
  std::thread([&] {
    EXPECT_STREQ(tile_last_error(), "");
    tile_load_ptx(nullptr, nullptr);
    other = tile_last_error();
  }).join();
  EXPECT_EQ(other, "tile_load_ptx: NULL path or kernel pointer");
  EXPECT_EQ(tile_last_error(), mine);

  tile_stats stats;
  EXPECT_EQ(tile_runtime_stats(&stats), TILE_OK);
  EXPECT_EQ(tile_runtime_stats(nullptr), TILE_ERROR);
}
