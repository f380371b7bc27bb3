#pragma once
// Where a report's data comes from: a Tessera database, written by tesserad (and the console's
// embedded demo) or recorded by `tessera simulate --record`. Both hold the same tables: the
// setup (cluster, teams, priority classes), the jobs, the usage ledger (store/usage_store.h) and
// the metric series (store/metric_store.h). Opened read-only: a report never changes what it
// reads, and it can run beside a live backend (WAL readers do not block the writer).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/expected.h"
#include "sim/usage_recorder.h"
#include "store/metric_store.h"
#include "workload/job.h"

namespace tessera {

struct ReportSetup {
  std::string cluster;
  std::string source;  // what it was opened from, for the report's header
  int gpus = 0;
  bool wallClock = true;  // false: simulated time
  std::vector<Team> teams;
  std::vector<PriorityClass> classes;
  Seconds first = 0;  // the earliest time with data
  Seconds last = 0;   // the latest (the backend's clock when it last wrote)
};

// A job as accounting sees it (waits are computed from these).
struct JobAccount {
  JobId id = kNoJob;
  std::string team;
  std::string priorityClass;
  Seconds submit = 0;
  std::optional<Seconds> firstStart;  // nullopt: never started
  std::optional<Seconds> end;         // when it finished (completed, failed, cancelled)
  JobState state = JobState::Pending;
};

class ReportSource {
 public:
  virtual ~ReportSource() = default;
  [[nodiscard]] virtual const ReportSetup& setup() const = 0;
  // Every usage row (one node's part of one run) that overlaps [from, to); an open run (no end)
  // is treated as running until setup().last. Stops early, with that error, if `row` fails.
  virtual Status forEachUsage(Seconds from, Seconds to,
                              const std::function<Status(const UsageRecord&)>& row) const = 0;
  // Every job submitted before `to`.
  virtual Status forEachJob(Seconds to,
                            const std::function<Status(const JobAccount&)>& job) const = 0;
  // A cluster-wide metric series over [from, to) at the finest resolution that covers it.
  [[nodiscard]] virtual Expected<MetricSeries> series(const std::string& name, Seconds from,
                                                      Seconds to) const = 0;
  // Rows forEachUsage would visit for [from, to) (for progress; may be an estimate).
  [[nodiscard]] virtual Expected<size_t> usageCount(Seconds from, Seconds to) const = 0;
};

class GpuCatalog;
// Opens a database file read-only. Errors: the file is missing, not a Tessera database, from a
// newer version, or has no setup. `catalog` resolves the stored cluster (default: built-in).
Expected<std::unique_ptr<ReportSource>> openReportDatabase(const std::string& path,
                                                           const GpuCatalog* catalog = nullptr);

}  // namespace tessera
