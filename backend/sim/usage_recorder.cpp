#include "sim/usage_recorder.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "scheduler/engine.h"
#include "scheduler/quota.h"

namespace tessera {

uint8_t UsageSample::quantize(double fraction) {
  if (!std::isfinite(fraction)) return kNoTelemetry;
  return static_cast<uint8_t>(std::lround(std::clamp(fraction, 0.0, 1.0) * 200.0));
}

const char* usageKindName(UsageKind k) {
  switch (k) {
    case UsageKind::Whole:
      return "gpu";
    case UsageKind::Mig:
      return "mig";
    case UsageKind::Fraction:
      return "fraction";
    case UsageKind::Mps:
      return "mps";
  }
  return "gpu";
}

namespace {

UsageKind kindOf(const Job& job) {
  switch (job.perTask.kind) {
    case GpuRequest::Kind::Mig:
      return UsageKind::Mig;
    case GpuRequest::Kind::Fraction:
      return UsageKind::Fraction;
    // Charged their active-thread share of the GPU, but counted apart from time-sliced shares.
    case GpuRequest::Kind::Mps:
      return UsageKind::Mps;
    default:
      return UsageKind::Whole;
  }
}

int migSlicesOf(const Cluster& cluster, GpuId gpu, const std::string& profile) {
  const auto& mig = cluster.modelOf(gpu).mig;
  if (!mig) return 0;
  for (const auto& p : mig->profiles)
    if (p.name == profile) return p.memorySlices;
  return 0;
}

// The run's parts: what the placement holds on each node, in the order the tasks name nodes.
std::vector<UsageShare> sharesOf(const Engine& engine, const JobRecord& r) {
  const Cluster& cluster = engine.cluster();
  std::vector<std::vector<GpuId>> taskGpus;
  for (const auto& t : r.placement->tasks) taskGpus.push_back(t.gpus);
  const QuotaCharge charge = QuotaCharge::of(engine.state(), r.job, taskGpus);
  std::map<NodeId, double> gpusOn;
  for (const auto& [g, amount] : charge.gpus) gpusOn[cluster.gpu(g).node] += amount;
  std::vector<UsageShare> out;
  std::map<NodeId, size_t> index;
  for (const auto& t : r.placement->tasks) {
    auto [it, fresh] = index.try_emplace(t.node, out.size());
    if (fresh) {
      const Node& n = cluster.node(t.node);
      out.push_back({n.name, n.gpuModel().id, n.pool, gpusOn[t.node], 0, 0});
    }
    UsageShare& s = out[it->second];
    if (r.job.perTask.kind == GpuRequest::Kind::Whole) {
      s.units += static_cast<int>(t.gpus.size());
    } else {
      s.units += 1;
      if (r.job.perTask.kind == GpuRequest::Kind::Mig && !t.gpus.empty())
        s.migSlices += migSlicesOf(cluster, t.gpus.front(), r.job.perTask.migProfile);
    }
  }
  return out;
}

// How a run ended, by the event that stopped it; a stop by any other event requeued it.
const char* stopReason(EventKind k) {
  switch (k) {
    case EventKind::Completed:
    case EventKind::Failed:
    case EventKind::Cancelled:
    case EventKind::Preempted:
      return eventKindName(k);
    default:
      return "requeued";
  }
}

}  // namespace

void UsageRecorder::follow(const Engine& engine) {
  if (seen_ > engine.eventCount()) seen_ = engine.eventCount();  // a reloaded engine's new log
  // The backend forgets only events this has followed; were that ever broken, skip the gap.
  seen_ = std::max<uint64_t>(seen_, engine.firstEvent());
  for (; seen_ < engine.eventCount(); ++seen_) {
    const Event& e = *engine.eventAt(seen_);
    if (e.job == kNoJob || e.kind == EventKind::Command) continue;
    if (e.to == JobState::Running && e.from != JobState::Running) {
      close(engine, e.job, "requeued");  // a start without a seen stop: never leave two open
      open(engine, e.job);
    } else if (e.from == JobState::Running && e.to != JobState::Running) {
      close(engine, e.job, stopReason(e.kind));
    }
  }
}

void UsageRecorder::open(const Engine& engine, JobId job) {
  const JobRecord* r = engine.job(job);
  if (!r || !r->placement || r->placement->tasks.empty()) return;
  Run run;
  run.lostAtStart = r->gpuHoursLost;
  for (UsageShare& s : sharesOf(engine, *r)) {
    UsageRecord u;
    u.job = job;
    u.run = r->preemptions + 1;
    u.part = static_cast<int>(run.parts.size());
    u.team = r->job.team;
    u.priorityClass = r->job.priorityClass;
    u.workloadClass = workloadClassName(r->job.workloadClass);
    u.kind = kindOf(r->job);
    if (u.kind == UsageKind::Mig) u.profile = r->job.perTask.migProfile;
    u.share = std::move(s);
    u.start = r->startTime;
    run.parts.push_back(std::move(u));
  }
  if (run.parts.empty()) return;
  if (telemetry_) {
    const auto t = telemetry_(*r, engine.now());
    UsageSample s;
    s.time = engine.now();
    if (t) {
      s.util = UsageSample::quantize(t->util);
      s.sm = UsageSample::quantize(t->sm);
    }
    run.parts.front().samples.push_back(s);
  }
  open_[job] = std::move(run);
}

void UsageRecorder::close(const Engine& engine, JobId job, const char* reason) {
  const auto it = open_.find(job);
  if (it == open_.end()) return;
  Run run = std::move(it->second);
  open_.erase(it);
  const JobRecord* r = engine.job(job);
  UsageRecord& first = run.parts.front();
  const Seconds end = std::max(first.start, engine.now());
  for (UsageRecord& p : run.parts) {
    p.end = end;
    p.endReason = reason;
  }
  if (r && first.endReason == std::string("preempted"))
    first.gpuHoursLost = std::max(0.0, r->gpuHoursLost - run.lostAtStart);
  run.dirty = true;
  closed_.push_back(std::move(run));
}

void UsageRecorder::sample(const Engine& engine) {
  if (!telemetry_) return;
  for (auto& [job, run] : open_) {
    const JobRecord* r = engine.job(job);
    if (!r) continue;
    auto& samples = run.parts.front().samples;
    if (!samples.empty() && samples.back().time >= engine.now()) continue;
    UsageSample s;
    s.time = engine.now();
    if (const auto t = telemetry_(*r, engine.now())) {
      s.util = UsageSample::quantize(t->util);
      s.sm = UsageSample::quantize(t->sm);
    }
    // An unchanged reading adds nothing: the previous one stands until the next.
    if (!samples.empty() && samples.back().util == s.util && samples.back().sm == s.sm) continue;
    samples.push_back(s);
    run.dirty = true;
  }
}

std::vector<UsageRecord> UsageRecorder::changed() const {
  std::vector<UsageRecord> out;
  auto add = [&out](const Run& run) {
    for (const UsageRecord& p : run.parts) {
      out.push_back(p);
      if (p.part != 0) out.back().samples = run.parts.front().samples;
    }
  };
  for (const Run& run : closed_) add(run);
  for (const auto& [job, run] : open_)
    if (run.dirty) add(run);
  return out;
}

void UsageRecorder::markSaved() {
  closed_.clear();
  for (auto& [job, run] : open_) run.dirty = false;
}

void UsageRecorder::resume(const Engine& engine, std::vector<UsageRecord> open) {
  open_.clear();
  closed_.clear();
  seen_ = engine.eventCount();
  std::sort(open.begin(), open.end(), [](const UsageRecord& a, const UsageRecord& b) {
    return a.job != b.job ? a.job < b.job : a.part < b.part;
  });
  for (UsageRecord& u : open) {
    Run& run = open_[u.job];
    if (u.part != 0) u.samples.clear();
    run.parts.push_back(std::move(u));
    run.dirty = false;
  }
  for (auto& [job, run] : open_)
    if (const JobRecord* r = engine.job(job)) run.lostAtStart = r->gpuHoursLost;
}

}  // namespace tessera
