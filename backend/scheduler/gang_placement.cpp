#include "scheduler/gang_placement.h"

#include <algorithm>
#include <bit>
#include <map>
#include <tuple>

#include "core/engine_text.h"
#include "mig/mig_capacity.h"
#include "scheduler/mps_check.h"
#include "scheduler/share_check.h"

namespace tessera {

namespace {

constexpr TopologyLevel kLevels[] = {TopologyLevel::Node, TopologyLevel::NvlinkDomain,
                                     TopologyLevel::Leaf, TopologyLevel::Spine,
                                     TopologyLevel::Cluster};

// The units at one level: each a run of (node, tasks) pairs in one flat array (no allocation
// per unit: a DGX cluster has one NVLink domain per node).
struct Units {
  struct Range {
    size_t begin = 0;
    size_t count = 0;
    int capacity = 0;  // tasks of this job the unit can take
    int freeGpus = 0;  // free whole GPUs on those nodes
  };
  std::vector<std::pair<NodeId, int>> nodes;
  std::vector<Range> ranges;  // in the order of their unit keys
};

// The units at `level` holding fitting nodes. Keys are dense (domain, switch or node ids, islands
// below zero), so a counting pass over a slot table replaces a map. A single-node NVLink domain
// is the node itself, already tried at node level: left out.
Units unitsAt(const ClusterState& state, const NodeFilterResult& filter, TopologyLevel level) {
  const Cluster& c = state.cluster();
  const int64_t offset = static_cast<int64_t>(c.switches().size()) + 1;
  const size_t span = static_cast<size_t>(offset) +
                      std::max({c.nvlinkDomains().size(), c.switches().size(), size_t{1}}) + 1;
  auto slotOf = [&](NodeId node) -> std::optional<size_t> {
    const auto key = topologyUnitOf(c, node, level);
    if (!key) return std::nullopt;
    if (level == TopologyLevel::NvlinkDomain &&
        c.nvlinkDomains()[static_cast<size_t>(*key)].nodes.size() <= 1)
      return std::nullopt;
    return static_cast<size_t>(*key + offset);
  };
  std::vector<Units::Range> bySlot(span);
  for (auto [node, tasks] : filter.fits)
    if (const auto s = slotOf(node)) {
      Units::Range& r = bySlot[*s];
      ++r.count;
      r.capacity += tasks;
      r.freeGpus += state.freeWholeGpusOnNode(node);
    }
  Units out;
  size_t next = 0;
  for (auto& r : bySlot) {
    if (r.count == 0) continue;
    r.begin = next;
    next += r.count;
    out.ranges.push_back(r);
    r.count = 0;  // reused as the fill cursor below
  }
  out.nodes.resize(next);
  for (const auto& fit : filter.fits)
    if (const auto s = slotOf(fit.first)) {
      Units::Range& r = bySlot[*s];
      out.nodes[r.begin + r.count++] = fit;
    }
  return out;
}

// Bin-packing across units: the unit that fits the gang with the fewest free GPUs (least room
// left over), so large free blocks stay whole for the next large gang.
size_t fewestFree(std::span<const UnitView> units) {
  size_t best = 0;
  for (size_t i = 1; i < units.size(); ++i)
    if (units[i].freeGpus < units[best].freeGpus) best = i;
  return best;
}

// The units at `level` with room for the whole gang; `roomiest` is the largest capacity seen.
std::vector<UnitView> fittingUnits(const ClusterState& state, const NodeFilterResult& filter,
                                   const Units& units, TopologyLevel level, int tasks,
                                   int& roomiest) {
  std::vector<UnitView> out;
  roomiest = 0;
  out.reserve(level == TopologyLevel::Node ? filter.fits.size() : units.ranges.size());
  if (level == TopologyLevel::Node) {
    // Every fitting node is its own unit: no map (the hot path for small jobs).
    for (const auto& fit : filter.fits) {
      roomiest = std::max(roomiest, fit.second);
      if (fit.second >= tasks)
        out.push_back({{&fit, 1}, fit.second, state.freeWholeGpusOnNode(fit.first), level});
    }
    return out;
  }
  for (const auto& u : units.ranges) {
    roomiest = std::max(roomiest, u.capacity);
    if (u.capacity >= tasks)
      out.push_back(
          {std::span(units.nodes).subspan(u.begin, u.count), u.capacity, u.freeGpus, level});
  }
  return out;
}

int linkRank(const GpuLink& l) {
  return l.kind == LinkKind::NVLink ? 0 : static_cast<int>(l.kind);
}

// The k free GPUs of a node with the best links among them: the smallest worst pairwise link,
// then the smallest sum (all subsets; a node has at most 64 GPUs, and k-subsets of the free ones
// are few on real boards).
// The best NIC link rank of a GPU (0 = none known): a multi-node gang's traffic leaves through it.
int nicRank(const NodeHardware& hw, int gpu) {
  int best = 0;
  for (size_t nic = 0; nic < hw.nics.size(); ++nic) {
    const int r = linkRank(hw.nicLink(gpu, static_cast<int>(nic)));
    best = best == 0 ? r : std::min(best, r);
  }
  return best;
}

std::vector<GpuId> bestGpus(const ClusterState& state, NodeId n, int k, const GpuGate* gate) {
  const Node& node = state.cluster().node(n);
  std::vector<int> free;
  for (int i = 0; i < node.gpuCount(); ++i) {
    const GpuId g = node.firstGpu + static_cast<GpuId>(i);
    if (state.wholeGpuFree(g) && gateAllows(gate, g)) free.push_back(i);
  }
  std::vector<int> pick, best;
  int bestWorst = 1 << 20, bestSum = 1 << 20;
  long budget = 100'000;  // subsets examined; beyond it the first found sets stand
  // The pairwise links first; among equals, GPUs close to a NIC (NUMA/PCIe alignment).
  auto score = [&](const std::vector<int>& set) {
    int worst = 0, sum = 0;
    for (size_t a = 0; a < set.size(); ++a) {
      sum += nicRank(*node.hw, set[a]);
      for (size_t b = a + 1; b < set.size(); ++b) {
        const int r = linkRank(node.hw->link(set[a], set[b]));
        worst = std::max(worst, r);
        sum += 16 * r;
      }
    }
    if (worst < bestWorst || (worst == bestWorst && sum < bestSum))
      bestWorst = worst, bestSum = sum, best = set;
  };
  auto choose = [&](auto&& self, size_t from) -> void {
    if (budget-- <= 0) return;
    if (static_cast<int>(pick.size()) == k) return score(pick);
    for (size_t i = from; i < free.size(); ++i) {
      pick.push_back(free[i]);
      self(self, i + 1);
      pick.pop_back();
    }
  };
  choose(choose, 0);
  std::vector<GpuId> out;
  for (int i : best) out.push_back(node.firstGpu + static_cast<GpuId>(i));
  return out;
}

// Takes the unit's GPUs for every task: fullest nodes first (packing), best-linked GPUs per task.
// MIG: a GPU with an idle instance of the profile first (no reconfiguration), else the GPU where a
// new instance leaves the least fragmentation; among equals the fuller GPU (packing).
std::optional<GpuId> migGpu(const ClusterState& state, const Job& job, NodeId n,
                            const GpuGate* gate) {
  const Node& node = state.cluster().node(n);
  const GpuModel& m = node.gpuModel();
  if (!m.mig) return std::nullopt;
  const int p = m.mig->profileIndex(job.perTask.migProfile);
  if (p < 0) return std::nullopt;
  std::optional<GpuId> best;
  std::tuple<int, double, int> bestKey{2, 0.0,
                                       0};  // (needs creation, fragmentation after, free slices)
  for (int i = 0; i < node.gpuCount(); ++i) {
    const GpuId g = node.firstGpu + static_cast<GpuId>(i);
    if (!state.cluster().gpu(g).sharing.offersMigInstances() || !gateAllows(gate, g)) continue;
    const GpuOccupancy& o = state.gpu(g);
    const int freeSlices =
        m.mig->memorySlices - std::popcount(static_cast<unsigned>(o.layout.occupiedMask(*m.mig)));
    std::tuple<int, double, int> key;
    if (state.idleMigInstances(g, p) > 0) {
      key = {0, 0.0, freeSlices};
    } else if (state.fixedMigLayouts()) {
      continue;
    } else {
      const auto fit = migBestNewInstance(*m.mig, o.layout, p);
      if (!fit) continue;
      key = {1, fit->fragmentation, freeSlices};
    }
    if (!best || key < bestKey) best = g, bestKey = key;
  }
  return best;
}

// Fraction: the most used time-sliced GPU that still has a replica, milli-GPU and VRAM (packing).
std::optional<GpuId> shareGpu(const ClusterState& state, const Job& job, NodeId n,
                              const GpuGate* gate) {
  const Node& node = state.cluster().node(n);
  std::optional<GpuId> best;
  for (int i = 0; i < node.gpuCount(); ++i) {
    const GpuId g = node.firstGpu + static_cast<GpuId>(i);
    if (!gateAllows(gate, g) ||
        !takesShare(state, g, job.id, job.perTask.milli, job.perTask.vramMiB))
      continue;
    if (!best || state.gpu(g).milliUsed > state.gpu(*best).milliUsed) best = g;
  }
  return best;
}

// MPS: the GPU whose fitting server is fullest (packing, as for shares).
std::optional<GpuId> mpsGpu(const ClusterState& state, const Job& job, NodeId n,
                            const GpuGate* gate) {
  const Node& node = state.cluster().node(n);
  const MpsAsk ask = mpsAsk(job);
  std::optional<GpuId> best;
  int bestThreads = -1;
  for (int i = 0; i < node.gpuCount(); ++i) {
    const GpuId g = node.firstGpu + static_cast<GpuId>(i);
    if (!gateAllows(gate, g) || !checkMps(state, g, ask).ok()) continue;
    int threads = 0;
    for (const auto& c : state.gpu(g).mpsClients) threads += c.threads;
    if (threads > bestThreads) best = g, bestThreads = threads;
  }
  return best;
}

// One task of `job` on `node`, inside `tx`; nullopt (with partial takes left for the caller's
// rollback) when it does not fit after all.
std::optional<TaskAssignment> takeTask(Transaction& tx, const ClusterState& state, const Job& job,
                                       NodeId node, const GpuGate* gate) {
  TaskAssignment task{node, {}};
  switch (job.perTask.kind) {
    case GpuRequest::Kind::Whole:
      task.gpus = bestGpus(state, node, job.perTask.gpus, gate);
      if (static_cast<int>(task.gpus.size()) != job.perTask.gpus) return std::nullopt;
      for (GpuId g : task.gpus)
        if (!tx.takeWholeGpu(g, job.id).ok()) return std::nullopt;
      break;
    case GpuRequest::Kind::Mig: {
      const auto g = migGpu(state, job, node, gate);
      if (!g) return std::nullopt;
      const int p = state.cluster().modelOf(*g).mig->profileIndex(job.perTask.migProfile);
      const auto index = tx.takeMigInstance(*g, p, job.id, !state.fixedMigLayouts());
      if (!index) return std::nullopt;
      task.gpus = {*g};
      task.migStart = state.gpu(*g).layout[*index].start;
      break;
    }
    case GpuRequest::Kind::Fraction: {
      const auto g = shareGpu(state, job, node, gate);
      if (!g || !tx.takeShare(*g, job.id, job.perTask.milli, job.perTask.vramMiB).ok())
        return std::nullopt;
      task.gpus = {*g};
      break;
    }
    case GpuRequest::Kind::Mps: {
      const auto g = mpsGpu(state, job, node, gate);
      if (!g) return std::nullopt;
      const auto start = tx.takeMps(*g, mpsAsk(job));
      if (!start) return std::nullopt;
      task.gpus = {*g};
      task.migStart = *start;
      break;
    }
    case GpuRequest::Kind::None:
      break;
  }
  if (!tx.takeNodeResources(node, job.id, job.cpusPerTask, job.memoryMiBPerTask).ok())
    return std::nullopt;
  return task;
}

// Takes every task in the unit: fullest nodes first (packing).
std::optional<GangPlacement> takeIn(Transaction& tx, const ClusterState& state, const Job& job,
                                    const UnitView& unit, const GpuGate* gate) {
  GangPlacement placement;
  std::vector<GpuId> all;
  for (auto [node, tasks] : unitTaskNodes(state, unit, job.tasks)) {
    for (int t = 0; t < tasks; ++t) {
      auto task = takeTask(tx, state, job, node, gate);
      if (!task) return std::nullopt;
      all.insert(all.end(), task->gpus.begin(), task->gpus.end());
      placement.tasks.push_back(std::move(*task));
    }
  }
  if (static_cast<int>(placement.tasks.size()) != job.tasks) return std::nullopt;
  placement.span = all.empty() ? TopologyLevel::Cluster : state.cluster().spanOf(all);
  return placement;
}

// The MPS refusal behind "no node can host a task": of the servers on nodes of the job's pool
// and models, the one the client got furthest with (a co-location refusal says more than a
// full server elsewhere); nothing when some server would take it (the node failed on CPUs,
// memory or a reservation, which the node counts already say).
std::optional<Text> mpsRefusalDetail(const ClusterState& state, const Job& job) {
  const MpsAsk ask = mpsAsk(job);
  MpsRefusal furthest = MpsRefusal::None;
  std::optional<GpuId> furthestGpu;
  for (const Node& n : state.cluster().nodes()) {
    if (!nodeEligible(job, n)) continue;
    for (int i = 0; i < n.gpuCount(); ++i) {
      const GpuId g = n.firstGpu + static_cast<GpuId>(i);
      if (!state.cluster().gpu(g).sharing.runsMps()) continue;
      const MpsRefusal r = checkMps(state, g, ask).refusal;
      if (r == MpsRefusal::None) return std::nullopt;
      if (!furthestGpu || r > furthest) furthest = r, furthestGpu = g;
    }
  }
  if (!furthestGpu) return phrase(text::kMpsNoGpu);
  return state.mpsFit(*furthestGpu, ask).why;
}

Text taskWords(const Job& job) {
  switch (job.perTask.kind) {
    case GpuRequest::Kind::Whole:
      return phrase(text::kTasksOfGpus, job.perTask.gpus);
    case GpuRequest::Kind::Mig:
      return phrase(text::kTasksOfMig, job.perTask.migProfile);
    case GpuRequest::Kind::Fraction:
      return phrase(text::kTasksOfMilli, job.perTask.milli);
    case GpuRequest::Kind::Mps:
      return phrase(text::kTasksOfMps, job.perTask.mpsThreads);
    case GpuRequest::Kind::None:
      break;
  }
  return phrase(text::kTasks);
}

}  // namespace

std::optional<int64_t> topologyUnitOf(const Cluster& c, NodeId n, TopologyLevel level) {
  switch (level) {
    case TopologyLevel::Gpu:
    case TopologyLevel::Node:
      return int64_t{n};
    case TopologyLevel::NvlinkDomain: {
      if (c.node(n).gpuCount() == 0) return std::nullopt;  // firstGpu names no GPU then
      const DomainId d = c.gpu(c.node(n).firstGpu).nvlinkDomain;
      if (d == kNone) return std::nullopt;
      return int64_t{d};
    }
    case TopologyLevel::Leaf:
      return int64_t{c.leafOf(n)};
    case TopologyLevel::Spine: {
      // A leaf without a spine is its own island.
      const SwitchId s = c.spineOf(n);
      return s == kNone ? -1 - int64_t{c.leafOf(n)} : int64_t{s};
    }
    case TopologyLevel::Cluster:
      // An island leaf (no spine) cannot reach the rest: it is its own unit even here.
      return c.spineOf(n) == kNone ? -1 - int64_t{c.leafOf(n)} : int64_t{0};
  }
  return std::nullopt;
}

std::string placementText(const Cluster& c, const GangPlacement& p) {
  std::string out;
  for (const auto& t : p.tasks) {
    out += (out.empty() ? "" : " ") + c.node(t.node).name + "[";
    for (size_t i = 0; i < t.gpus.size(); ++i)
      out += (i ? "," : "") + std::to_string(c.gpu(t.gpus[i]).index);
    out += "]";
  }
  return out;
}

std::vector<std::pair<NodeId, int>> unitTaskNodes(const ClusterState& state, const UnitView& unit,
                                                  int tasks) {
  std::vector<std::pair<NodeId, int>> nodes(unit.nodes.begin(), unit.nodes.end());
  std::stable_sort(nodes.begin(), nodes.end(), [&](const auto& a, const auto& b) {
    return state.freeWholeGpusOnNode(a.first) < state.freeWholeGpusOnNode(b.first);
  });
  std::vector<std::pair<NodeId, int>> out;
  for (auto [node, room] : nodes) {
    if (tasks <= 0) break;
    const int take = std::min(room, tasks);
    out.emplace_back(node, take);
    tasks -= take;
  }
  return out;
}

namespace {

// Bin-packing whole-GPU jobs onto one node, by the free-GPU index: the first node, fewest free
// GPUs first, that takes the whole gang - the same node the full filter would pick, without a
// pass over every node. nullopt when no single node fits (the full path then explains why).
std::optional<GangPlacement> packOnOneNode(Transaction& tx, const ClusterState& state,
                                           const Job& job, const GpuGate* gate) {
  std::optional<NodeId> pick;
  std::pair<NodeId, int> fit{0, 0};
  state.forNodesByFreeGpus(job.tasks * job.perTask.gpus, [&](NodeId n) {
    NodeReject why = NodeReject::Count;
    const int tasks = tasksThatFit(state, job, n, why, gate);
    if (tasks < job.tasks) return false;
    pick = n;
    fit = {n, tasks};
    return true;
  });
  if (!pick) return std::nullopt;
  const UnitView unit{{&fit, 1}, fit.second, state.freeWholeGpusOnNode(*pick), TopologyLevel::Node};
  const size_t mark = tx.size();
  auto placed = takeIn(tx, state, job, unit, gate);
  if (!placed) tx.rollbackTo(mark);
  return placed;
}

}  // namespace

GangResult placeGang(Transaction& tx, const ClusterState& state, const Job& job,
                     const PlacementOptions& options) {
  GangResult result;
  if (job.perTask.kind == GpuRequest::Kind::None ||
      (job.perTask.kind == GpuRequest::Kind::Whole && job.perTask.gpus < 1)) {
    result.reason = phrase(text::kNoGpuRequested);
    return result;
  }
  if (job.perTask.kind == GpuRequest::Kind::Whole && !options.scorer && !options.fullFilter) {
    if (auto placed = packOnOneNode(tx, state, job, options.gate)) {
      result.placement = std::move(placed);
      return result;
    }
  }
  result.filter = filterNodes(state, job, options.gate);
  if (result.filter.fits.empty()) {
    Text summary = result.filter.summary();
    if (job.perTask.kind == GpuRequest::Kind::Mps)
      if (auto detail = mpsRefusalDetail(state, job))
        summary = phrase(text::kClauses, std::move(summary), std::move(*detail));
    result.reason = phrase(text::kNoNodeHosts, std::move(summary));
    return result;
  }
  int total = 0;
  for (auto [node, tasks] : result.filter.fits) total += tasks;
  if (total < job.tasks) {
    result.reason =
        phrase(text::kGangRoom, job.tasks, taskWords(job), total, result.filter.summary());
    return result;
  }
  const TopologyConstraint topology = options.topology.value_or(job.topology);
  const TopologyLevel loosest = topology.required ? topology.level : TopologyLevel::Cluster;
  int roomiestAtLimit = 0;
  for (TopologyLevel level : kLevels) {
    if (level > loosest) break;
    int roomiest = 0;
    const Units units =
        level == TopologyLevel::Node ? Units{} : unitsAt(state, result.filter, level);
    const auto fitting = fittingUnits(state, result.filter, units, level, job.tasks, roomiest);
    if (!fitting.empty()) {
      const size_t pick =
          options.scorer ? options.scorer->best(state, job, fitting) : fewestFree(fitting);
      const size_t mark = tx.size();
      if (auto placed = takeIn(tx, state, job, fitting[pick], options.gate)) {
        result.placement = std::move(placed);
        return result;
      }
      // The filter said the unit has room; failing here means the state changed underneath.
      tx.rollbackTo(mark);
      result.reason = phrase(text::kUnitNotTaken);
      return result;
    }
    roomiestAtLimit = roomiest;
  }
  result.reason =
      phrase(text::kGangWithin, job.tasks, taskWords(job), levelWords(loosest), roomiestAtLimit);
  return result;
}

Text levelWords(TopologyLevel l) {
  switch (l) {
    case TopologyLevel::Gpu:
      return phrase(text::kLevelGpu);
    case TopologyLevel::Node:
      return phrase(text::kLevelNode);
    case TopologyLevel::NvlinkDomain:
      return phrase(text::kLevelNvlink);
    case TopologyLevel::Leaf:
      return phrase(text::kLevelLeaf);
    case TopologyLevel::Spine:
      return phrase(text::kLevelSpine);
    case TopologyLevel::Cluster:
      break;
  }
  return phrase(text::kLevelCluster);
}

}  // namespace tessera
