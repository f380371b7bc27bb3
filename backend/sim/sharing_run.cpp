#include "sim/sharing_run.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace tessera {
namespace {

bool sharesWithoutIsolation(const GpuRequest& r) {
  return r.kind == GpuRequest::Kind::Fraction || r.kind == GpuRequest::Kind::Mps;
}

// Watches a run between events: who shares a GPU with whom, and whether a target is lost.
class RunWatch {
 public:
  RunWatch(const Trace& trace, const std::vector<WaitTarget>& targets) : targets_(targets) {
    for (const TraceJob& j : trace.jobs) ++jobsOf_[j.job.workloadClass];
  }

  void look(const Engine& engine) {
    std::unordered_map<GpuId, std::vector<JobId>> onGpu;
    for (const JobRecord* j : engine.running()) {
      if (!judged_.count(j->job.id)) judge(j->job, j->startTime);
      if (!sharesWithoutIsolation(j->job.perTask)) continue;
      for (GpuId g : j->placedGpus) onGpu[g].push_back(j->job.id);
    }
    for (const auto& [gpu, jobs] : onGpu)
      if (jobs.size() > 1) coLocated_.insert(jobs.begin(), jobs.end());
    for (const JobRecord* j : engine.pending())
      if (!judged_.count(j->job.id)) judge(j->job, engine.now(), /*stillWaiting=*/true);
  }

  // A target is lost once more of its class waited past it than the p95 allows: nearest rank
  // puts the p95 of n waits above the target when more than n - ceil(0.95 n) of them are.
  [[nodiscard]] bool targetLost() const {
    for (const WaitTarget& t : targets_) {
      const auto n = jobsOf_.find(t.workloadClass);
      const auto late = late_.find(t.workloadClass);
      if (n == jobsOf_.end() || late == late_.end()) continue;
      const auto allowed = n->second - static_cast<size_t>(std::ceil(0.95 * double(n->second)));
      if (late->second > allowed) return true;
    }
    return false;
  }
  [[nodiscard]] size_t coLocated() const { return coLocated_.size(); }

 private:
  // Each job judged once, by its first run's wait (or a wait already past every target).
  void judge(const Job& job, Seconds until, bool stillWaiting = false) {
    const Seconds waited = until - job.submitTime;
    for (const WaitTarget& t : targets_) {
      if (t.workloadClass != job.workloadClass || waited <= t.p95) continue;
      judged_.insert(job.id);
      ++late_[job.workloadClass];
      return;
    }
    if (!stillWaiting) judged_.insert(job.id);
  }

  const std::vector<WaitTarget>& targets_;
  std::map<WorkloadClass, size_t> jobsOf_, late_;
  std::unordered_set<JobId> judged_, coLocated_;
};

std::map<WorkloadClass, Percentiles> waitsByClass(const std::vector<JobOutcome>& jobs) {
  std::map<WorkloadClass, std::vector<double>> waits;
  for (const JobOutcome& j : jobs)
    if (j.firstStart >= 0) waits[j.workloadClass].push_back(double(j.firstStart - j.submit));
  std::map<WorkloadClass, Percentiles> out;
  for (auto& [cls, v] : waits) out[cls] = percentiles(std::move(v));
  return out;
}

}  // namespace

Expected<StudyRun> runStudyOnce(std::shared_ptr<const Cluster> cluster, const Trace& trace,
                                const Policy& policy, const SimConfig& config,
                                const std::vector<WaitTarget>& targets, bool stopOnMiss,
                                const std::function<bool()>& cancelled) {
  TESSERA_TRY(engine, engineForTrace(std::move(cluster), trace, policy));
  Simulator sim(std::move(engine), trace, config);
  RunWatch watch(trace, targets);
  StudyRun r;
  const Seconds step = std::max<Seconds>(1, config.sampleInterval);
  for (Seconds t = sim.now() + step;; t += step) {
    if (cancelled && cancelled()) return studyCancelled();
    TESSERA_TRY(more, sim.runUntil(t));
    watch.look(sim.engine());
    if (stopOnMiss && watch.targetLost()) {
      r.stoppedEarly = true;
      break;
    }
    if (!more) break;
  }
  r.summary = sim.summary();
  r.outcomes = sim.outcomes();
  r.waitByClass = waitsByClass(r.outcomes);
  r.coLocatedJobs = watch.coLocated();
  r.targetsMet = !r.stoppedEarly && meetsTargets(r, targets, r.summary.refused);
  return r;
}

Error studyCancelled() {
  return Error{"cancelled", {}};
}

bool meetsTargets(const StudyRun& r, const std::vector<WaitTarget>& targets,
                  size_t refusedAllowed) {
  if (r.stoppedEarly || r.summary.refused > refusedAllowed) return false;
  for (const WaitTarget& t : targets) {
    bool unstarted = false;
    for (const JobOutcome& j : r.outcomes)
      if (j.workloadClass == t.workloadClass && j.firstStart < 0) unstarted = true;
    const auto w = r.waitByClass.find(t.workloadClass);
    if (unstarted || (w != r.waitByClass.end() && w->second.p95 > double(t.p95))) return false;
  }
  return true;
}

}  // namespace tessera
