#include "scheduler/feasibility.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "core/engine_text.h"
#include "scheduler/gang_placement.h"
#include "scheduler/node_filter.h"
#include "scheduler/transaction.h"

namespace tessera {
namespace {

SourceLocation field(std::string name) {
  SourceLocation where;
  where.field = std::move(name);
  return where;
}

// "a, b and c"; past ten names, "a, b, ... j and 4 more" (a request may name 4,096 models).
Text literalList(const std::set<std::string>& names) {
  constexpr size_t kNamed = 10;
  std::vector<Text> items;
  for (const auto& n : names) {
    if (items.size() == kNamed) break;
    items.push_back(literal(n));
  }
  if (items.empty()) return literal("-");
  if (names.size() <= kNamed) return listText(std::move(items), true);
  return phrase(text::kAndMore, listText(std::move(items)), names.size() - kNamed);
}

// The GPU models the job names, none of which the cluster has.
Status checkModels(const Cluster& c, const Job& job) {
  if (job.model.models.empty()) return okStatus();
  std::set<std::string> present;
  for (const Node& n : c.nodes()) present.insert(n.gpuModel().id);
  for (const auto& m : job.model.models)
    if (present.count(m)) return okStatus();
  const std::set<std::string> asked(job.model.models.begin(), job.model.models.end());
  return Error::of(phrase(text::kNoSuchModel, literalList(asked), literalList(present)),
                   field("gpu_models"));
}

Status checkPool(const Cluster& c, const Job& job) {
  if (job.pool.empty()) return okStatus();
  const auto pools = c.pools();
  if (std::find(pools.begin(), pools.end(), job.pool) != pools.end()) return okStatus();
  return Error::of(phrase(text::kNoSuchPool, literal(job.pool),
                          literalList(std::set<std::string>(pools.begin(), pools.end()))),
                   field("pool"));
}

// A MIG profile no MIG-mode GPU the job may use offers (a typo, or another model's profile).
Status checkMigProfile(const Cluster& c, const Job& job) {
  if (job.perTask.kind != GpuRequest::Kind::Mig) return okStatus();
  std::set<std::string> offered;
  bool anyMigGpu = false;
  for (const Node& n : c.nodes()) {
    const GpuModel& model = n.gpuModel();
    if (!nodeEligible(job, n) || !model.mig) continue;
    bool migMode = false;
    for (int i = 0; i < n.gpuCount(); ++i)
      migMode |= c.gpu(n.firstGpu + static_cast<GpuId>(i)).sharing.offersMigInstances();
    if (!migMode) continue;
    anyMigGpu = true;
    if (model.mig->profileIndex(job.perTask.migProfile) >= 0) return okStatus();
    for (const auto& p : model.mig->profiles) offered.insert(p.name);
  }
  if (!anyMigGpu)
    return Error::of(phrase(text::kNoMigGpuAllowed, job.perTask.migProfile),
                     field("per_task.mig_profile"));
  return Error::of(
      phrase(text::kNoSuchProfile, literal(job.perTask.migProfile), literalList(offered)),
      field("per_task.mig_profile"));
}

// The request field a node rejection is about.
const char* fieldOf(NodeReject why) {
  switch (why) {
    case NodeReject::PoolMismatch:
      return "pool";
    case NodeReject::GpuModelMismatch:
      return "gpu_models";
    case NodeReject::GpuMemoryTooSmall:
      return "min_gpu_memory_mib";
    case NodeReject::NotEnoughFreeGpus:
      return "per_task.gpus";
    case NodeReject::NoMigGpu:
    case NodeReject::NoMigSlot:
      return "per_task.mig_profile";
    case NodeReject::NoGpuShare:
      return "per_task";
    case NodeReject::NotEnoughCpu:
      return "cpus_per_task";
    case NodeReject::NotEnoughMemory:
      return "memory_mib_per_task";
    default:
      return "per_task";
  }
}

// The field a failed placement on the empty cluster is about: when no node can host a task, the
// most common rejection's; when the nodes cannot hold the whole gang, the gang size; else the
// required topology that no unit satisfies.
std::string fieldOfNoRoom(const GangResult& r, const Job& job) {
  if (r.filter.fittingNodes() == 0) {
    // Pool and model exist (checked before): the nodes of the right pool and model say what is
    // too large, so their reasons come first.
    auto counts = r.filter.rejected;
    auto& pool = counts[static_cast<size_t>(NodeReject::PoolMismatch)];
    auto& model = counts[static_cast<size_t>(NodeReject::GpuModelMismatch)];
    if (pool + model < std::accumulate(counts.begin(), counts.end(), 0)) pool = model = 0;
    const auto most = std::max_element(counts.begin(), counts.end());
    return fieldOf(static_cast<NodeReject>(most - counts.begin()));
  }
  int room = 0;
  for (auto [node, tasks] : r.filter.fits) room += tasks;
  return room < job.tasks ? "tasks" : "topology";
}

}  // namespace

Status FeasibilityCheck::check(const std::shared_ptr<const Cluster>& cluster, const Job& job,
                               const std::string& shape) {
  if (verdictsOf_ != cluster.get()) {
    verdicts_.clear();
    verdictsOf_ = cluster.get();
  }
  if (auto it = verdicts_.find(shape); it != verdicts_.end()) return it->second;
  Status verdict = decide(cluster, job);
  verdicts_.emplace(shape, verdict);
  return verdict;
}

Status FeasibilityCheck::decide(const std::shared_ptr<const Cluster>& cluster, const Job& job) {
  const Cluster& c = *cluster;
  TESSERA_CHECK(checkModels(c, job));
  TESSERA_CHECK(checkPool(c, job));
  TESSERA_CHECK(checkMigProfile(c, job));
  ClusterState& empty = emptyState(cluster);
  Transaction tx(empty);  // discards whatever the trial placement took
  PlacementOptions options;
  options.fullFilter = true;  // the node counts explain a refusal
  const GangResult r = placeGang(tx, empty, job, options);
  if (r.placement) return okStatus();
  return Error::of(phrase(text::kNeverFits, r.reason), field(fieldOfNoRoom(r, job)));
}

ClusterState& FeasibilityCheck::emptyState(const std::shared_ptr<const Cluster>& cluster) {
  if (empty_ && &empty_->cluster() == cluster.get()) return *empty_;
  empty_ = std::make_unique<ClusterState>(cluster);
  const Cluster& c = *cluster;
  for (const Node& n : c.nodes()) empty_->setNodeState(n.id, NodeState::Up);
  // Unpartitioned, so any profile of the model may be created (an operator can repartition).
  for (const Gpu& g : c.gpus())
    if (g.sharing.offersMigInstances()) (void)empty_->setMigLayout(g.id, MigLayout{});
  return *empty_;
}

}  // namespace tessera
