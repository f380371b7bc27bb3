#pragma once
// Which way to share GPUs suits a fleet: one workload replayed on one cluster four times, with
// its GPUs declared whole (exclusive), time-sliced, MPS or MIG, and the work that needs less than
// a GPU translated to each mode's request (rules in sharing_variant.h and
// docs/simulator.md#sharing-study). For each mode: utilization, stranded capacity, jobs
// co-located without fault isolation, wait p95 by workload class, and the fewest GPUs (a prefix
// of the cluster's nodes, found by bisection) that still meet the wait targets. The result is a
// value; the CLI and the console only format it.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/text.h"
#include "scheduler/policy.h"
#include "sim/metrics.h"
#include "sim/simulator.h"
#include "sim/synthetic.h"
#include "sim/trace.h"
#include "topology/cluster.h"

namespace tessera {

enum class StudyMode : uint8_t { Whole, TimeSlicing, Mps, Mig };
inline constexpr StudyMode kAllStudyModes[] = {StudyMode::Whole, StudyMode::TimeSlicing,
                                               StudyMode::Mps, StudyMode::Mig};
// "whole", "time-slicing", "mps", "mig": the names the CLI takes and every output prints.
const char* sharingStudyModeName(StudyMode m);
std::optional<StudyMode> parseSharingStudyMode(std::string_view name);

// p95 queue wait a workload class must not exceed.
struct WaitTarget {
  WorkloadClass workloadClass = WorkloadClass::Inference;
  Seconds p95 = 0;
  friend bool operator==(const WaitTarget&, const WaitTarget&) = default;
};
// "inference=5m" (one class) or "10m" (every class); the error names --wait-target.
Expected<std::vector<WaitTarget>> parseWaitTargets(const std::vector<std::string>& texts);
std::vector<WaitTarget> defaultWaitTargets();  // inference 5 min, interactive 15 min

struct SharingStudyConfig {
  std::vector<StudyMode> modes{std::begin(kAllStudyModes), std::end(kAllStudyModes)};
  // Modes asked for by name: a cluster that cannot run one is an error, not a skipped column.
  bool modesExplicit = false;
  std::vector<WaitTarget> targets = defaultWaitTargets();
  int timeSliceSlots = 4;  // replicas per time-sliced GPU
  SimConfig sim;
  Policy policy;
  bool searchGpusNeeded = true;
  int threads = 0;  // modes run in parallel; 0 = one per core
  // Asked (from the study's threads) between sample steps and between simulations: once it says
  // true, the study stops and fails with "cancelled" (the console's Stop button).
  std::function<bool()> cancelled;
};

// What one mode measured. `skipped` says why a mode did not run (the cluster cannot host it).
struct ModeFigures {
  StudyMode mode = StudyMode::Whole;
  std::string skipped;
  int gpus = 0;                  // of the whole cluster
  int sharedGpus = 0;            // of them time-sliced, MPS or MIG
  std::string layouts;           // MIG: the planner's layouts and how many GPUs have each
  double allocation = 0;         // time-weighted mean fraction of capacity held by jobs
  double busy = 0;               // ... and busy (GPU utilization)
  double strandedGpus = 0;       // mean GPUs free but unusable while work waited (all causes)
  double grantedBeyondNeed = 0;  // GPU-hours held by small jobs beyond what they need
  size_t jobs = 0, completed = 0, neverStarted = 0, refused = 0;
  size_t smallJobs = 0;      // jobs that need less than a GPU
  size_t coLocatedJobs = 0;  // shared a time-sliced GPU or an MPS server with another job
  std::map<WorkloadClass, Percentiles> waitByClass;  // seconds
  bool targetsMet = false;                           // on the whole cluster
  std::optional<int> gpusNeeded;  // fewest GPUs meeting the targets; none = not even all of them
  int runs = 0;                   // simulations this mode took (1 + the search's)
  double wallSeconds = 0;
};

struct SharingStudy {
  std::string cluster;
  std::string workload;
  size_t jobs = 0;
  int gpus = 0;
  int timeSliceSlots = 4;
  std::vector<WaitTarget> targets;
  bool searched = true;            // GPUs needed were searched for (modes meeting the targets)
  std::vector<ModeFigures> modes;  // in the order asked
  std::string recommendation;      // a paragraph the figures above support
  std::vector<Text> recommendationSentences;  // the same, sentence by sentence, for translation
  [[nodiscard]] const ModeFigures* find(StudyMode m) const;
};

// Fails when the trace is empty, a setting is out of range, an explicitly asked mode cannot run
// on the cluster (no MIG-capable or MPS-capable GPU), or config.cancelled says so ("cancelled").
// `progress` gets the modes done so far.
Expected<SharingStudy> runSharingStudy(const Cluster& cluster, const Trace& trace,
                                       const SharingStudyConfig& config,
                                       const std::function<void(double)>& progress = {});

// The study's default synthetic workload: inference services and dev notebooks, with short batch
// jobs and no training gangs, generated as if the cluster offered MIG and time-slicing (the
// generator shapes small requests to what a cluster offers).
SyntheticConfig sharingStudySyntheticDefaults();
Expected<Trace> synthesizeForSharingStudy(const Cluster& cluster, const SyntheticConfig& config);

// The recommendation from the figures (also set by runSharingStudy): its sentences, built from
// the templates of sim/sharing_text.h so the console can show them translated, and the paragraph
// of their English joined by spaces, which the CLI prints.
std::vector<Text> sharingRecommendationSentences(const SharingStudy& s);
std::string sharingRecommendation(const SharingStudy& s);
std::string sharingRecommendation(const std::vector<Text>& sentences);  // the English joined

std::string sharingStudyText(const SharingStudy& s);
void writeSharingStudyJson(std::ostream& out, const SharingStudy& s);
void writeSharingStudyCsv(std::ostream& out, const SharingStudy& s);

}  // namespace tessera
