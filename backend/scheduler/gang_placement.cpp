#include "scheduler/gang_placement.h"

#include <algorithm>
#include <bit>
#include <map>
#include <tuple>

#include "mig/mig_capacity.h"

namespace tessera {

namespace {

constexpr TopologyLevel kLevels[] = {TopologyLevel::Node, TopologyLevel::NvlinkDomain,
                                     TopologyLevel::Leaf, TopologyLevel::Spine,
                                     TopologyLevel::Cluster};

// The unit a node belongs to at `level`; nullopt when it has none there (no NVLink domain).
std::optional<int64_t> unitOf(const Cluster& c, NodeId n, TopologyLevel level) {
  switch (level) {
    case TopologyLevel::Gpu:
    case TopologyLevel::Node:
      return int64_t{n};
    case TopologyLevel::NvlinkDomain: {
      const DomainId d = c.gpu(c.node(n).firstGpu).nvlinkDomain;
      if (c.node(n).gpuCount() == 0 || d == kNone) return std::nullopt;
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
      return int64_t{0};
  }
  return std::nullopt;
}

struct PlacementUnit {
  std::vector<std::pair<NodeId, int>> nodes;  // node, tasks it can take
  int capacity = 0;                           // tasks of this job the unit can take
  int freeGpus = 0;                           // free whole GPUs on those nodes
};

std::map<int64_t, PlacementUnit> unitsAt(const ClusterState& state, const NodeFilterResult& filter,
                                         TopologyLevel level) {
  std::map<int64_t, PlacementUnit> units;
  for (auto [node, tasks] : filter.fits) {
    const auto key = unitOf(state.cluster(), node, level);
    if (!key) continue;
    PlacementUnit& u = units[*key];
    u.nodes.emplace_back(node, tasks);
    u.capacity += tasks;
    u.freeGpus += state.freeWholeGpusOnNode(node);
  }
  return units;
}

// Bin-packing across units: the unit that fits the gang with the fewest free GPUs (least room
// left over), so large free blocks stay whole for the next large gang.
const PlacementUnit* tightestFit(const std::map<int64_t, PlacementUnit>& units, int tasks,
                                 int& roomiest) {
  const PlacementUnit* best = nullptr;
  roomiest = 0;
  for (const auto& [key, u] : units) {
    roomiest = std::max(roomiest, u.capacity);
    if (u.capacity >= tasks && (!best || u.freeGpus < best->freeGpus)) best = &u;
  }
  return best;
}

// At node level every fitting node is its own unit: pick the tightest directly instead of building
// a map of single-node units (the common case for small jobs, and the hot path).
std::optional<PlacementUnit> tightestNode(const ClusterState& state, const NodeFilterResult& filter,
                                          int tasks, int& roomiest) {
  std::optional<PlacementUnit> best;
  roomiest = 0;
  for (auto [node, fit] : filter.fits) {
    roomiest = std::max(roomiest, fit);
    if (fit < tasks) continue;
    const int free = state.freeWholeGpusOnNode(node);
    if (!best || free < best->freeGpus) best = PlacementUnit{{{node, fit}}, fit, free};
  }
  return best;
}

int linkRank(const GpuLink& l) {
  return l.kind == LinkKind::NVLink ? 0 : static_cast<int>(l.kind);
}

// The k free GPUs of a node with the best links among them: the smallest worst pairwise link,
// then the smallest sum (all subsets; a node has at most 64 GPUs, and k-subsets of the free ones
// are few on real boards).
std::vector<GpuId> bestGpus(const ClusterState& state, NodeId n, int k) {
  const Node& node = state.cluster().node(n);
  std::vector<int> free;
  for (int i = 0; i < node.gpuCount(); ++i)
    if (state.wholeGpuFree(node.firstGpu + static_cast<GpuId>(i))) free.push_back(i);
  std::vector<int> pick, best;
  int bestWorst = 1 << 20, bestSum = 1 << 20;
  long budget = 100'000;  // subsets examined; beyond it the first found sets stand
  auto score = [&](const std::vector<int>& set) {
    int worst = 0, sum = 0;
    for (size_t a = 0; a < set.size(); ++a)
      for (size_t b = a + 1; b < set.size(); ++b) {
        const int r = linkRank(node.hw->link(set[a], set[b]));
        worst = std::max(worst, r);
        sum += r;
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

std::string levelWords(TopologyLevel l) {
  switch (l) {
    case TopologyLevel::Gpu:
    case TopologyLevel::Node:
      return "node";
    case TopologyLevel::NvlinkDomain:
      return "NVLink domain";
    case TopologyLevel::Leaf:
      return "leaf switch";
    case TopologyLevel::Spine:
      return "spine";
    case TopologyLevel::Cluster:
      return "cluster";
  }
  return "?";
}

// Takes the unit's GPUs for every task: fullest nodes first (packing), best-linked GPUs per task.
// MIG: a GPU with an idle instance of the profile first (no reconfiguration), else the GPU where a
// new instance leaves the least fragmentation; among equals the fuller GPU (packing).
std::optional<GpuId> migGpu(const ClusterState& state, const Job& job, NodeId n) {
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
    if (state.cluster().gpu(g).sharing.mode != SharingMode::Mig) continue;
    const GpuOccupancy& o = state.gpu(g);
    const int freeSlices =
        m.mig->memorySlices - std::popcount(static_cast<unsigned>(o.layout.occupiedMask(*m.mig)));
    std::tuple<int, double, int> key;
    if (state.idleMigInstances(g, p) > 0) {
      key = {0, 0.0, freeSlices};
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
std::optional<GpuId> shareGpu(const ClusterState& state, const Job& job, NodeId n) {
  const Node& node = state.cluster().node(n);
  std::optional<GpuId> best;
  for (int i = 0; i < node.gpuCount(); ++i) {
    const GpuId g = node.firstGpu + static_cast<GpuId>(i);
    if (state.shareProblem(g, job.id, job.perTask.milli, job.perTask.vramMiB)) continue;
    if (!best || state.gpu(g).milliUsed > state.gpu(*best).milliUsed) best = g;
  }
  return best;
}

// One task of `job` on `node`, inside `tx`; nullopt (with partial takes left for the caller's
// rollback) when it does not fit after all.
std::optional<TaskAssignment> takeTask(Transaction& tx, const ClusterState& state, const Job& job,
                                       NodeId node) {
  TaskAssignment task{node, {}};
  switch (job.perTask.kind) {
    case GpuRequest::Kind::Whole:
      task.gpus = bestGpus(state, node, job.perTask.gpus);
      if (static_cast<int>(task.gpus.size()) != job.perTask.gpus) return std::nullopt;
      for (GpuId g : task.gpus)
        if (!tx.takeWholeGpu(g, job.id).ok()) return std::nullopt;
      break;
    case GpuRequest::Kind::Mig: {
      const auto g = migGpu(state, job, node);
      if (!g) return std::nullopt;
      const int p = state.cluster().modelOf(*g).mig->profileIndex(job.perTask.migProfile);
      if (!tx.takeMigInstance(*g, p, job.id, true).ok()) return std::nullopt;
      task.gpus = {*g};
      break;
    }
    case GpuRequest::Kind::Fraction: {
      const auto g = shareGpu(state, job, node);
      if (!g || !tx.takeShare(*g, job.id, job.perTask.milli, job.perTask.vramMiB).ok())
        return std::nullopt;
      task.gpus = {*g};
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
                                    const PlacementUnit& unit) {
  std::vector<std::pair<NodeId, int>> nodes = unit.nodes;
  std::stable_sort(nodes.begin(), nodes.end(), [&](const auto& a, const auto& b) {
    return state.freeWholeGpusOnNode(a.first) < state.freeWholeGpusOnNode(b.first);
  });
  GangPlacement placement;
  std::vector<GpuId> all;
  for (auto [node, tasks] : nodes) {
    for (int t = 0; t < tasks && static_cast<int>(placement.tasks.size()) < job.tasks; ++t) {
      auto task = takeTask(tx, state, job, node);
      if (!task) return std::nullopt;
      all.insert(all.end(), task->gpus.begin(), task->gpus.end());
      placement.tasks.push_back(std::move(*task));
    }
  }
  if (static_cast<int>(placement.tasks.size()) != job.tasks) return std::nullopt;
  placement.span = all.empty() ? TopologyLevel::Cluster : state.cluster().spanOf(all);
  return placement;
}

std::string taskWords(const Job& job) {
  switch (job.perTask.kind) {
    case GpuRequest::Kind::Whole:
      return "tasks of " + std::to_string(job.perTask.gpus) + " GPUs";
    case GpuRequest::Kind::Mig:
      return "tasks of one " + job.perTask.migProfile + " instance";
    case GpuRequest::Kind::Fraction:
      return "tasks of " + std::to_string(job.perTask.milli) + " milli-GPU";
    case GpuRequest::Kind::None:
      break;
  }
  return "tasks";
}

}  // namespace

GangResult placeGang(Transaction& tx, const ClusterState& state, const Job& job) {
  GangResult result;
  if (job.perTask.kind == GpuRequest::Kind::None ||
      (job.perTask.kind == GpuRequest::Kind::Whole && job.perTask.gpus < 1)) {
    result.reason = "the job requests no GPU";
    return result;
  }
  result.filter = filterNodes(state, job);
  if (result.filter.fits.empty()) {
    result.reason = "no node can host a task: " + result.filter.summary();
    return result;
  }
  int total = 0;
  for (auto [node, tasks] : result.filter.fits) total += tasks;
  if (total < job.tasks) {
    result.reason = "the gang needs " + std::to_string(job.tasks) + " " + taskWords(job) +
                    "; the cluster has room for " + std::to_string(total) + " (" +
                    result.filter.summary() + ")";
    return result;
  }
  const TopologyLevel loosest = job.topology.required ? job.topology.level : TopologyLevel::Cluster;
  int roomiestAtLimit = 0;
  for (TopologyLevel level : kLevels) {
    if (level > loosest) break;
    int roomiest = 0;
    const auto units = level == TopologyLevel::Node ? std::map<int64_t, PlacementUnit>{}
                                                    : unitsAt(state, result.filter, level);
    const std::optional<PlacementUnit> single =
        level == TopologyLevel::Node ? tightestNode(state, result.filter, job.tasks, roomiest)
                                     : std::nullopt;
    const PlacementUnit* unit = level == TopologyLevel::Node
                                    ? (single ? &*single : nullptr)
                                    : tightestFit(units, job.tasks, roomiest);
    if (unit) {
      const size_t mark = tx.size();
      if (auto placed = takeIn(tx, state, job, *unit)) {
        result.placement = std::move(placed);
        return result;
      }
      // The filter said the unit has room; failing here means the state changed underneath.
      tx.rollbackTo(mark);
      result.reason = "internal: a unit with room could not be taken";
      return result;
    }
    roomiestAtLimit = roomiest;
  }
  result.reason = "the gang needs " + std::to_string(job.tasks) + " " + taskWords(job) +
                  " within one " + levelWords(loosest) + " (required); the roomiest " +
                  levelWords(loosest) + " has room for " + std::to_string(roomiestAtLimit);
  return result;
}

}  // namespace tessera
