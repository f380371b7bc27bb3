#pragma once
// Tentative changes to a ClusterState, committed or discarded as a whole (Volcano's Statement):
// a gang is placed task by task and rolled back if one task does not fit; a preemption what-if
// releases victims, tries the preemptor, and is discarded. Undo steps are typed records, not
// closures, so a transaction costs a vector push per step.
#include <span>
#include <vector>

#include "scheduler/cluster_state.h"

namespace tessera {

class Transaction {
 public:
  explicit Transaction(ClusterState& state) : state_(state) {}
  ~Transaction() { discard(); }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  Status takeWholeGpu(GpuId id, JobId job);
  Expected<int> takeMigInstance(GpuId id, int profile, JobId job, bool mayCreate, int start = -1);
  Status takeShare(GpuId id, JobId job, int milli, int64_t vramMiB);
  // Joins an MPS server of the GPU; returns its instance start (-1 = the GPU's own server).
  Expected<int> takeMps(GpuId id, const MpsAsk& ask,
                        int instanceStart = ClusterState::kAnyMpsServer);
  Status takeNodeResources(NodeId id, JobId job, int cpus, int64_t memoryMiB);
  // Releases everything `job` holds (a preemption or completion inside the what-if). `onNodes`
  // limits the search to the nodes its placement names (empty = every node).
  void releaseJob(JobId job, std::span<const NodeId> onNodes = {});
  // The same when the job's GPUs are known (each once): only those GPUs are searched, not every
  // GPU of its nodes (backfill replays thousands of releases per reservation).
  void releaseJob(JobId job, std::span<const NodeId> onNodes, std::span<const GpuId> gpus);

  // Keeps the changes; the transaction is empty afterwards.
  void commit() {
    undo_.clear();
    releasedMps_.clear();
  }
  // Reverts every change in reverse order; the state is exactly as before the first change.
  void discard() { rollbackTo(0); }
  // Reverts the changes made after the first `mark` ones (mark = an earlier size()): a gang that
  // fails half-way leaves the caller's earlier changes in the transaction.
  void rollbackTo(size_t mark);
  [[nodiscard]] size_t size() const { return undo_.size(); }
  [[nodiscard]] const ClusterState& state() const { return state_; }

 private:
  enum class Kind : uint8_t {
    TookWhole,
    TookMig,
    CreatedMig,
    TookShare,
    ReleasedWhole,
    ReleasedMig,
    ReleasedShare,
    TookNode,
    ReleasedNode,
    TookMps,
    ReleasedMps
  };
  struct Undo {
    Kind kind;
    GpuId gpu;
    JobId job;
    int index = -1;  // MIG instance index, or a released share's or holding's position
    GpuShare share;
    NodeHolding holding;  // CPUs and memory taken or released on node `gpu` (a NodeId here)
  };

  void releaseHolding(JobId job, NodeId n);
  void releaseGpu(JobId job, GpuId g);

  ClusterState& state_;
  std::vector<Undo> undo_;
  // Released MPS clients, in release order (their names would bloat every undo record); undone
  // last-in first-out like the records that point at them.
  std::vector<MpsClient> releasedMps_;
};

// Everything that must hold after any sequence of operations; an empty list means consistent.
// Checks: MIG layouts valid, instance owners only on existing instances, no GPU both whole-owned
// and MIG/shared, shares within replicas/milli/VRAM and their sums matching, MPS clients only on
// MPS servers within their thread budget, memory and client limit, node CPU/memory
// holdings summing to the node's use and within its capacity, free counters equal a recount.
std::vector<std::string> checkInvariants(const ClusterState& state);

}  // namespace tessera
