#pragma once
// Telemetry from NVML for nodes without dcgm-exporter: each GPU's utilization, memory,
// temperature and power, written as dcgm-exporter's Prometheus text so that tesserad's
// PushTelemetry takes it like a scrape (sim/dcgm_metrics.h parses both).
#include <optional>
#include <string>
#include <vector>

#include "core/expected.h"
#include "inventory/nvml_probe.h"

namespace tessera {

struct GpuSample {
  int index = 0;
  std::string uuid, pciBusId, name;
  std::optional<double> utilPercent;  // none on a MIG-enabled GPU: NVML has no per-GPU figure
  std::optional<double> fbUsedMiB, fbFreeMiB, temperatureC, powerWatts;
  // NVML answered GPU_IS_LOST: the GPU fell off the bus, which dcgm-exporter reports as Xid 79.
  bool lost = false;
  // From the agent's fault watch (nvml_faults.h), not from the sample itself: the last Xid event,
  // the volatile double-bit ECC count and whether a double-bit ECC event arrived.
  int xid = 0;
  std::optional<unsigned long long> eccDbeVolatile;
  bool dbeEvent = false;
};

// One reading of every GPU. A reading NVML does not support stays empty; a lost GPU is a sample
// with `lost` set, not an error, since a fault is exactly what the scheduler must hear about.
Expected<std::vector<GpuSample>> sampleNvml(const NvmlProbeOptions& options);

// dcgm-exporter's exposition for the samples (DCGM_FI_DEV_GPU_UTIL, _FB_USED, _FB_FREE,
// _GPU_TEMP, _POWER_USAGE, _ECC_DBE_VOL_TOTAL, _XID_ERRORS), every row labelled gpu, UUID,
// pci_bus_id, modelName and Hostname. The Xid is 79 for a lost GPU, else the last Xid event, else
// 48 (double-bit ECC) when the GPU had a double-bit ECC event or counts uncorrected errors.
std::string dcgmExposition(const std::vector<GpuSample>& samples, const std::string& hostname);

}  // namespace tessera
