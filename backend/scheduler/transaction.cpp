#include "scheduler/transaction.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "mig/mig_validate.h"

namespace tessera {

Status Transaction::takeWholeGpu(GpuId id, JobId job) {
  TESSERA_CHECK(state_.takeWholeGpu(id, job));
  undo_.push_back({Kind::TookWhole, id, job, -1, {}, {}});
  return okStatus();
}

Expected<int> Transaction::takeMigInstance(GpuId id, int profile, JobId job, bool mayCreate,
                                           int start) {
  const int before = state_.gpu(id).layout.size();
  TESSERA_TRY(index, state_.takeMigInstance(id, profile, job, mayCreate, start));
  const bool created = state_.gpu(id).layout.size() > before;
  undo_.push_back({created ? Kind::CreatedMig : Kind::TookMig, id, job, index, {}, {}});
  return index;
}

Status Transaction::takeShare(GpuId id, JobId job, int milli, int64_t vramMiB) {
  TESSERA_CHECK(state_.takeShare(id, job, milli, vramMiB));
  undo_.push_back({Kind::TookShare, id, job, -1, {}, {}});
  return okStatus();
}

Expected<int> Transaction::takeMps(GpuId id, const MpsAsk& ask, int instanceStart) {
  TESSERA_TRY(start, state_.takeMps(id, ask, instanceStart));
  undo_.push_back({Kind::TookMps, id, ask.job, start, {}, {}});
  return start;
}

Status Transaction::takeNodeResources(NodeId id, JobId job, int cpus, int64_t memoryMiB) {
  TESSERA_CHECK(state_.takeNodeResources(id, job, cpus, memoryMiB));
  undo_.push_back({Kind::TookNode, id, job, -1, {}, {job, cpus, memoryMiB}});
  return okStatus();
}

void Transaction::releaseJob(JobId job, std::span<const NodeId> onNodes) {
  const Cluster& c = state_.cluster();
  std::vector<NodeId> all;
  if (onNodes.empty()) {
    all.reserve(c.nodes().size());
    for (const auto& n : c.nodes()) all.push_back(n.id);
    onNodes = all;
  }
  for (NodeId n : onNodes) {
    releaseHolding(job, n);
    const Node& node = c.node(n);
    for (int i = 0; i < node.gpuCount(); ++i)
      releaseGpu(job, node.firstGpu + static_cast<GpuId>(i));
  }
}

void Transaction::releaseJob(JobId job, std::span<const NodeId> onNodes,
                             std::span<const GpuId> gpus) {
  for (NodeId n : onNodes) releaseHolding(job, n);
  for (GpuId g : gpus) releaseGpu(job, g);
}

void Transaction::releaseHolding(JobId job, NodeId n) {
  const auto& holdings = state_.nodeUsage(n).holdings;
  for (size_t k = 0; k < holdings.size(); ++k) {
    if (holdings[k].job != job) continue;
    const NodeHolding copy = holdings[k];
    state_.returnNodeResources(n, job, copy.cpus, copy.memoryMiB);
    undo_.push_back({Kind::ReleasedNode, n, job, static_cast<int>(k), {}, copy});
    return;
  }
}

void Transaction::releaseGpu(JobId job, GpuId g) {
  const GpuOccupancy& o = state_.gpu(g);
  if (o.wholeOwner == job) {
    state_.releaseWholeGpu(g);
    undo_.push_back({Kind::ReleasedWhole, g, job, -1, {}, {}});
  }
  for (int i = 0; i < o.layout.size(); ++i)
    if (o.instanceOwner[static_cast<size_t>(i)] == job) {
      state_.releaseMigInstance(g, i, false);
      undo_.push_back({Kind::ReleasedMig, g, job, i, {}, {}});
    }
  auto share = std::find_if(o.shares.begin(), o.shares.end(),
                            [&](const GpuShare& s) { return s.job == job; });
  if (share != o.shares.end()) {
    const GpuShare copy = *share;
    const auto position = static_cast<int>(share - o.shares.begin());
    state_.releaseShare(g, job);
    undo_.push_back({Kind::ReleasedShare, g, job, position, copy, {}});
  }
  const auto& clients = o.mpsClients;
  auto client = std::find_if(clients.begin(), clients.end(),
                             [&](const MpsClient& c) { return c.job == job; });
  if (client != clients.end()) {
    const auto position = static_cast<int>(client - clients.begin());
    releasedMps_.push_back(*client);
    state_.releaseMps(g, job);
    undo_.push_back({Kind::ReleasedMps, g, job, position, {}, {}});
  }
}

void Transaction::rollbackTo(size_t mark) {
  if (mark > undo_.size()) return;
  for (auto it = undo_.rbegin(); it != undo_.rend() - static_cast<std::ptrdiff_t>(mark); ++it) {
    switch (it->kind) {
      case Kind::TookWhole:
        state_.releaseWholeGpu(it->gpu);
        break;
      case Kind::TookMig:
        state_.releaseMigInstance(it->gpu, it->index, false);
        break;
      case Kind::CreatedMig:
        state_.releaseMigInstance(it->gpu, it->index, true);
        break;
      case Kind::TookShare:
        state_.releaseShare(it->gpu, it->job);
        break;
      // Released holdings go back unchecked: the node may have been drained since they were taken.
      case Kind::ReleasedWhole:
        state_.restoreWholeGpu(it->gpu, it->job);
        break;
      case Kind::ReleasedMig:
        state_.unsafeGpu(it->gpu).instanceOwner[static_cast<size_t>(it->index)] = it->job;
        break;
      case Kind::TookNode:
        state_.returnNodeResources(it->gpu, it->job, it->holding.cpus, it->holding.memoryMiB);
        break;
      case Kind::ReleasedNode:
        state_.restoreNodeHolding(it->gpu, static_cast<size_t>(it->index), it->holding);
        break;
      case Kind::TookMps:
        state_.releaseMps(it->gpu, it->job);
        break;
      case Kind::ReleasedMps: {
        // Back at its old position, unchecked like the other released holdings.
        auto& clients = state_.unsafeGpu(it->gpu).mpsClients;
        clients.insert(clients.begin() + it->index, std::move(releasedMps_.back()));
        releasedMps_.pop_back();
        break;
      }
      case Kind::ReleasedShare: {
        GpuOccupancy& o = state_.unsafeGpu(it->gpu);
        // Back at its old position: share order is part of the state (it is the arrival order).
        o.shares.insert(o.shares.begin() + it->index, it->share);
        o.milliUsed += it->share.milli;
        o.vramUsedMiB += it->share.vramMiB;
        break;
      }
    }
  }
  undo_.resize(mark);
}

namespace {

// Each server's clients within its thread budget and client limit, one client per job, and
// clients only where MPS runs (on a MIG GPU, in an instance of the layout).
void checkMpsClients(const ClusterState& state, const Gpu& g, std::vector<std::string>& out) {
  const GpuOccupancy& o = state.gpu(g.id);
  if (o.mpsClients.empty()) return;
  const std::string name = state.cluster().gpuName(g.id);
  if (!g.sharing.runsMps()) out.push_back(name + ": MPS clients on a GPU that does not run MPS");
  std::map<int, std::pair<int, int>> servers;  // start -> clients, threads
  std::set<JobId> jobs;
  for (const auto& c : o.mpsClients) {
    auto& [clients, threads] = servers[c.instanceStart];
    ++clients;
    threads += c.threads;
    if (!jobs.insert(c.job).second) out.push_back(name + ": a job has two MPS clients");
  }
  for (const auto& [start, use] : servers) {
    if (use.first > state.cluster().modelOf(g.id).mpsMaxClients)
      out.push_back(name + ": more MPS clients than the architecture allows");
    if (use.second > g.sharing.mps.threadBudget)
      out.push_back(name + ": MPS clients over the thread budget");
    bool instance = start < 0 ? g.sharing.mode == SharingMode::Mps : false;
    for (int k = 0; k < o.layout.size() && !instance; ++k) instance = o.layout[k].start == start;
    if (!instance) out.push_back(name + ": MPS clients of a server that does not exist");
  }
}

void checkGpu(const ClusterState& state, const Gpu& g, std::vector<std::string>& out) {
  const Cluster& c = state.cluster();
  const GpuOccupancy& o = state.gpu(g.id);
  const std::string name = c.gpuName(g.id);
  const GpuModel& model = c.modelOf(g.id);
  if (o.wholeOwner != kNoJob && g.sharing.mode != SharingMode::Exclusive)
    out.push_back(name + ": whole-GPU owner on a " + sharingModeName(g.sharing.mode) + " GPU");
  if (g.sharing.mode == SharingMode::Mig && model.mig) {
    if (auto v = validateMigLayout(*model.mig, o.layout); !v.ok())
      out.push_back(name + ": " + explainMigVerdict(model, o.layout, v));
  } else if (!o.layout.empty()) {
    out.push_back(name + ": MIG instances on a GPU not in MIG mode");
  }
  for (int i = o.layout.size(); i < kMaxMemorySlices; ++i)
    if (o.instanceOwner[static_cast<size_t>(i)] != kNoJob)
      out.push_back(name + ": owner recorded for missing MIG instance " + std::to_string(i));
  int milli = 0;
  int64_t vram = 0;
  for (const auto& s : o.shares) {
    milli += s.milli;
    vram += s.vramMiB;
  }
  if (milli != o.milliUsed || vram != o.vramUsedMiB)
    out.push_back(name + ": share sums disagree with totals");
  if (milli > 1000) out.push_back(name + ": shares exceed the GPU");
  if (!o.shares.empty() && g.sharing.mode != SharingMode::TimeSliced)
    out.push_back(name + ": shares on a GPU that is not time-sliced");
  if (static_cast<int>(o.shares.size()) > std::max(1, g.sharing.replicas))
    out.push_back(name + ": more shares than replicas");
  if (model.memoryMiB && vram > *model.memoryMiB)
    out.push_back(name + ": shares exceed GPU memory");
  checkMpsClients(state, g, out);
}

void checkNode(const ClusterState& state, const Node& n, std::vector<std::string>& out) {
  const NodeUsage& u = state.nodeUsage(n.id);
  int cpus = 0;
  int64_t memory = 0;
  for (const auto& h : u.holdings) {
    cpus += h.cpus;
    memory += h.memoryMiB;
  }
  if (cpus != u.cpus || memory != u.memoryMiB)
    out.push_back(n.name + ": CPU/memory holdings disagree with totals");
  if (n.hw->cpus > 0 && u.cpus > n.hw->cpus)
    out.push_back(n.name + ": more CPUs held than the node has");
  if (n.hw->memoryMiB > 0 && u.memoryMiB > n.hw->memoryMiB)
    out.push_back(n.name + ": more memory held than the node has");
}

}  // namespace

std::vector<std::string> checkInvariants(const ClusterState& state) {
  std::vector<std::string> out;
  for (const auto& n : state.cluster().nodes()) checkNode(state, n, out);
  for (const auto& g : state.cluster().gpus()) checkGpu(state, g, out);
  if (!(state.counters() == state.recountFree()))
    out.push_back("free whole-GPU counters disagree with a recount");
  return out;
}

}  // namespace tessera
