#include "sim/metrics.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <iomanip>
#include <limits>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "mig/mig_capacity.h"
#include "scheduler/engine.h"
#include "sim/telemetry.h"

namespace tessera {

const char* strandCauseName(StrandCause c) {
  switch (c) {
    case StrandCause::Unavailable:
      return "unavailable";
    case StrandCause::HostResources:
      return "host-resources";
    case StrandCause::MigLayout:
      return "mig-layout";
    case StrandCause::Fragmentation:
      return "fragmentation";
    case StrandCause::Quota:
      return "quota";
    case StrandCause::GangTopology:
      return "gang-topology";
  }
  return "?";
}

std::string strandedSeriesName(StrandCause c) {
  return std::string("gpus_stranded{cause=\"") + strandCauseName(c) + "\"}";
}

namespace {

// What the waiting GPU work needs, reduced to what stranding is judged against.
struct PendingNeeds {
  bool any = false;
  bool whole = false;                             // some pending job wants whole GPUs
  int minCpus = std::numeric_limits<int>::max();  // smallest per-task host needs of GPU jobs
  int64_t minMemory = std::numeric_limits<int64_t>::max();
  int minMilli = 0;  // smallest pending share (0 = no fractional job waits)
  std::set<std::string> migProfiles;
  bool allQuota = true;  // every pending GPU job is held back by its quota

  void add(const JobRecord& j) {
    const GpuRequest& r = j.job.perTask;
    if (r.kind == GpuRequest::Kind::None || j.job.held) return;
    any = true;
    minCpus = std::min(minCpus, j.job.cpusPerTask);
    minMemory = std::min(minMemory, j.job.memoryMiBPerTask);
    allQuota = allQuota && j.blockedBy == "quota";
    if (r.kind == GpuRequest::Kind::Whole) whole = true;
    if (r.kind == GpuRequest::Kind::Fraction)
      minMilli = minMilli == 0 ? r.milli : std::min(minMilli, r.milli);
    if (r.kind == GpuRequest::Kind::Mig) migProfiles.insert(r.migProfile);
  }
};

bool hostShort(const ClusterState& s, NodeId n, const PendingNeeds& need) {
  const int cpus = s.freeCpus(n);
  const int64_t mem = s.freeMemoryMiB(n);
  return (cpus >= 0 && cpus < need.minCpus) || (mem >= 0 && mem < need.minMemory);
}

// MIG capacity on a GPU no pending profile could use, in GPU equivalents: idle instances of
// profiles nobody waits for, and unconfigured slices beyond what the best waiting profile could
// still create there.
double migStranded(const MigGeometry& mig, const GpuOccupancy& o, const PendingNeeds& need) {
  const MigLayout& layout = o.layout;
  int idleUnwanted = 0;
  for (int i = 0; i < layout.size(); ++i) {
    const auto& p = mig.profiles[static_cast<size_t>(layout[i].profile)];
    if (o.instanceOwner[static_cast<size_t>(i)] == kNoJob && !need.migProfiles.count(p.name))
      idleUnwanted += p.memorySlices;
  }
  const int freeSlices =
      mig.memorySlices - std::popcount(static_cast<unsigned>(layout.occupiedMask(mig)));
  int usable = 0;
  const MigUsage usage = MigUsage::of(mig, layout);
  for (const auto& name : need.migProfiles) {
    const int p = mig.profileIndex(name);
    if (p < 0) continue;
    usable = std::max(usable, migMaxAdditional(mig, usage, p) *
                                  mig.profiles[static_cast<size_t>(p)].memorySlices);
  }
  return double(idleUnwanted + std::max(0, freeSlices - usable)) / mig.memorySlices;
}

void strandGpu(const ClusterState& s, GpuId g, const PendingNeeds& need, MetricSample& out) {
  const Gpu& gpu = s.cluster().gpu(g);
  const GpuOccupancy& o = s.gpu(g);
  auto add = [&](StrandCause c, double v) { out.stranded[static_cast<size_t>(c)] += v; };
  switch (gpu.sharing.mode) {
    case SharingMode::Mig:
      if (const auto& mig = s.cluster().modelOf(g).mig)
        add(StrandCause::MigLayout, migStranded(*mig, o, need));
      return;
    case SharingMode::TimeSliced:
      if (o.milliUsed > 0) {
        const int left = 1000 - o.milliUsed;
        if (left > 0 && (need.minMilli == 0 || left < need.minMilli))
          add(StrandCause::Fragmentation, left / 1000.0);
        return;
      }
      if (need.minMilli == 0 && !need.whole) return;
      break;
    case SharingMode::Exclusive:
      if (o.wholeOwner != kNoJob || !need.whole) return;
      break;
    case SharingMode::Mps:
      return;  // MPS servers strand nothing a whole-GPU or share request could use
  }
  // A free GPU some waiting job could in principle take: why is it still free?
  if (hostShort(s, gpu.node, need))
    add(StrandCause::HostResources, 1);
  else if (need.allQuota)
    add(StrandCause::Quota, 1);
  else
    add(StrandCause::GangTopology, 1);
}

double gpuEquivalentsHeld(const ClusterState& s, GpuId g) {
  const GpuOccupancy& o = s.gpu(g);
  if (o.wholeOwner != kNoJob) return 1;
  if (s.cluster().gpu(g).sharing.mode == SharingMode::TimeSliced) return o.milliUsed / 1000.0;
  if (s.cluster().gpu(g).sharing.mode == SharingMode::Mps) {
    // Oversubscribed thread budgets still hold one GPU at most.
    int threads = 0;
    for (const auto& c : o.mpsClients) threads += c.threads;
    return std::min(1.0, threads / 100.0);
  }
  if (const auto& mig = s.cluster().modelOf(g).mig; mig && o.layout.size() > 0) {
    int slices = 0;
    for (int i = 0; i < o.layout.size(); ++i)
      if (o.instanceOwner[static_cast<size_t>(i)] != kNoJob)
        slices += mig->profiles[static_cast<size_t>(o.layout[i].profile)].memorySlices;
    return double(slices) / mig->memorySlices;
  }
  return 0;
}

}  // namespace

void MetricsRecorder::sample(const Engine& engine, const std::vector<GpuTelemetry>& telemetry,
                             const std::vector<const JobRecord*>& pending,
                             const std::vector<const JobRecord*>& running) {
  const ClusterState& s = engine.state();
  const Cluster& c = s.cluster();
  MetricSample m;
  m.time = engine.now();
  m.pending = static_cast<int>(pending.size());
  m.running = static_cast<int>(running.size());
  m.lastCycleMs = engine.stats().lastCycleMs;
  PendingNeeds need;
  for (const JobRecord* j : pending) need.add(*j);
  DemandMix demand;
  for (const auto* list : {&pending, &running})
    for (const JobRecord* j : *list) demand.add(j->job);
  const auto mix = demand.shapes();
  int migGpus = 0;
  for (const Node& n : c.nodes()) {
    const NodeState state = s.nodeState(n.id);
    for (int i = 0; i < n.gpuCount(); ++i) {
      const GpuId g = n.firstGpu + static_cast<GpuId>(i);
      const double held = gpuEquivalentsHeld(s, g);
      m.allocated += held;
      m.busy += telemetry[g].value.util;
      m.effective += telemetry[g].value.sm;
      m.tensor += telemetry[g].value.tensor;
      // A draining node still runs its jobs: its GPUs count, or allocation could pass 100 %.
      if (state != NodeState::Down) m.capacity += 1;
      if (const auto& mig = c.modelOf(g).mig; mig && c.gpu(g).sharing.mode == SharingMode::Mig) {
        m.migFragmentation +=
            migFragmentation(*mig, s.gpu(g).layout, MigDemand::uniform(*mig)).score;
        ++migGpus;
      }
      if (!need.any) continue;
      if (state != NodeState::Up)
        m.stranded[static_cast<size_t>(StrandCause::Unavailable)] += 1 - held;
      else
        strandGpu(s, g, need, m);
    }
    const bool up = state == NodeState::Up;
    if (up && !mix.empty()) m.fgdFragmentation += nodeFragmentation(s, n.id, mix);
  }
  if (migGpus > 0) m.migFragmentation /= migGpus;
  samples_.push_back(m);
}

void MetricsRecorder::recordCycle(const CycleStats& c) {
  cycleMs_.push_back(c.cycleMs);
  phases_.order += c.orderMs;
  phases_.preempt += c.preemptMs;
  phases_.backfill += c.backfillMs;
}

Percentiles percentiles(std::vector<double> v) {
  Percentiles p;
  p.count = v.size();
  if (v.empty()) return p;
  std::sort(v.begin(), v.end());
  // Nearest rank: the smallest value with at least q of the values at or below it.
  auto at = [&](double q) {
    const auto rank = static_cast<size_t>(std::ceil(q * double(v.size())));
    return v[std::clamp<size_t>(rank, 1, v.size()) - 1];
  };
  p.p50 = at(0.50);
  p.p95 = at(0.95);
  p.p99 = at(0.99);
  p.max = v.back();
  double sum = 0;
  for (double x : v) sum += x;
  p.mean = sum / double(v.size());
  return p;
}

SimSummary summarize(const MetricsRecorder& m, const std::vector<JobOutcome>& jobs,
                     const std::map<std::string, double>& teamWeights, Seconds start, Seconds end) {
  SimSummary s;
  s.start = start;
  s.end = end;
  s.jobs = jobs.size();
  // Samples are taken at a fixed period: their plain mean is the time-weighted mean.
  double capacity = 0;
  for (const auto& x : m.samples()) {
    capacity += x.capacity;
    s.allocation += x.allocated;
    s.busy += x.busy;
    s.effective += x.effective;
    s.fgdFragmentation += x.fgdFragmentation;
    s.migFragmentation += x.migFragmentation;
    for (size_t c = 0; c < kStrandCauses; ++c) s.stranded[c] += x.stranded[c];
  }
  if (capacity > 0) {
    s.allocation /= capacity;
    s.busy /= capacity;
    s.effective /= capacity;
  }
  if (const double n = double(m.samples().size()); n > 0) {
    s.fgdFragmentation /= n;
    s.migFragmentation /= n;
    for (auto& x : s.stranded) x /= n;
  }
  std::vector<double> wait, jct, slowdown;
  std::map<std::string, std::vector<double>> byTeam, byClass;
  double used = 0;
  for (const auto& j : jobs) {
    s.preemptions += j.preemptions;
    s.gpuHoursLost += j.gpuHoursLost;
    s.interruptions += j.interruptions;
    s.gpuHoursLostToInterruptions += j.gpuHoursLostToInterruptions;
    s.gpuHoursUsed += j.gpuHoursUsed;
    used += j.gpuHoursUsed;
    s.fairness[j.team].gpuHours += j.gpuHoursUsed;
    if (j.state == JobState::Completed) ++s.completed;
    if (j.state == JobState::Failed) ++s.failed;
    if (j.firstStart < 0) {
      ++s.neverStarted;
      continue;
    }
    const double w = double(j.firstStart - j.submit);
    wait.push_back(w);
    byTeam[j.team].push_back(w);
    byClass[j.priorityClass].push_back(w);
    if (j.end < 0) {
      ++s.unfinished;
      continue;
    }
    // Failed, timed-out and cancelled jobs did not complete their work: no completion time.
    if (j.state != JobState::Completed) continue;
    jct.push_back(double(j.end - j.submit));
    slowdown.push_back(double(j.end - j.submit) / double(std::max<Seconds>(j.runtime, 10)));
  }
  s.wait = percentiles(wait);
  for (auto& [k, v] : byTeam) s.waitByTeam[k] = percentiles(v);
  for (auto& [k, v] : byClass) s.waitByClass[k] = percentiles(v);
  s.jct = percentiles(jct);
  s.slowdown = percentiles(slowdown);
  double weights = 0;
  for (auto& [team, f] : s.fairness) {
    const auto w = teamWeights.find(team);
    weights += w == teamWeights.end() ? 1.0 : w->second;
  }
  for (auto& [team, f] : s.fairness) {
    const auto w = teamWeights.find(team);
    f.deserved = (w == teamWeights.end() ? 1.0 : w->second) / weights;
    f.share = used > 0 ? f.gpuHours / used : 0;
  }
  s.cycleMs = percentiles(m.cycleMs());
  s.cycles = m.cycleMs().size();
  return s;
}

namespace {
nlohmann::json json(const Percentiles& p) {
  return {{"count", p.count}, {"p50", p.p50}, {"p95", p.p95},
          {"p99", p.p99},     {"max", p.max}, {"mean", p.mean}};
}
}  // namespace

void writeSummaryJson(std::ostream& out, const SimSummary& s) {
  nlohmann::json j;
  j["start"] = s.start;
  j["end"] = s.end;
  j["jobs"] = {{"total", s.jobs},
               {"completed", s.completed},
               {"failed", s.failed},
               {"unfinished", s.unfinished},
               {"never_started", s.neverStarted},
               {"refused", s.refused}};
  j["utilization"] = {{"allocation", s.allocation}, {"busy", s.busy}, {"effective", s.effective}};
  j["fragmentation"] = {{"fgd_gpus", s.fgdFragmentation}, {"mig_score", s.migFragmentation}};
  for (size_t c = 0; c < kStrandCauses; ++c)
    j["stranded_gpus"][strandCauseName(static_cast<StrandCause>(c))] = s.stranded[c];
  j["wait_s"] = json(s.wait);
  for (const auto& [k, v] : s.waitByTeam) j["wait_s_by_team"][k] = json(v);
  for (const auto& [k, v] : s.waitByClass) j["wait_s_by_class"][k] = json(v);
  j["jct_s"] = json(s.jct);
  j["bounded_slowdown"] = json(s.slowdown);
  j["preemptions"] = {{"count", s.preemptions}, {"gpu_hours_lost", s.gpuHoursLost}};
  j["interruptions"] = {{"count", s.interruptions},
                        {"gpu_hours_lost", s.gpuHoursLostToInterruptions}};
  j["gpu_hours_used"] = s.gpuHoursUsed;
  for (const auto& [k, f] : s.fairness)
    j["fairness"][k] = {{"gpu_hours", f.gpuHours}, {"share", f.share}, {"deserved", f.deserved}};
  j["engine"] = {{"cycles", s.cycles}, {"cycle_ms", json(s.cycleMs)}};
  j["wall_s"] = s.wallSeconds;
  j["sim_to_wall"] = s.speedup();
  out << j.dump(2) << '\n';
}

std::string summaryText(const SimSummary& s) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(1);
  o << "simulated " << double(s.end - s.start) / 3600.0 << " h: " << s.jobs << " jobs, "
    << s.completed << " completed, " << s.failed << " failed, " << s.unfinished
    << " unfinished (running or requeued), " << s.neverStarted << " never started";
  if (s.refused > 0) o << ", " << s.refused << " refused at submit";
  o << "\n";
  o << "GPUs allocated " << 100 * s.allocation << " %, busy " << 100 * s.busy
    << " %, effective (SM active) " << 100 * s.effective << " %\n";
  o << "queue wait p50 " << s.wait.p50 / 60 << " min, p95 " << s.wait.p95 / 60 << " min, p99 "
    << s.wait.p99 / 60 << " min; bounded slowdown p50 " << s.slowdown.p50 << ", p99 "
    << s.slowdown.p99 << "\n";
  o << "preemptions " << s.preemptions << ", GPU-hours lost " << s.gpuHoursLost << " of "
    << s.gpuHoursUsed << " used";
  if (s.interruptions > 0)
    o << "; failures and faults requeued " << s.interruptions << " jobs, "
      << s.gpuHoursLostToInterruptions << " GPU-hours lost";
  o << "\n";
  o << "stranded GPUs (mean):";
  for (size_t c = 0; c < kStrandCauses; ++c)
    o << ' ' << strandCauseName(static_cast<StrandCause>(c)) << ' ' << s.stranded[c];
  o << "\nfragmentation: FGD " << s.fgdFragmentation << " GPUs, MIG score " << std::setprecision(3)
    << s.migFragmentation << std::setprecision(1) << "\n";
  o << "engine: " << s.cycles << " cycles, p50 " << s.cycleMs.p50 << " ms, p99 " << s.cycleMs.p99
    << " ms";
  if (s.wallSeconds > 0)
    o << "; wall " << std::setprecision(2) << s.wallSeconds << " s (" << std::setprecision(0)
      << s.speedup() << "x real time)";
  o << '\n';
  return o.str();
}

namespace {
// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
std::string csvField(const std::string& v) {
  if (v.find_first_of(",\"\n\r") == std::string::npos) return v;
  std::string q = "\"";
  for (char c : v) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}
}  // namespace

void writeSamplesCsv(std::ostream& out, const std::vector<MetricSample>& samples) {
  out << std::setprecision(12);
  out << "time_s,capacity_gpus,allocated_gpus,busy_gpus,effective_gpus,fgd_fragmentation_gpus,"
         "mig_fragmentation,pending_jobs,running_jobs,last_cycle_ms";
  for (size_t c = 0; c < kStrandCauses; ++c)
    out << ",stranded_" << strandCauseName(static_cast<StrandCause>(c));
  out << '\n';
  for (const auto& m : samples) {
    out << m.time << ',' << m.capacity << ',' << m.allocated << ',' << m.busy << ',' << m.effective
        << ',' << m.fgdFragmentation << ',' << m.migFragmentation << ',' << m.pending << ','
        << m.running << ',' << m.lastCycleMs;
    for (double v : m.stranded) out << ',' << v;
    out << '\n';
  }
}

void writeJobsCsv(std::ostream& out, const std::vector<JobOutcome>& jobs) {
  out << std::setprecision(12);
  out << "job,team,priority_class,workload_class,gpus,submit_s,first_start_s,end_s,runtime_s,"
         "state,preemptions,gpu_hours_used,gpu_hours_lost,interruptions,"
         "gpu_hours_lost_to_interruptions\n";
  for (const auto& j : jobs)
    out << j.id << ',' << csvField(j.team) << ',' << csvField(j.priorityClass) << ','
        << workloadClassName(j.workloadClass) << ',' << j.gpus << ',' << j.submit << ','
        << j.firstStart << ',' << j.end << ',' << j.runtime << ',' << jobStateName(j.state) << ','
        << j.preemptions << ',' << j.gpuHoursUsed << ',' << j.gpuHoursLost << ',' << j.interruptions
        << ',' << j.gpuHoursLostToInterruptions << '\n';
}

}  // namespace tessera
