#pragma once
// Room for a gang of whole GPUs, time-slice shares or MPS clients, counted per topology unit and
// kept up to date as running jobs are released in a what-if: the cheap necessary condition
// backfill and preemption test before a full trial placement (a trial is a pass over every node).
#include <algorithm>
#include <vector>

#include "scheduler/engine.h"
#include "scheduler/gpu_task_fit.h"

namespace tessera {

// A necessary condition for whole-GPU, share and MPS jobs, kept incrementally while running jobs
// are released and the planned start moves forward: some unit at the loosest level the job may
// span has room for all its tasks by count of the GPUs no reservation keeps from a run starting
// then - free ones for whole GPUs; for the others, the tasks each could take (gpu_task_fit.h: one
// share or MPS client, or the MIG instances of the job's profile). The full placement is tried
// only when it holds (a trial costs a pass over every node).
//
// It is the per-step recount it replaces, kept as deltas: after earlier blocked jobs reserved the
// next free GPUs most steps fail it, and recounting every node and hold per step was what made
// planning slow under a deep backlog. Shares and MPS clients reserve whole GPUs too, so a queue of
// small jobs pushed each one's search through every step until counted the same way. A hold keeps a
// GPU from a run over [at, end(at)) exactly while from < end(at) and at < until; end(at) never
// decreases as `at` grows, so each hold enters once (in order of `from`) and leaves once (in order
// of `until`): two events per hold per job.
class GpuRoom {
 public:
  // With a `book`, the GPUs its holds keep from the run are not counted (backfill's condition,
  // over the book whatever the filter plugins say). Without one it counts free GPUs alone and
  // is then a strict necessary condition of placement (preemption relies on it): it is left
  // inactive (always "may fit") where a gang could fit in a unit that no unit at the job's
  // loosest level contains.
  GpuRoom(const Engine& engine, const ReservationBook* book, const JobRecord& job)
      : GpuRoom(engine, engine.state(), book, job) {}
  // Counting the free GPUs of `state` (backfill's base) rather than the engine's.
  GpuRoom(const Engine& engine, const ClusterState& state, const ReservationBook* book,
          const JobRecord& job)
      : s_(state), book_(book), job_(job), small_(job.job) {
    const Job& j = job.job;
    const TopologyLevel level = j.topology.required ? j.topology.level : TopologyLevel::Cluster;
    const bool whole = j.perTask.kind == GpuRequest::Kind::Whole && j.perTask.gpus > 0;
    active_ = (whole || small_.applies()) && (book || engine.topologyNests(level));
    if (!active_) return;
    per_ = whole ? j.perTask.gpus : 1;
    const Cluster& c = s_.cluster();
    unitOf_ = engine.topologyUnits(level);
    for (const auto& n : c.nodes())
      if (unitOf_[n.id] >= 0 && (s_.nodeState(n.id) != NodeState::Up || !nodeEligible(j, n)))
        unitOf_[n.id] = -1;
    unitTasks_.assign(engine.topologyUnitCount(), 0);
    nodeTasks_.assign(c.nodes().size(), 0);
    dirty_.assign(c.nodes().size(), 0);
    if (!book) return;
    for (uint32_t i = 0; i < book->all().size(); ++i) {
      const Reservation& r = book->all()[i];
      if (r.gpus.empty() || r.exempts(j.team, j.id)) continue;
      byFrom_.push_back(i);
      byUntil_.push_back(i);
    }
    if (byFrom_.empty()) return;
    const auto& all = book->all();
    std::sort(byFrom_.begin(), byFrom_.end(),
              [&](uint32_t a, uint32_t b) { return all[a].from < all[b].from; });
    std::sort(byUntil_.begin(), byUntil_.end(),
              [&](uint32_t a, uint32_t b) { return all[a].until < all[b].until; });
    phase_.assign(all.size(), Phase::Ahead);
    blocked_.assign(c.gpus().size(), 0);
  }

  // Call after releasing a job, with the nodes it held.
  void released(const std::vector<NodeId>& nodes) {
    if (!active_) return;
    for (NodeId n : nodes) mark(n);
  }

  // Moves the planned start to `at` (never back) and brings the counts up to date.
  void advanceTo(Seconds at) {
    if (!active_) return;
    if (!byFrom_.empty()) moveHolds(at);
    if (!counted_) {
      counted_ = true;
      dirtyList_.clear();
      for (NodeId n = 0; n < unitOf_.size(); ++n) {
        dirty_[n] = 0;
        recount(n);
      }
      return;
    }
    for (NodeId n : dirtyList_) {
      dirty_[n] = 0;
      recount(n);
    }
    dirtyList_.clear();
  }

  [[nodiscard]] bool mayFit() const { return !active_ || fullUnits_ > 0; }

 private:
  enum class Phase : uint8_t { Ahead, Blocking, Over };

  void moveHolds(Seconds at) {
    const auto& all = book_->all();
    const Seconds end = job_.endIfStartedAt(at);
    for (; nextFrom_ < byFrom_.size() && all[byFrom_[nextFrom_]].from < end; ++nextFrom_) {
      const uint32_t i = byFrom_[nextFrom_];
      if (phase_[i] != Phase::Ahead) continue;  // already over: it never blocks this run
      phase_[i] = Phase::Blocking;
      hold(all[i], +1);
    }
    for (; nextUntil_ < byUntil_.size() && all[byUntil_[nextUntil_]].until <= at; ++nextUntil_) {
      const uint32_t i = byUntil_[nextUntil_];
      if (phase_[i] == Phase::Blocking) hold(all[i], -1);
      phase_[i] = Phase::Over;
    }
  }

  void hold(const Reservation& r, int delta) {
    for (GpuId g : r.gpus) {
      blocked_[g] += delta;
      mark(s_.cluster().gpu(g).node);
    }
  }
  void mark(NodeId n) {
    if (unitOf_[n] < 0 || dirty_[n]) return;
    dirty_[n] = 1;
    dirtyList_.push_back(n);
  }
  [[nodiscard]] bool unblocked(GpuId g) const { return blocked_.empty() || blocked_[g] == 0; }

  // Tasks of the job node n could take on GPUs no reservation keeps from the run: whole GPUs
  // free, or the shares, clients or MIG instances they could take.
  [[nodiscard]] int tasksOn(NodeId n) const {
    const Node& node = s_.cluster().node(n);
    if (small_.applies())
      return small_.tasksOnNode(s_, node, [&](GpuId g) { return unblocked(g); });
    int free = s_.freeWholeGpusOnNode(n);
    if (free >= per_ && book_ && book_->touches(n)) {
      free = 0;
      for (int i = 0; i < node.gpuCount(); ++i) {
        const GpuId g = node.firstGpu + static_cast<GpuId>(i);
        free += s_.wholeGpuFree(g) && unblocked(g);
      }
    }
    return free / per_;
  }

  // Brings node n's share of its unit's count up to date.
  void recount(NodeId n) {
    const int32_t unit = unitOf_[n];
    if (unit < 0) return;
    const int tasks = tasksOn(n);
    int& u = unitTasks_[static_cast<size_t>(unit)];
    const bool wasFull = u >= job_.job.tasks;
    u += tasks - nodeTasks_[n];
    nodeTasks_[n] = tasks;
    fullUnits_ += (u >= job_.job.tasks) - wasFull;
  }

  const ClusterState& s_;
  const ReservationBook* book_;
  const JobRecord& job_;
  const SmallTaskFit small_;
  bool active_ = false;
  bool counted_ = false;
  int per_ = 1;
  std::vector<int32_t> unitOf_;  // per node: dense unit index, -1 = not eligible or no unit
  std::vector<int> unitTasks_;   // per unit: tasks its nodes can take
  std::vector<int> nodeTasks_;   // per node: its share of unitTasks_
  int fullUnits_ = 0;            // units with room for the whole gang
  std::vector<uint8_t> dirty_;
  std::vector<NodeId> dirtyList_;
  // Reservations that may block the job (not its own, not its team's), by start and by end.
  std::vector<uint32_t> byFrom_, byUntil_;
  size_t nextFrom_ = 0, nextUntil_ = 0;
  std::vector<Phase> phase_;  // per reservation
  std::vector<int> blocked_;  // per GPU: reservations keeping it from the run now
};

}  // namespace tessera
