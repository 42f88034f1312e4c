//===- DecodeChecks.cpp - argument checks the decode operations share -----===//

#include "DecodeChecks.h"

#include <climits>
#include <cmath>
#include <mutex>

using namespace tile;

std::string decode::listText(const std::vector<int64_t> &values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i)
    text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

bool decode::isEmpty(const Tensor &t) {
  for (int64_t s : t.shape)
    if (s == 0)
      return true;
  return false;
}

Status decode::checkTensor(const std::string &op, const Tensor &t,
                           const char *name, size_t rank, const char *dims) {
  auto refuse = [&](const std::string &m) {
    return Status::error(op + ": " + name + ": " + m);
  };
  if (t.shape.size() != rank)
    return refuse("expected a rank-" + std::to_string(rank) + " tensor " +
                  dims + ", got rank " + std::to_string(t.shape.size()));
  if (t.strides.size() != rank)
    return refuse("the shape has " + std::to_string(rank) +
                  " entries but the strides have " +
                  std::to_string(t.strides.size()));
  for (size_t d = 0; d < rank; ++d) {
    if (t.shape[d] < 0 || t.shape[d] > INT32_MAX)
      return refuse("shape[" + std::to_string(d) + "] = " +
                    std::to_string(t.shape[d]) + " is outside 0 .. 2^31-1");
    if (t.strides[d] < 0)
      return refuse("strides[" + std::to_string(d) +
                    "] = " + std::to_string(t.strides[d]) +
                    " is negative; negative strides are not supported");
  }
  if (!t.data && !isEmpty(t))
    return refuse("null data pointer for a non-empty tensor of shape " +
                  listText(t.shape));
  if (rank && t.shape[rank - 1] > 1 && t.strides[rank - 1] != 1)
    return refuse("its last dimension must be contiguous (stride 1), got "
                  "strides " +
                  listText(t.strides));
  return Status();
}

Status decode::checkHalfInputs(const std::string &op, const Tensor &q,
                               const Tensor &cache, const char *cacheName,
                               const char *what) {
  if (q.dtype != DType::F16 && q.dtype != DType::BF16)
    return Status::error(op + ": q: dtype " + dtypeName(q.dtype) +
                         " is not supported; " + what + " takes f16 or bf16");
  if (cache.dtype != q.dtype)
    return Status::error(op + ": " + cacheName + ": dtype " +
                         dtypeName(cache.dtype) + " is not q's " +
                         dtypeName(q.dtype));
  return Status();
}

Status decode::checkCommonOptions(const std::string &op, int64_t numSplits,
                                  const DecodePlan *plan, int64_t batch,
                                  std::optional<float> given, int64_t dims,
                                  float &scale) {
  if (numSplits < 0)
    return Status::error(op + ": numSplits: " + std::to_string(numSplits) +
                         " is negative (0: chosen)");
  if (plan && int64_t(plan->lengths().size()) != batch)
    return Status::error(op + ": plan: made for a batch of " +
                         std::to_string(plan->lengths().size()) +
                         " sequences, q has " + std::to_string(batch));
  scale = given ? *given : 1.0f / std::sqrt(static_cast<float>(dims));
  if (!std::isfinite(scale))
    return Status::error(op + ": scale: must be finite");
  return Status();
}

Status decode::checkWorkspace(const std::string &op, void *workspace,
                              size_t given, size_t needed,
                              const char *sizeQuery) {
  if (given < needed)
    return Status::error(op + ": workspace: " + std::to_string(given) +
                         " bytes, these arguments need " +
                         std::to_string(needed) + " (" + sizeQuery + ")");
  if (needed && (!workspace || reinterpret_cast<uintptr_t>(workspace) % 16))
    return Status::error(op + ": workspace: expected a 16-byte aligned device "
                              "pointer");
  return Status();
}

Expected<void *> decode::standIn() {
  static std::mutex mutex;
  static void *memory = nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  if (!memory) {
    Expected<void *> allocated = deviceAlloc(64);
    if (!allocated)
      return allocated.status();
    memory = *allocated;
  }
  return memory;
}
