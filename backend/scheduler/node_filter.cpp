#include "scheduler/node_filter.h"

#include <algorithm>

#include "core/engine_text.h"
#include "mig/mig_capacity.h"
#include "scheduler/gpu_task_fit.h"
#include "scheduler/mps_check.h"
#include "scheduler/share_check.h"

namespace tessera {

const char* nodeRejectText(NodeReject r) {
  switch (r) {
    case NodeReject::NodeNotUp:
      return text::kRejectNodeNotUp;
    case NodeReject::PoolMismatch:
      return text::kRejectPool;
    case NodeReject::GpuModelMismatch:
      return text::kRejectModel;
    case NodeReject::GpuMemoryTooSmall:
      return text::kRejectMemory;
    case NodeReject::NotEnoughFreeGpus:
      return text::kRejectGpus;
    case NodeReject::NoMigGpu:
      return text::kRejectNoMigGpu;
    case NodeReject::NoMigSlot:
      return text::kRejectNoMigSlot;
    case NodeReject::NoGpuShare:
      return text::kRejectShare;
    case NodeReject::NoMpsGpu:
      return text::kRejectNoMpsGpu;
    case NodeReject::NoMpsRoom:
      return text::kRejectMps;
    case NodeReject::NotEnoughCpu:
      return text::kRejectCpu;
    case NodeReject::NotEnoughMemory:
      return text::kRejectHostMemory;
    case NodeReject::Reserved:
      return text::kRejectReserved;
    case NodeReject::NotPinned:
      return text::kRejectNotPinned;
    case NodeReject::Count:
      break;
  }
  return "?";
}

namespace {

bool modelAllowed(const Job& job, const GpuModel& m) {
  return job.model.models.empty() || std::find(job.model.models.begin(), job.model.models.end(),
                                               m.id) != job.model.models.end();
}

bool memoryEnough(const Job& job, const GpuModel& m) {
  const int64_t need = std::max(job.model.minMemoryMiB, job.perTask.vramMiB);
  if (need == 0) return true;
  return m.memoryMiB && *m.memoryMiB >= need;
}

}  // namespace

bool modelQualifies(const Job& job, const GpuModel& m) {
  return modelAllowed(job, m) && memoryEnough(job, m);
}

namespace {

// The filter asks the questions below of every GPU of every node per placement search (4,000
// nodes at 150,000 pending): what is cheap to rule out is ruled out before a profile is looked
// up by name or a refusal is worded.
bool anyGpuOffersMig(const ClusterState& state, const Node& n) {
  for (int i = 0; i < n.gpuCount(); ++i)
    if (state.cluster().gpu(n.firstGpu + static_cast<GpuId>(i)).sharing.offersMigInstances())
      return true;
  return false;
}

bool offersMigProfile(const ClusterState& state, const Node& n, const std::string& profileName) {
  return anyGpuOffersMig(state, n) && n.gpuModel().mig &&
         n.gpuModel().mig->profileIndex(profileName) >= 0;
}

// MIG instances, shares and MPS clients: what the GPUs the gate allows could take (gpu_task_fit.h).
int smallTasks(const ClusterState& state, const Node& n, const SmallTaskFit& fit,
               const GpuGate* gate) {
  return fit.tasksOnNode(state, n, [&](GpuId g) { return gateAllows(gate, g); });
}

bool runsMps(const ClusterState& state, const Node& n) {
  for (int i = 0; i < n.gpuCount(); ++i)
    if (state.cluster().gpu(n.firstGpu + static_cast<GpuId>(i)).sharing.runsMps()) return true;
  return false;
}

int freeUsableGpus(const ClusterState& state, const Node& n, const GpuGate* gate) {
  if (!gate) return state.freeWholeGpusOnNode(n.id);
  int free = 0;
  for (int i = 0; i < n.gpuCount(); ++i) {
    const GpuId g = n.firstGpu + static_cast<GpuId>(i);
    if (state.wholeGpuFree(g) && gate->usable(g)) ++free;
  }
  return free;
}

// GPU tasks the node could take, with `gate` applied (nullptr = none).
int gpuTasks(const ClusterState& state, const Job& job, const SmallTaskFit& fit, const Node& n,
             const GpuGate* gate) {
  switch (job.perTask.kind) {
    case GpuRequest::Kind::Whole:
      return freeUsableGpus(state, n, gate) / job.perTask.gpus;
    case GpuRequest::Kind::Mig:
    case GpuRequest::Kind::Fraction:
    case GpuRequest::Kind::Mps:
      return smallTasks(state, n, fit, gate);
    case GpuRequest::Kind::None:
      break;
  }
  return 0;
}

NodeReject noRoomReason(const ClusterState& state, const Job& job, const Node& n) {
  switch (job.perTask.kind) {
    case GpuRequest::Kind::Whole:
      return NodeReject::NotEnoughFreeGpus;
    case GpuRequest::Kind::Mig:
      return offersMigProfile(state, n, job.perTask.migProfile) ? NodeReject::NoMigSlot
                                                                : NodeReject::NoMigGpu;
    case GpuRequest::Kind::Mps:
      return runsMps(state, n) ? NodeReject::NoMpsRoom : NodeReject::NoMpsGpu;
    case GpuRequest::Kind::Fraction:
    case GpuRequest::Kind::None:
      break;
  }
  return NodeReject::NoGpuShare;
}

// `tasks` capped by free CPUs and memory (-1 = the node does not limit them).
int capByHost(const Job& job, int tasks, int cpus, int64_t memory, NodeReject& reason) {
  if (job.cpusPerTask > 0 && cpus >= 0) {
    tasks = std::min(tasks, cpus / job.cpusPerTask);
    if (tasks == 0) {
      reason = NodeReject::NotEnoughCpu;
      return 0;
    }
  }
  if (job.memoryMiBPerTask > 0 && memory >= 0) {
    tasks = static_cast<int>(std::min<int64_t>(tasks, memory / job.memoryMiBPerTask));
    if (tasks == 0) {
      reason = NodeReject::NotEnoughMemory;
      return 0;
    }
  }
  return tasks;
}

// Caps `tasks` by the node's free CPUs and memory (templates without them do not limit), less
// what a gate holds there for another job.
int hostTasks(const ClusterState& state, const Job& job, NodeId id, int tasks, NodeReject& reason,
              const GpuGate* gate) {
  int cpus = state.freeCpus(id);
  int64_t memory = state.freeMemoryMiB(id);
  if (gate) {
    const auto [heldCpus, heldMemory] = gate->hostHeld(id);
    if (heldCpus > 0 || heldMemory > 0) {
      NodeReject unused = NodeReject::Count;
      const int without = hostTasks(state, job, id, tasks, unused, nullptr);
      if (cpus >= 0) cpus = std::max(0, cpus - heldCpus);
      if (memory >= 0) memory = std::max<int64_t>(0, memory - heldMemory);
      const int with = capByHost(job, tasks, cpus, memory, reason);
      if (with == 0 && without > 0) reason = gate->reason(id);
      return with;
    }
  }
  return capByHost(job, tasks, cpus, memory, reason);
}
}  // namespace

MpsAsk mpsAsk(const Job& job) {
  return {job.id, job.perTask.mpsThreads, job.perTask.vramMiB, job.team, job.user};
}

SmallTaskFit::SmallTaskFit(const Job& job) : job_(job) {
  switch (job.perTask.kind) {
    case GpuRequest::Kind::Mps:
      ask_ = mpsAsk(job);
      [[fallthrough]];
    case GpuRequest::Kind::Fraction:
    case GpuRequest::Kind::Mig:
      kind_ = job.perTask.kind;
      break;
    default:
      break;
  }
}

int SmallTaskFit::migProfileOf(const GpuModel& model) const {
  if (&model != migModel_) {
    migModel_ = &model;
    migProfile_ = model.mig ? model.mig->profileIndex(job_.perTask.migProfile) : -1;
  }
  return migProfile_;
}

bool SmallTaskFit::underOneGpuRule(const ClusterState& state, GpuId g) const {
  const GpuSharing& sharing = state.cluster().gpu(g).sharing;
  return kind_ == GpuRequest::Kind::Mps && sharing.mode == SharingMode::Mps &&
         sharing.mps.nodeSharing == MpsNodeSharing::One;
}

int SmallTaskFit::tasksOn(const ClusterState& state, GpuId g) const {
  const GpuRequest& r = job_.perTask;
  switch (kind_) {
    case GpuRequest::Kind::Fraction:
      return takesShare(state, g, job_.id, r.milli, r.vramMiB);
    case GpuRequest::Kind::Mps:
      return state.cluster().gpu(g).sharing.runsMps() && checkMps(state, g, ask_).ok();
    case GpuRequest::Kind::Mig: {
      // Idle instances of the profile, plus, unless layouts are fixed, new ones that fit.
      if (!state.cluster().gpu(g).sharing.offersMigInstances()) return 0;
      const GpuModel& m = state.cluster().modelOf(g);
      const int p = migProfileOf(m);
      if (p < 0) return 0;
      int tasks = state.idleMigInstances(g, p);
      if (!state.fixedMigLayouts())
        tasks += migMaxAdditional(*m.mig, MigUsage::of(*m.mig, state.gpu(g).layout), p);
      return tasks;
    }
    default:
      return 0;
  }
}

bool nodeEligible(const Job& job, const Node& n) {
  return (job.pool.empty() || n.pool == job.pool) && modelAllowed(job, n.gpuModel());
}

namespace {

// tasksThatFit with the job's small-task fit made once per search, not once per node (it copies
// an MPS client's team and user, and looks the MIG profile up by name per GPU model).
int tasksThatFitWith(const ClusterState& state, const Job& job, const SmallTaskFit& fit, NodeId id,
                     NodeReject& reason, const GpuGate* gate) {
  const Node& n = state.cluster().node(id);
  auto reject = [&reason](NodeReject r) {
    reason = r;
    return 0;
  };
  if (state.nodeState(id) != NodeState::Up) return reject(NodeReject::NodeNotUp);
  if (!job.pool.empty() && n.pool != job.pool) return reject(NodeReject::PoolMismatch);
  // CPU-only jobs: GPUs do not limit them.
  if (job.perTask.kind == GpuRequest::Kind::None)
    return hostTasks(state, job, id, job.tasks, reason, gate && gate->touches(id) ? gate : nullptr);
  if (!modelAllowed(job, n.gpuModel())) return reject(NodeReject::GpuModelMismatch);
  if (!memoryEnough(job, n.gpuModel())) return reject(NodeReject::GpuMemoryTooSmall);
  const bool gated = gate && gate->touches(id);
  const int tasks = gpuTasks(state, job, fit, n, gated ? gate : nullptr);
  if (tasks == 0) {
    // Name the gate only when it is what stands in the way.
    if (gated && gpuTasks(state, job, fit, n, nullptr) > 0) return reject(gate->reason(id));
    return reject(noRoomReason(state, job, n));
  }
  return hostTasks(state, job, id, std::min(tasks, job.tasks), reason, gated ? gate : nullptr);
}

}  // namespace

int tasksThatFit(const ClusterState& state, const Job& job, NodeId id, NodeReject& reason,
                 const GpuGate* gate) {
  return tasksThatFitWith(state, job, SmallTaskFit(job), id, reason, gate);
}

NodeFilterResult filterNodes(const ClusterState& state, const Job& job, const GpuGate* gate) {
  NodeFilterResult r;
  const SmallTaskFit fit(job);
  for (const auto& n : state.cluster().nodes()) {
    ++r.nodesChecked;
    NodeReject why = NodeReject::Count;
    if (const int tasks = tasksThatFitWith(state, job, fit, n.id, why, gate); tasks > 0)
      r.fits.emplace_back(n.id, tasks);
    else
      ++r.rejected[static_cast<size_t>(why)];
  }
  return r;
}

Text NodeFilterResult::summary() const {
  std::vector<std::pair<int, NodeReject>> causes;
  for (size_t i = 0; i < rejected.size(); ++i)
    if (rejected[i] > 0) causes.emplace_back(rejected[i], static_cast<NodeReject>(i));
  std::stable_sort(causes.begin(), causes.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  Text fit = phrase(text::kNodesFit, fittingNodes(), nodesChecked);
  if (causes.empty()) return fit;
  std::vector<Text> items;
  for (const auto& [count, why] : causes)
    items.push_back(phrase(text::kNodesRejected, count, phrase(nodeRejectText(why))));
  return phrase(text::kClauses, std::move(fit), listText(std::move(items)));
}

}  // namespace tessera
