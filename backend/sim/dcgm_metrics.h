#pragma once
// Import of dcgm-exporter scrapes (`curl node:9400/metrics`, Prometheus text exposition format
// 0.0.4) into per-GPU readings. Metric names, labels and the MIG layout: shared reference
// gpu-hardware.md section 4. A pure function over text, so tests and the daemon feed it alike.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"

namespace tessera {

// One GPU, or one MIG GPU instance, as one scrape reports it. Values the scrape lacks (a field the
// exporter does not collect, a NaN, GPU_UTIL on a MIG instance) stay empty.
struct DcgmGpuReading {
  std::string hostname;  // Hostname (or, since dcgm-exporter PR #655, hostname); "" if absent
  int gpu = -1;          // gpu label: the device index on its node
  std::string uuid;      // UUID (uuid with --use-old-namespace): the parent GPU's, even on MIG rows
  std::string pciBusId;  // pci_bus_id ("" on older exporters)
  std::string modelName;
  std::string migProfile;  // GPU_I_PROFILE, e.g. "3g.40gb"; "" on a whole-GPU row
  int migInstance = -1;    // GPU_I_ID; -1 on a whole-GPU row
  // Kubernetes owner, present only when the exporter maps pods and a pod holds the device
  // (pod_name/pod_namespace/container_name with --use-old-namespace).
  std::string pod, podNamespace, container;

  std::optional<double> util;            // DCGM_FI_DEV_GPU_UTIL / 100 (never on MIG rows)
  std::optional<double> grEngineActive;  // DCGM_FI_PROF_GR_ENGINE_ACTIVE, the MIG stand-in
  std::optional<double> smActive;        // DCGM_FI_PROF_SM_ACTIVE (may exceed 1 on MIG)
  std::optional<double> tensorActive;    // DCGM_FI_PROF_PIPE_TENSOR_ACTIVE
  std::optional<double> dramActive;      // DCGM_FI_PROF_DRAM_ACTIVE
  std::optional<double> fbUsedMiB;       // DCGM_FI_DEV_FB_USED
  std::optional<double> fbFreeMiB;       // DCGM_FI_DEV_FB_FREE
  std::optional<double> memoryUsed;      // fbUsed / (fbUsed + fbFree), when both are known
  std::optional<double> powerWatts;      // DCGM_FI_DEV_POWER_USAGE (the parent GPU's on MIG)
  std::optional<double> temperatureC;    // DCGM_FI_DEV_GPU_TEMP (the parent GPU's on MIG)
  std::optional<int> xid;                // DCGM_FI_DEV_XID_ERRORS: the last Xid, 0 = none
  std::string xidMessage;                // its err_msg label
  // The oldest timestamp of its samples (ms since the epoch), when the text has timestamps (a
  // scrape saved and pushed later, a Prometheus federation dump); dcgm-exporter itself sends none.
  std::optional<int64_t> sampledMs;

  [[nodiscard]] bool isMigInstance() const { return migInstance >= 0; }
};

struct DcgmScrape {
  // One entry per (hostname, gpu, GPU_I_ID), ordered by those; a MIG GPU's instances are separate
  // entries, and it has no whole-GPU entry (the exporter reports MIG GPUs only per instance).
  std::vector<DcgmGpuReading> gpus;
  // "source:line: ..." for data that is well-formed but unusable or doubtful (duplicate series,
  // an infinite or negative reading, a GPU metric without a usable gpu label).
  std::vector<std::string> warnings;
};

// Parses exposition text; `source` names the input in messages ("node7:9400" or a file path).
// Metrics other than the ones above are checked for syntax and otherwise ignored. Fails on the
// first malformed line (a bad metric or label name, an unterminated label value, a missing or
// unparsable value, a bad timestamp or HELP/TYPE comment) with an error located at source, line,
// column and metric: str() reads "node7:9400:12:31: DCGM_FI_DEV_GPU_UTIL: bad value ...".
Expected<DcgmScrape> parseDcgmMetrics(std::string_view text, const std::string& source);
// The same over a saved scrape; fails also for a missing, unreadable or empty file.
Expected<DcgmScrape> readDcgmMetricsFile(const std::string& path);

}  // namespace tessera
