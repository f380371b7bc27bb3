// The engine's fragmentation score plugins: scheduler/fragmentation.h applied to the engine's
// state. MIG requests keep their own measure (the paper has none): the slices a new instance
// leaves unusable.
#include "scheduler/frag_score.h"

#include <algorithm>
#include <bit>
#include <limits>

#include "mig/mig_capacity.h"
#include "scheduler/cluster_state.h"
#include "scheduler/share_check.h"

namespace tessera {

namespace {

// CPU or memory a node does not limit: more than any request.
constexpr int64_t kPlenty = std::numeric_limits<int64_t>::max() / 4;

int32_t freeMilli(const ClusterState& state, GpuId g) {
  switch (state.cluster().gpu(g).sharing.mode) {
    case SharingMode::Exclusive:
      return state.wholeGpuFree(g) ? frag::kMilliPerGpu : 0;
    case SharingMode::TimeSliced:
      return std::max(0, frag::kMilliPerGpu - state.gpu(g).milliUsed);
    case SharingMode::Mig:
    case SharingMode::Mps:
      break;
  }
  return 0;
}

}  // namespace

frag::NodeView fragView(const ClusterState& state, NodeId id) {
  const Node& n = state.cluster().node(id);
  frag::NodeView v;
  const int cpus = state.freeCpus(id);
  const int64_t mem = state.freeMemoryMiB(id);
  v.cpuLeft = cpus < 0 ? kPlenty : int64_t{cpus} * 1000;
  v.memLeft = mem < 0 ? kPlenty : mem;
  v.gpus = std::min(n.gpuCount(), frag::kMaxGpusPerNode);
  for (int i = 0; i < v.gpus; ++i)
    v.left[static_cast<size_t>(i)] = freeMilli(state, n.firstGpu + static_cast<GpuId>(i));
  return v;
}

bool fragAccess(const ClusterState& state, NodeId id, const ModelConstraint& model) {
  const Node& n = state.cluster().node(id);
  if (n.gpuCount() == 0) return false;
  const GpuModel& m = n.gpuModel();
  const bool listed = model.models.empty() || std::find(model.models.begin(), model.models.end(),
                                                        m.id) != model.models.end();
  const bool memory =
      model.minMemoryMiB == 0 || (m.memoryMiB && *m.memoryMiB >= model.minMemoryMiB);
  return listed && memory;
}

frag::PodDemand fragPod(const GpuRequest& request, int cpus, int64_t memoryMiB, bool access) {
  frag::PodDemand p;
  p.cpu = int64_t{cpus} * 1000;
  p.mem = memoryMiB;
  if (request.kind == GpuRequest::Kind::Whole) {
    p.numGpu = request.gpus;
    p.milli = frag::kMilliPerGpu;
  } else if (request.kind == GpuRequest::Kind::Fraction) {
    p.numGpu = 1;
    p.milli = request.milli;
  }
  p.models = access ? frag::kAnyModel : 0;
  return p;
}

std::vector<frag::TypicalPod> fragMix(const ClusterState& state, NodeId id,
                                      const std::vector<DemandShape>& mix) {
  std::vector<frag::TypicalPod> out;
  out.reserve(mix.size());
  for (const auto& d : mix) {
    // MIG shapes are measured on MIG slices (migStranded), not here.
    if (d.request.kind == GpuRequest::Kind::Mig) continue;
    out.push_back({fragPod(d.request, d.cpus, 0, fragAccess(state, id, d.model)), d.weight});
  }
  return out;
}

namespace {

// Free slices of the node's MIG GPUs that no further instance of each MIG shape could use, in
// GPUs, weighted by the shape's share of the mix.
double migStranded(const ClusterState& state, NodeId id, const std::vector<DemandShape>& mix) {
  const Node& n = state.cluster().node(id);
  const auto& mig = n.gpuCount() > 0 ? n.gpuModel().mig : std::nullopt;
  if (!mig) return 0;
  double frag = 0;
  for (const auto& d : mix) {
    const int p =
        d.request.kind == GpuRequest::Kind::Mig ? mig->profileIndex(d.request.migProfile) : -1;
    if (p < 0) continue;
    for (int i = 0; i < n.gpuCount(); ++i) {
      const GpuId g = n.firstGpu + static_cast<GpuId>(i);
      if (state.cluster().gpu(g).sharing.mode != SharingMode::Mig) continue;
      const auto& layout = state.gpu(g).layout;
      const int freeSlices =
          mig->memorySlices - std::popcount(static_cast<unsigned>(layout.occupiedMask(*mig)));
      const int usable = migMaxAdditional(*mig, MigUsage::of(*mig, layout), p) *
                         mig->profiles[static_cast<size_t>(p)].memorySlices;
      frag += d.weight * double(std::max(0, freeSlices - usable)) / mig->memorySlices;
    }
  }
  return frag;
}

// The smallest fragmentation growth of one new MIG instance on the node's MIG GPUs (0 when an
// idle instance of the profile exists).
double migGrowth(const ClusterState& state, const Job& job, NodeId id) {
  const Node& n = state.cluster().node(id);
  const auto& mig = n.gpuModel().mig;
  const int p = mig ? mig->profileIndex(job.perTask.migProfile) : -1;
  if (p < 0) return 0;
  double best = 1;
  for (int i = 0; i < n.gpuCount(); ++i) {
    const GpuId g = n.firstGpu + static_cast<GpuId>(i);
    if (state.cluster().gpu(g).sharing.mode != SharingMode::Mig) continue;
    if (state.idleMigInstances(g, p) > 0) return 0;
    const auto& layout = state.gpu(g).layout;
    if (const auto fit = migBestNewInstance(*mig, layout, p)) {
      const double now = migFragmentation(*mig, layout, MigDemand::uniform(*mig)).score;
      best = std::min(best, fit->fragmentation - now);
    }
  }
  return best;
}

// The time-sliced GPUs of node `id` that can take one more share of the job (bit per GPU).
uint32_t shareableGpus(const ClusterState& state, const Job& job, NodeId id) {
  const Node& n = state.cluster().node(id);
  uint32_t mask = 0;
  for (int i = 0; i < std::min(n.gpuCount(), frag::kMaxGpusPerNode); ++i)
    if (takesShare(state, n.firstGpu + static_cast<GpuId>(i), job.id, job.perTask.milli,
                   job.perTask.vramMiB))
      mask |= 1u << i;
  return mask;
}

// FGD (Weng et al., ATC'23) or ours: the score of the move, int(sigmoid(-dF/1000) * 100) as the
// paper's reference computes it (the truncation matters: exact dF ranks much worse on openb). A
// task placed several times on one node is placed one after another, each on its best GPU; a
// unit's nodes add their F before and after.
struct FragScore final : ScorePlugin {
  explicit FragScore(const frag::Measure& m) : measure(m) {}
  frag::Measure measure;

  double score(const CycleContext& ctx, const Job& job, const UnitView& u) const override {
    if (ctx.demand.empty()) return 0;
    const ClusterState& state = *ctx.state;
    if (job.perTask.kind == GpuRequest::Kind::Mig) {
      double growth = 0;
      for (auto [node, tasks] : unitTaskNodes(state, u, job.tasks))
        growth += migGrowth(state, job, node);
      return -growth;
    }
    double before = 0, after = 0;
    for (auto [node, tasks] : unitTaskNodes(state, u, job.tasks)) {
      const auto mix = fragMix(state, node, ctx.demand);
      auto F = [&](const frag::NodeView& v) { return frag::fragmentation(measure, v, mix); };
      frag::NodeView v = fragView(state, node);
      const frag::PodDemand pod = fragPod(job.perTask, job.cpusPerTask, job.memoryMiBPerTask,
                                          fragAccess(state, node, job.model));
      const uint32_t allowed = frag::isSharing(pod) ? shareableGpus(state, job, node) : ~0u;
      before += F(v);
      for (int t = 0; t < tasks; ++t)
        v = frag::withPod(
            v, pod, frag::bestMove(v, pod, F, measure.scale, allowed, measure.exactGpuTies).gpu);
      after += F(v);
    }
    // A single task on one node: exactly the openb experiment's node score.
    return static_cast<double>(frag::fgdScore(before, after, measure.scale));
  }
};

}  // namespace

double nodeFragmentation(const ClusterState& state, NodeId id,
                         const std::vector<DemandShape>& mix) {
  const auto typical = fragMix(state, id, mix);
  const double milli = frag::fragmentation(frag::kFgdMeasure, fragView(state, id), typical);
  return milli / frag::kMilliPerGpu + migStranded(state, id, mix);
}

std::shared_ptr<const ScorePlugin> makeFragScore(const frag::Measure& measure) {
  return std::make_shared<const FragScore>(measure);
}

}  // namespace tessera
