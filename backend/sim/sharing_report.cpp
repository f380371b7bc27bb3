// The sharing study's outputs: the side-by-side table (text, JSON, CSV) and the recommendation,
// every sentence of which states a figure of the table (templates in sim/sharing_text.h, which
// the console translates; the CLI prints their English).
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "scheduler/command_yaml.h"
#include "sim/sharing_study.h"
#include "sim/sharing_text.h"

namespace tessera {
namespace {

std::string percent(double fraction) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(1) << 100 * fraction << " %";
  return o.str();
}

std::string fixed1(double v) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(1) << v;
  return o.str();
}

// Workload classes with a wait in any mode, in enum order.
std::set<WorkloadClass> classesOf(const SharingStudy& s) {
  std::set<WorkloadClass> out;
  for (const auto& f : s.modes)
    for (const auto& [c, p] : f.waitByClass) out.insert(c);
  return out;
}

std::vector<const ModeFigures*> ran(const SharingStudy& s) {
  std::vector<const ModeFigures*> out;
  for (const auto& f : s.modes)
    if (f.skipped.empty()) out.push_back(&f);
  return out;
}

Text modeName(const ModeFigures& f) {
  return literal(sharingStudyModeName(f.mode));
}

// "a, b and c".
Text names(const std::vector<const ModeFigures*>& modes) {
  std::vector<Text> items;
  for (const ModeFigures* f : modes) items.push_back(modeName(*f));
  return listText(std::move(items), /*andLast=*/true);
}

// The modes with the least (or most) of `key`, ties together.
template <typename Key>
std::vector<const ModeFigures*> best(const std::vector<const ModeFigures*>& modes, Key key,
                                     bool least) {
  std::vector<const ModeFigures*> out;
  for (const ModeFigures* f : modes) {
    if (!out.empty() && std::abs(key(*f) - key(*out.front())) < 1e-9) {
      out.push_back(f);
    } else if (out.empty() || (least ? key(*f) < key(*out.front()) : key(*f) > key(*out.front()))) {
      out = {f};
    }
  }
  return out;
}

using Sentences = std::vector<Text>;

void unsearchedSentence(const SharingStudy& s, const std::vector<const ModeFigures*>& modes,
                        Sentences& out) {
  std::vector<const ModeFigures*> met;
  for (const ModeFigures* f : modes)
    if (f->targetsMet) met.push_back(f);
  if (met.empty()) {
    out.push_back(phrase(text::kStudyNoneMeetsUnsearched, s.gpus));
    return;
  }
  out.push_back(phrase(met.size() > 1 ? text::kStudyMeetUnsearched : text::kStudyMeetsUnsearched,
                       names(met), s.gpus));
}

void gpusSentences(const SharingStudy& s, const std::vector<const ModeFigures*>& modes,
                   Sentences& out) {
  if (!s.searched) return unsearchedSentence(s, modes, out);
  std::vector<const ModeFigures*> met;
  for (const ModeFigures* f : modes)
    if (f->gpusNeeded) met.push_back(f);
  if (met.empty()) {
    out.push_back(phrase(text::kStudyNoneMeets, s.gpus));
    return;
  }
  const auto winners = best(
      met, [](const ModeFigures& f) { return double(*f.gpusNeeded); }, true);
  out.push_back(phrase(winners.size() > 1 ? text::kStudyTieFewest : text::kStudyFewest,
                       names(winners), *winners.front()->gpusNeeded, s.gpus));
  for (const ModeFigures* f : modes) {
    if (std::find(winners.begin(), winners.end(), f) != winners.end()) continue;
    out.push_back(f->gpusNeeded ? phrase(text::kStudyNeeds, modeName(*f), *f->gpusNeeded)
                                : phrase(text::kStudyMisses, modeName(*f), s.gpus));
  }
}

Text utilizationSentence(const std::vector<const ModeFigures*>& modes) {
  const auto hi = best(
      modes, [](const ModeFigures& f) { return f.busy; }, false);
  const auto lo = best(
      modes, [](const ModeFigures& f) { return f.strandedGpus; }, true);
  return phrase(text::kStudyUtilization, names(hi), percent(hi.front()->busy), names(lo),
                fixed1(lo.front()->strandedGpus));
}

void isolationSentences(const std::vector<const ModeFigures*>& modes, Sentences& out) {
  std::vector<Text> shared;
  for (const ModeFigures* f : modes)
    if (f->mode == StudyMode::TimeSlicing || f->mode == StudyMode::Mps)
      shared.push_back(phrase(text::kStudyCoLocated, modeName(*f), f->coLocatedJobs, f->jobs));
  if (shared.empty()) return;
  out.push_back(phrase(text::kStudyIsolation, clauseList(std::move(shared))));
  out.push_back(phrase(text::kStudyIsolating));
}

bool isolates(const ModeFigures& f) {
  return f.mode == StudyMode::Mig || f.mode == StudyMode::Whole;
}

Text verdict(const SharingStudy& s, const std::vector<const ModeFigures*>& modes) {
  if (!s.searched) return phrase(text::kStudySearchToCompare);
  std::vector<const ModeFigures*> met;
  for (const ModeFigures* f : modes)
    if (f->gpusNeeded) met.push_back(f);
  if (met.empty()) return phrase(text::kStudyAddGpus);
  const auto winners = best(
      met, [](const ModeFigures& f) { return double(*f.gpusNeeded); }, true);
  for (const ModeFigures* w : winners)
    if (isolates(*w)) return phrase(text::kStudyIsolatingWins, modeName(*w));
  const ModeFigures* isolated = nullptr;  // the isolating mode needing the fewest GPUs
  for (const ModeFigures* f : met)
    if (isolates(*f) && (!isolated || *f->gpusNeeded < *isolated->gpusNeeded)) isolated = f;
  if (!isolated) return phrase(text::kStudyNoIsolating, names(winners));
  const ModeFigures* w = winners.front();
  const int extra = *isolated->gpusNeeded - *w->gpusNeeded;
  const double more = double(extra) / double(*w->gpusNeeded);  // isolation's cost
  const Text iso = modeName(*isolated);
  if (more <= 0.10)
    return phrase(text::kStudyIsolationCheap, iso, extra, names(winners), percent(more));
  // A saving is a share of what the isolating mode needs: 432 of 752 GPUs is 57 %, not 135 %.
  const double saved = double(extra) / double(*isolated->gpusNeeded);
  return phrase(text::kStudySaves, names(winners), extra, iso, percent(saved));
}

nlohmann::json percentilesJson(const Percentiles& p) {
  return {{"p50", p.p50}, {"p95", p.p95}, {"max", p.max}, {"count", p.count}};
}

nlohmann::json modeJson(const ModeFigures& f) {
  nlohmann::json j{{"mode", sharingStudyModeName(f.mode)}};
  if (!f.skipped.empty()) {
    j["skipped"] = f.skipped;
    return j;
  }
  j["gpus"] = f.gpus;
  j["shared_gpus"] = f.sharedGpus;
  if (!f.layouts.empty()) j["mig_layouts"] = f.layouts;
  j["gpus_needed"] = f.gpusNeeded ? nlohmann::json(*f.gpusNeeded) : nlohmann::json(nullptr);
  j["targets_met"] = f.targetsMet;
  j["allocation"] = f.allocation;
  j["busy"] = f.busy;
  j["stranded_gpus"] = f.strandedGpus;
  j["gpu_hours_beyond_need"] = f.grantedBeyondNeed;
  j["co_located_jobs"] = f.coLocatedJobs;
  j["jobs"] = f.jobs;
  j["small_jobs"] = f.smallJobs;
  j["completed"] = f.completed;
  j["never_started"] = f.neverStarted;
  j["refused"] = f.refused;
  for (const auto& [c, p] : f.waitByClass)
    j["wait_s_by_class"][workloadClassName(c)] = percentilesJson(p);
  j["runs"] = f.runs;
  return j;
}

int columnOf(WorkloadClass c) {
  return std::max(8, static_cast<int>(std::string(workloadClassName(c)).size()) + 2);
}

std::string neededText(const ModeFigures& f) {
  return f.gpusNeeded ? std::to_string(*f.gpusNeeded) : ">" + std::to_string(f.gpus);
}

}  // namespace

std::vector<Text> sharingRecommendationSentences(const SharingStudy& s) {
  const auto modes = ran(s);
  if (modes.empty()) return {phrase(text::kStudyNoModeRan)};
  Sentences out;
  gpusSentences(s, modes, out);
  out.push_back(utilizationSentence(modes));
  isolationSentences(modes, out);
  out.push_back(verdict(s, modes));
  return out;
}

std::string sharingRecommendation(const std::vector<Text>& sentences) {
  std::string out;
  for (const Text& sentence : sentences) out += (out.empty() ? "" : " ") + sentence.english();
  return out;
}

std::string sharingRecommendation(const SharingStudy& s) {
  return sharingRecommendation(sharingRecommendationSentences(s));
}

std::string sharingStudyText(const SharingStudy& s) {
  std::ostringstream o;
  o << "sharing study: " << s.workload << " (" << s.jobs << " jobs) on " << s.cluster << " ("
    << s.gpus << " GPUs), " << s.timeSliceSlots
    << " slots per time-sliced GPU\nwait targets (p95):";
  for (const auto& t : s.targets)
    o << ' ' << workloadClassName(t.workloadClass) << ' ' << formatDuration(t.p95);
  o << "\nGPUs needed for the targets, allocated and busy % of capacity, GPUs stranded (mean), "
       "GPU-hours granted beyond need, jobs co-located without fault isolation, wait p95 by "
       "class (minutes)\n\n";
  const auto classes = classesOf(s);
  o << std::left << std::setw(14) << "mode" << std::right << std::setw(7) << "shared"
    << std::setw(8) << "needed" << std::setw(8) << "alloc%" << std::setw(7) << "busy%"
    << std::setw(10) << "stranded" << std::setw(12) << "beyond GPUh" << std::setw(11)
    << "co-located";
  for (WorkloadClass c : classes) o << std::setw(columnOf(c)) << workloadClassName(c);
  o << "\n";
  for (const auto& f : s.modes) {
    o << std::left << std::setw(14) << sharingStudyModeName(f.mode) << std::right;
    if (!f.skipped.empty()) {
      o << "  skipped: " << f.skipped << "\n";
      continue;
    }
    o << std::fixed << std::setprecision(1) << std::setw(7) << f.sharedGpus << std::setw(8)
      << neededText(f) << std::setw(8) << 100 * f.allocation << std::setw(7) << 100 * f.busy
      << std::setw(10) << f.strandedGpus << std::setw(12) << f.grantedBeyondNeed << std::setw(11)
      << f.coLocatedJobs;
    for (WorkloadClass c : classes) {
      const auto w = f.waitByClass.find(c);
      o << std::setw(columnOf(c))
        << (w == f.waitByClass.end() ? std::string("-") : fixed1(w->second.p95 / 60));
    }
    o << "\n";
  }
  for (const auto& f : s.modes)
    if (!f.layouts.empty()) o << "\nMIG layouts (repartition planner): " << f.layouts << "\n";
  o << "\n" << s.recommendation << "\n";
  return o.str();
}

void writeSharingStudyJson(std::ostream& out, const SharingStudy& s) {
  nlohmann::json j{{"cluster", s.cluster},
                   {"workload", s.workload},
                   {"jobs", s.jobs},
                   {"gpus", s.gpus},
                   {"time_slice_slots", s.timeSliceSlots},
                   {"recommendation", s.recommendation}};
  for (const auto& t : s.targets) j["wait_targets_s"][workloadClassName(t.workloadClass)] = t.p95;
  j["modes"] = nlohmann::json::array();
  for (const auto& f : s.modes) j["modes"].push_back(modeJson(f));
  out << j.dump(2) << "\n";
}

void writeSharingStudyCsv(std::ostream& out, const SharingStudy& s) {
  const auto classes = classesOf(s);
  out << "mode,skipped,gpus,shared_gpus,gpus_needed,targets_met,allocation,busy,stranded_gpus,"
         "gpu_hours_beyond_need,co_located_jobs,jobs,never_started";
  for (WorkloadClass c : classes) out << ",wait_p95_s_" << workloadClassName(c);
  out << "\n";
  for (const auto& f : s.modes) {
    out << sharingStudyModeName(f.mode) << ','
        << (f.skipped.empty() ? "" : "\"" + f.skipped + "\"");
    if (!f.skipped.empty()) {
      out << "\n";
      continue;
    }
    out << ',' << f.gpus << ',' << f.sharedGpus << ','
        << (f.gpusNeeded ? std::to_string(*f.gpusNeeded) : "") << ','
        << (f.targetsMet ? "yes" : "no") << ',' << f.allocation << ',' << f.busy << ','
        << f.strandedGpus << ',' << f.grantedBeyondNeed << ',' << f.coLocatedJobs << ',' << f.jobs
        << ',' << f.neverStarted;
    for (WorkloadClass c : classes) {
      const auto w = f.waitByClass.find(c);
      out << ',' << (w == f.waitByClass.end() ? std::string() : std::to_string(w->second.p95));
    }
    out << "\n";
  }
}

}  // namespace tessera
