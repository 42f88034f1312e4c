//===- Memory.cpp - GPU memory, streams and events for embedders ----------===//
//
// Thin wrappers over the driver, so that a program using libtile needs no
// CUDA library of its own. Each checks its result and names the call.
//
//===----------------------------------------------------------------------===//

#include "RuntimeImpl.h"

using namespace tile;
using namespace tile::detail;

/// The runtime's context, current on this thread.
static Expected<const GpuContext *> currentGpu() {
  Expected<const GpuContext *> gpu = gpuContext();
  if (!gpu)
    return gpu;
  if (Status status = makeCurrent(**gpu); !status.ok())
    return status;
  return gpu;
}

static Status check(const GpuContext *gpu, CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return Status();
  return Status::error(gpu->driver->errorText(result, call));
}

Expected<DeviceInfo> tile::deviceInfo() {
  Expected<const GpuContext *> gpu = currentGpu();
  if (!gpu)
    return gpu.status();
  return (*gpu)->info;
}

Expected<void *> tile::deviceAlloc(size_t bytes) {
  Expected<const GpuContext *> gpu = currentGpu();
  if (!gpu)
    return gpu.status();
  CUdeviceptr pointer = 0;
  if (bytes == 0)
    return static_cast<void *>(nullptr);
  Status status =
      check(*gpu, (*gpu)->driver->cuMemAlloc_v2(&pointer, bytes), "cuMemAlloc");
  if (!status.ok())
    return Status::error(status.message() + " (" + std::to_string(bytes) +
                         " bytes)");
  return reinterpret_cast<void *>(pointer);
}

Status tile::deviceFree(void *pointer) {
  if (!pointer)
    return Status();
  Expected<const GpuContext *> gpu = currentGpu();
  if (!gpu)
    return gpu.status();
  return check(
      *gpu,
      (*gpu)->driver->cuMemFree_v2(reinterpret_cast<CUdeviceptr>(pointer)),
      "cuMemFree");
}

Status tile::copyToDevice(void *dst, const void *src, size_t bytes) {
  if (bytes == 0)
    return Status();
  Expected<const GpuContext *> gpu = currentGpu();
  if (!gpu)
    return gpu.status();
  return check(*gpu,
               (*gpu)->driver->cuMemcpyHtoD_v2(
                   reinterpret_cast<CUdeviceptr>(dst), src, bytes),
               "cuMemcpyHtoD");
}

Status tile::copyToHost(void *dst, const void *src, size_t bytes) {
  if (bytes == 0)
    return Status();
  Expected<const GpuContext *> gpu = currentGpu();
  if (!gpu)
    return gpu.status();
  return check(*gpu,
               (*gpu)->driver->cuMemcpyDtoH_v2(
                   dst, reinterpret_cast<CUdeviceptr>(src), bytes),
               "cuMemcpyDtoH");
}

Status tile::deviceMemset(void *dst, uint8_t value, size_t bytes) {
  if (bytes == 0)
    return Status();
  Expected<const GpuContext *> gpu = currentGpu();
  if (!gpu)
    return gpu.status();
  return check(*gpu,
               (*gpu)->driver->cuMemsetD8_v2(reinterpret_cast<CUdeviceptr>(dst),
                                             value, bytes),
               "cuMemsetD8");
}

Status tile::deviceMemsetAsync(void *dst, uint8_t value, size_t bytes,
                               Stream stream) {
  if (bytes == 0)
    return Status();
  Expected<const GpuContext *> gpu = currentGpu();
  if (!gpu)
    return gpu.status();
  return check(*gpu,
               (*gpu)->driver->cuMemsetD8Async(
                   reinterpret_cast<CUdeviceptr>(dst), value, bytes,
                   reinterpret_cast<CUstream>(stream)),
               "cuMemsetD8Async");
}

Status tile::synchronize(Stream stream) {
  Expected<const GpuContext *> gpu = currentGpu();
  if (!gpu)
    return gpu.status();
  return check(
      *gpu,
      (*gpu)->driver->cuStreamSynchronize(reinterpret_cast<CUstream>(stream)),
      "cuStreamSynchronize");
}

Status tile::synchronizeDevice() {
  Expected<const GpuContext *> gpu = currentGpu();
  if (!gpu)
    return gpu.status();
  return check(*gpu, (*gpu)->driver->cuCtxSynchronize(), "cuCtxSynchronize");
}

Expected<Stream> tile::createStream() {
  Expected<const GpuContext *> gpu = currentGpu();
  if (!gpu)
    return gpu.status();
  CUstream stream = nullptr;
  if (Status status = check(
          *gpu, (*gpu)->driver->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
          "cuStreamCreate");
      !status.ok())
    return status;
  return reinterpret_cast<Stream>(stream);
}

Status tile::destroyStream(Stream stream) {
  if (!stream)
    return Status();
  Expected<const GpuContext *> gpu = currentGpu();
  if (!gpu)
    return gpu.status();
  return check(
      *gpu,
      (*gpu)->driver->cuStreamDestroy_v2(reinterpret_cast<CUstream>(stream)),
      "cuStreamDestroy");
}

Expected<Event> Event::create() {
  Expected<const GpuContext *> gpu = currentGpu();
  if (!gpu)
    return gpu.status();
  CUevent event = nullptr;
  if (Status status =
          check(*gpu, (*gpu)->driver->cuEventCreate(&event, CU_EVENT_DEFAULT),
                "cuEventCreate");
      !status.ok())
    return status;
  Event result;
  result.handle = event;
  return Expected<Event>(std::move(result));
}

Event &Event::operator=(Event &&other) noexcept {
  if (this != &other) {
    this->~Event();
    handle = other.handle;
    other.handle = nullptr;
  }
  return *this;
}

Event::~Event() {
  if (!handle)
    return;
  if (Expected<const GpuContext *> gpu = gpuContext())
    (*gpu)->driver->cuEventDestroy_v2(static_cast<CUevent>(handle));
  handle = nullptr;
}

Status Event::record(Stream stream) {
  if (!handle)
    return Status::error("cuEventRecord: invalid (empty) event");
  Expected<const GpuContext *> gpu = currentGpu();
  if (!gpu)
    return gpu.status();
  return check(
      *gpu,
      (*gpu)->driver->cuEventRecord(static_cast<CUevent>(handle),
                                    reinterpret_cast<CUstream>(stream)),
      "cuEventRecord");
}

Status Event::synchronize() {
  if (!handle)
    return Status::error("cuEventSynchronize: invalid (empty) event");
  Expected<const GpuContext *> gpu = currentGpu();
  if (!gpu)
    return gpu.status();
  return check(*gpu,
               (*gpu)->driver->cuEventSynchronize(static_cast<CUevent>(handle)),
               "cuEventSynchronize");
}

Expected<float> Event::elapsedMsSince(const Event &start) const {
  if (!handle || !start.handle)
    return Status::error("cuEventElapsedTime: invalid (empty) event");
  Expected<const GpuContext *> gpu = currentGpu();
  if (!gpu)
    return gpu.status();
  float ms = 0;
  if (Status status = check(*gpu,
                            (*gpu)->driver->cuEventElapsedTime_v2(
                                &ms, static_cast<CUevent>(start.handle),
                                static_cast<CUevent>(handle)),
                            "cuEventElapsedTime");
      !status.ok())
    return status;
  return ms;
}

Expected<float> tile::detail::timeCapturedLaunches(
    Stream caller, unsigned iterations,
    llvm::function_ref<Status(Stream)> launchOn) {
  Expected<const GpuContext *> gpu = currentGpu();
  if (!gpu)
    return gpu.status();
  const CudaDriver &d = *(*gpu)->driver;
  if (!d.cuStreamBeginCapture_v2 || !d.cuStreamEndCapture ||
      !d.cuGraphInstantiateWithFlags || !d.cuGraphLaunch ||
      !d.cuGraphExecDestroy || !d.cuGraphDestroy || !d.cuGraphGetNodes)
    return Status::error(kNoGraphs);
  // The caller's work first (the inputs), then a stream of our own: the
  // caller's may be the legacy default stream, which cannot capture.
  if (Status status = synchronize(caller); !status.ok())
    return status;
  Expected<Stream> own = createStream();
  if (!own)
    return own.status();
  CUstream stream = reinterpret_cast<CUstream>(*own);
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  auto cleanup = [&] {
    if (exec)
      d.cuGraphExecDestroy(exec);
    if (graph)
      d.cuGraphDestroy(graph);
    (void)destroyStream(*own);
  };
  // Relaxed: a launch may allocate (a descriptor's stand-in, a tile
  // counter) on first use.
  Status status = check(
      *gpu, d.cuStreamBeginCapture_v2(stream, CU_STREAM_CAPTURE_MODE_RELAXED),
      "cuStreamBeginCapture");
  if (status.ok()) {
    for (unsigned i = 0; i < iterations && status.ok(); ++i)
      status = launchOn(*own);
    // End the capture whatever happened, so that the stream is usable.
    Status ended =
        check(*gpu, d.cuStreamEndCapture(stream, &graph), "cuStreamEndCapture");
    if (status.ok())
      status = ended;
  }
  // Launches that went to another stream ran, uncaptured: the graph
  // would time nothing.
  size_t nodes = 0;
  if (status.ok())
    status = check(*gpu, d.cuGraphGetNodes(graph, nullptr, &nodes),
                   "cuGraphGetNodes");
  if (status.ok() && nodes < iterations)
    status = Status::error("the launches did not go to the stream they were "
                           "given (" +
                           std::to_string(nodes) + " captured of " +
                           std::to_string(iterations) + ")");
  if (status.ok())
    status = check(*gpu, d.cuGraphInstantiateWithFlags(&exec, graph, 0),
                   "cuGraphInstantiate");
  Expected<Event> start = Event::create();
  Expected<Event> end = Event::create();
  if (status.ok() && !start)
    status = start.status();
  if (status.ok() && !end)
    status = end.status();
  // One replay to warm up, one timed.
  if (status.ok())
    status = check(*gpu, d.cuGraphLaunch(exec, stream), "cuGraphLaunch");
  if (status.ok())
    status = start->record(*own);
  if (status.ok())
    status = check(*gpu, d.cuGraphLaunch(exec, stream), "cuGraphLaunch");
  if (status.ok())
    status = end->record(*own);
  if (status.ok())
    status = end->synchronize();
  Expected<float> ms =
      status.ok() ? end->elapsedMsSince(*start) : Expected<float>(status);
  cleanup();
  if (!ms)
    return ms;
  return *ms / float(std::max(1u, iterations));
}
