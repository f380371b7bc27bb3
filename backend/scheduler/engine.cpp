#include "scheduler/engine.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <set>
#include <sstream>
#include <unordered_map>
#include <utility>

#include "core/engine_text.h"
#include "scheduler/backfill_base.h"
#include "scheduler/gpu_holders.h"

namespace tessera {

namespace {

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// "n1 GPU 0,1; n2 GPU 0"
Text gpuList(const Cluster& c, const GangPlacement& p) {
  std::map<NodeId, std::vector<int>> byNode;
  for (const auto& t : p.tasks)
    for (GpuId g : t.gpus) byNode[t.node].push_back(static_cast<int>(g - c.node(t.node).firstGpu));
  std::vector<Text> nodes;
  for (auto& [node, gpus] : byNode) {
    std::sort(gpus.begin(), gpus.end());
    std::string indexes;
    for (size_t i = 0; i < gpus.size(); ++i) indexes += (i ? "," : "") + std::to_string(gpus[i]);
    nodes.push_back(phrase(text::kGpuOfNode, c.node(node).name, std::move(indexes)));
  }
  return clauseList(std::move(nodes));
}

// Rejections that waiting cannot cure: the job asks for something the cluster does not have.
bool onlyStaticRejections(const NodeFilterResult& f) {
  if (!f.fits.empty()) return false;
  for (size_t i = 0; i < f.rejected.size(); ++i) {
    const auto r = static_cast<NodeReject>(i);
    const bool isStatic = r == NodeReject::PoolMismatch || r == NodeReject::GpuModelMismatch ||
                          r == NodeReject::GpuMemoryTooSmall || r == NodeReject::NoMigGpu;
    if (f.rejected[i] > 0 && !isStatic) return false;
  }
  return true;
}

// The gate one job sees: the verdict per GPU of every filter plugin active for it.
class PluginGate final : public GpuGate {
 public:
  PluginGate(const PluginSet& plugins, const CycleContext& ctx, const JobRecord& job, Seconds start)
      : ctx_(ctx), job_(job), start_(start) {
    for (const auto& f : plugins.filter)
      if (f->active(ctx, job)) active_.push_back(f.get());
  }

  bool touches(NodeId n) const override {
    for (const FilterPlugin* f : active_)
      if (f->touches(ctx_, job_, start_, n)) return true;
    return false;
  }
  // A filter only speaks for the nodes it touches.
  bool usable(GpuId g) const override {
    const NodeId n = ctx_.state->cluster().gpu(g).node;
    for (const FilterPlugin* f : active_)
      if (f->touches(ctx_, job_, start_, n) && !f->usable(ctx_, job_, start_, g)) return false;
    return true;
  }
  NodeReject reason(NodeId n) const override {
    for (const FilterPlugin* f : active_)
      if (f->touches(ctx_, job_, start_, n)) return f->rejectReason();
    return NodeReject::Reserved;
  }
  std::pair<int, int64_t> hostHeld(NodeId n) const override {
    std::pair<int, int64_t> sum{0, 0};
    for (const FilterPlugin* f : active_) {
      const auto [cpus, memory] = f->hostHeld(ctx_, job_, start_, n);
      sum.first += cpus;
      sum.second += memory;
    }
    return sum;
  }
  [[nodiscard]] bool active() const { return !active_.empty(); }

 private:
  const CycleContext& ctx_;
  const JobRecord& job_;
  Seconds start_;
  std::vector<const FilterPlugin*> active_;
};

// The policy's weighted score plugins: raw scores normalized to 0..100 per plugin across the
// candidates (kube-scheduler's NormalizeScore), summed with weights; ties keep bin-packing order.
class PolicyScorer final : public UnitScorer {
 public:
  PolicyScorer(const PluginSet& plugins, const CycleContext& ctx) : plugins_(plugins), ctx_(ctx) {}

  size_t best(const ClusterState&, const Job& job, std::span<const UnitView> units) const override {
    std::vector<double> total(units.size(), 0.0), raw(units.size());
    for (const auto& [plugin, weight] : plugins_.score) {
      double lo = 0, hi = 0;
      for (size_t i = 0; i < units.size(); ++i) {
        raw[i] = plugin->score(ctx_, job, units[i]);
        lo = i == 0 ? raw[i] : std::min(lo, raw[i]);
        hi = i == 0 ? raw[i] : std::max(hi, raw[i]);
      }
      if (hi - lo < 1e-12) continue;
      for (size_t i = 0; i < units.size(); ++i)
        total[i] += weight * 100.0 * (raw[i] - lo) / (hi - lo);
    }
    size_t best = 0;
    for (size_t i = 1; i < units.size(); ++i)
      if (total[i] > total[best] + 1e-9 ||
          (total[i] > total[best] - 1e-9 && units[i].freeGpus < units[best].freeGpus))
        best = i;
    return best;
  }

 private:
  const PluginSet& plugins_;
  const CycleContext& ctx_;
};

// Jobs that ask for the same thing fail the same way in one cycle (Slurm and kube-scheduler
// skip such equivalents). The static part is computed once per job.
std::string shapeOf(const Job& job) {
  std::ostringstream k;
  k << int(job.perTask.kind) << '|' << job.perTask.gpus << '|' << job.perTask.migProfile << '|'
    << job.perTask.milli << '|' << job.perTask.vramMiB << '|' << job.tasks << '|' << job.cpusPerTask
    << '|' << job.memoryMiBPerTask << '|' << job.model.minMemoryMiB << '|' << job.pool << '|'
    << int(job.topology.level) << job.topology.required;
  for (const auto& m : job.model.models) k << ',' << m;
  // An MPS server takes or refuses a client by its team or user (co-location), so for MPS they
  // are part of what the job asks.
  if (job.perTask.kind == GpuRequest::Kind::Mps)
    k << "|mps" << job.perTask.mpsThreads << '|' << job.team << '|' << job.user;
  return k.str();
}

// The rest of the key: what the reservations make of the job's run now - how many holds its run
// would overlap, and its team when team holds exist.
struct ShapeKey {
  uint32_t shape = 0;
  uint32_t overlapping = 0;
  int team = -1;
  int priority = 0;  // with preemption on, who asks matters: it decides who may be evicted
  friend bool operator==(const ShapeKey&, const ShapeKey&) = default;
};

struct ShapeKeyHash {
  size_t operator()(const ShapeKey& k) const {
    return (size_t{k.shape} * 0x9E3779B97F4A7C15ULL) ^ (size_t{k.overlapping} << 20) ^
           size_t(uint32_t(k.team)) ^ (size_t(uint32_t(k.priority)) << 40);
  }
};

class ShapeCache {
 public:
  // With preemption on, a verdict also depends on the job's priority and team (who it may evict
  // or reclaim from), so those become part of the key.
  explicit ShapeCache(bool byRequester) : byRequester_(byRequester) {}

  void reset(const ReservationBook& book, Seconds now) {
    clear();
    froms_.clear();
    teamHolds_ = false;
    for (const auto& r : book.all())
      if (r.until > now) {
        froms_.push_back(r.from);
        teamHolds_ = teamHolds_ || r.kind == Reservation::Kind::Team;
      }
    std::sort(froms_.begin(), froms_.end());
  }

  [[nodiscard]] ShapeKey keyOf(const JobRecord& j, Seconds now) const {
    ShapeKey k;
    k.shape = j.shape;
    if (!froms_.empty())
      k.overlapping = static_cast<uint32_t>(
          std::lower_bound(froms_.begin(), froms_.end(), j.endIfStartedAt(now)) - froms_.begin());
    k.team = teamHolds_ || byRequester_ ? j.team : -1;
    k.priority = byRequester_ ? j.job.priority : 0;
    return k;
  }

  struct Verdict {
    Text reason;
    PluginCode code;
  };

  [[nodiscard]] const Verdict* find(const ShapeKey& k) const {
    const auto it = entries_.find(k);
    return it == entries_.end() ? nullptr : &it->second;
  }

  void remember(const ShapeKey& k, const Text& reason, PluginCode c) {
    entries_.insert_or_assign(k, Verdict{reason, c});
  }

  // A failed placement does not depend on who asks (team holds aside): with preemption on, a
  // job of another team or priority skips the search and goes on to its own preemption and
  // backfill steps. Thousands of queued jobs spread over teams and priorities otherwise cost
  // one placement search per (shape, team, priority) each cycle.
  [[nodiscard]] const Verdict* findUnplaced(const ShapeKey& k) const {
    if (!byRequester_) return nullptr;  // the key above is this one already
    const auto it = unplaced_.find(placementKey(k));
    return it == unplaced_.end() ? nullptr : &it->second;
  }
  void rememberUnplaced(const ShapeKey& k, const Text& reason, PluginCode c) {
    if (byRequester_) unplaced_.insert_or_assign(placementKey(k), Verdict{reason, c});
  }

  void clear() {
    entries_.clear();
    unplaced_.clear();
  }

 private:
  [[nodiscard]] ShapeKey placementKey(ShapeKey k) const {
    k.priority = 0;
    if (!teamHolds_) k.team = -1;
    return k;
  }

  std::unordered_map<ShapeKey, Verdict, ShapeKeyHash> entries_;
  std::unordered_map<ShapeKey, Verdict, ShapeKeyHash> unplaced_;
  std::vector<Seconds> froms_;
  bool teamHolds_ = false;
  bool byRequester_ = false;
};

// One GPU of each (model, pool) pair: what a permit plugin needs to know where a job could land.
std::vector<GpuId> gpuKinds(const Cluster& cluster) {
  std::vector<GpuId> kinds;
  for (const Node& n : cluster.nodes()) {
    if (n.gpuCount() == 0) continue;
    const bool seen = std::any_of(kinds.begin(), kinds.end(), [&](GpuId g) {
      const Node& m = cluster.node(cluster.gpu(g).node);
      return &m.gpuModel() == &n.gpuModel() && m.pool == n.pool;
    });
    if (!seen) kinds.push_back(n.firstGpu);
  }
  return kinds;
}

// Permit refusals that hold wherever a job lands, per (shape, team) for the rest of a cycle: a
// quota only fills up as jobs start, so a refusal stands until evictions give GPUs back.
class RefusalCache {
 public:
  const PluginStatus* find(uint32_t shape, int team) const {
    const auto it = entries_.find(keyOf(shape, team));
    return it == entries_.end() ? nullptr : &it->second;
  }
  void remember(uint32_t shape, int team, PluginStatus s) {
    entries_.insert_or_assign(keyOf(shape, team), std::move(s));
  }
  void clear() { entries_.clear(); }

 private:
  static uint64_t keyOf(uint32_t shape, int team) {
    return (uint64_t{shape} << 32) | static_cast<uint32_t>(team);
  }
  std::unordered_map<uint64_t, PluginStatus> entries_;
};

constexpr size_t kPrefetchAhead = 12;

// Only the lines the pass touches: the record's hot head and the job fields admission and the
// verdict cache read.
void prefetchRecord(const JobRecord& j) {
  __builtin_prefetch(&j.shape, 1);
  __builtin_prefetch(&j.pinned, 1);       // and the verdict's plugin name after it
  __builtin_prefetch(&j.job.id, 0);       // priority, tasks, held, runtime
  __builtin_prefetch(&j.job.perTask, 0);  // admission's demand
}

}  // namespace

// ---------------------------------------------------------------- JobRecord

std::optional<Seconds> JobRecord::remaining() const {
  if (!job.estimatedRuntime) return std::nullopt;
  return std::max<Seconds>(0, *job.estimatedRuntime - workKept);
}

Seconds JobRecord::endIfStartedAt(Seconds t) const {
  const auto r = remaining();
  return r ? t + *r : kForever;
}

Seconds JobRecord::expectedEnd() const {
  return endIfStartedAt(startTime);
}

Seconds JobRecord::lastCheckpointAt(Seconds now) const {
  Seconds last = startTime;
  if (job.checkpointInterval && *job.checkpointInterval > 0)
    last = startTime + (now - startTime) / *job.checkpointInterval * *job.checkpointInterval;
  if (job.lastCheckpoint && *job.lastCheckpoint <= now) last = std::max(last, *job.lastCheckpoint);
  return std::min(last, now);
}

std::vector<NodeId> JobRecord::nodes() const {
  std::vector<NodeId> out;
  if (!placement) return out;
  for (const auto& t : placement->tasks) out.push_back(t.node);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

double JobRecord::gpusHeld(const ClusterState& occupancy) const {
  if (!placement) return 0;
  double total = 0;
  std::vector<std::vector<GpuId>> gpus;
  for (const auto& t : placement->tasks) gpus.push_back(t.gpus);
  for (auto [g, amount] : QuotaCharge::of(occupancy, job, gpus).gpus) total += amount;
  return total;
}

// ---------------------------------------------------------------- construction

Engine::Engine(ClusterState state, Policy policy, PluginSet plugins)
    : state_(std::move(state)), policy_(std::move(policy)), plugins_(std::move(plugins)) {
  state_.setFixedMigLayouts(!policy_.mig.createInstances);
  configureQueueIndex();
}

void Engine::configureQueueIndex() {
  std::vector<bool> teamSlots;
  queueIndexed_ = plugins_.queueOrder.size() <= QueueIndex::kMaxKeys;
  for (const auto& p : plugins_.queueOrder) {
    queueIndexed_ = queueIndexed_ && p->scope() != QueueOrderPlugin::Scope::Cycle;
    teamSlots.push_back(p->scope() == QueueOrderPlugin::Scope::Team);
  }
  queueIndex_.configure(std::move(teamSlots));
}

Expected<Engine> Engine::create(std::shared_ptr<const Cluster> cluster, const Workload& tenants,
                                Policy policy) {
  TESSERA_TRY(plugins, PluginRegistry::builtin().instantiate(policy));
  Engine e(ClusterState(cluster), std::move(policy), std::move(plugins));
  e.quotas_ = QuotaBook(tenants.teams);
  e.fairShare_ = FairShare(e.quotas_);
  e.reservations_ = ReservationBook(*cluster);
  e.classes_ = tenants.priorityClasses.empty() ? defaultPriorityClasses() : tenants.priorityClasses;
  e.teamUse_.assign(tenants.teams.size(), {});
  // A node the cluster spec declares draining or down is the site's word: the operator's hold,
  // which an undrain removes like any other.
  for (const auto& n : cluster->nodes())
    if (n.state != NodeState::Up)
      TESSERA_CHECK(e.putNodeHold(
          n.id, NodeHold{HoldOwner::Operator, std::nullopt, {}, n.state == NodeState::Down, 0}));
  // Unit keys are dense once shifted past the island keys (-1 - leaf), as placement's are.
  const int64_t offset = static_cast<int64_t>(cluster->switches().size()) + 1;
  e.unitCount_ = static_cast<size_t>(offset) +
                 std::max({cluster->nodes().size(), cluster->nvlinkDomains().size(),
                           cluster->switches().size(), size_t{1}}) +
                 1;
  for (size_t l = 0; l < e.unitIndex_.size(); ++l) {
    auto& index = e.unitIndex_[l];
    index.assign(cluster->nodes().size(), -1);
    for (const auto& n : cluster->nodes())
      if (const auto key = topologyUnitOf(*cluster, n.id, static_cast<TopologyLevel>(l)))
        index[n.id] = static_cast<int32_t>(*key + offset);
  }
  // Nodes, leaves and spines nest by construction (a node has one leaf, a leaf one spine); a
  // node outside every unit at a level, or a multi-node NVLink domain across two units, breaks
  // it for that level and those above.
  for (size_t l = 0; l < e.unitIndex_.size(); ++l) {
    const auto& index = e.unitIndex_[l];
    bool nests = std::none_of(index.begin(), index.end(), [](int32_t u) { return u < 0; });
    if (static_cast<TopologyLevel>(l) > TopologyLevel::NvlinkDomain) {
      // The unit at this level each NVLink domain's first node has (placement's domain is the
      // one its node's first GPU belongs to).
      const auto& domainOf = e.unitIndex_[static_cast<size_t>(TopologyLevel::NvlinkDomain)];
      std::vector<int32_t> first(e.unitCount_, -1);
      for (NodeId n = 0; n < index.size(); ++n) {
        const int32_t d = domainOf[n];
        if (d < 0) continue;
        int32_t& f = first[static_cast<size_t>(d)];
        if (f < 0) f = index[n];
        nests = nests && f == index[n];
      }
    }
    e.nests_[l] = nests;
  }
  for (const auto& n : cluster->nodes()) {
    e.capacity_.gpus += n.gpuCount();
    e.capacity_.cpus += std::max(0, n.hw->cpus);
    e.capacity_.memoryMiB += double(std::max<int64_t>(0, n.hw->memoryMiB));
  }
  std::vector<Job> jobs = tenants.jobs;
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const Job& a, const Job& b) { return a.submitTime < b.submitTime; });
  // Future arrivals pass the same checks now (submit keeps them until their time). A refusal
  // names the job's place in its file when the workload was read from one.
  for (auto& j : jobs) {
    const JobId id = j.id;
    if (auto submitted = e.submit(std::move(j)); !submitted)
      return tenants.atJobSource(id, submitted.error());
  }
  return e;
}

// ---------------------------------------------------------------- accessors

const JobRecord* Engine::job(JobId id) const {
  const auto it = index_.find(id);
  return it == index_.end() ? nullptr : &jobs_[it->second];
}

JobRecord* Engine::mutableJob(JobId id) {
  const auto it = index_.find(id);
  if (it == index_.end()) return nullptr;
  touch(it->second);
  return &jobs_[it->second];
}

std::vector<const JobRecord*> Engine::jobs() const {
  std::vector<const JobRecord*> out;
  out.reserve(jobs_.size());
  for (const auto& j : jobs_) out.push_back(&j);
  return out;
}

std::vector<const JobRecord*> Engine::running() const {
  std::vector<const JobRecord*> out;
  out.reserve(running_.size());
  for (uint32_t i : running_) out.push_back(&jobs_[i]);
  return out;
}

std::vector<const JobRecord*> Engine::pending() const {
  std::vector<const JobRecord*> out;
  for (uint32_t i : active_)
    if (jobs_[i].state == JobState::Pending) out.push_back(&jobs_[i]);
  return out;
}

std::optional<int> Engine::priorityOf(const std::string& cls) const {
  for (const auto& c : classes_)
    if (c.name == cls) return c.value;
  return std::nullopt;
}

std::string Engine::classNames() const {
  std::string known;
  for (const auto& c : classes_) known += (known.empty() ? "" : ", ") + c.name;
  return known;
}

CycleContext Engine::context() const {
  CycleContext ctx;
  ctx.state = &state_;
  ctx.backfillBase = cycleBase_;
  ctx.quotas = &quotas_;
  ctx.fairShare = &fairShare_;
  ctx.reservations = &reservations_;
  ctx.policy = &policy_;
  ctx.now = now_;
  ctx.fairShareFactor = fairShare_.factors();
  ctx.dominantShare = dominantShares(capacity_, teamUse_, quotas_);
  ctx.gpuKinds = gpuKinds(state_.cluster());
  // The request mix for FGD: every active job's task shape, weighted by its task count.
  const bool fgd = std::any_of(policy_.score.begin(), policy_.score.end(), [](const auto& s) {
    return (s.name == "fgd" || s.name == "fgd-reach") && s.weight > 0;
  });
  if (fgd) {
    DemandMix mix;
    for (uint32_t i : active_)
      if (jobs_[i].active()) mix.add(jobs_[i].job);
    ctx.demand = mix.shapes();
  }
  return ctx;
}

std::vector<size_t> Engine::orderedPending(const CycleContext& ctx) const {
  // Each plugin's key once per job, then one sort of flat entries (ties: job id).
  constexpr size_t kMaxKeys = 6;
  struct Entry {
    std::array<double, kMaxKeys> keys;
    JobId id;
    size_t index;
  };
  const size_t m = std::min(plugins_.queueOrder.size(), kMaxKeys);
  std::vector<Entry> entries;
  // Finished jobs leave the active index here: a long simulation keeps every job it ever saw,
  // and a cycle must not pass over them.
  std::erase_if(active_, [this](uint32_t i) { return !jobs_[i].active(); });
  entries.reserve(active_.size());
  for (uint32_t i : active_) {
    if (jobs_[i].state != JobState::Pending) continue;
    Entry e{{}, jobs_[i].job.id, i};
    for (size_t p = 0; p < m; ++p) e.keys[p] = plugins_.queueOrder[p]->key(ctx, jobs_[i]);
    entries.push_back(e);
  }
  std::sort(entries.begin(), entries.end(), [m](const Entry& a, const Entry& b) {
    for (size_t p = 0; p < m; ++p)
      if (a.keys[p] != b.keys[p]) return a.keys[p] < b.keys[p];
    return a.id < b.id;
  });
  std::vector<size_t> out;
  out.reserve(entries.size());
  for (const auto& e : entries) out.push_back(e.index);
  return out;
}

std::vector<size_t> Engine::cycleOrder(const CycleContext& ctx) const {
  if (!queueIndexed_) return orderedPending(ctx);
  const auto& order = plugins_.queueOrder;
  QueueIndex::Source src;
  src.jobCount = jobs_.size();
  src.pending = [this](uint32_t i) { return jobs_[i].state == JobState::Pending; };
  src.team = [this](uint32_t i) { return jobs_[i].team; };
  src.id = [this](uint32_t i) { return jobs_[i].job.id; };
  src.ownKeys = [&](uint32_t i) {
    QueueIndex::Keys k{};
    for (size_t p = 0; p < order.size(); ++p)
      if (order[p]->scope() == QueueOrderPlugin::Scope::Job) k[p] = order[p]->key(ctx, jobs_[i]);
    return k;
  };
  src.active = [this]() -> const std::vector<uint32_t>& { return active_; };
  // A team key reads the job's team only: ask it of a record that has nothing else.
  JobRecord ofTeam;
  const auto teamKeys = [&](int team) {
    ofTeam.team = team;
    QueueIndex::Keys k{};
    for (size_t p = 0; p < order.size(); ++p)
      if (order[p]->scope() == QueueOrderPlugin::Scope::Team) k[p] = order[p]->key(ctx, ofTeam);
    return k;
  };
  return queueIndex_.order(src, teamKeys);
}

std::vector<const JobRecord*> Engine::queue() const {
  const CycleContext ctx = context();
  std::vector<const JobRecord*> out;
  for (size_t i : orderedPending(ctx)) out.push_back(&jobs_[i]);
  return out;
}

// ---------------------------------------------------------------- events and lifecycle

namespace {
bool isActiveState(JobState s) {
  return s == JobState::Pending || s == JobState::Admitted || s == JobState::Running;
}
}  // namespace

void Engine::addEvent(EventKind kind, JobRecord& job, JobState to, Text reason,
                      const std::string& actor, JobId by) {
  touch(job);
  Event e;
  e.seq = eventCount() + 1;
  e.time = now_;
  e.kind = kind;
  e.job = job.job.id;
  e.from = job.state;
  e.to = to;
  e.reason = std::move(reason);
  e.actor = actor;
  e.by = by;
  if (job.active() && !isActiveState(to)) ++finished_;
  job.state = to;
  job.job.state = to;
  job.eventIndex.push_back(static_cast<uint32_t>(eventCount()));
  events_.push_back(std::move(e));
}

void Engine::recordCommand(const std::string& actor, Text line) {
  Event e;
  e.seq = eventCount() + 1;
  e.time = now_;
  e.kind = EventKind::Command;
  e.reason = std::move(line);
  e.actor = actor;
  events_.push_back(std::move(e));
}

QuotaCharge Engine::chargeOf(const JobRecord& job, const GangPlacement& p) const {
  std::vector<std::vector<GpuId>> gpus;
  for (const auto& t : p.tasks) gpus.push_back(t.gpus);
  return QuotaCharge::of(state_, job.job, gpus);
}

void Engine::start(JobRecord& job, GangPlacement placement, Text why) {
  start(job, std::move(placement), std::move(why), now_);
}

void Engine::start(JobRecord& job, GangPlacement placement, Text why, Seconds at) {
  touch(job);
  job.placement = std::move(placement);
  keepPlacement(job);
  const QuotaCharge& charge = job.placedCharge;
  quotas_.charge(state_, job.team, charge, +1);
  if (job.team >= 0) {
    ResourceUse& u = teamUse_[static_cast<size_t>(job.team)];
    for (auto [g, amount] : charge.gpus) u.gpus += amount;
    u.cpus += double(job.job.cpusPerTask) * job.job.tasks;
    u.memoryMiB += double(job.job.memoryMiBPerTask) * job.job.tasks;
  }
  Text where = phrase(text::kStartedOn, gpuList(state_.cluster(), *job.placement),
                      levelWords(job.placement->span));
  job.startTime = at;
  if (cycleBase_) cycleBase_->started(*this, job);  // its expected end is known from here
  runningEnds_.insert({job.expectedEnd(), job.job.id, static_cast<uint32_t>(&job - jobs_.data())});
  job.runningSlot = static_cast<int32_t>(running_.size());
  running_.push_back(static_cast<uint32_t>(&job - jobs_.data()));
  job.eta.reset();
  job.waitingFor.clear();
  addEvent(EventKind::Admitted, job, JobState::Admitted,
           phrase(text::kAdmittedWhy, std::move(why)));
  addEvent(EventKind::Started, job, JobState::Running, std::move(where));
  job.reason = {};
  job.blockedBy.clear();
  ++stats_.started;
}

void Engine::stop(JobRecord& job) {
  touch(job);
  if (job.runningSlot >= 0) {
    const auto slot = static_cast<size_t>(job.runningSlot);
    running_[slot] = running_.back();
    touch(running_[slot]);
    jobs_[running_[slot]].runningSlot = job.runningSlot;
    running_.pop_back();
    job.runningSlot = -1;
    runningEnds_.erase({job.expectedEnd(), job.job.id, 0});
  }
  if (!job.placement) return;
  if (cycleBase_) cycleBase_->stopped(job);
  const QuotaCharge charge = std::exchange(job.placedCharge, {});
  const std::vector<NodeId> nodes = std::exchange(job.placedNodes, {});
  const std::vector<GpuId> gpus = std::exchange(job.placedGpus, {});
  quotas_.charge(state_, job.team, charge, -1);
  if (job.team >= 0) {
    ResourceUse& u = teamUse_[static_cast<size_t>(job.team)];
    for (auto [g, amount] : charge.gpus) u.gpus -= amount;
    u.cpus -= double(job.job.cpusPerTask) * job.job.tasks;
    u.memoryMiB -= double(job.job.memoryMiBPerTask) * job.job.tasks;
  }
  Transaction tx(state_);
  tx.releaseJob(job.job.id, nodes, gpus);
  tx.commit();
}

void Engine::keepPlacement(JobRecord& job) const {
  job.placedNodes = job.nodes();
  job.placedGpus.clear();
  for (const auto& t : job.placement->tasks)
    job.placedGpus.insert(job.placedGpus.end(), t.gpus.begin(), t.gpus.end());
  std::sort(job.placedGpus.begin(), job.placedGpus.end());
  job.placedGpus.erase(std::unique(job.placedGpus.begin(), job.placedGpus.end()),
                       job.placedGpus.end());
  job.placedCharge = chargeOf(job, *job.placement);
}

void Engine::evict(JobRecord& victim, const JobRecord& by, const Victim& cost, Text why) {
  const Seconds kept = victim.lastCheckpointAt(now_) - victim.startTime;
  std::ostringstream gpuHours;
  gpuHours << std::round(cost.gpuHoursLost * 100) / 100;
  Text reason =
      phrase(kept > 0 ? text::kPreemptedSinceCheckpoint : text::kPreemptedSinceStart, by.job.id,
             by.job.priorityClass, by.job.team, std::move(why), cost.workLost / 60, gpuHours.str());
  stop(victim);
  victim.workKept += kept;
  victim.gpuHoursLost += cost.gpuHoursLost;
  ++victim.preemptions;
  ++stats_.preempted;
  addEvent(EventKind::Preempted, victim, JobState::Preempted, std::move(reason), "scheduler",
           by.job.id);
  victim.placement.reset();
  addEvent(EventKind::Requeued, victim, JobState::Pending,
           phrase(text::kRequeuedKept, victim.workKept / 60));
  victim.reason = phrase(text::kRequeuedAfterPreemption, by.job.id);
}

Expected<std::vector<GpuId>> Engine::resolveSubmit(Job& job, Check check) const {
  if (index_.count(job.id) ||
      std::any_of(future_.begin(), future_.end(), [&](const Job& f) { return f.id == job.id; }))
    return Error::wrongState(phrase(text::kJobExists, job.id));
  if (job.tasks < 1) return Error::of(phrase(text::kNoTask));
  if (job.perTask.kind == GpuRequest::Kind::None ||
      (job.perTask.kind == GpuRequest::Kind::Whole && job.perTask.gpus < 1))
    return Error::of(phrase(text::kRequestsNoGpu, job.id));
  // The checks below name the job first: a batch of submissions says which one is wrong.
  const auto ofJob = [&](Text problem) {
    return phrase(text::kLabelled, phrase(text::kJob, job.id), std::move(problem));
  };
  const auto refused = [&](const Error& e) { return Error::of(ofJob(e.text), e.where); };
  if (check == Check::Everything)
    if (auto fields = checkJobFields(job); !fields) return refused(fields.error());
  const int team = quotas_.teamIndex(job.team);
  if (!quotas_.teams().empty() && team < 0)
    return Error::notFound(ofJob(phrase(text::kUnknownTeam, job.team)));
  if (!job.priorityClass.empty()) {
    const auto value = priorityOf(job.priorityClass);
    if (!value)
      return Error::of(ofJob(phrase(text::kUnknownClass, job.priorityClass, classNames())));
    job.priority = *value;
  }
  std::vector<GpuId> pinned;
  for (const auto& name : job.pinGpus) {
    const Gpu* g = cluster().findGpu(name);
    if (!g) return Error::notFound(ofJob(phrase(text::kPinUnknownGpu, name)));
    pinned.push_back(g->id);
  }
  for (const auto& name : job.pinNodes) {
    const Node* n = cluster().findNode(name);
    if (!n) return Error::notFound(ofJob(phrase(text::kPinUnknownNode, name)));
    for (int i = 0; i < n->gpuCount(); ++i) pinned.push_back(n->firstGpu + static_cast<GpuId>(i));
  }
  std::sort(pinned.begin(), pinned.end());
  pinned.erase(std::unique(pinned.begin(), pinned.end()), pinned.end());
  if (pinTooSmall(job, pinned.size()))
    return Error::of(phrase(text::kPinTooFew, job.id, gpusNeeded(job), pinned.size()));
  if (check == Check::Everything)
    if (auto feasible = feasibility_.check(state_.clusterPtr(), job, shapeOf(job)); !feasible)
      return refused(feasible.error());
  return pinned;
}

Status Engine::validate(Job job) const {
  TESSERA_TRY(pinned, resolveSubmit(job));
  (void)pinned;
  return okStatus();
}

Expected<JobId> Engine::submit(Job job, const std::string& actor) {
  return take(std::move(job), actor, Check::Everything);
}

Expected<JobId> Engine::resubmit(Job job, const std::string& actor) {
  return take(std::move(job), actor, Check::KnownJob);
}

Expected<JobId> Engine::take(Job job, const std::string& actor, Check check) {
  if (job.id == kNoJob) {
    JobId next = 1;
    for (const auto& j : jobs_) next = std::max(next, j.job.id + 1);
    for (const auto& j : future_) next = std::max(next, j.id + 1);
    job.id = next;
  }
  TESSERA_TRY(pinned, resolveSubmit(job, check));
  const int team = quotas_.teamIndex(job.team);
  if (job.submitTime > now_) {
    future_.push_back(std::move(job));
    return future_.back().id;
  }
  JobRecord rec;
  rec.team = team;
  rec.pinned = std::move(pinned);
  rec.shape =
      shapes_.try_emplace(shapeOf(job), static_cast<uint32_t>(shapes_.size())).first->second;
  rec.job = std::move(job);
  rec.job.state = JobState::Pending;
  rec.reason = phrase(text::kWaitingForCycle);
  index_[rec.job.id] = jobs_.size();
  active_.push_back(static_cast<uint32_t>(jobs_.size()));
  jobs_.push_back(std::move(rec));
  JobRecord& r = jobs_.back();
  r.state = JobState::Pending;
  addEvent(EventKind::Submitted, r, JobState::Pending,
           phrase(r.job.held ? text::kSubmittedHeld : text::kEvSubmitted), actor);
  return r.job.id;
}

Status Engine::complete(JobId id, Text reason) {
  return finish(id, EventKind::Completed, JobState::Completed, std::move(reason));
}

Status Engine::fail(JobId id, Text reason) {
  return finish(id, EventKind::Failed, JobState::Failed, std::move(reason));
}

Status Engine::finish(JobId id, EventKind kind, JobState to, Text reason) {
  JobRecord* j = mutableJob(id);
  if (!j) return Error::notFound(phrase(text::kNoJob, id));
  if (j->state != JobState::Running)
    return Error::wrongState(phrase(text::kNotRunning, id, jobStateText(j->state)));
  stop(*j);
  j->endTime = now_;
  j->reason = reason;  // how it ended is what its record says last
  addEvent(kind, *j, to, std::move(reason));
  return okStatus();
}

namespace {
// The MPS server a restored client runs on: the GPU's own (-1) on a GPU running MPS itself, the
// MIG instance's at migStart, or any (-1 there: a snapshot that did not say).
int restoredMpsServer(const Cluster& c, const Engine::RestoredTask& task) {
  if (c.gpu(task.gpus[0]).sharing.mode == SharingMode::Mps) return -1;
  return task.migStart >= 0 ? task.migStart : ClusterState::kAnyMpsServer;
}
}  // namespace

Status Engine::takeRestored(Transaction& tx, const JobRecord& job, const RestoredTask& task) {
  const Job& j = job.job;
  const std::string where = "task on " + cluster().node(task.node).name + ": ";
  for (GpuId g : task.gpus)
    if (g >= cluster().gpus().size() || cluster().gpu(g).node != task.node)
      return Error{where + "GPU " + std::to_string(g) + " is not on that node", {}};
  switch (j.perTask.kind) {
    case GpuRequest::Kind::Whole:
      if (static_cast<int>(task.gpus.size()) != j.perTask.gpus)
        return Error{where + "the job asks for " + std::to_string(j.perTask.gpus) +
                         " GPUs per task, the snapshot gives " + std::to_string(task.gpus.size()),
                     {}};
      for (GpuId g : task.gpus) TESSERA_CHECK(tx.takeWholeGpu(g, j.id));
      break;
    case GpuRequest::Kind::Mig: {
      if (task.gpus.size() != 1 || task.migStart < 0)
        return Error{where + "a MIG task needs one GPU and its instance's start slice", {}};
      const auto& mig = cluster().modelOf(task.gpus[0]).mig;
      const int p = mig ? mig->profileIndex(j.perTask.migProfile) : -1;
      if (p < 0) return Error{where + "the GPU has no " + j.perTask.migProfile + " profile", {}};
      TESSERA_CHECK(tx.takeMigInstance(task.gpus[0], p, j.id, true, task.migStart));
      break;
    }
    case GpuRequest::Kind::Fraction:
      if (task.gpus.size() != 1) return Error{where + "a fractional task needs one GPU", {}};
      TESSERA_CHECK(tx.takeShare(task.gpus[0], j.id, j.perTask.milli, j.perTask.vramMiB));
      break;
    case GpuRequest::Kind::Mps:
      if (task.gpus.size() != 1) return Error{where + "an MPS task needs one GPU", {}};
      // The server named: the node's one-GPU rule, a placement rule, does not refuse a client
      // that runs (restored, or bound by the cluster where the engine had not put it).
      TESSERA_CHECK(tx.takeMps(task.gpus[0], mpsAsk(j), restoredMpsServer(cluster(), task)));
      break;
    case GpuRequest::Kind::None:
      break;
  }
  return tx.takeNodeResources(task.node, j.id, j.cpusPerTask, j.memoryMiBPerTask);
}

Status Engine::restoreRunning(JobId id, const std::vector<RestoredTask>& tasks, Seconds started,
                              Seconds workKept) {
  JobRecord* j = mutableJob(id);
  if (!j) return Error::notFound(phrase(text::kNoJob, id));
  if (j->state != JobState::Pending)
    return Error{"job " + std::to_string(id) + " is " + jobStateName(j->state) + ", not pending",
                 {}};
  if (static_cast<int>(tasks.size()) != j->job.tasks)
    return Error{"job " + std::to_string(id) + " has " + std::to_string(j->job.tasks) +
                     " tasks, the snapshot places " + std::to_string(tasks.size()),
                 {}};
  if (started > now_ || workKept < 0)
    return Error{"job " + std::to_string(id) + ": start time after the clock or negative work", {}};
  // A job may run on a node drained after it started: take its GPUs as if the node were up.
  std::vector<std::pair<NodeId, NodeState>> notUp;
  for (const auto& t : tasks)
    if (t.node < cluster().nodes().size() && state_.nodeState(t.node) != NodeState::Up &&
        std::none_of(notUp.begin(), notUp.end(), [&](const auto& p) { return p.first == t.node; }))
      notUp.emplace_back(t.node, state_.nodeState(t.node));
  for (auto [n, st] : notUp) state_.setNodeState(n, NodeState::Up);
  Transaction tx(state_);
  Status taken = okStatus();
  GangPlacement placement;
  std::vector<GpuId> all;
  for (const auto& t : tasks) {
    if (t.node >= cluster().nodes().size()) {
      taken = Error{"no node " + std::to_string(t.node), {}};
      break;
    }
    taken = takeRestored(tx, *j, t);
    if (!taken) break;
    placement.tasks.push_back({t.node, t.gpus, t.migStart});
    all.insert(all.end(), t.gpus.begin(), t.gpus.end());
  }
  if (taken)
    tx.commit();
  else
    tx.discard();
  for (auto [n, st] : notUp) state_.setNodeState(n, st);
  if (!taken) return Error{"job " + std::to_string(id) + ": " + taken.error().message, {}};
  placement.span = all.empty() ? TopologyLevel::Cluster : cluster().spanOf(all);
  j->workKept = workKept;
  start(*j, std::move(placement), phrase(text::kRestored, started), started);
  return okStatus();
}

namespace {
// Why the cluster's binding of a running job cannot be followed; empty when it can. Slurm picks
// a node's GPUs itself for whole GPUs, for a share's gres/shard and for an MPS client's gres/mps
// (one GPU per task for both), and names them by device index. It has no way to say which GPU
// a MIG index lies on, nor which MIG instance's MPS server a client joined.
std::string rebindRefusal(const JobRecord& j) {
  switch (j.job.perTask.kind) {
    case GpuRequest::Kind::Whole:
    case GpuRequest::Kind::Fraction:
      return {};
    case GpuRequest::Kind::Mps:
      for (const TaskAssignment& t : j.placement->tasks)
        if (t.migStart >= 0)
          return "an MPS client inside a MIG instance cannot be rebound (Slurm's gres/mps does "
                 "not name the instance)";
      return {};
    case GpuRequest::Kind::Mig:
      return "a MIG instance cannot be rebound (a Slurm index does not name its GPU)";
    case GpuRequest::Kind::None:
      break;
  }
  return "a job without GPUs has none to rebind";
}
}  // namespace

Status Engine::rebind(JobId id, const std::vector<RestoredTask>& tasks, const std::string& actor) {
  JobRecord* j = mutableJob(id);
  if (!j) return Error::notFound(phrase(text::kNoJob, id));
  if (j->state != JobState::Running || !j->placement)
    return Error::wrongState(phrase(text::kNotRunning, id, jobStateText(j->state)));
  const auto job = std::to_string(id);
  if (const std::string refusal = rebindRefusal(*j); !refusal.empty())
    return Error{"job " + job + ": " + refusal, {}};
  auto& placed = j->placement->tasks;
  if (tasks.size() != placed.size())
    return Error{"job " + job + " has " + std::to_string(placed.size()) + " tasks, not " +
                     std::to_string(tasks.size()),
                 {}};
  for (size_t i = 0; i < tasks.size(); ++i)
    if (tasks[i].node != placed[i].node)
      return Error{"job " + job + ": task " + std::to_string(i) + " runs on " +
                       cluster().node(placed[i].node).name + ", not on " +
                       cluster().node(tasks[i].node).name,
                   {}};
  touch(*j);
  Transaction tx(state_);
  tx.releaseJob(id, j->nodes());
  for (const RestoredTask& t : tasks)
    if (Status taken = takeRestored(tx, *j, t); !taken) {
      tx.discard();
      return Error{"job " + job + ": " + taken.error().message, {}};
    }
  tx.commit();
  std::vector<GpuId> all;
  std::string where;
  for (size_t i = 0; i < tasks.size(); ++i) {
    placed[i].gpus = tasks[i].gpus;
    all.insert(all.end(), tasks[i].gpus.begin(), tasks[i].gpus.end());
  }
  j->placement->span = cluster().spanOf(all);
  keepPlacement(*j);
  for (GpuId g : all) where += (where.empty() ? "" : ", ") + cluster().gpuName(g);
  recordCommand(actor, literal("job " + job + " runs on " + where + " (as the cluster bound it)"));
  events_.back().job = id;
  return okStatus();
}

Status Engine::restoreFairShare(const std::vector<std::pair<std::string, double>>& usage) {
  std::vector<double> values(quotas_.teams().size(), 0.0);
  for (const auto& [team, u] : usage) {
    const int t = quotas_.teamIndex(team);
    if (t < 0) return Error{"fair share: unknown team '" + team + "'", {}};
    if (!(u >= 0)) return Error{"fair share: usage of team " + team + " must be >= 0", {}};
    values[static_cast<size_t>(t)] = u;
  }
  fairShare_.restore(values, now_);
  return okStatus();
}

Status Engine::restoreCounters(JobId id, int preemptions, double gpuHoursLost) {
  JobRecord* j = mutableJob(id);
  if (!j) return Error::notFound(phrase(text::kNoJob, id));
  if (preemptions < 0 || !(gpuHoursLost >= 0))
    return Error{"job " + std::to_string(id) + ": negative preemption count or GPU-hours", {}};
  j->preemptions = preemptions;
  j->gpuHoursLost = gpuHoursLost;
  return okStatus();
}

Status Engine::checkpoint(JobId id) {
  JobRecord* j = mutableJob(id);
  if (!j || j->state != JobState::Running)
    return Error{"job " + std::to_string(id) + " is not running", {}};
  j->job.lastCheckpoint = now_;
  return okStatus();
}

// Usage accrues continuously while it decays: over dt a steady rate r leaves
// r * H/ln2 * (1 - 2^(-dt/H)) GPU-seconds at the end of the step (H = half-life), so one big
// clock step and many small ones give the same fair-share usage.
void Engine::accrueUsage(Seconds dt) {
  if (dt <= 0) return;
  const double h = double(policy_.fairShare.halfLife);
  const double weight = h > 0 ? h / std::log(2.0) * (1.0 - std::exp2(-double(dt) / h)) : double(dt);
  // Per team, not per running job: the clock moves at every simulator event.
  for (size_t t = 0; t < teamUse_.size(); ++t)
    if (teamUse_[t].gpus > 0) fairShare_.addUsage(static_cast<int>(t), teamUse_[t].gpus * weight);
}

Status Engine::advanceTo(Seconds now) {
  if (now < now_)
    return Error{"the clock cannot go back (now " + std::to_string(now_) + ", asked " +
                     std::to_string(now) + ")",
                 {}};
  const Seconds dt = now - now_;
  fairShare_.decayTo(now, policy_.fairShare.halfLife);
  accrueUsage(dt);
  now_ = now;
  reservations_.expire(now_);
  // Arrivals, in submit order.
  std::stable_sort(future_.begin(), future_.end(),
                   [](const Job& a, const Job& b) { return a.submitTime < b.submitTime; });
  size_t arrived = 0;
  while (arrived < future_.size() && future_[arrived].submitTime <= now_) ++arrived;
  std::vector<Job> due(future_.begin(), future_.begin() + static_cast<std::ptrdiff_t>(arrived));
  future_.erase(future_.begin(), future_.begin() + static_cast<std::ptrdiff_t>(arrived));
  // Checked in full when they were submitted.
  for (auto& j : due) TESSERA_CHECK(resubmit(std::move(j)));
  return okStatus();
}

// ---------------------------------------------------------------- the cycle

namespace {
// The first plugin's refusal, with the plugin's name on it.
template <typename Plugins, typename Ask>
PluginStatus firstRefusal(const Plugins& plugins, Ask ask) {
  for (const auto& [name, p] : plugins) {
    auto s = ask(*p);
    if (!s.ok()) {
      s.plugin = name;
      return s;
    }
  }
  return PluginStatus::success();
}
}  // namespace

PluginStatus Engine::admit(const CycleContext& ctx, const JobRecord& job) const {
  return firstRefusal(plugins_.admission, [&](const auto& p) { return p.admit(ctx, job); });
}

PluginStatus Engine::permitAnywhere(const CycleContext& ctx, const JobRecord& job) const {
  return firstRefusal(plugins_.permit, [&](const auto& p) { return p.refusalAnywhere(ctx, job); });
}

PluginStatus Engine::permit(const CycleContext& ctx, const JobRecord& job,
                            const GangPlacement& placement) const {
  return firstRefusal(plugins_.permit,
                      [&](const auto& p) { return p.permit(ctx, job, placement); });
}

GangResult Engine::tryPlace(Transaction& tx, const JobRecord& job, const CycleContext& ctx,
                            Seconds start, const PlacementOptions& extra) const {
  PluginGate gate(plugins_, ctx, job, start);
  PolicyScorer scorer(plugins_, ctx);
  PlacementOptions options = extra;
  if (!options.gate && gate.active()) options.gate = &gate;
  // Bin-packing alone is the placement's own default: skip the scoring machinery.
  const bool plainBinpack = policy_.score.size() == 1 && policy_.score[0].name == "binpack";
  if (!options.scorer && !plugins_.score.empty() && !plainBinpack) options.scorer = &scorer;
  // Backfill tries on its base, not on the engine's state (ctx.state names the one tx changes).
  assert(&tx.state() == ctx.state);
  return placeGang(tx, *ctx.state, job.job, options);
}

bool Engine::tryPreempt(CycleContext& ctx, JobRecord& job, const Text& why, CycleStats& stats) {
  auto plan = plugins_.preemption->plan(*this, ctx, job);
  if (!plan) return false;
  std::vector<JobId> victims;
  for (const auto& v : plan->victims) victims.push_back(v.job);
  for (const auto& v : plan->victims) {
    JobRecord* victim = mutableJob(v.job);
    evict(*victim, job, v,
          v.reclaimed ? phrase(text::kReclaimed, job.job.team)
                      : phrase(text::kHigherPriority, job.job.priority, victim->job.priority));
    ++stats.preempted;
  }
  Transaction tx(state_);
  GangResult r = tryPlace(tx, job, ctx, now_);
  if (!r.placement || !permit(ctx, job, *r.placement).ok()) {
    // The plan was simulated on this state; this is a defect, not an operator's problem.
    touch(job);
    job.reason = phrase(text::kPreemptPlanFailed, r.reason);
    return false;
  }
  tx.commit();
  start(job, std::move(*r.placement), phrase(text::kAfterPreempting, jobsText(victims), why));
  return true;
}

bool Engine::tryReserve(const CycleContext& ctx, JobRecord& job, CycleStats& stats) {
  if (!plugins_.backfill || !stats.backfillPlanned || stats.reservations >= policy_.backfill.depth)
    return false;
  // Slurm's bf_max_time: the planning time of this cycle, not the whole cycle.
  if (stats.backfillMs > policy_.backfill.timeBudgetMs) {
    stats.backfillBudgetHit = true;
    return false;
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto r = plugins_.backfill->reserve(*this, ctx, job);
  stats.backfillMs += msSince(t0);
  if (!r) return false;
  touch(job);
  job.eta = r->start;
  job.waitingFor = r->waitingFor;
  withEta_.push_back(static_cast<uint32_t>(&job - jobs_.data()));
  Reservation hold;
  hold.kind = Reservation::Kind::Backfill;
  hold.id = "bf-" + std::to_string(job.job.id);
  hold.gpus = std::move(r->gpus);
  hold.from = r->start;
  hold.until = r->end;
  hold.job = job.job.id;
  hold.host = std::move(r->host);
  reservations_.add(std::move(hold));
  ++stats.reservations;
  return true;
}

CycleStats Engine::runCycle() {
  const auto t0 = std::chrono::steady_clock::now();
  CycleStats st;
  st.cycle = stats_.cycles + 1;
  st.now = now_;
  st.backfillPlanned = policy_.backfill.interval <= 0 || lastPlan_ < 0 ||
                       now_ >= lastPlan_ + policy_.backfill.interval;
  if (st.backfillPlanned) {
    lastPlan_ = now_;
    reservations_.clearBackfill();
    // Last plan's estimates go; this cycle's reservations set them again.
    for (uint32_t i : withEta_) {
      touch(i);
      jobs_[i].eta.reset();
      jobs_[i].waitingFor.clear();
    }
    withEta_.clear();
  } else {
    // Between plans the last plan holds, except for jobs that started or left since.
    reservations_.dropBackfillUnless([this](JobId id) {
      const JobRecord* r = job(id);
      return r && r->state == JobState::Pending;
    });
  }
  // Backfill's base for this cycle, built at its first reservation; starts and evictions from
  // here on are mirrored into it.
  BackfillBase base(now_);
  cycleBase_ = &base;
  const struct Unset {
    BackfillBase*& base;
    ~Unset() { base = nullptr; }
  } unset{cycleBase_};
  CycleContext ctx = context();
  // A what-if asks what starts and what is evicted: it leaves the verdicts of the jobs that stay
  // pending as the last cycle wrote them, so it writes (and undoes) nothing for ~all the queue.
  const bool predicting = journal_.journal != nullptr;
  // Finished jobs leave the active index now and then, not on every cycle: only a first build
  // of the queue index, a full sort and FGD's demand mix read it, and all skip what is not active.
  if (++activeSweep_ % 64 == 0)
    std::erase_if(active_, [this](uint32_t i) { return !jobs_[i].active(); });
  const auto order = cycleOrder(ctx);
  st.orderMs = msSince(t0);
  st.pending = static_cast<int>(order.size());
  std::vector<size_t> startedNow;  // job indexes started this cycle
  ShapeCache failed(plugins_.preemption != nullptr);
  failed.reset(reservations_, now_);
  RefusalCache refused;
  bool blockedAhead = false;
  int preemptAttempts = 0;
  // A job's verdict when it stays pending: what an operator reads as its reason.
  const auto note = [predicting](JobRecord& j, const Text& reason, PluginCode code,
                                 const std::string& plugin) {
    if (predicting) return;
    j.reason = reason;
    j.pendingCode = code;
    j.blockedBy = plugin;
  };
  // A blocked job may start by evicting others (bounded per cycle)...
  auto preemptFor = [&](JobRecord& j, const Text& why) {
    if (!plugins_.preemption || preemptAttempts >= policy_.preemption.maxAttemptsPerCycle)
      return false;
    ++preemptAttempts;
    const auto p0 = std::chrono::steady_clock::now();
    const bool preempted = tryPreempt(ctx, j, why, st);
    st.preemptMs += msSince(p0);
    if (!preempted) return false;
    startedNow.push_back(static_cast<size_t>(&j - jobs_.data()));
    ++st.started;
    failed.clear();  // evictions freed capacity: earlier verdicts no longer hold
    refused.clear();
    ctx = context();
    return true;
  };
  // ...or gets a backfill reservation, which changes what the same request meets from here on.
  auto reserveFor = [&](JobRecord& j) {
    if (!tryReserve(ctx, j, st)) return false;
    blockedAhead = true;
    failed.reset(reservations_, now_);
    return true;
  };
  const auto quotaRefusal = [this](RefusalCache& cache, const CycleContext& c,
                                   const JobRecord& j) -> const PluginStatus* {
    if (!j.pinned.empty()) return nullptr;
    if (const PluginStatus* known = cache.find(j.shape, j.team)) return known;
    PluginStatus s = permitAnywhere(c, j);
    if (s.ok()) return nullptr;
    cache.remember(j.shape, j.team, std::move(s));
    return cache.find(j.shape, j.team);
  };
  for (size_t k = 0; k < order.size(); ++k) {
    // The queue order is random in memory and most jobs take a few nanoseconds (a cached
    // verdict): fetch the records a few jobs ahead so their cache misses overlap.
    if (k + kPrefetchAhead < order.size()) prefetchRecord(jobs_[order[k + kPrefetchAhead]]);
    JobRecord& j = jobs_[order[k]];
    ++st.considered;
    PluginStatus s = admit(ctx, j);
    for (const auto& f : plugins_.filter)
      if (s.ok()) s = f->check(ctx, j);
    if (!s.ok()) {
      note(j, s.reason, s.code, s.plugin);
      continue;
    }
    const bool cacheable = j.pinned.empty();
    const ShapeKey key = failed.keyOf(j, now_);
    if (cacheable) {
      if (const auto* v = failed.find(key)) {
        note(j, v->reason, v->code, {});
        ++st.shapeCacheHits;
        continue;
      }
    }
    // A team at its quota is refused before its job is placed: placing each queued job of such
    // a team only to refuse it is what a cycle would otherwise spend its time on.
    if (const PluginStatus* q = quotaRefusal(refused, ctx, j)) {
      note(j, q->reason, q->code, q->plugin);
      ++st.refusedUnplaced;
      if (!preemptFor(j, q->reason)) reserveFor(j);
      continue;
    }
    Text reason;
    PluginCode code = PluginCode::Unschedulable;
    if (const auto* v = cacheable ? failed.findUnplaced(key) : nullptr) {
      reason = v->reason;
      code = v->code;
      ++st.shapeCacheHits;
    } else {
      Transaction tx(state_);
      ++st.placements;
      GangResult r = tryPlace(tx, j, ctx, now_);
      if (r.placement) {
        PluginStatus p = permit(ctx, j, *r.placement);
        if (p.ok()) {
          tx.commit();
          const char* why = text::kPlaced;
          if (blockedAhead) {
            ++st.backfilled;
            ++stats_.backfilled;
            why = text::kBackfilled;
          }
          start(j, std::move(*r.placement), phrase(why));
          startedNow.push_back(order[k]);
          ++st.started;
          continue;
        }
        tx.discard();
        note(j, p.reason, p.code, p.plugin);
        // Refused by quota: lower-priority work of its own team (or borrowed GPUs) may make
        // room; otherwise it still gets its place on the timeline (when enough of its team's
        // work ends), so it has an ETA and smaller jobs cannot push it back.
        if (!preemptFor(j, p.reason)) reserveFor(j);
        continue;
      }
      tx.discard();
      reason = std::move(r.reason);
      code = onlyStaticRejections(r.filter) ? PluginCode::Unresolvable : PluginCode::Unschedulable;
      if (cacheable) failed.rememberUnplaced(key, reason, code);
    }
    note(j, reason, code, {});
    if (code == PluginCode::Unresolvable) {
      if (cacheable) failed.remember(key, reason, code);
      continue;
    }
    if (preemptFor(j, reason) || reserveFor(j)) continue;
    if (cacheable) failed.remember(key, reason, code);
  }
  if (!predicting) numberQueue(order, startedNow);
  st.backfillBaseLost = base.lost();
  stats_.last.backfillBaseLost = st.backfillBaseLost;  // what the checker below reads
  if (policy_.checkInvariants) st.invariantViolations = invariantViolations();
  st.cycleMs = msSince(t0);
  ++stats_.cycles;
  stats_.lastCycleMs = st.cycleMs;
  stats_.maxCycleMs = std::max(stats_.maxCycleMs, st.cycleMs);
  stats_.totalCycleMs += st.cycleMs;
  stats_.last = st;
  return st;
}

// Positions among the jobs still pending, as an operator reads the queue after the cycle: a
// dense array, so the pass does not touch 150,000 job records again.
// Only the entries of last cycle's queue are reset: not one pass over every job ever seen.
void Engine::numberQueue(const std::vector<size_t>& order, const std::vector<size_t>& startedNow) {
  for (uint32_t i : positioned_) positions_[i] = 0;
  positioned_.clear();
  positions_.resize(jobs_.size(), 0);
  for (size_t idx : startedNow) positions_[idx] = -1;
  int still = 0;
  for (size_t idx : order) {
    if (positions_[idx] < 0) {
      positions_[idx] = 0;
      continue;
    }
    positions_[idx] = ++still;
    positioned_.push_back(static_cast<uint32_t>(idx));
  }
}

// ---------------------------------------------------------------- operator mutations

Status Engine::cancel(JobId id, const std::string& actor, Text reason) {
  JobRecord* j = mutableJob(id);
  if (!j) return Error::notFound(phrase(text::kNoJob, id));
  if (!j->active())
    return Error::wrongState(phrase(text::kAlreadyEnded, id, jobStateText(j->state)));
  stop(*j);
  j->endTime = now_;
  addEvent(EventKind::Cancelled, *j, JobState::Cancelled, std::move(reason), actor);
  return okStatus();
}

Status Engine::hold(JobId id, bool held, const std::string& actor) {
  JobRecord* j = mutableJob(id);
  if (!j) return Error::notFound(phrase(text::kNoJob, id));
  if (j->state != JobState::Pending)
    return Error::wrongState(phrase(text::kOnlyPendingHold, id, jobStateText(j->state)));
  if (j->job.held == held)
    return Error::wrongState(phrase(held ? text::kAlreadyHeld : text::kNotHeld, id));
  j->job.held = held;
  addEvent(held ? EventKind::Held : EventKind::Released, *j, JobState::Pending,
           phrase(held ? text::kHeldBy : text::kReleasedBy, actor), actor);
  return okStatus();
}

Status Engine::setPriority(JobId id, const std::string& priorityClass, const std::string& actor) {
  JobRecord* j = mutableJob(id);
  if (!j) return Error::notFound(phrase(text::kNoJob, id));
  if (!j->active()) return Error::wrongState(phrase(text::kHasEnded, id));
  const auto value = priorityOf(priorityClass);
  if (!value) return Error::of(phrase(text::kUnknownClass, priorityClass, classNames()));
  (void)actor;
  j->job.priorityClass = priorityClass;
  j->job.priority = *value;
  return okStatus();
}

Status Engine::moveInQueue(JobId id, int64_t rank) {
  JobRecord* j = mutableJob(id);
  if (!j) return Error::notFound(phrase(text::kNoJob, id));
  if (j->state != JobState::Pending) return Error::wrongState(phrase(text::kNotPending, id));
  j->job.queueRank = rank;
  return okStatus();
}

// A pin that can never hold the whole gang would leave the job waiting forever.
size_t Engine::gpusNeeded(const Job& job) {
  return static_cast<size_t>(job.tasks) * static_cast<size_t>(job.perTask.gpus);
}

bool Engine::pinTooSmall(const Job& job, size_t gpus) {
  return gpus > 0 && job.perTask.kind == GpuRequest::Kind::Whole && gpus < gpusNeeded(job);
}

Status Engine::pin(JobId id, std::vector<GpuId> gpus) {
  JobRecord* j = mutableJob(id);
  if (!j) return Error::notFound(phrase(text::kNoJob, id));
  if (j->state != JobState::Pending)
    return Error::wrongState(phrase(text::kOnlyPendingPin, id, jobStateText(j->state)));
  std::sort(gpus.begin(), gpus.end());
  gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());
  if (pinTooSmall(j->job, gpus.size()))
    return Error::of(phrase(text::kPinTooFew, id, gpusNeeded(j->job), gpus.size()));
  j->pinned = std::move(gpus);
  return okStatus();
}

Status Engine::preempt(JobId victim, JobId by, const std::string& actor, Text reason) {
  JobRecord* v = mutableJob(victim);
  if (!v) return Error::notFound(phrase(text::kNoJob, victim));
  if (v->state != JobState::Running)
    return Error::wrongState(phrase(text::kNotRunning, victim, jobStateText(v->state)));
  Victim cost;
  cost.job = victim;
  cost.workLost = now_ - v->lastCheckpointAt(now_);
  cost.gpuHoursLost = double(cost.workLost) * v->gpusHeld(state_) / 3600.0;
  JobRecord self = *v;  // "by" the operator: the event names the operator as actor
  self.job.id = by;
  self.job.priorityClass = "operator";
  self.job.team = actor;
  evict(*v, self, cost, std::move(reason));
  events_[events_.size() - 2].actor = actor;
  return okStatus();
}

Status Engine::setPolicy(Policy policy) {
  TESSERA_TRY(plugins, PluginRegistry::builtin().instantiate(policy));
  plugins_ = std::move(plugins);
  policy_ = std::move(policy);
  state_.setFixedMigLayouts(!policy_.mig.createInstances);
  configureQueueIndex();
  return okStatus();
}

Status Engine::drain(NodeId n, bool drained, Text reason) {
  if (!drained) return removeNodeHold(n, HoldOwner::Operator);
  return putNodeHold(n, NodeHold{HoldOwner::Operator, std::nullopt, std::move(reason), false, 0});
}

std::vector<JobId> Engine::runningJobsOn(NodeId n, std::optional<GpuId> gpu) const {
  std::vector<JobId> out;
  for (const JobRecord* j : running()) {
    if (!j->placement) continue;
    const bool hit = std::any_of(
        j->placement->tasks.begin(), j->placement->tasks.end(), [&](const TaskAssignment& t) {
          return t.node == n &&
                 (!gpu || std::find(t.gpus.begin(), t.gpus.end(), *gpu) != t.gpus.end());
        });
    if (hit) out.push_back(j->job.id);
  }
  return out;
}

const NodeHolds& Engine::nodeHolds(NodeId n) const {
  static const NodeHolds none;
  return n < nodeHolds_.size() ? nodeHolds_[n] : none;
}

Status Engine::putNodeHold(NodeId n, NodeHold hold) {
  if (n >= cluster().nodes().size()) return Error::notFound(phrase(text::kNoNode, n));
  if (hold.down)
    for (uint32_t i : running_)
      for (NodeId used : jobs_[i].nodes())
        if (used == n)
          return Error::wrongState(
              phrase(text::kNodeStillRuns, cluster().node(n).name, jobs_[i].job.id));
  if (hold.since == 0) hold.since = now_;
  if (nodeHolds_.size() < cluster().nodes().size()) nodeHolds_.resize(cluster().nodes().size());
  nodeHolds_[n].put(std::move(hold));
  state_.setNodeState(n, nodeHolds_[n].state());
  return okStatus();
}

Status Engine::removeNodeHold(NodeId n, HoldOwner owner, std::optional<GpuId> gpu) {
  if (n >= cluster().nodes().size()) return Error::notFound(phrase(text::kNoNode, n));
  if (n < nodeHolds_.size() && nodeHolds_[n].remove(owner, gpu))
    state_.setNodeState(n, nodeHolds_[n].state());
  return okStatus();
}

Status Engine::repartition(GpuId g, const MigLayout& layout, bool force, const std::string& actor) {
  const GpuOccupancy& o = state_.gpu(g);
  // Jobs on instances that the new layout does not keep at the same start and profile.
  std::set<JobId> displaced;
  for (int i = 0; i < o.layout.size(); ++i) {
    const JobId owner = o.instanceOwner[static_cast<size_t>(i)];
    if (owner == kNoJob) continue;
    bool kept = false;
    for (int k = 0; k < layout.size(); ++k)
      kept = kept ||
             (layout[k].profile == o.layout[i].profile && layout[k].start == o.layout[i].start);
    if (!kept) displaced.insert(owner);
  }
  // Check the layout before anyone is preempted for it.
  TESSERA_CHECK(state_.checkMigLayout(g, layout));
  // A bad layout, not a state problem: the same layout with force, or one that keeps the
  // instances, is accepted now.
  if (!displaced.empty() && !force)
    return Error::of(phrase(text::kRemovesBusy, jobIdList({displaced.begin(), displaced.end()})));
  for (JobId j : displaced)
    TESSERA_CHECK(preempt(j, kNoJob, actor, phrase(text::kRepartitionedAway)));
  return state_.setMigLayout(g, layout);
}

Status Engine::setQuota(const std::string& team, const std::string& key, const Quota& q) {
  // A new or changed key can move running work between keys: recharge everything against the
  // changed table, and refuse a table the running work already exceeds.
  QuotaBook changed = quotas_;
  TESSERA_CHECK(changed.setQuota(team, key, q));
  QuotaBook fresh(changed.teams());
  for (const auto& j : jobs_)
    if (j.state == JobState::Running && j.placement)
      fresh.charge(state_, j.team, chargeOf(j, *j.placement), +1);
  for (size_t t = 0; t < fresh.teams().size(); ++t)
    for (const auto& [k, limit] : fresh.teams()[t].quotas) {
      const double used = fresh.usage(static_cast<int>(t), k);
      if (used > limit.guaranteed + limit.borrowLimit + 1e-9)
        return Error::wrongState(phrase(text::kQuotaBelowUse, fresh.teams()[t].name,
                                        gpuAmountText(used), k,
                                        limit.guaranteed + limit.borrowLimit));
    }
  quotas_ = std::move(fresh);
  return okStatus();
}

Status Engine::addReservation(Reservation r) {
  if (r.id.empty()) return Error::of(phrase(text::kReservationNeedsId));
  if (reservations_.find(r.id)) return Error::wrongState(phrase(text::kReservationExists, r.id));
  if (r.until <= r.from) return Error::of(phrase(text::kReservationEndsFirst));
  if (r.kind == Reservation::Kind::Team && quotas_.teamIndex(r.team) < 0)
    return Error::notFound(phrase(text::kUnknownTeam, r.team));
  reservations_.add(std::move(r));
  return okStatus();
}

Status Engine::removeReservation(const std::string& id) {
  const Reservation* r = reservations_.find(id);
  if (!r || r->kind == Reservation::Kind::Backfill)
    return Error::notFound(phrase(text::kNoReservation, id));
  reservations_.remove(id);
  return okStatus();
}

// ---------------------------------------------------------------- invariants

std::vector<std::string> Engine::invariantViolations() const {
  std::vector<std::string> out = checkInvariants(state_);
  if (stats_.last.backfillBaseLost)
    out.emplace_back(
        "backfill's base stopped matching the engine in the last cycle (a start "
        "or an eviction was not mirrored)");
  // The queue index is a cache of one full sort.
  if (queueIndexed_) {
    const CycleContext ctx = context();
    if (cycleOrder(ctx) != orderedPending(ctx))
      out.emplace_back("the queue index's order differs from a full sort of the pending jobs");
  }
  // Gangs are whole: a running job holds exactly its tasks; nobody else holds anything.
  std::unordered_map<JobId, int> gpusHeld;
  for (GpuId g = 0; g < state_.cluster().gpus().size(); ++g)
    forEachGpuHolder(state_.gpu(g), [&gpusHeld](JobId job) { ++gpusHeld[job]; });
  QuotaBook recount(quotas_.teams());
  for (const auto& j : jobs_) {
    const auto it = gpusHeld.find(j.job.id);
    const int held = it == gpusHeld.end() ? 0 : it->second;
    if (j.state != JobState::Running) {
      if (held)
        out.push_back("job " + std::to_string(j.job.id) + " is " + jobStateName(j.state) +
                      " but holds " + std::to_string(held) + " GPU(s)");
      continue;
    }
    if (!j.placement || static_cast<int>(j.placement->tasks.size()) != j.job.tasks) {
      out.push_back("running job " + std::to_string(j.job.id) + " is not placed whole");
      continue;
    }
    int expected = 0;
    for (const auto& t : j.placement->tasks) expected += static_cast<int>(t.gpus.size());
    // What backfill and preemption release comes from the copy kept at its start.
    JobRecord fresh;
    fresh.placement = j.placement;
    fresh.job = j.job;
    keepPlacement(fresh);
    if (fresh.placedNodes != j.placedNodes || fresh.placedGpus != j.placedGpus ||
        fresh.placedCharge.gpus != j.placedCharge.gpus)
      out.push_back("running job " + std::to_string(j.job.id) +
                    ": the nodes, GPUs or charge kept from its start differ from its placement");
    if (held != expected)
      out.push_back("job " + std::to_string(j.job.id) + " holds " + std::to_string(held) +
                    " GPU(s), its placement names " + std::to_string(expected));
    recount.charge(state_, j.team, chargeOf(j, *j.placement), +1);
  }
  for (size_t t = 0; t < quotas_.teams().size(); ++t)
    for (const auto& [key, q] : quotas_.teams()[t].quotas) {
      const double a = quotas_.usage(static_cast<int>(t), key);
      const double b = recount.usage(static_cast<int>(t), key);
      if (std::abs(a - b) > 1e-6)
        out.push_back("team " + quotas_.teams()[t].name + " quota usage on " + key + " is " +
                      std::to_string(a) + ", recount " + std::to_string(b));
      if (a > q.guaranteed + q.borrowLimit + 1e-6)
        out.push_back("team " + quotas_.teams()[t].name + " uses " + std::to_string(a) + " " + key +
                      " GPUs, above guaranteed + borrow");
    }
  for (const auto& id : gpusHeld)
    if (!index_.count(id.first))
      out.push_back("GPU held by unknown job " + std::to_string(id.first));
  return out;
}

}  // namespace tessera
