#include "inventory/nvml_faults.h"

#include "inventory/nvml_api.h"

namespace tessera {

namespace {
constexpr unsigned long long kWatched =
    nvmlEventTypeXidCriticalError | nvmlEventTypeDoubleBitEccError;
// Events taken per poll at most: a storm of Xids must not keep the agent from its push.
constexpr int kMaxEventsPerPoll = 1000;
}  // namespace

Expected<std::unique_ptr<NvmlFaultWatch>> NvmlFaultWatch::open(const NvmlProbeOptions& options) {
  std::unique_ptr<NvmlFaultWatch> w(new NvmlFaultWatch);
  TESSERA_TRY(api, NvmlApi::open(options.library));
  w->api_ = std::move(api);
  const NvmlApi& nvml = *w->api_;
  if (const nvmlReturn_t r = nvml.nvmlEventSetCreate(&w->set_); r != NVML_SUCCESS)
    return Error{"NVML nvmlEventSetCreate failed: " + nvml.describe(r), {}};
  unsigned count = 0;
  if (const nvmlReturn_t r = nvml.nvmlDeviceGetCount_v2(&count); r != NVML_SUCCESS)
    return Error{"NVML nvmlDeviceGetCount_v2 failed: " + nvml.describe(r), {}};
  for (unsigned i = 0; i < count; ++i) {
    nvmlDevice_t device = nullptr;
    nvmlReturn_t r = nvml.nvmlDeviceGetHandleByIndex_v2(i, &device);
    if (r == NVML_SUCCESS) r = nvml.nvmlDeviceRegisterEvents(device, kWatched, w->set_);
    // A GPU without ECC (most consumer parts) takes Xid events alone.
    if (r == NVML_ERROR_NOT_SUPPORTED)
      r = nvml.nvmlDeviceRegisterEvents(device, nvmlEventTypeXidCriticalError, w->set_);
    if (r != NVML_SUCCESS)
      w->notes_.push_back("GPU " + std::to_string(i) +
                          ": nvmlDeviceRegisterEvents: " + nvml.describe(r));
    w->seen_[static_cast<int>(i)];
  }
  return w;
}

NvmlFaultWatch::~NvmlFaultWatch() {
  if (set_ && api_) api_->nvmlEventSetFree(set_);
}

int NvmlFaultWatch::indexOf(nvmlDevice_t device) const {
  unsigned count = 0;
  if (api_->nvmlDeviceGetCount_v2(&count) != NVML_SUCCESS) return -1;
  for (unsigned i = 0; i < count; ++i) {
    nvmlDevice_t d = nullptr;
    if (api_->nvmlDeviceGetHandleByIndex_v2(i, &d) == NVML_SUCCESS && d == device)
      return static_cast<int>(i);
  }
  return -1;
}

std::vector<std::string> NvmlFaultWatch::poll() {
  std::vector<std::string> taken;
  nvmlEventData_t e{};
  for (int n = 0; n < kMaxEventsPerPoll && api_->nvmlEventSetWait_v2(set_, &e, 0) == NVML_SUCCESS;
       ++n) {
    const int gpu = indexOf(e.device);
    if (gpu < 0) continue;
    if (e.eventType & nvmlEventTypeXidCriticalError) {
      seen_[gpu].xid = static_cast<int>(e.eventData);
      taken.push_back("GPU " + std::to_string(gpu) + ": Xid " + std::to_string(e.eventData));
    }
    if (e.eventType & nvmlEventTypeDoubleBitEccError) {
      seen_[gpu].dbeEvent = true;
      taken.push_back("GPU " + std::to_string(gpu) + ": double-bit ECC error");
    }
  }
  for (auto& [index, s] : seen_) {
    nvmlDevice_t d = nullptr;
    unsigned long long count = 0;
    if (api_->nvmlDeviceGetHandleByIndex_v2(static_cast<unsigned>(index), &d) == NVML_SUCCESS &&
        api_->nvmlDeviceGetTotalEccErrors(d, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC,
                                          &count) == NVML_SUCCESS)
      s.dbeVolatile = count;
  }
  return taken;
}

void NvmlFaultWatch::annotate(std::vector<GpuSample>& samples) const {
  for (GpuSample& s : samples) {
    const auto it = seen_.find(s.index);
    if (it == seen_.end()) continue;
    s.xid = it->second.xid;
    s.eccDbeVolatile = it->second.dbeVolatile;
    s.dbeEvent = it->second.dbeEvent;
  }
}

}  // namespace tessera
