#pragma once
// Where backfill plans from within one cycle. Every reservation searches the running jobs' ends
// in order, and its first step releases every running job already expected to have ended (in a
// long-lived queue, most running jobs outlive their estimates: thousands of them). The base does
// that step once per cycle, on a copy of the cluster state and of the quota book, and mirrors
// what the cycle starts and evicts after it, so a reservation releases only the later steps.
#include <optional>

#include "scheduler/cluster_state.h"
#include "scheduler/quota.h"

namespace tessera {

class Engine;
struct JobRecord;

class BackfillBase {
 public:
  // For a cycle at `now`: the jobs released here are those expected to end by then.
  explicit BackfillBase(Seconds now) : through_(now) {}

  // Whether running job `j` is already released in the base.
  [[nodiscard]] bool releases(const JobRecord& j) const;
  // The base releases exactly the running jobs expected to end by this time (the cycle's now).
  [[nodiscard]] Seconds through() const { return through_; }
  // Builds the base from the engine's state on first use.
  void ensure(const Engine& engine);
  [[nodiscard]] ClusterState& state() { return *state_; }
  [[nodiscard]] const QuotaBook& quotas() const { return quotas_; }

  // The engine started `job` (placed) or is about to stop it (its placement still set).
  void started(Engine& engine, const JobRecord& job);
  void stopped(const JobRecord& job);
  // Times the base no longer matched the engine and was dropped (rebuilt at the next use): a
  // defect the invariant checker reports.
  [[nodiscard]] int lost() const { return lost_; }

 private:
  Seconds through_;
  int lost_ = 0;
  std::optional<ClusterState> state_;
  QuotaBook quotas_;
};

}  // namespace tessera
