#pragma once
// GPU faults that NVML reports between two samples (issue 24): Xid critical errors and
// double-bit ECC errors through an event set that stays registered for as long as the watch
// lives (an event is delivered once, to the sets registered when it happened), and each GPU's
// volatile uncorrected (double-bit) ECC count, which the driver keeps until it reloads. The agent
// keeps one watch and adds what it saw to every NVML sample (nvml_sampler.h), so that tesserad
// holds the GPU as it does for dcgm-exporter's Xids.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/expected.h"
#include "inventory/nvml_abi.h"
#include "inventory/nvml_probe.h"
#include "inventory/nvml_sampler.h"

namespace tessera {

class NvmlApi;

struct GpuFaultSeen {
  int xid = 0;                          // the last Xid an event reported; 0 = none
  unsigned long long dbeVolatile = 0;  // uncorrected ECC errors since the driver loaded
  bool dbeEvent = false;               // a double-bit ECC event arrived
};

class NvmlFaultWatch {
 public:
  // Loads NVML, creates the event set and registers every GPU for Xid and double-bit ECC events
  // (a GPU that cannot take one is noted, not an error).
  static Expected<std::unique_ptr<NvmlFaultWatch>> open(const NvmlProbeOptions& options);
  ~NvmlFaultWatch();
  NvmlFaultWatch(const NvmlFaultWatch&) = delete;
  NvmlFaultWatch& operator=(const NvmlFaultWatch&) = delete;

  // Takes the events waiting (without waiting for more) and reads the ECC counters: what each
  // GPU (by index) has shown since the watch opened. Returns the Xid events taken now, as
  // "GPU 0: Xid 48" lines, for the log.
  std::vector<std::string> poll();
  [[nodiscard]] const std::map<int, GpuFaultSeen>& seen() const { return seen_; }
  // GPUs registration skipped ("GPU 2: nvmlDeviceRegisterEvents: Not Supported (3)").
  [[nodiscard]] const std::vector<std::string>& notes() const { return notes_; }
  // Sets each sample's xid and eccDbeVolatile from what was seen.
  void annotate(std::vector<GpuSample>& samples) const;

 private:
  NvmlFaultWatch() = default;
  [[nodiscard]] int indexOf(nvmlDevice_t device) const;

  std::unique_ptr<NvmlApi> api_;
  nvmlEventSet_t set_ = nullptr;
  std::map<int, GpuFaultSeen> seen_;
  std::vector<std::string> notes_;
};

}  // namespace tessera
