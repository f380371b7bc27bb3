#pragma once
// Occupancy of a cluster: which job holds which whole GPU, MIG instance or GPU share, plus the
// free-capacity counters placement reads (per node, NVLink domain, leaf, cluster). The Cluster
// stays read-only; this is the mutable layer the engine copies per cycle and changes only through
// a Transaction (transaction.h), so a gang or a preemption what-if can be undone as a whole.
//
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/expected.h"
#include "core/ids.h"
#include "core/text.h"
#include "topology/cluster.h"

namespace tessera {

// A fractional user of a shared (time-sliced) GPU: thousandths of the GPU and VRAM.
struct GpuShare {
  JobId job = kNoJob;
  int milli = 0;
  int64_t vramMiB = 0;
  friend bool operator==(const GpuShare&, const GpuShare&) = default;
};

// A client of an MPS server: the job's active-thread percentage and pinned memory limit, and
// whose it is (the server's co-location policy compares teams or users).
struct MpsClient {
  JobId job = kNoJob;
  int threads = 0;         // active-thread percentage
  int64_t memoryMiB = 0;   // pinned device memory limit
  int instanceStart = -1;  // MIG GPUs: the instance whose server it joined; -1 = the GPU's own
  std::string team;
  std::string user;
  friend bool operator==(const MpsClient&, const MpsClient&) = default;
};

// What a job asks of an MPS server for one task.
struct MpsAsk {
  JobId job = kNoJob;
  int threads = 0;
  int64_t memoryMiB = 0;
  std::string team;
  std::string user;
};

// Why no MPS server of a GPU takes a client, in the order the checks run: a later reason means
// the client got further (explanations name the furthest).
enum class MpsRefusal : uint8_t {
  None,
  NotMps,
  NodeNotUp,
  AlreadyThere,
  CoLocation,
  ClientLimit,
  Threads,
  Memory,
  // The GPU's server would take it, but the node's rule (MpsNodeSharing::One) keeps new clients
  // on the GPUs already serving some: last, as the client got past every check of the GPU.
  OtherGpuServes
};

// The server a client would join (a MIG instance's start slice, -1 = the GPU's own server), or
// the refusal and its sentence ("GPU pod-a-02/3 runs MPS clients of team search; ...").
struct MpsFit {
  MpsRefusal refusal = MpsRefusal::None;
  int instanceStart = -1;
  Text why;
  [[nodiscard]] bool ok() const { return refusal == MpsRefusal::None; }
};

struct GpuOccupancy {
  JobId wholeOwner = kNoJob;                            // exclusive use of the whole GPU
  MigLayout layout;                                     // current GPU instances (MIG mode)
  std::array<JobId, kMaxMemorySlices> instanceOwner{};  // owner per layout index
  std::vector<GpuShare> shares;                         // fractional users (time-sliced mode)
  std::vector<MpsClient> mpsClients;                    // MPS clients, in arrival order
  int milliUsed = 0;
  int64_t vramUsedMiB = 0;

  friend bool operator==(const GpuOccupancy&, const GpuOccupancy&) = default;
};

// CPUs and host memory a job holds on a node (all its tasks there together).
struct NodeHolding {
  JobId job = kNoJob;
  int cpus = 0;
  int64_t memoryMiB = 0;
  friend bool operator==(const NodeHolding&, const NodeHolding&) = default;
};

struct NodeUsage {
  int cpus = 0;
  int64_t memoryMiB = 0;
  std::vector<NodeHolding> holdings;
  friend bool operator==(const NodeUsage&, const NodeUsage&) = default;
};

class ClusterState {
 public:
  explicit ClusterState(std::shared_ptr<const Cluster> cluster);

  [[nodiscard]] const Cluster& cluster() const { return *cluster_; }
  // Fixed MIG layouts (MigPolicy::createInstances off): placement takes existing instances only.
  void setFixedMigLayouts(bool fixed) { fixedMigLayouts_ = fixed; }
  [[nodiscard]] bool fixedMigLayouts() const { return fixedMigLayouts_; }
  [[nodiscard]] const std::shared_ptr<const Cluster>& clusterPtr() const { return cluster_; }
  [[nodiscard]] const GpuOccupancy& gpu(GpuId id) const { return gpus_[id]; }
  [[nodiscard]] NodeState nodeState(NodeId id) const { return nodeStates_[id]; }

  // Whole GPUs a new job could take: exclusive-mode GPUs nobody holds on nodes that are up.
  [[nodiscard]] bool wholeGpuFree(GpuId id) const;
  [[nodiscard]] int freeWholeGpusOnNode(NodeId id) const { return freeOnNode_[id]; }
  [[nodiscard]] int freeWholeGpusInDomain(DomainId id) const {
    return freeInDomain_[static_cast<size_t>(id)];
  }
  [[nodiscard]] int freeWholeGpusUnderLeaf(SwitchId id) const {
    return freeUnderLeaf_[static_cast<size_t>(id)];
  }
  [[nodiscard]] int freeWholeGpus() const { return freeTotal_; }
  // Visits nodes with at least `minFree` free whole GPUs, fewest free first, then by node id;
  // `visit(NodeId)` returns true to stop. The index behind it is kept incrementally, so
  // bin-packing finds its node without a pass over every node.
  template <typename Visit>
  void forNodesByFreeGpus(int minFree, Visit&& visit) const {
    for (size_t f = static_cast<size_t>(std::max(minFree, 0)); f < byFree_.size(); ++f) {
      const auto& words = byFree_[f];
      for (size_t w = 0; w < words.size(); ++w)
        for (uint64_t bits = words[w]; bits != 0; bits &= bits - 1) {
          const auto n = static_cast<NodeId>(w * 64 + static_cast<size_t>(std::countr_zero(bits)));
          if (visit(n)) return;
        }
    }
  }

  // Mutations. Each checks its preconditions and changes nothing when it fails. Prefer the
  // Transaction wrappers, which can undo them.
  Status takeWholeGpu(GpuId id, JobId job);
  void releaseWholeGpu(GpuId id);
  // Gives a released GPU back to its holder without the checks a new take passes (a drained
  // node keeps its running jobs): Transaction undo only.
  void restoreWholeGpu(GpuId id, JobId job);
  // Gives `job` an instance of `profile`: an idle existing one (lowest start), or, when
  // `mayCreate`, a new one at the free start that leaves the least MIG fragmentation.
  // Returns the instance's index in the GPU's layout.
  // `start` >= 0 asks for the instance at that memory slice (restoring a known placement).
  Expected<int> takeMigInstance(GpuId id, int profile, JobId job, bool mayCreate, int start = -1);
  // Frees instance `index`; `destroy` also removes it from the layout (undoing a creation).
  void releaseMigInstance(GpuId id, int index, bool destroy);
  Status takeShare(GpuId id, JobId job, int milli, int64_t vramMiB);
  // Why takeShare would refuse (nullopt = it would succeed); the filter and placement ask this.
  [[nodiscard]] std::optional<std::string> shareProblem(GpuId id, JobId job, int milli,
                                                        int64_t vramMiB) const;
  // Instances of `profile` on the GPU that nobody holds.
  [[nodiscard]] int idleMigInstances(GpuId id, int profile) const;
  void releaseShare(GpuId id, JobId job);
  // MPS (cluster_state_mps.cpp). The fullest server of the GPU that takes the client (packing),
  // or why none does; `instanceStart` >= -1 asks for that server only (restoring a placement:
  // a client already running there, which the node's one-GPU rule does not refuse).
  [[nodiscard]] MpsFit mpsFit(GpuId id, const MpsAsk& ask, int instanceStart = kAnyMpsServer) const;
  // Joins the server mpsFit picks; returns its instance start (-1 = the GPU's own server).
  Expected<int> takeMps(GpuId id, const MpsAsk& ask, int instanceStart = kAnyMpsServer);
  void releaseMps(GpuId id, JobId job);
  static constexpr int kAnyMpsServer = -2;
  // Replaces a MIG GPU's layout (a repartition). Instances someone holds must stay at the same
  // profile and start and keep their owner; the new layout must pass MIG validation.
  Status setMigLayout(GpuId id, const MigLayout& layout);
  // The checks of setMigLayout that do not depend on who holds what (MIG mode, starts, rules).
  [[nodiscard]] Status checkMigLayout(GpuId id, const MigLayout& layout) const;
  // Drain or return a node; its free whole GPUs leave or rejoin the counters.
  void setNodeState(NodeId id, NodeState state);

  // CPUs and memory. A template without `cpus`/`memory_gib` does not limit them (-1 = unlimited).
  [[nodiscard]] const NodeUsage& nodeUsage(NodeId id) const { return nodeUsage_[id]; }
  [[nodiscard]] int freeCpus(NodeId id) const;
  [[nodiscard]] int64_t freeMemoryMiB(NodeId id) const;
  Status takeNodeResources(NodeId id, JobId job, int cpus, int64_t memoryMiB);
  // Gives back part (or all) of what `job` holds on the node.
  void returnNodeResources(NodeId id, JobId job, int cpus, int64_t memoryMiB);
  // Puts a released holding back at its old position (Transaction undo: order is state too).
  void restoreNodeHolding(NodeId id, size_t position, const NodeHolding& holding);

  // Direct access for loaders and invariant tests only: bypasses every check and counter.
  GpuOccupancy& unsafeGpu(GpuId id) { return gpus_[id]; }
  // Counters recomputed from scratch; used by the invariant checker.
  struct Counters {
    std::vector<int> node, domain, leaf;
    int total = 0;
    friend bool operator==(const Counters&, const Counters&) = default;
  };
  [[nodiscard]] Counters recountFree() const;
  [[nodiscard]] Counters counters() const {
    return {freeOnNode_, freeInDomain_, freeUnderLeaf_, freeTotal_};
  }

 private:
  void countFree(GpuId id, int delta);
  void indexNode(NodeId n, int from, int to);
  Expected<int> takeMigInstanceAt(GpuId id, int profile, JobId job, bool mayCreate, int start);

  std::shared_ptr<const Cluster> cluster_;
  bool fixedMigLayouts_ = false;
  std::vector<GpuOccupancy> gpus_;
  std::vector<NodeState> nodeStates_;
  std::vector<NodeUsage> nodeUsage_;
  std::vector<int> freeOnNode_;
  std::vector<std::vector<uint64_t>> byFree_;  // [free GPUs] -> bitset of nodes
  std::vector<int> freeInDomain_;
  std::vector<int> freeUnderLeaf_;
  int freeTotal_ = 0;
};

}  // namespace tessera
