#pragma once
// Whether a job could ever run on a cluster: what Slurm checks at sbatch ("Requested node
// configuration is not available"). A job that fails is refused at submit, naming the field and
// the values that exist, instead of being accepted with an id and pending for ever. A job that
// passes may still wait for ever if the cluster later loses nodes; it then stays pending with its
// reason, like any other.
//
// "Could ever run" is decided by the engine's own gang placement on the cluster as it would be
// with nothing running, every node up and every MIG GPU unpartitioned: so the check and the
// scheduler never disagree about what fits. Quotas, reservations, drains and pins are left out:
// they change.
#include <memory>
#include <string>
#include <unordered_map>

#include "core/expected.h"
#include "scheduler/cluster_state.h"
#include "workload/job.h"

namespace tessera {

class FeasibilityCheck {
 public:
  FeasibilityCheck() = default;
  // A copy (a dry run's engine fork) builds its own empty cluster when it needs one, so two
  // engines never share the mutable state; the verdicts it keeps are still true.
  FeasibilityCheck(const FeasibilityCheck& other)
      : verdictsOf_(other.verdictsOf_), verdicts_(other.verdicts_) {}
  FeasibilityCheck& operator=(const FeasibilityCheck& other) {
    if (this != &other) {
      empty_.reset();
      verdictsOf_ = other.verdictsOf_;
      verdicts_ = other.verdicts_;
    }
    return *this;
  }
  FeasibilityCheck(FeasibilityCheck&&) noexcept = default;
  FeasibilityCheck& operator=(FeasibilityCheck&&) noexcept = default;

  // okStatus() when some placement of the whole gang exists on `cluster` when empty; else why
  // not, with the field. `shape` keys the verdict: jobs of one shape get the same answer.
  Status check(const std::shared_ptr<const Cluster>& cluster, const Job& job,
               const std::string& shape);

 private:
  Status decide(const std::shared_ptr<const Cluster>& cluster, const Job& job);
  ClusterState& emptyState(const std::shared_ptr<const Cluster>& cluster);

  std::unique_ptr<ClusterState> empty_;
  const Cluster* verdictsOf_ = nullptr;  // the cluster the verdicts are about
  std::unordered_map<std::string, Status> verdicts_;
};

}  // namespace tessera
