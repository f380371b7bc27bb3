#pragma once
// The engine's state in the database, kept current by the backend so that a restart (after a
// clean stop or a kill -9) rebuilds the same engine: same jobs, placements, queue order, quotas,
// reservations, drains, MIG layouts, clock and fair-share usage.
//
// It is a materialized snapshot, not a replay log: every group commit rewrites the rows of the
// jobs its events touched plus one small global row, so a restart reads state instead of
// replaying history and its cost grows with the active jobs, not with uptime. The event log
// (EventStore) is written in the same transaction and stays the audit trail and the stream
// clients resume from. Finished jobs stay in the jobs table (the accounting record) but are not
// loaded back into the engine.
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "store/database.h"
#include "store/job_codec.h"
#include "topology/gpu_catalog.h"

namespace tessera {

// One job as stored: what the API's Get and List return for jobs the engine no longer holds.
struct JobRow {
  Job job;
  JobState state = JobState::Pending;
  Seconds startTime = 0;  // of the last run (0 = never ran)
  Seconds endTime = 0;    // when it finished (0 = not finished)
  int preemptions = 0;
  double gpuHoursLost = 0;
  Text reason;      // a job stored before schema version 4 has only its English (a literal)
  std::string run;  // running: where (JSON as runToJson writes it); else empty
  std::optional<Seconds> actualRuntime;  // simulated-live mode: when the job really ends
};

struct JobFilter {
  std::string team;               // empty = all
  std::string priorityClass;      // empty = all
  std::optional<JobState> state;  // nullopt = all
  bool activeOnly = false;        // pending and running only
  JobId afterId = 0;              // paging: ids above this
  size_t limit = 100;
};

// What the backend must know beside the engine to carry on after a restart.
struct BackendExtras {
  JobId nextJob = 1;                                      // ids are never reused
  std::unordered_map<JobId, Seconds> actualRuntime;       // simulated-live mode only
  std::vector<std::pair<std::string, std::string>> meta;  // mode, load generator state, ...
};

class StateStore {
 public:
  explicit StateStore(Database& db) : db_(db) {}

  // Whether a backend state was ever saved here (a fresh database has none).
  [[nodiscard]] Expected<bool> hasState() const;

  // --- writes, inside a transaction the caller opened (Database::transaction)
  // Cluster spec, tenants (teams with their quotas, priority classes) and policy: at creation
  // and whenever a command changed quotas or the policy.
  Status saveSetup(const Engine& engine);
  // The rows of `ids` as the engine has them now (jobs it no longer holds are left alone).
  Status saveJobs(const Engine& engine, const std::vector<JobId>& ids,
                  const std::unordered_map<JobId, Seconds>& actualRuntime);
  // Clock, fair-share usage, MIG layouts, node states, reservations, next job id, extras.
  Status saveGlobal(const Engine& engine, const BackendExtras& extras);
  Status putMeta(const std::string& key, const std::string& value);

  // --- reads
  struct Loaded {
    Engine engine;
    BackendExtras extras;
    size_t activeJobs = 0;
  };
  // Rebuilds the engine from the saved state. Errors name what is inconsistent.
  [[nodiscard]] Expected<Loaded> load(const GpuCatalog& catalog) const;
  [[nodiscard]] Expected<std::optional<JobRow>> job(JobId id) const;
  [[nodiscard]] Expected<std::vector<JobRow>> list(const JobFilter& filter) const;
  [[nodiscard]] Expected<std::optional<std::string>> meta(const std::string& key) const;

 private:
  Database& db_;
};

}  // namespace tessera
