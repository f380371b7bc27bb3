#include "report/sim_record.h"

#include <filesystem>
#include <limits>

#include "store/metric_store.h"
#include "store/state_store.h"
#include "store/usage_store.h"

namespace tessera {
namespace {

std::vector<std::pair<std::string, double>> seriesOf(const MetricSample& s) {
  std::vector<std::pair<std::string, double>> out{{"gpus_capacity", s.capacity},
                                                  {"gpus_allocated", s.allocated},
                                                  {"gpus_busy", s.busy},
                                                  {"gpus_sm_active", s.effective},
                                                  {"jobs_pending", s.pending},
                                                  {"jobs_running", s.running},
                                                  {"fragmentation_fgd_gpus", s.fgdFragmentation},
                                                  {"fragmentation_mig", s.migFragmentation}};
  for (size_t c = 0; c < kStrandCauses; ++c)
    out.emplace_back(strandedSeriesName(static_cast<StrandCause>(c)), s.stranded[c]);
  return out;
}

Status fill(Database& db, const Simulator& sim, const UsageRecorder& usage) {
  const Engine& engine = sim.engine();
  StateStore state(db);
  UsageStore ledger(db);
  // Every sample stays raw: a record is read whole, never compacted away.
  MetricRetention keepAll;
  keepAll.raw = keepAll.minute = keepAll.hour = std::numeric_limits<int32_t>::max();
  MetricStore metrics(db, keepAll);
  return db.transaction([&](Database&) -> Status {
    TESSERA_CHECK(state.putMeta("mode", "simulation"));
    TESSERA_CHECK(state.saveSetup(engine));
    BackendExtras extras;
    std::vector<JobId> ids;
    for (const JobRecord* r : engine.jobs()) {
      ids.push_back(r->job.id);
      extras.nextJob = std::max(extras.nextJob, r->job.id + 1);
    }
    TESSERA_CHECK(state.saveJobs(engine, ids, {}));
    TESSERA_CHECK(state.saveGlobal(engine, extras));
    TESSERA_CHECK(ledger.saveInTransaction(usage.changed()));
    for (const MetricSample& s : sim.metrics().samples())
      TESSERA_CHECK(metrics.recordInTransaction(s.time, seriesOf(s)));
    return okStatus();
  });
}

}  // namespace

Status writeSimulationRecord(const Simulator& sim, const UsageRecorder& usage,
                             const std::string& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec))
    return Error{"the record file exists already; give a new file", {path, 0, 0, ""}};
  auto db = Database::open(path);
  if (!db) return db.error();
  const Status st = fill(*db, sim, usage);
  if (!st) {
    std::filesystem::remove(path, ec);
    std::filesystem::remove(path + "-wal", ec);
    std::filesystem::remove(path + "-shm", ec);
    return Error{"cannot write the simulation record " + path + ": " + st.error().str(), {}};
  }
  return okStatus();
}

}  // namespace tessera
