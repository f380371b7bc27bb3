#include "sim/sharing_study.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "sim/sharing_run.h"
#include "sim/sharing_variant.h"

namespace tessera {
namespace {

struct ModeNames {
  StudyMode mode;
  const char* name;
};
constexpr ModeNames kModeNames[] = {{StudyMode::Whole, "whole"},
                                    {StudyMode::TimeSlicing, "time-slicing"},
                                    {StudyMode::Mps, "mps"},
                                    {StudyMode::Mig, "mig"}};

std::optional<WorkloadClass> classNamed(std::string_view name) {
  for (auto c : {WorkloadClass::Training, WorkloadClass::Inference, WorkloadClass::Interactive,
                 WorkloadClass::Batch})
    if (name == workloadClassName(c)) return c;
  return std::nullopt;
}

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void copyFigures(const StudyRun& r, const ModeWorkload& w, ModeFigures& f) {
  const SimSummary& s = r.summary;
  f.allocation = s.allocation;
  f.busy = s.busy;
  for (double x : s.stranded) f.strandedGpus += x;
  f.jobs = s.jobs;
  f.completed = s.completed;
  f.neverStarted = s.neverStarted;
  f.refused = s.refused;
  f.smallJobs = w.smallJobs;
  f.coLocatedJobs = r.coLocatedJobs;
  f.waitByClass = r.waitByClass;
  f.targetsMet = r.targetsMet;
  for (const JobOutcome& j : r.outcomes) {
    const auto g = w.grantedAndNeeded.find(j.id);
    if (g == w.grantedAndNeeded.end() || g->second.first <= 0) continue;
    f.grantedBeyondNeed += j.gpuHoursUsed * (1 - g->second.second / g->second.first);
  }
}

bool cancelled(const SharingStudyConfig& cfg) {
  return cfg.cancelled && cfg.cancelled();
}

// The fewest leading nodes whose GPUs meet the targets, by bisection between none (fails) and
// all (met). Assumes more nodes never make waits worse: the scheduler only gains room.
Expected<int> searchGpusNeeded(const Cluster& full, StudyMode mode, const ModeWorkload& w,
                               const SharingStudyConfig& cfg, size_t refusedAllowed, int& runs) {
  size_t lo = 0, hi = full.nodes().size();
  const Policy policy = policyForMode(cfg.policy, mode);
  while (hi - lo > 1) {
    const size_t mid = lo + (hi - lo) / 2;
    TESSERA_TRY(mc, clusterForMode(full, mid, mode, w, cfg.timeSliceSlots));
    TESSERA_TRY(
        run, runStudyOnce(mc.cluster, w.trace, policy, cfg.sim, cfg.targets, true, cfg.cancelled));
    ++runs;
    (meetsTargets(run, cfg.targets, refusedAllowed) ? hi : lo) = mid;
  }
  size_t gpus = 0;
  for (size_t i = 0; i < hi; ++i) gpus += static_cast<size_t>(full.nodes()[i].gpuCount());
  return static_cast<int>(gpus);
}

Expected<ModeFigures> studyMode(const Cluster& cluster, const Trace& trace, StudyMode mode,
                                const SharingStudyConfig& cfg) {
  const auto t0 = std::chrono::steady_clock::now();
  ModeFigures f;
  f.mode = mode;
  TESSERA_TRY(w, translateWorkload(cluster, trace, mode, cfg.timeSliceSlots));
  TESSERA_TRY(mc, clusterForMode(cluster, cluster.nodes().size(), mode, w, cfg.timeSliceSlots));
  f.gpus = mc.gpus;
  f.sharedGpus = mc.shared;
  f.layouts = mc.layouts;
  TESSERA_TRY(run, runStudyOnce(mc.cluster, w.trace, policyForMode(cfg.policy, mode), cfg.sim,
                                cfg.targets, false, cfg.cancelled));
  f.runs = 1;
  copyFigures(run, w, f);
  if (cancelled(cfg)) return studyCancelled();
  if (cfg.searchGpusNeeded && f.targetsMet) {
    TESSERA_TRY(needed, searchGpusNeeded(cluster, mode, w, cfg, run.summary.refused, f.runs));
    f.gpusNeeded = needed;
  }
  f.wallSeconds = secondsSince(t0);
  return f;
}

Status checkConfig(const Cluster& cluster, const Trace& trace, const SharingStudyConfig& cfg) {
  if (trace.jobs.empty()) return Error{"the workload has no jobs", {}};
  if (cluster.gpus().empty()) return Error{"cluster '" + cluster.name + "' has no GPUs", {}};
  if (cfg.modes.empty()) return Error{"--modes: no mode to study", {}};
  if (cfg.timeSliceSlots < 2 || cfg.timeSliceSlots > 64)
    return Error{
        "--slots: time-sliced GPUs take 2 to 64 slots, not " + std::to_string(cfg.timeSliceSlots),
        {}};
  if (cfg.modesExplicit)
    for (StudyMode m : cfg.modes)
      if (const std::string why = cannotRun(cluster, m); !why.empty())
        return Error{std::string("--modes: ") + sharingStudyModeName(m) + " cannot run: " + why,
                     {}};
  return okStatus();
}

}  // namespace

const char* sharingStudyModeName(StudyMode m) {
  for (const auto& n : kModeNames)
    if (n.mode == m) return n.name;
  return "?";
}

std::optional<StudyMode> parseSharingStudyMode(std::string_view name) {
  for (const auto& n : kModeNames)
    if (name == n.name) return n.mode;
  return std::nullopt;
}

std::vector<WaitTarget> defaultWaitTargets() {
  return {{WorkloadClass::Inference, 5 * 60}, {WorkloadClass::Interactive, 15 * 60}};
}

Expected<std::vector<WaitTarget>> parseWaitTargets(const std::vector<std::string>& texts) {
  std::map<WorkloadClass, Seconds> byClass;
  for (const std::string& text : texts) {
    const auto eq = text.find('=');
    const std::string duration = eq == std::string::npos ? text : text.substr(eq + 1);
    const auto d = parseDuration(duration);
    if (!d || *d < 0)
      return Error{"--wait-target: bad duration '" + duration + "' in '" + text +
                       "' (like inference=5m, or 10m for every class)",
                   {}};
    if (eq == std::string::npos) {
      for (auto c : {WorkloadClass::Training, WorkloadClass::Inference, WorkloadClass::Interactive,
                     WorkloadClass::Batch})
        byClass[c] = *d;
      continue;
    }
    const auto cls = classNamed(text.substr(0, eq));
    if (!cls)
      return Error{"--wait-target: unknown workload class '" + text.substr(0, eq) +
                       "' (training, inference, interactive, batch)",
                   {}};
    byClass[*cls] = *d;
  }
  std::vector<WaitTarget> out;
  for (const auto& [c, s] : byClass) out.push_back({c, s});
  return out;
}

const ModeFigures* SharingStudy::find(StudyMode m) const {
  for (const auto& f : modes)
    if (f.mode == m && f.skipped.empty()) return &f;
  return nullptr;
}

SyntheticConfig sharingStudySyntheticDefaults() {
  SyntheticConfig c;
  c.training = 0;  // no gangs: the study is about work smaller than a GPU and what it shares
  c.inference = 0.45;
  c.notebooks = 0.35;
  c.batch = 0.20;
  return c;
}

Expected<Trace> synthesizeForSharingStudy(const Cluster& cluster, const SyntheticConfig& config) {
  // The generator asks for MIG profiles only of MIG GPUs and for shares only of time-sliced ones:
  // show it one of each per node (MIG where the model can) so every kind of work is generated.
  Cluster offering = cluster;
  for (const Node& n : cluster.nodes()) {
    if (n.gpuCount() < 3) continue;
    if (n.gpuModel().migCapable()) offering.mutableGpu(n.firstGpu).sharing.mode = SharingMode::Mig;
    GpuSharing& ts = offering.mutableGpu(n.firstGpu + 1).sharing;
    ts.mode = SharingMode::TimeSliced;
    ts.replicas = 4;
  }
  return synthesize(offering, config);
}

Expected<SharingStudy> runSharingStudy(const Cluster& cluster, const Trace& trace,
                                       const SharingStudyConfig& config,
                                       const std::function<void(double)>& progress) {
  TESSERA_CHECK(checkConfig(cluster, trace, config));
  SharingStudy s;
  s.cluster = cluster.name;
  s.workload = trace.source;
  s.jobs = trace.jobs.size();
  s.gpus = static_cast<int>(cluster.gpus().size());
  s.timeSliceSlots = config.timeSliceSlots;
  s.targets = config.targets;
  s.searched = config.searchGpusNeeded;
  std::vector<Expected<ModeFigures>> results(config.modes.size(), Error{"not run", {}});
  for (size_t i = 0; i < config.modes.size(); ++i)
    if (const std::string why = cannotRun(cluster, config.modes[i]); !why.empty()) {
      ModeFigures f;
      f.mode = config.modes[i];
      f.skipped = why;
      results[i] = f;
    }
  std::atomic<size_t> next{0}, done{0};
  std::mutex progressLock;
  auto work = [&] {
    for (size_t i = next++; i < results.size(); i = next++) {
      if (results[i]) continue;  // skipped
      if (cancelled(config)) return;
      results[i] = studyMode(cluster, trace, config.modes[i], config);
      std::lock_guard lock(progressLock);
      if (progress) progress(double(++done) / double(results.size()));
    }
  };
  const unsigned cores = config.threads > 0 ? static_cast<unsigned>(config.threads)
                                            : std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < std::min<size_t>(cores, results.size()); ++t) pool.emplace_back(work);
  for (auto& t : pool) t.join();
  if (cancelled(config)) return studyCancelled();
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i])
      return Error{
          std::string(sharingStudyModeName(config.modes[i])) + ": " + results[i].error().str(), {}};
    s.modes.push_back(std::move(*results[i]));
  }
  s.recommendationSentences = sharingRecommendationSentences(s);
  s.recommendation = sharingRecommendation(s.recommendationSentences);
  return s;
}

}  // namespace tessera
