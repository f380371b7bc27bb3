#pragma once
// A utilization and chargeback report: what the GPUs were allocated to, how much of that was
// work, what sat idle or stranded, what waited, and what it cost - for a time range, grouped by
// team, department, queue, pool, GPU model, node or job. Plain values: computeReport() fills
// them from a ReportSource (report_source.h), the writers (report_csv.h, report_json.h, and the
// HTML/PDF renderer in widgets/) turn them into files. Definitions: docs/reports.md.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "core/ids.h"

namespace tessera {

enum class ReportGroup : uint8_t { Team, Department, Queue, Pool, GpuModel, Node, Job };
// "team", "department", "queue", "pool", "model", "node", "job".
const char* reportGroupName(ReportGroup g);
std::optional<ReportGroup> parseReportGroup(std::string_view text);

// Prices per GPU-hour by GPU model (catalog id), and optionally per MIG instance-hour by model
// and profile. A MIG instance without its own price costs its share of the GPU's memory slices;
// a time-sliced share costs its fraction of the GPU, an MPS share its active-thread share. Format:
// docs/reports.md#price-table.
struct PriceTable {
  std::string currency = "USD";
  std::optional<double> defaultGpuHour;  // models not listed; without it they are an error
  std::map<std::string, double> gpuHour;
  std::map<std::string, std::map<std::string, double>> migInstanceHour;  // model -> profile
  std::string file;                                                      // for messages
};
Expected<PriceTable> parsePriceTable(std::string_view yaml, const std::string& file);
Expected<PriceTable> loadPriceTableFile(const std::string& path);

struct ReportRequest {
  std::optional<Seconds> from;  // default: the first time the source has data for
  std::optional<Seconds> to;    // default: the last (now, for a live backend)
  ReportGroup groupBy = ReportGroup::Team;
  double idleThreshold = 0.05;       // GPU utilization below this is idle...
  Seconds idleMinDuration = 1800;    // ...when it lasts at least this long
  std::optional<PriceTable> prices;  // no table: no cost columns
  std::vector<std::string> teams;    // only these teams (empty = all); unknown names are an error
  std::string timeZone = "UTC";      // how the header shows times (IANA name or +hh:mm)
  size_t topIdleJobs = 100;          // rows of the idle-jobs table (0 = all)
};

// GPU-hours and counts of one group (or the whole cluster).
struct UsageFigures {
  double allocated = 0;  // GPU-hours held (GPU equivalents x hours)
  double busy = 0;       // allocated x GPU utilization (DCGM_FI_DEV_GPU_UTIL)
  double effective = 0;  // allocated x SM active (DCGM_FI_PROF_SM_ACTIVE)
  double measured = 0;  // of `allocated`, the GPU-hours with telemetry (busy/effective cover these)
  double idle = 0;      // allocated while idle (below the threshold for the minimum duration)
  double wholeGpu = 0;  // of `allocated`: whole GPUs
  double mig = 0;       // of `allocated`: MIG instances (their share of the GPU)
  double fractional = 0;           // of `allocated`: time-sliced shares
  double mps = 0;                  // of `allocated`: MPS shares (their active-thread share)
  double migSliceHours = 0;        // MIG memory slices x hours
  int preemptions = 0;             // runs preempted in the range
  double gpuHoursLost = 0;         // work lost to those preemptions
  size_t jobs = 0;                 // distinct jobs that held GPUs in the range
  std::optional<double> cost;      // with a price table
  std::optional<double> idleCost;  // showback: the cost of `idle`
};

struct UsageRow {
  std::string key;  // team, department, queue, pool, model, node name or job id
  UsageFigures figures;
};

struct MigProfileRow {
  std::string key;  // the group
  std::string model;
  std::string profile;
  double instanceHours = 0;
  double sliceHours = 0;  // memory slices x hours
  std::optional<double> cost;
};

// A job that held GPUs while they sat idle.
struct IdleJobRow {
  JobId job = kNoJob;
  std::string team;
  double gpus = 0;  // GPU equivalents it held (largest run)
  double idleGpuHours = 0;
  int episodes = 0;     // idle stretches that qualified
  Seconds longest = 0;  // the longest of them
  std::optional<double> idleCost;
};

// Free capacity nobody could use while GPU work waited, by cause (sim/metrics.h StrandCause).
struct StrandedRow {
  std::string
      cause;  // unavailable, host-resources, mig-layout, fragmentation, quota, gang-topology
  double gpuHours = 0;
  double shareOfCapacity = 0;  // of the capacity GPU-hours in the range
};

// Queue waits of jobs whose first start fell in the range, by priority class; plus the jobs
// still waiting at the range's end.
struct WaitRow {
  std::string priorityClass;
  size_t started = 0;
  double p50 = 0, p95 = 0, p99 = 0, max = 0, mean = 0;  // seconds
  size_t waitingAtEnd = 0;
  double longestWaitingAtEnd = 0;  // seconds
};

struct ChargebackRow {
  std::string team;
  std::string department;
  double allocated = 0;  // GPU-hours
  double idle = 0;       // GPU-hours
  double cost = 0;
  double idleCost = 0;
  double shareOfCost = 0;
};

struct FairShareRow {
  std::string team;
  double weight = 1;
  double gpuHours = 0;
  double usageShare = 0;     // of all GPU-hours used in the range
  double deservedShare = 0;  // by weight among the teams that had work in the range
  double ratio = 0;          // usage / deserved (1 = fair; 0 when nothing was deserved)
};

// Mean GPUs over one step of the time series (for the charts).
struct ReportPoint {
  Seconds start = 0;
  double capacity = 0;
  double allocated = 0;
  double busy = 0;
  double effective = 0;
};

struct ReportHeader {
  std::string cluster;
  std::string source;  // the database file or server it was computed from
  Seconds from = 0, to = 0;
  bool wallClock = true;  // false: simulated time (seconds since the simulation began)
  std::string timeZone = "UTC";
  std::string generatedAt;  // ISO 8601, UTC
  ReportGroup groupBy = ReportGroup::Team;
  double idleThreshold = 0.05;
  Seconds idleMinDuration = 1800;
  std::string currency;  // empty: no price table, no cost figures
  int gpus = 0;          // GPUs in the cluster
};

struct Report {
  ReportHeader header;
  double capacityGpuHours = 0;  // GPU-hours of the GPUs on nodes that were up
  UsageFigures total;
  std::vector<UsageRow> usage;  // by header.groupBy, most allocated first
  std::vector<MigProfileRow> mig;
  std::vector<IdleJobRow> idleJobs;  // most idle first
  size_t idleJobsTotal = 0;          // before the top-N cut
  std::vector<StrandedRow> stranded;
  std::vector<WaitRow> waits;
  std::vector<ChargebackRow> chargeback;  // empty without a price table
  std::vector<FairShareRow> fairShare;
  Seconds seriesStep = 3600;
  std::vector<ReportPoint> series;
  std::vector<std::string> notes;  // what the reader must know (defaults used, data missing)
};

}  // namespace tessera
