// Backfill with reservations (Slurm's sched/backfill, kept small): a blocked job's earliest start
// is found on a time-indexed free-capacity map - running jobs are released in the order of their
// expected ends, grouped to the policy's resolution and within its window, and the job is tried
// after each group. The GPUs it would take then become a reservation; later jobs may use them only
// if they end before it starts.
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "scheduler/engine.h"

namespace tessera {

namespace {

// A necessary condition for whole-GPU jobs, kept incrementally while running jobs are released:
// some unit at the loosest level the job may span has room for all its tasks by GPU count. The
// full placement is tried only when it holds (a trial costs a pass over every node).
class WholeGpuRoom {
 public:
  WholeGpuRoom(const ClusterState& s, const Job& job) : s_(s), job_(job) {
    active_ = job.perTask.kind == GpuRequest::Kind::Whole && job.perTask.gpus > 0;
    if (!active_) return;
    level_ = job.topology.required ? job.topology.level : TopologyLevel::Cluster;
    for (const auto& n : s.cluster().nodes())
      if (eligible(n)) add(n.id, s.freeWholeGpusOnNode(n.id) / job.perTask.gpus);
  }

  // Call with the nodes a job holds, before and after releasing it.
  void before(const std::vector<NodeId>& nodes) {
    if (!active_) return;
    for (NodeId n : nodes) held_.emplace_back(n, s_.freeWholeGpusOnNode(n) / job_.perTask.gpus);
  }
  void after() {
    if (!active_) return;
    for (auto [n, old] : held_)
      if (eligible(s_.cluster().node(n)))
        add(n, s_.freeWholeGpusOnNode(n) / job_.perTask.gpus - old);
    held_.clear();
  }
  [[nodiscard]] bool mayFit() const { return !active_ || best_ >= job_.tasks; }
  [[nodiscard]] bool active() const { return active_; }

  // The same condition with the GPUs that reservations keep from a run over [start, end) taken
  // out: after earlier blocked jobs reserved the next free GPUs, most steps pass mayFit() but
  // cannot place, and a full trial per step is what made backfill planning slow.
  [[nodiscard]] bool mayFitAround(const ReservationBook& book, Seconds start, Seconds end) const {
    if (!active_) return true;
    std::unordered_map<int64_t, int> units;
    const int per = job_.perTask.gpus;
    for (const auto& n : s_.cluster().nodes()) {
      int free = s_.freeWholeGpusOnNode(n.id);
      if (free < per || !eligible(n)) continue;
      if (book.touches(n.id)) {
        free = 0;
        for (int i = 0; i < n.gpuCount(); ++i) {
          const GpuId g = n.firstGpu + static_cast<GpuId>(i);
          free += s_.wholeGpuFree(g) && book.usable(g, job_.team, job_.id, start, end);
        }
      }
      const auto key = topologyUnitOf(s_.cluster(), n.id, level_);
      if (key && (units[*key] += free / per) >= job_.tasks) return true;
    }
    return false;
  }

 private:
  bool eligible(const Node& n) const {
    return s_.nodeState(n.id) == NodeState::Up && nodeEligible(job_, n);
  }
  void add(NodeId n, int tasks) {
    const auto key = topologyUnitOf(s_.cluster(), n, level_);
    if (!key) return;  // no unit at this level: the node cannot host the gang's tasks
    int& u = units_[*key];
    u += tasks;
    best_ = std::max(best_, u);
  }

  const ClusterState& s_;
  const Job& job_;
  bool active_ = false;
  TopologyLevel level_ = TopologyLevel::Cluster;
  std::unordered_map<int64_t, int> units_;
  std::vector<std::pair<NodeId, int>> held_;
  int best_ = 0;
};

class ReservationBackfill final : public BackfillPlugin {
 public:
  std::optional<BackfillReservation> reserve(const Engine& engine, const CycleContext& ctx,
                                             const JobRecord& job) const override {
    const BackfillPolicy& policy = engine.policy().backfill;
    std::vector<std::pair<Seconds, const JobRecord*>> ends;
    for (const auto& r : engine.runningByEnd()) {
      if (r.end >= kForever || r.end > ctx.now + policy.window) break;
      ends.emplace_back(r.end, &engine.jobAt(r.index));
    }
    Transaction what(engine.scratch());
    QuotaBook quotas = *ctx.quotas;
    CycleContext c = ctx;
    c.quotas = &quotas;
    std::vector<const JobRecord*> released;
    const Seconds horizon = ctx.now + policy.window;
    WholeGpuRoom room(engine.state(), job.job);
    for (size_t i = 0; i < ends.size();) {
      // Ends grouped to the resolution step: one trial per step, not per job.
      const Seconds offset = std::max<Seconds>(0, ends[i].first - ctx.now);
      const Seconds at =
          ctx.now + (offset + policy.resolution - 1) / policy.resolution * policy.resolution;
      if (at > horizon) break;
      const size_t lastGroup = released.size();
      for (; i < ends.size() && ends[i].first <= at; ++i) {
        const JobRecord* r = ends[i].second;
        quotas.charge(engine.state(), r->job.team, engine.chargeOf(*r, *r->placement), -1);
        const auto nodes = r->nodes();
        room.before(nodes);
        what.releaseJob(r->job.id, nodes);
        room.after();
        released.push_back(r);
      }
      if (!room.mayFit() || !room.mayFitAround(*ctx.reservations, at, job.endIfStartedAt(at)))
        continue;
      const size_t mark = what.size();
      GangResult placed = engine.tryPlace(what, job, c, at);
      const bool ok = placed.placement && engine.permit(c, job, *placed.placement).ok();
      what.rollbackTo(mark);
      if (ok) return reservation(job, at, *placed.placement, released, lastGroup);
    }
    return std::nullopt;
  }

 private:
  // `released[lastGroup..]` ended in the step that made room: the job waits for them even when
  // it will not take their GPUs (their end frees quota, or lets a gang's unit fill).
  static BackfillReservation reservation(const JobRecord& job, Seconds at, const GangPlacement& p,
                                         const std::vector<const JobRecord*>& released,
                                         size_t lastGroup) {
    BackfillReservation r;
    r.job = job.job.id;
    r.start = at;
    r.end = job.endIfStartedAt(at);
    std::set<GpuId> gpus;
    std::map<NodeId, Reservation::HostHold> host;
    for (const auto& t : p.tasks) {
      gpus.insert(t.gpus.begin(), t.gpus.end());
      Reservation::HostHold& h = host[t.node];
      h.node = t.node;
      h.cpus += job.job.cpusPerTask;
      h.memoryMiB += job.job.memoryMiBPerTask;
    }
    for (const auto& [node, h] : host)
      if (h.cpus > 0 || h.memoryMiB > 0) r.host.push_back(h);
    r.gpus.assign(gpus.begin(), gpus.end());
    // The running jobs it waits for: those holding GPUs it will take.
    for (size_t k = 0; k < released.size(); ++k) {
      const JobRecord* j = released[k];
      bool holds = k >= lastGroup;
      for (const auto& t : j->placement->tasks)
        for (GpuId g : t.gpus) holds = holds || gpus.count(g);
      if (holds) r.waitingFor.push_back(j->job.id);
    }
    return r;
  }
};

}  // namespace

std::shared_ptr<const BackfillPlugin> makeReservationBackfill() {
  return std::make_shared<const ReservationBackfill>();
}

}  // namespace tessera
