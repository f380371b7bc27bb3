#pragma once
// The sharing study's translation of one cluster and one workload into a mode (sharing_study.h).
//
// Work that needs a whole GPU or more (Whole requests) asks the same in every mode and runs on
// exclusive GPUs. Work that needs less (Fraction, Mig and Mps requests: "small" jobs) keeps its
// need - a compute share and GPU memory, read from its request against the cluster's most common
// GPU model - and asks, per mode:
//   whole:         one whole GPU per task;
//   time-slicing:  a share of k/N of a GPU, N slots per GPU, k the fewest slots covering its
//                  compute share, with its memory;
//   mps:           an MPS client with its compute share as active-thread percentage (rounded up)
//                  and its memory as the pinned limit;
//   mig:           the smallest MIG profile (no media extensions) of the most common MIG-capable
//                  model whose memory holds its memory; work no profile holds asks a whole GPU.
// The shared GPUs (time-sliced, MPS servers, MIG) are the last GPUs of the cluster (of those the
// mode can use), as many as the small work's share of the whole workload's GPU-time in that mode;
// the rest stay exclusive for whole-GPU work (at least as many as its widest task asks for).
// MIG layouts: the repartition planner (mig_plan.h) validates each GPU's layout while instances
// are handed out in proportion to the small work's demand per profile, until no further instance
// fits.
#include <memory>
#include <string>

#include "scheduler/policy.h"
#include "sim/sharing_study.h"

namespace tessera {

// What a job that needs less than a GPU needs; nullopt for whole-GPU (and CPU-only) work.
struct SmallNeed {
  double compute = 0;  // fraction of one GPU's SMs
  int64_t memoryMiB = 0;
};
std::optional<SmallNeed> smallNeedOf(const GpuRequest& r, const GpuModel& reference);

// The cluster's most common GPU model, and its most common MIG-capable one (nullptr: none).
const GpuModel* mostCommonModel(const Cluster& c, bool migCapable);

// One mode's workload, and what sizing its shared GPUs needs.
struct ModeWorkload {
  Trace trace;
  double sharedFraction = 0;          // of the cluster's GPUs to share (0: whole mode)
  std::vector<double> profileDemand;  // MIG: slices demanded per profile of the MIG model
  const GpuModel* migModel = nullptr;
  size_t smallJobs = 0;
  int widestWholeTask = 0;  // most whole GPUs one task asks for: that many stay exclusive
  // Per job id: GPU equivalents a task is granted and needs (small jobs only).
  std::map<JobId, std::pair<double, double>> grantedAndNeeded;
};
Expected<ModeWorkload> translateWorkload(const Cluster& cluster, const Trace& trace, StudyMode mode,
                                         int slots);

// The cluster's first `nodes` nodes with their GPUs declared for `mode`; `layouts` gets the MIG
// layouts chosen and `shared` the number of shared GPUs.
struct ModeCluster {
  std::shared_ptr<const Cluster> cluster;
  int gpus = 0;
  int shared = 0;
  std::string layouts;
};
Expected<ModeCluster> clusterForMode(const Cluster& full, size_t nodes, StudyMode mode,
                                     const ModeWorkload& work, int slots);

// The policy a mode runs under: MIG layouts are fixed (the planner's), as a GPU operator would
// apply them; the rest is the study's policy.
Policy policyForMode(const Policy& base, StudyMode mode);

// Why the cluster cannot run `mode` at all ("" when it can).
std::string cannotRun(const Cluster& c, StudyMode mode);

}  // namespace tessera
