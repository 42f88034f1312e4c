//===- ArgumentsTest.cpp - tile-runtime-tests -----------------------------===//
//
// Argument checking and packing, on kernels built from a description with no
// CUDA module.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestSupport.h"

//===----------------------------------------------------------------------===//
// Arguments
//===----------------------------------------------------------------------===//

TEST(Arguments, PacksPerTheABI) {
  KernelInfo info = fmhaInfo();
  std::vector<Arg> args = fmhaArgs(100);
  args[5] = 37;
  ArgRefs refs;
  toArgRefs(args, refs);
  PackedArgs packed;
  AlignmentFit fit;
  Status status = checkArguments(info, refs, packed, fit);
  ASSERT_TRUE(status.ok()) << status.message();

  // Per tensor: base, 4 sizes, 4 strides; then qk_scale and input_pos.
  ASSERT_EQ(packed.values.size(), 4u * 9 + 2);
  ASSERT_EQ(packed.pointers.size(), packed.values.size());
  for (size_t i = 0; i < packed.values.size(); ++i)
    EXPECT_EQ(packed.pointers[i], &packed.values[i]);
  const Tensor &q = args[0].tensor();
  EXPECT_EQ(packed.values[0], reinterpret_cast<uintptr_t>(q.data));
  uint32_t size;
  for (int d = 0; d < 4; ++d) {
    std::memcpy(&size, packed.pointers[1 + d], sizeof(size));
    EXPECT_EQ(size, q.shape[d]);
    uint64_t stride;
    std::memcpy(&stride, packed.pointers[5 + d], sizeof(stride));
    EXPECT_EQ(static_cast<int64_t>(stride), q.strides[d]);
  }
  float scale;
  std::memcpy(&scale, packed.pointers[36], sizeof(scale));
  EXPECT_EQ(scale, 0.125f);
  int32_t pos;
  std::memcpy(&pos, packed.pointers[37], sizeof(pos));
  EXPECT_EQ(pos, 37);
  // Every tensor has the alignment its parameter asks for: nothing narrows
  // the fit.
  EXPECT_EQ(fit.alignment, 1u << 30);
  EXPECT_FALSE(fit.alignmentOnly);
}

TEST(Arguments, ScalarConversions) {
  KernelInfo info;
  info.name = "scalars";
  info.params = {scalarParam("i", ScalarKind::I32),
                 scalarParam("f", ScalarKind::F32),
                 scalarParam("b", ScalarKind::Bool)};
  Kernel kernel = makeUnloadedKernel(info);
  EXPECT_TRUE(kernel.check({-5, 3, true}).ok()) << "an int fits a float";
  EXPECT_TRUE(kernel.check({int64_t(INT32_MIN), 2.5, false}).ok());

  ArgRefs refs;
  std::vector<Arg> args = {-1, 3, true};
  toArgRefs(args, refs);
  PackedArgs packed;
  AlignmentFit fit;
  ASSERT_TRUE(checkArguments(info, refs, packed, fit).ok());
  uint32_t i, b;
  float f;
  std::memcpy(&i, packed.pointers[0], 4);
  std::memcpy(&f, packed.pointers[1], 4);
  std::memcpy(&b, packed.pointers[2], 4);
  EXPECT_EQ(i, 0xffffffffu);
  EXPECT_EQ(f, 3.0f);
  EXPECT_EQ(b, 1u);
}

TEST(Arguments, Int64Scalars) {
  KernelInfo info;
  info.name = "wide";
  info.params = {scalarParam("n", ScalarKind::I64),
                 scalarParam("i", ScalarKind::I32)};
  Kernel kernel = makeUnloadedKernel(info);
  // Any 64-bit int, where an i32 parameter refuses what does not fit.
  EXPECT_TRUE(kernel.check({INT64_MIN, 1}).ok());
  EXPECT_EQ(kernel.check({int64_t(1) << 40, int64_t(1) << 40}).message(),
            "kernel 'wide': argument 2 ('i'): value 1099511627776 does not "
            "fit the kernel's 32-bit int");
  EXPECT_EQ(kernel.check({2.5, 1}).message(),
            "kernel 'wide': argument 1 ('n'): expected an int, got a float");

  ArgRefs refs;
  std::vector<Arg> args = {(int64_t(1) << 40) + 3, -2};
  toArgRefs(args, refs);
  PackedArgs packed;
  AlignmentFit fit;
  ASSERT_TRUE(checkArguments(info, refs, packed, fit).ok());
  int64_t n;
  int32_t i;
  std::memcpy(&n, packed.pointers[0], 8);
  std::memcpy(&i, packed.pointers[1], 4);
  EXPECT_EQ(n, (int64_t(1) << 40) + 3);
  EXPECT_EQ(i, -2);
}

TEST(Arguments, IntForFloatIsExactOrRefused) {
  KernelInfo info;
  info.name = "scalars";
  info.params = {scalarParam("i", ScalarKind::I32),
                 scalarParam("f", ScalarKind::F32)};
  Kernel kernel = makeUnloadedKernel(info);
  // Every int up to 2^24 has a float, and so has every power of two.
  EXPECT_TRUE(kernel.check({0, 1 << 24}).ok());
  EXPECT_TRUE(kernel.check({0, -(1 << 24)}).ok());
  EXPECT_TRUE(kernel.check({0, int64_t(1) << 40}).ok());
  EXPECT_TRUE(kernel.check({0, (int64_t(1) << 25) + 4}).ok());
  EXPECT_FALSE(kernel.check({0, (int64_t(1) << 25) + 2}).ok());
  EXPECT_EQ(kernel.check({0, (1 << 24) + 1}).message(),
            "kernel 'scalars': argument 2 ('f'): the int 16777217 has no "
            "exact 32-bit float value (the nearest is 16777216); pass a float "
            "to round it");
  EXPECT_FALSE(kernel.check({0, INT64_MAX}).ok());
  EXPECT_FALSE(kernel.check({0, INT64_MIN + 1}).ok());
  EXPECT_TRUE(kernel.check({0, INT64_MIN}).ok()) << "-2^63 is a float";
  // A float for an int parameter is refused, whatever its value.
  EXPECT_EQ(kernel.check({2.0, 1}).message(),
            "kernel 'scalars': argument 1 ('i'): expected an int, got a float");
  EXPECT_EQ(kernel.check({2.0f, 1}).message(),
            "kernel 'scalars': argument 1 ('i'): expected an int, got a float");
}

/// check()'s message for `args` on `info`'s kernel.
static std::string checkMessage(const KernelInfo &info,
                                const std::vector<Arg> &args) {
  return makeUnloadedKernel(info).check(args).message();
}

TEST(Arguments, ClearErrors) {
  KernelInfo info = fmhaInfo();
  Kernel kernel = makeUnloadedKernel(info);
  ASSERT_TRUE(kernel.check(fmhaArgs()).ok())
      << kernel.check(fmhaArgs()).message();
  EXPECT_EQ(kernel.name(), "fmha");
  EXPECT_EQ(kernel.params().size(), 6u);
  EXPECT_EQ(kernel.params()[0].kind, ParamInfo::Kind::Tensor);
  EXPECT_EQ(kernel.params()[0].dtype, DType::F16);
  EXPECT_EQ(kernel.params()[4].kind, ParamInfo::Kind::Float);
  EXPECT_EQ(kernel.sharedBytes(), 65536u);

  auto with = [&](size_t index, Arg arg) {
    std::vector<Arg> args = fmhaArgs();
    args[index] = std::move(arg);
    return checkMessage(info, args);
  };
  Tensor good = fmhaArgs()[1].tensor();
  auto modified = [&](auto change) {
    Tensor t = good;
    change(t);
    return t;
  };

  EXPECT_EQ(with(1, Tensor::contiguous(good.data, DType::F16, {2, 8, 128})),
            "kernel 'fmha': argument 2 ('K'): expected a rank-4 tensor, got "
            "rank 3");

  std::vector<Arg> five = fmhaArgs();
  five.pop_back();
  EXPECT_EQ(checkMessage(info, five),
            "kernel 'fmha': expected 6 arguments (Q, K, V, Out, qk_scale, "
            "input_pos), got 5");
  EXPECT_EQ(
      with(2, Tensor::contiguous(good.data, DType::BF16, {2, 8, 128, 64})),
      "kernel 'fmha': argument 3 ('V'): expected a f16 tensor, got a "
      "bf16 tensor");
  EXPECT_EQ(with(0, 1.5f),
            "kernel 'fmha': argument 1 ('Q'): expected a rank-4 f16 tensor, "
            "got a float");
  EXPECT_EQ(with(4, good),
            "kernel 'fmha': argument 5 ('qk_scale'): expected a float, got a "
            "f16 tensor of rank 4");
  EXPECT_EQ(with(5, 1.0f),
            "kernel 'fmha': argument 6 ('input_pos'): expected an int, got a "
            "float");
  EXPECT_EQ(with(5, int64_t(1) << 32),
            "kernel 'fmha': argument 6 ('input_pos'): value 4294967296 does "
            "not fit the kernel's 32-bit int");
  EXPECT_EQ(with(5, true),
            "kernel 'fmha': argument 6 ('input_pos'): expected an int, got a "
            "bool");
  EXPECT_EQ(with(0, modified([](Tensor &t) { t.strides.pop_back(); })),
            "kernel 'fmha': argument 1 ('Q'): the shape has 4 entries but the "
            "strides have 3; a rank-4 tensor needs one of each per dimension");
  EXPECT_EQ(with(0, modified([](Tensor &t) { t.shape[2] = -1; })),
            "kernel 'fmha': argument 1 ('Q'): shape[2] = -1 is negative");
  EXPECT_EQ(with(0, modified([](Tensor &t) { t.shape[2] = int64_t(1) << 31; })),
            "kernel 'fmha': argument 1 ('Q'): shape[2] = 2147483648 exceeds "
            "2^31-1, the largest size the kernel ABI carries");
  EXPECT_EQ(with(0, modified([](Tensor &t) { t.strides[1] = -64; })),
            "kernel 'fmha': argument 1 ('Q'): strides[1] = -64 is negative; "
            "negative strides are not supported");
  EXPECT_EQ(with(3, modified([](Tensor &t) { t.data = nullptr; })),
            "kernel 'fmha': argument 4 ('Out'): null data pointer for a "
            "non-empty tensor of shape [2, 8, 128, 64]");
  EXPECT_EQ(with(1, modified([](Tensor &t) { t.strides[3] = 2; })),
            "kernel 'fmha': argument 2 ('K'): the kernel needs a contiguous "
            "last dimension (stride 1), got strides [65536, 8192, 64, 2]");

  // Alignment: this kernel has no source to recompile, so it is an error.
  std::string message =
      with(0, modified([](Tensor &t) { t.data = fakePointer(8); }));
  EXPECT_NE(message.find("argument 1 ('Q'): base pointer 0x"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("is not 16-byte aligned, which the kernel assumes"),
            std::string::npos)
      << message;
  EXPECT_EQ(with(2, modified([](Tensor &t) {
                   t.shape[3] = 60;
                   t.strides = {8 * 128 * 60, 128 * 60, 60, 1};
                 })),
            "kernel 'fmha': argument 3 ('V'): the last dimension (60 elements, "
            "120 bytes) is not a multiple of 16 bytes, which the kernel "
            "assumes");
  message = with(0, modified([](Tensor &t) { t.data = fakePointer(1); }));
  EXPECT_NE(message.find("is not aligned to the element size (2 bytes)"),
            std::string::npos)
      << message;
}

TEST(Arguments, LenientWhereHarmless) {
  KernelInfo info = fmhaInfo();
  Kernel kernel = makeUnloadedKernel(info);
  // Empty tensors may have a null pointer.
  std::vector<Arg> args = fmhaArgs();
  args[0] = Tensor(nullptr, DType::F16, {2, 8, 0, 64}, {0, 0, 64, 1});
  EXPECT_TRUE(kernel.check(args).ok()) << kernel.check(args).message();
  // A last dimension of size 1 needs no unit stride (and gets one). Its
  // length, one element, bounds the alignment the kernel may assume: vector
  // accesses along it would read past the row.
  KernelInfo vec;
  vec.name = "v";
  vec.params = {tensorParam("A", ElementKind::F32, 2)};
  vec.params[0].alignment = 4;
  std::vector<Arg> column = {
      Tensor(fakePointer(64), DType::F32, {16, 1}, {4, 7})};
  ArgRefs refs;
  toArgRefs(column, refs);
  PackedArgs packed;
  AlignmentFit fit;
  Status status = checkArguments(vec, refs, packed, fit);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(packed.values[4], 1u);
  // Strides of size-1 dimensions are never used: no alignment needed.
  std::vector<Arg> single = {
      Tensor(fakePointer(64), DType::F32, {1, 8}, {3, 1})};
  EXPECT_TRUE(makeUnloadedKernel(vec).check(single).ok());
}

TEST(Arguments, AlignmentFit) {
  KernelInfo info = fmhaInfo();
  std::vector<Arg> args = fmhaArgs();
  Tensor t = args[2].tensor();
  t.data = fakePointer(4);
  args[2] = t;
  ArgRefs refs;
  toArgRefs(args, refs);
  PackedArgs packed;
  AlignmentFit fit;
  EXPECT_FALSE(checkArguments(info, refs, packed, fit).ok());
  EXPECT_TRUE(fit.alignmentOnly);
  EXPECT_EQ(fit.alignment, 4u);
  // Another problem wins over alignment.
  args[5] = 1.5f;
  toArgRefs(args, refs);
  EXPECT_FALSE(checkArguments(info, refs, packed, fit).ok());
  EXPECT_FALSE(fit.alignmentOnly);
}

// Each tensor is checked against its own parameter's alignment (the widest
// vector the kernel reads it in): a tensor read an element at a time takes a
// 4-byte pointer and length, and the fit for a variant comes from the
// tensors that lack their own.
TEST(Arguments, AlignmentPerParameter) {
  KernelInfo info;
  info.name = "lens";
  info.params = {tensorParam("X", ElementKind::F32, 1),
                 tensorParam("Lens", ElementKind::I32, 1, /*alignment=*/4)};
  int64_t xShape[1] = {64}, lensShape[1] = {1}, strides[1] = {1};
  auto run = [&](uintptr_t x, uintptr_t lens, AlignmentFit &fit) {
    std::vector<Arg> args = {
        Tensor{fakePointer(x), DType::F32, {xShape[0]}, {strides[0]}},
        Tensor{fakePointer(lens), DType::I32, {lensShape[0]}, {strides[0]}}};
    ArgRefs refs;
    toArgRefs(args, refs);
    PackedArgs packed;
    return checkArguments(info, refs, packed, fit);
  };
  AlignmentFit fit;
  // One i32 at a 4-byte address: what Lens asks for.
  EXPECT_TRUE(run(256, 260, fit).ok());
  EXPECT_EQ(fit.alignment, 1u << 30);
  // X at 8 bytes lacks its 16: the fit is X's, not Lens's 4.
  EXPECT_FALSE(run(264, 260, fit).ok());
  EXPECT_TRUE(fit.alignmentOnly);
  EXPECT_EQ(fit.alignment, 8u);
}

// A tensor a warp-specialized producer reads ahead of the kernel's writes
// (a sequence's bounds) must not overlap a tensor the kernel writes.
TEST(Arguments, ReadAheadTensorsApartFromWrittenOnes) {
  KernelInfo info;
  info.name = "ahead";
  info.params = {tensorParam("Out", ElementKind::F32, 1),
                 tensorParam("Bounds", ElementKind::I32, 1, /*alignment=*/4),
                 tensorParam("X", ElementKind::F32, 1)};
  info.params[0].written = true;
  info.params[1].readAhead = true;
  auto run = [&](uintptr_t out, uintptr_t bounds, int64_t boundsSize,
                 uintptr_t x) {
    std::vector<Arg> args = {
        Tensor{fakePointer(out), DType::F32, {64}, {1}},
        Tensor{fakePointer(bounds), DType::I32, {boundsSize}, {1}},
        Tensor{fakePointer(x), DType::F32, {64}, {1}}};
    ArgRefs refs;
    toArgRefs(args, refs);
    PackedArgs packed;
    AlignmentFit fit;
    return checkArguments(info, refs, packed, fit);
  };
  // Out covers [0, 256) of its base; Bounds right after it is apart.
  EXPECT_TRUE(run(0, 256, 4, 0).ok()) << "X may overlap Out: not read ahead";
  Status status = run(0, 252, 4, 512);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("argument 2 ('Bounds'): overlaps 'Out', "
                                  "which the kernel writes"),
            std::string::npos)
      << status.message();
  // An empty tensor touches nothing.
  EXPECT_TRUE(run(0, 128, 0, 512).ok());
}

TEST(Arguments, LaunchWithoutModuleFailsCleanly) {
  Kernel kernel = makeUnloadedKernel(fmhaInfo());
  Status status = kernel.launch(Dim3(2, 16), nullptr, fmhaArgs());
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("not loaded on a GPU"), std::string::npos)
      << status.message();
  // Bad arguments are reported before anything else.
  status = kernel.launch(Dim3(2, 16), nullptr, {});
  EXPECT_NE(status.message().find("expected 6 arguments"), std::string::npos);
  // So are impossible grids.
  status = kernel.launch(Dim3(1, 70000), nullptr, fmhaArgs());
  EXPECT_NE(status.message().find("exceeds the CUDA limits"),
            std::string::npos);
  // An empty grid runs nothing.
  EXPECT_TRUE(kernel.launch(Dim3(0, 16), nullptr, fmhaArgs()).ok());
  EXPECT_FALSE(Kernel().launch(Dim3(1), nullptr, {}).ok());
  EXPECT_FALSE(Kernel().check({}).ok());
}
