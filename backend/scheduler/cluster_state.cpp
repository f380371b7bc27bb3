#include "scheduler/cluster_state.h"

#include <algorithm>

#include "core/engine_text.h"
#include "mig/mig_capacity.h"
#include "mig/mig_validate.h"
#include "scheduler/share_check.h"

namespace tessera {

ClusterState::ClusterState(std::shared_ptr<const Cluster> cluster)
    : cluster_(std::move(cluster)),
      gpus_(cluster_->gpus().size()),
      freeOnNode_(cluster_->nodes().size(), 0),
      freeInDomain_(cluster_->nvlinkDomains().size(), 0),
      freeUnderLeaf_(cluster_->switches().size(), 0) {
  for (const auto& n : cluster_->nodes()) nodeStates_.push_back(n.state);
  nodeUsage_.resize(cluster_->nodes().size());
  int most = 0;
  for (const auto& n : cluster_->nodes()) most = std::max(most, n.gpuCount());
  byFree_.assign(static_cast<size_t>(most) + 1,
                 std::vector<uint64_t>((cluster_->nodes().size() + 63) / 64, 0));
  for (const auto& n : cluster_->nodes()) indexNode(n.id, -1, 0);
  for (const auto& g : cluster_->gpus()) {
    if (g.sharing.mode == SharingMode::Mig) gpus_[g.id].layout = g.sharing.mig;
    if (wholeGpuFree(g.id)) countFree(g.id, +1);
  }
}

bool ClusterState::wholeGpuFree(GpuId id) const {
  const Gpu& g = cluster_->gpu(id);
  return g.sharing.mode == SharingMode::Exclusive && gpus_[id].wholeOwner == kNoJob &&
         nodeStates_[g.node] == NodeState::Up;
}

void ClusterState::indexNode(NodeId n, int from, int to) {
  const uint64_t bit = uint64_t{1} << (n % 64);
  if (from >= 0) byFree_[static_cast<size_t>(from)][n / 64] &= ~bit;
  byFree_[static_cast<size_t>(to)][n / 64] |= bit;
}

void ClusterState::countFree(GpuId id, int delta) {
  const Gpu& g = cluster_->gpu(id);
  indexNode(g.node, freeOnNode_[g.node], freeOnNode_[g.node] + delta);
  freeOnNode_[g.node] += delta;
  if (g.nvlinkDomain != kNone) freeInDomain_[static_cast<size_t>(g.nvlinkDomain)] += delta;
  const SwitchId leaf = cluster_->leafOf(g.node);
  if (leaf != kNone) freeUnderLeaf_[static_cast<size_t>(leaf)] += delta;
  freeTotal_ += delta;
}

Status ClusterState::takeWholeGpu(GpuId id, JobId job) {
  if (job == kNoJob) return Error{"job id 0 is reserved", {}};
  if (!wholeGpuFree(id)) {
    const Gpu& g = cluster_->gpu(id);
    const std::string where = cluster_->gpuName(g.id);
    if (g.sharing.mode != SharingMode::Exclusive)
      return Error{
          "GPU " + where + " is in " + sharingModeName(g.sharing.mode) + " mode, not exclusive",
          {}};
    if (nodeStates_[g.node] != NodeState::Up)
      return Error{"node of GPU " + where + " is " + nodeStateName(nodeStates_[g.node]), {}};
    return Error{"GPU " + where + " is held by job " + std::to_string(gpus_[id].wholeOwner), {}};
  }
  gpus_[id].wholeOwner = job;
  countFree(id, -1);
  return okStatus();
}

void ClusterState::restoreWholeGpu(GpuId id, JobId job) {
  const bool wasFree = wholeGpuFree(id);
  gpus_[id].wholeOwner = job;
  if (wasFree) countFree(id, -1);
}

void ClusterState::releaseWholeGpu(GpuId id) {
  if (gpus_[id].wholeOwner == kNoJob) return;
  gpus_[id].wholeOwner = kNoJob;
  if (wholeGpuFree(id)) countFree(id, +1);
}

namespace {

int idleInstance(const GpuOccupancy& o, int profile) {
  int best = -1;
  for (int i = 0; i < o.layout.size(); ++i)
    if (o.layout[i].profile == profile && o.instanceOwner[static_cast<size_t>(i)] == kNoJob &&
        (best < 0 || o.layout[i].start < o.layout[best].start))
      best = i;
  return best;
}

}  // namespace

Expected<int> ClusterState::takeMigInstance(GpuId id, int profile, JobId job, bool mayCreate,
                                            int start) {
  if (job == kNoJob) return Error{"job id 0 is reserved", {}};
  const Gpu& g = cluster_->gpu(id);
  const GpuModel& model = cluster_->modelOf(id);
  if (g.sharing.mode != SharingMode::Mig || !model.mig) return Error{"GPU is not in MIG mode", {}};
  if (!g.sharing.offersMigInstances())
    return Error{"the GPU's MIG instances run MPS servers, for MPS clients only", {}};
  if (nodeStates_[g.node] != NodeState::Up) return Error{"node is not up", {}};
  if (profile < 0 || profile >= static_cast<int>(model.mig->profiles.size()))
    return Error{"no such MIG profile on " + model.id, {}};
  GpuOccupancy& o = gpus_[id];
  const std::string name = model.mig->profiles[static_cast<size_t>(profile)].name;
  if (start >= 0) return takeMigInstanceAt(id, profile, job, mayCreate, start);
  if (int idle = idleInstance(o, profile); idle >= 0) {
    o.instanceOwner[static_cast<size_t>(idle)] = job;
    return idle;
  }
  if (!mayCreate) return Error{"no idle " + name + " instance", {}};
  const auto fit = migBestNewInstance(*model.mig, o.layout, profile);
  if (!fit) return Error{"no free slot for a " + name + " instance", {}};
  MigInstance inst;
  inst.profile = static_cast<int8_t>(profile);
  inst.start = static_cast<int8_t>(fit->start);
  o.layout.add(inst);
  const int index = o.layout.size() - 1;
  o.instanceOwner[static_cast<size_t>(index)] = job;
  return index;
}

Status ClusterState::checkMigLayout(GpuId id, const MigLayout& layout) const {
  const Gpu& g = cluster_->gpu(id);
  const GpuModel& model = cluster_->modelOf(id);
  if (g.sharing.mode != SharingMode::Mig || !model.mig) return Error{"GPU is not in MIG mode", {}};
  for (int i = 0; i < layout.size(); ++i)
    if (!layout[i].placed()) return Error::of(phrase(text::kMigNeedsStart));
  if (const auto v = validateMigLayout(*model.mig, layout); !v.ok())
    return Error::of(migVerdictText(model, layout, v));
  return okStatus();
}

namespace {
// The index of the instance starting at memory slice `start`, or -1.
int instanceAt(const MigLayout& layout, int start) {
  for (int k = 0; k < layout.size(); ++k)
    if (layout[k].start == start) return k;
  return -1;
}
}  // namespace

Status ClusterState::setMigLayout(GpuId id, const MigLayout& layout) {
  TESSERA_CHECK(checkMigLayout(id, layout));
  GpuOccupancy& o = gpus_[id];
  std::array<JobId, kMaxMemorySlices> owners{};
  for (int i = 0; i < o.layout.size(); ++i) {
    const JobId owner = o.instanceOwner[static_cast<size_t>(i)];
    if (owner == kNoJob) continue;
    int found = -1;
    for (int k = 0; k < layout.size() && found < 0; ++k)
      if (layout[k].profile == o.layout[i].profile && layout[k].start == o.layout[i].start)
        found = k;
    if (found < 0) return Error::of(phrase(text::kMigSliceBusy, o.layout[i].start));
    owners[static_cast<size_t>(found)] = owner;
  }
  // MPS clients keep their instance too: a server cannot move under its clients.
  for (const auto& c : o.mpsClients) {
    const int was = instanceAt(o.layout, c.instanceStart);
    const int now = instanceAt(layout, c.instanceStart);
    if (was >= 0 && (now < 0 || layout[now].profile != o.layout[was].profile))
      return Error::of(phrase(text::kMigSliceBusy, c.instanceStart));
  }
  o.layout = layout;
  o.instanceOwner = owners;
  return okStatus();
}

Expected<int> ClusterState::takeMigInstanceAt(GpuId id, int profile, JobId job, bool mayCreate,
                                              int start) {
  const GpuModel& model = cluster_->modelOf(id);
  GpuOccupancy& o = gpus_[id];
  const std::string where =
      model.mig->profiles[static_cast<size_t>(profile)].name + " at slice " + std::to_string(start);
  for (int i = 0; i < o.layout.size(); ++i) {
    if (o.layout[i].profile != profile || o.layout[i].start != start) continue;
    if (o.instanceOwner[static_cast<size_t>(i)] != kNoJob)
      return Error{"the " + where + " instance is held by job " +
                       std::to_string(o.instanceOwner[static_cast<size_t>(i)]),
                   {}};
    o.instanceOwner[static_cast<size_t>(i)] = job;
    return i;
  }
  if (!mayCreate) return Error{"no " + where + " instance", {}};
  MigLayout next = o.layout;
  MigInstance inst;
  inst.profile = static_cast<int8_t>(profile);
  inst.start = static_cast<int8_t>(start);
  if (!next.add(inst) || !validateMigLayout(*model.mig, next).ok())
    return Error{"a " + where + " instance does not fit next to the GPU's instances", {}};
  o.layout.add(inst);
  const int index = o.layout.size() - 1;
  o.instanceOwner[static_cast<size_t>(index)] = job;
  return index;
}

void ClusterState::releaseMigInstance(GpuId id, int index, bool destroy) {
  GpuOccupancy& o = gpus_[id];
  if (index < 0 || index >= o.layout.size()) return;
  o.instanceOwner[static_cast<size_t>(index)] = kNoJob;
  if (!destroy) return;
  o.layout.removeAt(index);
  for (int i = index; i < kMaxMemorySlices - 1; ++i)
    o.instanceOwner[static_cast<size_t>(i)] = o.instanceOwner[static_cast<size_t>(i + 1)];
  o.instanceOwner[kMaxMemorySlices - 1] = kNoJob;
}

ShareRefusal checkShare(const ClusterState& state, GpuId id, JobId job, int milli,
                        int64_t vramMiB) {
  if (job == kNoJob) return ShareRefusal::ReservedJobId;
  const Gpu& g = state.cluster().gpu(id);
  if (g.sharing.mode != SharingMode::TimeSliced) return ShareRefusal::NotTimeSliced;
  if (state.nodeState(g.node) != NodeState::Up) return ShareRefusal::NodeNotUp;
  if (milli < 1 || milli > 1000) return ShareRefusal::SizeOutOfRange;
  const GpuOccupancy& o = state.gpu(id);
  if (static_cast<int>(o.shares.size()) >= g.sharing.replicas) return ShareRefusal::NoReplicaLeft;
  if (o.milliUsed + milli > 1000) return ShareRefusal::NoMilliLeft;
  const auto memory = state.cluster().modelOf(id).memoryMiB;
  if (memory && o.vramUsedMiB + vramMiB > *memory) return ShareRefusal::NoMemoryLeft;
  if (std::any_of(o.shares.begin(), o.shares.end(),
                  [&](const GpuShare& s) { return s.job == job; }))
    return ShareRefusal::AlreadyHoldsOne;
  return ShareRefusal::None;
}

std::optional<std::string> ClusterState::shareProblem(GpuId id, JobId job, int milli,
                                                      int64_t vramMiB) const {
  const GpuOccupancy& o = gpus_[id];
  switch (checkShare(*this, id, job, milli, vramMiB)) {
    case ShareRefusal::None:
      return std::nullopt;
    case ShareRefusal::ReservedJobId:
      return "job id 0 is reserved";
    case ShareRefusal::NotTimeSliced:
      return "GPU is not shared (time-sliced)";
    case ShareRefusal::NodeNotUp:
      return "node is not up";
    case ShareRefusal::SizeOutOfRange:
      return "a GPU share is 1..1000 milli-GPU";
    case ShareRefusal::NoReplicaLeft:
      return "all " + std::to_string(cluster_->gpu(id).sharing.replicas) + " replicas are in use";
    case ShareRefusal::NoMilliLeft:
      return "only " + std::to_string(1000 - o.milliUsed) + " milli-GPU left";
    case ShareRefusal::NoMemoryLeft:
      return "only " + std::to_string(*cluster_->modelOf(id).memoryMiB - o.vramUsedMiB) +
             " MiB of GPU memory left";
    case ShareRefusal::AlreadyHoldsOne:
      return "job already holds a share of this GPU";
  }
  return std::nullopt;
}

int ClusterState::idleMigInstances(GpuId id, int profile) const {
  const GpuOccupancy& o = gpus_[id];
  int idle = 0;
  for (int k = 0; k < o.layout.size(); ++k)
    if (o.layout[k].profile == profile && o.instanceOwner[static_cast<size_t>(k)] == kNoJob) ++idle;
  return idle;
}

Status ClusterState::takeShare(GpuId id, JobId job, int milli, int64_t vramMiB) {
  if (auto problem = shareProblem(id, job, milli, vramMiB)) return Error{*problem, {}};
  GpuOccupancy& o = gpus_[id];
  o.shares.push_back({job, milli, vramMiB});
  o.milliUsed += milli;
  o.vramUsedMiB += vramMiB;
  return okStatus();
}

void ClusterState::releaseShare(GpuId id, JobId job) {
  GpuOccupancy& o = gpus_[id];
  auto it = std::find_if(o.shares.begin(), o.shares.end(),
                         [&](const GpuShare& s) { return s.job == job; });
  if (it == o.shares.end()) return;
  o.milliUsed -= it->milli;
  o.vramUsedMiB -= it->vramMiB;
  o.shares.erase(it);
}

void ClusterState::setNodeState(NodeId id, NodeState state) {
  const Node& n = cluster_->node(id);
  std::vector<bool> wasFree;
  for (int i = 0; i < n.gpuCount(); ++i)
    wasFree.push_back(wholeGpuFree(n.firstGpu + static_cast<GpuId>(i)));
  nodeStates_[id] = state;
  for (int i = 0; i < n.gpuCount(); ++i) {
    const GpuId g = n.firstGpu + static_cast<GpuId>(i);
    const bool isFree = wholeGpuFree(g);
    if (isFree != wasFree[static_cast<size_t>(i)]) countFree(g, isFree ? +1 : -1);
  }
}

int ClusterState::freeCpus(NodeId id) const {
  const int total = cluster_->node(id).hw->cpus;
  return total > 0 ? total - nodeUsage_[id].cpus : -1;
}

int64_t ClusterState::freeMemoryMiB(NodeId id) const {
  const int64_t total = cluster_->node(id).hw->memoryMiB;
  return total > 0 ? total - nodeUsage_[id].memoryMiB : -1;
}

Status ClusterState::takeNodeResources(NodeId id, JobId job, int cpus, int64_t memoryMiB) {
  if (job == kNoJob) return Error{"job id 0 is reserved", {}};
  if (cpus < 0 || memoryMiB < 0) return Error{"negative CPU or memory request", {}};
  const std::string& node = cluster_->node(id).name;
  if (const int free = freeCpus(id); free >= 0 && cpus > free)
    return Error{"node " + node + " has " + std::to_string(free) + " free CPUs, " +
                     std::to_string(cpus) + " needed",
                 {}};
  if (const int64_t free = freeMemoryMiB(id); free >= 0 && memoryMiB > free)
    return Error{"node " + node + " has " + std::to_string(free) + " MiB free memory, " +
                     std::to_string(memoryMiB) + " needed",
                 {}};
  if (cpus == 0 && memoryMiB == 0) return okStatus();  // nothing to hold
  NodeUsage& u = nodeUsage_[id];
  auto it = std::find_if(u.holdings.begin(), u.holdings.end(),
                         [&](const NodeHolding& h) { return h.job == job; });
  if (it == u.holdings.end()) it = u.holdings.insert(u.holdings.end(), NodeHolding{job, 0, 0});
  it->cpus += cpus;
  it->memoryMiB += memoryMiB;
  u.cpus += cpus;
  u.memoryMiB += memoryMiB;
  return okStatus();
}

void ClusterState::returnNodeResources(NodeId id, JobId job, int cpus, int64_t memoryMiB) {
  NodeUsage& u = nodeUsage_[id];
  auto it = std::find_if(u.holdings.begin(), u.holdings.end(),
                         [&](const NodeHolding& h) { return h.job == job; });
  if (it == u.holdings.end()) return;
  cpus = std::min(cpus, it->cpus);
  memoryMiB = std::min(memoryMiB, it->memoryMiB);
  it->cpus -= cpus;
  it->memoryMiB -= memoryMiB;
  u.cpus -= cpus;
  u.memoryMiB -= memoryMiB;
  if (it->cpus == 0 && it->memoryMiB == 0) u.holdings.erase(it);
}

void ClusterState::restoreNodeHolding(NodeId id, size_t position, const NodeHolding& holding) {
  NodeUsage& u = nodeUsage_[id];
  u.holdings.insert(
      u.holdings.begin() + static_cast<std::ptrdiff_t>(std::min(position, u.holdings.size())),
      holding);
  u.cpus += holding.cpus;
  u.memoryMiB += holding.memoryMiB;
}

ClusterState::Counters ClusterState::recountFree() const {
  Counters c{std::vector<int>(freeOnNode_.size(), 0), std::vector<int>(freeInDomain_.size(), 0),
             std::vector<int>(freeUnderLeaf_.size(), 0), 0};
  for (const auto& g : cluster_->gpus()) {
    if (!wholeGpuFree(g.id)) continue;
    ++c.node[g.node];
    if (g.nvlinkDomain != kNone) ++c.domain[static_cast<size_t>(g.nvlinkDomain)];
    if (const SwitchId leaf = cluster_->leafOf(g.node); leaf != kNone)
      ++c.leaf[static_cast<size_t>(leaf)];
    ++c.total;
  }
  return c;
}

}  // namespace tessera
