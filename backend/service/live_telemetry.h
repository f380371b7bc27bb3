#pragma once
// Telemetry of a live cluster, as node agents push it: each agent sends its node's
// dcgm-exporter scrape (sim/dcgm_metrics.h) and this keeps the latest reading per GPU. A reading
// older than kStaleAfter is no reading at all - a node whose agent stopped shows "no telemetry",
// never its last values as if they were current.
//
// A MIG GPU is reported per instance; its GPU-level figures are the instances' readings weighted
// by their compute slices out of the GPU's total (unpartitioned slices count as idle), and its
// temperature the parent's.
//
// dcgm-exporter's DCGM_FI_DEV_XID_ERRORS is the *last* Xid and stays until the driver reloads, so
// only Xids that call for a GPU reset count as a fault here; application errors (13, 31, 43)
// would otherwise mark a GPU faulty for good.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "core/expected.h"
#include "scheduler/engine.h"
#include "service/node_report.h"
#include "sim/dcgm_metrics.h"
#include "sim/telemetry.h"

namespace tessera {

// The Xids that take a GPU out until it is reset (gpu-hardware.md, DCGM exporter metrics): 48
// double-bit ECC, 63/64 row remapping, 74 NVLink, 79 fallen off the bus, 94/95 contained and
// uncontained ECC, 119/120 GSP.
inline constexpr std::array<int, 9> kResetXids{48, 63, 64, 74, 79, 94, 95, 119, 120};
bool xidTakesTheGpuOut(int xid);

struct LiveGpuReading {
  Seconds at = 0;  // engine time it arrived, or was sampled when the scrape has timestamps
  std::optional<double> util, smActive, tensorActive, memoryUsed, temperatureC;
  int xid = 0;  // the last Xid the exporter reports that takes a GPU out; 0 = none
  std::string xidMessage;
  Seconds xidSince = 0;  // the first reading with this Xid (a restart starts it again)
};

struct TelemetryPush {
  int gpus = 0;                       // GPUs whose readings were taken
  std::vector<std::string> warnings;  // the scrape's own, then rows left out
  std::vector<MigWork> migApply;      // live mode: layouts the pushing node's agent is to apply
};

class LiveTelemetry {
 public:
  static constexpr Seconds kStaleAfter = 300;
  static constexpr size_t kMaxWarnings = 100;  // then one line says how many more

  // Takes the scrape's readings at engine time `now`. A row's node is `node` when given, else
  // its Hostname label; rows naming a node or GPU index the cluster lacks, rows sampled more than
  // kStaleAfter ago and rows older than the GPU's current reading are left out with a warning. A
  // scrape none of whose rows is taken fails, changing nothing: a node agent pushing under the
  // wrong name must not look like one that works.
  Expected<TelemetryPush> ingest(const Cluster& cluster, const DcgmScrape& scrape,
                                 const std::string& node, Seconds now);
  // The GPU's reading when one arrived within kStaleAfter of `now`.
  [[nodiscard]] const LiveGpuReading* reading(GpuId g, Seconds now) const;
  // A job's telemetry at `now`: the mean over its GPUs that have fresh readings; none when none
  // has (the usage ledger then records the run as unmeasured).
  [[nodiscard]] std::optional<JobTelemetry> jobTelemetry(const JobRecord& job, Seconds now) const;

 private:
  std::vector<std::optional<LiveGpuReading>> gpus_;  // by GpuId
};

}  // namespace tessera
