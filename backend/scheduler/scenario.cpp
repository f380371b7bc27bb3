#include "scheduler/scenario.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "clusterspec/cluster_spec.h"
#include "clusterspec/cluster_spec_writer.h"
#include "core/strings.h"
#include "mig/mig_validate.h"
#include "scheduler/command_yaml.h"
#include "scheduler/explain.h"
#include "scheduler/transaction.h"
#include "topology/yaml_reader.h"

namespace tessera {

namespace {

// ---------------------------------------------------------------- small vocabulary

std::optional<TopologyLevel> levelFromWord(const std::string& w) {
  if (w == "gpu") return TopologyLevel::Gpu;
  if (w == "node") return TopologyLevel::Node;
  if (w == "nvlink-domain") return TopologyLevel::NvlinkDomain;
  if (w == "leaf") return TopologyLevel::Leaf;
  if (w == "spine") return TopologyLevel::Spine;
  if (w == "cluster" || w == "any") return TopologyLevel::Cluster;
  return std::nullopt;
}

constexpr std::pair<EventKind, const char*> kEventWords[] = {
    {EventKind::Submitted, "submitted"}, {EventKind::Admitted, "admitted"},
    {EventKind::Started, "started"},     {EventKind::Completed, "completed"},
    {EventKind::Failed, "failed"},       {EventKind::Cancelled, "cancelled"},
    {EventKind::Preempted, "preempted"}, {EventKind::Requeued, "requeued"},
    {EventKind::Held, "held"},           {EventKind::Released, "released"},
    {EventKind::Command, "command"}};

const char* eventWord(EventKind k) {
  for (auto [kind, word] : kEventWords)
    if (kind == k) return word;
  return "?";
}

std::optional<EventKind> eventKindFromWord(const std::string& w) {
  for (auto [kind, word] : kEventWords)
    if (w == word) return kind;
  return std::nullopt;
}

constexpr JobState kStates[] = {JobState::Pending,   JobState::Admitted, JobState::Running,
                                JobState::Completed, JobState::Failed,   JobState::Cancelled,
                                JobState::Preempted};

std::optional<JobState> stateFromWord(const std::string& w) {
  for (JobState s : kStates)
    if (w == jobStateName(s)) return s;
  return std::nullopt;
}

std::string idList(const std::vector<JobId>& ids) {
  std::string out = "[";
  for (size_t i = 0; i < ids.size(); ++i) out += (i ? ", " : "") + std::to_string(ids[i]);
  return out + "]";
}

std::string inQuotes(const std::string& s) {
  return "'" + s + "'";
}

int lineOf(const YamlField& f) {
  return f.location().line;
}

Expected<JobId> jobIdOf(const YamlField& f, const std::set<JobId>& known) {
  TESSERA_TRY(id, f.asInt(1));
  const auto job = static_cast<JobId>(id);
  if (!known.contains(job))
    return f.error("unknown job id " + std::to_string(id) +
                   " (not in the workload and never submitted by a step)");
  return job;
}

Expected<std::vector<JobId>> jobIdsOf(const YamlField& f, const std::set<JobId>& known) {
  TESSERA_CHECK(f.expectSequence());
  std::vector<JobId> out;
  for (size_t i = 0; i < f.size(); ++i) {
    TESSERA_TRY(id, jobIdOf(f.item(i), known));
    out.push_back(id);
  }
  return out;
}

// Map entries keyed by job id ("7: {...}").
Expected<std::vector<std::pair<JobId, YamlField>>> jobEntries(const YamlField& f,
                                                              const std::set<JobId>& known) {
  TESSERA_CHECK(f.expectMap());
  std::vector<std::pair<JobId, YamlField>> out;
  for (auto& [key, value] : f.entries()) {
    const auto id = parseInt(key);
    // The key's own location is the value's best approximation.
    if (!id || *id < 1) return value.error("'" + key + "' is not a job id");
    const auto job = static_cast<JobId>(*id);
    if (!known.contains(job))
      return value.error("unknown job id " + key +
                         " (not in the workload and never submitted by a step)");
    out.emplace_back(job, value);
  }
  return out;
}

// Strings given as one scalar or a list.
Expected<std::vector<std::string>> oneOrMany(const YamlField& f) {
  if (f.isScalar()) {
    TESSERA_TRY(s, f.asString());
    return std::vector<std::string>{s};
  }
  return f.asStringList();
}

std::vector<std::string> placementGpus(const Cluster& c, const GangPlacement& p) {
  std::vector<std::string> out;
  for (const auto& t : p.tasks)
    for (GpuId g : t.gpus) out.push_back(c.gpuName(g));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::string> placementNodes(const Cluster& c, const GangPlacement& p) {
  std::vector<std::string> out;
  for (const auto& t : p.tasks) out.push_back(c.node(t.node).name);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string listText(const std::vector<std::string>& v) {
  return "[" + join(v, ", ") + "]";
}

std::vector<std::string> sortedUnique(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

std::vector<JobId> sortedIds(std::vector<JobId> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// ---------------------------------------------------------------- expectations
//
// One walk over an `expect:` map serves both loading (no engine: structure, keys, job ids,
// durations are checked and errors returned) and running (each expectation compared with the
// engine; mismatches become report failures).

struct StepOutcome {
  bool hadCommand = false;
  std::optional<CommandResult> result;
  std::string commandError;
};

class ExpectWalker {
 public:
  ExpectWalker(const std::set<JobId>& known, const Engine* engine, const StepOutcome* outcome,
               ScenarioReport* report)
      : known_(known), engine_(engine), outcome_(outcome), report_(report) {}

  Status walk(const YamlField& e) {
    TESSERA_CHECK(e.expectMap());
    TESSERA_CHECK(e.onlyKeys({"jobs", "events", "no_events", "explain", "impact", "stats",
                              "free_gpus", "queue", "message", "layouts"}));
    if (e.has("jobs")) {
      TESSERA_TRY(entries, jobEntries(e.child("jobs"), known_));
      for (auto& [id, f] : entries) TESSERA_CHECK(jobExpect(id, f));
    }
    if (e.has("events")) TESSERA_CHECK(events(e.child("events"), true));
    if (e.has("no_events")) TESSERA_CHECK(events(e.child("no_events"), false));
    if (e.has("explain")) {
      TESSERA_TRY(entries, jobEntries(e.child("explain"), known_));
      for (auto& [id, f] : entries) TESSERA_CHECK(explainExpect(id, f));
    }
    if (e.has("impact")) TESSERA_CHECK(impact(e.child("impact")));
    if (e.has("stats")) TESSERA_CHECK(stats(e.child("stats")));
    if (e.has("free_gpus")) {
      const YamlField f = e.child("free_gpus");
      TESSERA_TRY(n, f.asInt(0));
      if (engine_) compare(f, n, engine_->state().freeWholeGpus(), "free whole GPUs");
    }
    if (e.has("queue")) {
      const YamlField f = e.child("queue");
      TESSERA_TRY(ids, jobIdsOf(f, known_));
      if (engine_) {
        std::vector<JobId> actual;
        for (const JobRecord* r : engine_->queue()) actual.push_back(r->job.id);
        check(f, ids == actual, "queue is " + idList(actual) + ", expected " + idList(ids));
      }
    }
    if (e.has("layouts")) {
      const YamlField l = e.child("layouts");
      TESSERA_CHECK(l.expectMap());
      for (auto& [gpuText, value] : l.entries()) {
        TESSERA_TRY(text, value.asString());
        if (!engine_) continue;
        const Cluster& c = engine_->cluster();
        const Gpu* g = c.findGpu(gpuText);
        if (!g) {
          check(value, false, "unknown GPU '" + gpuText + "'");
          continue;
        }
        const GpuModel& model = c.modelOf(g->id);
        auto want = parseMigLayout(model, text);
        if (!want) {
          check(value, false, "invalid expected layout: " + want.error().message);
          continue;
        }
        want->sortByStart();
        const GpuOccupancy& o = engine_->state().gpu(g->id);
        MigLayout now = o.layout;
        for (int i = 0; i < now.size(); ++i)
          now[i].busy = o.instanceOwner[static_cast<size_t>(i)] != kNoJob;
        now.sortByStart();
        const std::string a = formatMigLayout(model, now, true);
        const std::string b = formatMigLayout(model, *want, true);
        check(value, a == b, "GPU " + gpuText + " layout is '" + a + "', expected '" + b + "'");
      }
    }
    if (e.has("message")) {
      const YamlField f = e.child("message");
      TESSERA_TRY(text, f.asString());
      if (engine_) {
        const std::string actual =
            outcome_->result ? outcome_->result->message.english() : outcome_->commandError;
        if (!outcome_->hadCommand)
          check(f, false, "message expected, but the step ran no command");
        else
          check(f, contains(actual, text),
                "command message " + inQuotes(actual) + " does not contain " + inQuotes(text));
      }
    }
    return okStatus();
  }

 private:
  const std::set<JobId>& known_;
  const Engine* engine_;
  const StepOutcome* outcome_;
  ScenarioReport* report_;

  void check(const YamlField& f, bool ok, const std::string& message) {
    ++report_->checks;
    if (!ok) report_->failures.push_back({lineOf(f), f.path() + ": " + message});
  }

  template <class T>
  void compare(const YamlField& f, const T& expected, const T& actual, const std::string& what) {
    check(f, expected == actual,
          what + " is " + std::to_string(actual) + ", expected " + std::to_string(expected));
  }

  void substring(const YamlField& f, const std::string& actual, const std::string& needle,
                 const std::string& what) {
    check(f, contains(actual, needle),
          what + " " + inQuotes(actual) + " does not contain " + inQuotes(needle));
  }

  Expected<std::optional<Seconds>> optionalTime(const YamlField& f) {
    if (f.isScalar() && f.node().Scalar() == "none") return std::optional<Seconds>{};
    TESSERA_TRY(t, durationOf(f));
    return std::optional<Seconds>{t};
  }

  static std::string timeText(const std::optional<Seconds>& t) {
    return t ? formatDuration(*t) : std::string("none");
  }

  Status jobExpect(JobId id, const YamlField& f) {
    TESSERA_CHECK(f.expectMap());
    TESSERA_CHECK(f.onlyKeys({"state", "nodes", "gpus", "span", "reason", "eta", "queue_position",
                              "preemptions", "work_kept", "waiting_for", "held"}));
    const JobRecord* r = engine_ ? engine_->job(id) : nullptr;
    if (engine_ && !r) {
      check(f, false, "job " + std::to_string(id) + " does not exist in the engine");
      return okStatus();
    }
    const std::string who = "job " + std::to_string(id);
    if (f.has("state")) {
      const YamlField s = f.child("state");
      TESSERA_TRY(word, s.asString());
      const auto state = stateFromWord(word);
      if (!state)
        return s.error("unknown job state '" + word +
                       "' (pending, admitted, running, completed, failed, cancelled, preempted)");
      if (r)
        check(s, r->state == *state,
              who + " is " + jobStateName(r->state) + ", expected " + word +
                  (r->reason.empty() ? "" : " (reason: " + r->reason.english() + ")"));
    }
    if (f.has("nodes") || f.has("gpus") || f.has("span")) {
      for (const char* key : {"nodes", "gpus"}) {
        if (!f.has(key)) continue;
        const YamlField l = f.child(key);
        TESSERA_TRY(expected, l.asStringList());
        if (!r) continue;
        if (!r->placement) {
          check(l, false, who + " has no placement (" + jobStateName(r->state) + ")");
          continue;
        }
        const auto actual = std::string(key) == "nodes"
                                ? placementNodes(engine_->cluster(), *r->placement)
                                : placementGpus(engine_->cluster(), *r->placement);
        check(l, sortedUnique(expected) == actual,
              who + " " + key + " are " + listText(actual) + ", expected " +
                  listText(sortedUnique(expected)));
      }
      if (f.has("span")) {
        const YamlField s = f.child("span");
        TESSERA_TRY(word, s.asString());
        const auto level = levelFromWord(word);
        if (!level)
          return s.error("span must be gpu, node, nvlink-domain, leaf, spine or cluster, got '" +
                         word + "'");
        if (r) {
          if (!r->placement)
            check(s, false, who + " has no placement");
          else
            check(s, r->placement->span == *level,
                  who + " spans " + topologyLevelName(r->placement->span) + ", expected " + word);
        }
      }
    }
    if (f.has("reason")) {
      const YamlField s = f.child("reason");
      TESSERA_TRY(text, s.asString());
      if (r) substring(s, r->reason.english(), text, who + " reason");
    }
    if (f.has("eta")) {
      const YamlField s = f.child("eta");
      TESSERA_TRY(eta, optionalTime(s));
      if (r)
        check(s, r->eta == eta,
              who + " eta is " + timeText(r->eta) + ", expected " + timeText(eta));
    }
    if (f.has("queue_position")) {
      const YamlField s = f.child("queue_position");
      TESSERA_TRY(pos, s.asInt(1));
      if (r) {
        int actual = 0;
        const auto q = engine_->queue();
        for (size_t i = 0; i < q.size(); ++i)
          if (q[i]->job.id == id) actual = static_cast<int>(i) + 1;
        check(s, actual == pos,
              who + " queue position is " +
                  (actual ? std::to_string(actual) : std::string("none (not queued)")) +
                  ", expected " + std::to_string(pos));
      }
    }
    if (f.has("preemptions")) {
      const YamlField s = f.child("preemptions");
      TESSERA_TRY(n, s.asInt(0));
      if (r) compare(s, n, r->preemptions, who + " preemptions");
    }
    if (f.has("work_kept")) {
      const YamlField s = f.child("work_kept");
      TESSERA_TRY(t, durationOf(s));
      if (r)
        check(s, r->workKept == t,
              who + " work kept is " + formatDuration(r->workKept) + ", expected " +
                  formatDuration(t));
    }
    if (f.has("waiting_for")) {
      const YamlField s = f.child("waiting_for");
      TESSERA_TRY(ids, jobIdsOf(s, known_));
      if (r)
        check(s, sortedIds(ids) == sortedIds(r->waitingFor),
              who + " waits for " + idList(sortedIds(r->waitingFor)) + ", expected " +
                  idList(sortedIds(ids)));
    }
    if (f.has("held")) {
      const YamlField s = f.child("held");
      TESSERA_TRY(b, s.asBool());
      if (r)
        check(s, r->job.held == b,
              who + (r->job.held ? " is held" : " is not held") + ", expected the opposite");
    }
    return okStatus();
  }

  Status events(const YamlField& list, bool mustOccur) {
    TESSERA_CHECK(list.expectSequence());
    for (size_t i = 0; i < list.size(); ++i) {
      const YamlField f = list.item(i);
      TESSERA_CHECK(f.expectMap());
      TESSERA_CHECK(f.onlyKeys({"kind", "job", "by", "reason", "actor", "from", "to"}));
      std::optional<EventKind> kind;
      std::optional<JobId> job, by;
      std::optional<JobState> from, to;
      std::string reason, actor;
      if (f.has("kind")) {
        TESSERA_TRY(word, f.child("kind").asString());
        kind = eventKindFromWord(word);
        if (!kind)
          return f.child("kind").error(
              "unknown event kind '" + word +
              "' (submitted, admitted, started, completed, failed, cancelled, preempted, "
              "requeued, held, released, command)");
      }
      if (f.has("job")) {
        TESSERA_TRY(id, jobIdOf(f.child("job"), known_));
        job = id;
      }
      if (f.has("by")) {
        TESSERA_TRY(id, jobIdOf(f.child("by"), known_));
        by = id;
      }
      for (auto [key, out] : {std::pair{"from", &from}, {"to", &to}}) {
        if (!f.has(key)) continue;
        TESSERA_TRY(word, f.child(key).asString());
        *out = stateFromWord(word);
        if (!*out) return f.child(key).error("unknown job state '" + word + "'");
      }
      if (f.has("reason")) {
        TESSERA_TRY(text, f.child("reason").asString());
        reason = text;
      }
      if (f.has("actor")) {
        TESSERA_TRY(text, f.child("actor").asString());
        actor = text;
      }
      if (!engine_) continue;
      bool found = false;
      for (const Event& ev : engine_->events()) {
        if (kind && ev.kind != *kind) continue;
        if (job && ev.job != *job) continue;
        if (by && ev.by != *by) continue;
        if (from && ev.from != *from) continue;
        if (to && ev.to != *to) continue;
        if (!reason.empty() && !contains(ev.reason.english(), reason)) continue;
        if (!actor.empty() && ev.actor != actor) continue;
        found = true;
        break;
      }
      if (mustOccur) {
        std::string log;
        if (!found && job) {
          for (const Event& ev : engine_->events())
            if (ev.job == *job)
              log += std::string("\n    ") + eventWord(ev.kind) + " at " + formatDuration(ev.time) +
                     (ev.by ? " by " + std::to_string(ev.by) : "") + ": " + ev.reason.english();
        }
        check(f, found, "no such event in the log" + (log.empty() ? "" : "; job's events:" + log));
      } else {
        check(f, !found, "the log has an event that must not occur");
      }
    }
    return okStatus();
  }

  Status explainExpect(JobId id, const YamlField& f) {
    TESSERA_CHECK(f.expectMap());
    TESSERA_CHECK(
        f.onlyKeys({"dominant", "counterfactual", "fragmentation", "blocking_jobs",
                    "queue_position", "eta", "node_summary", "text", "no_counterfactual"}));
    std::optional<Explanation> ex;
    const std::string who = "explain job " + std::to_string(id);
    if (engine_) {
      auto e = explain(*engine_, id);
      if (!e) {
        check(f, false, who + " failed: " + e.error().str());
        return okStatus();
      }
      ex = std::move(*e);
    }
    auto text = [&](const char* key, auto&& actual) -> Status {
      if (!f.has(key)) return okStatus();
      const YamlField s = f.child(key);
      TESSERA_TRY(needle, s.asString());
      if (ex) substring(s, actual(), needle, who + " " + key);
      return okStatus();
    };
    TESSERA_CHECK(text("dominant", [&] { return ex->dominantReason.english(); }));
    TESSERA_CHECK(text("fragmentation", [&] { return ex->fragmentation.english(); }));
    TESSERA_CHECK(text("node_summary", [&] { return ex->nodeSummary.english(); }));
    TESSERA_CHECK(text("text", [&] { return ex->text(); }));
    for (auto [key, wanted] : {std::pair{"counterfactual", true}, {"no_counterfactual", false}}) {
      if (!f.has(key)) continue;
      const YamlField s = f.child(key);
      TESSERA_TRY(needles, oneOrMany(s));
      if (!ex) continue;
      std::vector<std::string> all;
      for (const auto& c : ex->counterfactuals) all.push_back(c.text.english());
      for (const auto& needle : needles) {
        const bool found = std::any_of(all.begin(), all.end(),
                                       [&](const std::string& t) { return contains(t, needle); });
        check(s, found == wanted,
              who + (wanted ? ": no counterfactual contains " : ": a counterfactual contains ") +
                  inQuotes(needle) + "; counterfactuals: " + listText(all));
      }
    }
    if (f.has("blocking_jobs")) {
      const YamlField s = f.child("blocking_jobs");
      TESSERA_TRY(ids, jobIdsOf(s, known_));
      if (ex)
        check(s, sortedIds(ids) == sortedIds(ex->blockingJobs),
              who + " blocking jobs are " + idList(sortedIds(ex->blockingJobs)) + ", expected " +
                  idList(sortedIds(ids)));
    }
    if (f.has("queue_position")) {
      const YamlField s = f.child("queue_position");
      TESSERA_TRY(pos, s.asInt(1));
      if (ex)
        check(s, ex->queuePosition == pos,
              who + " queue position is " +
                  (ex->queuePosition ? std::to_string(*ex->queuePosition) : std::string("none")) +
                  ", expected " + std::to_string(pos));
    }
    if (f.has("eta")) {
      const YamlField s = f.child("eta");
      TESSERA_TRY(eta, optionalTime(s));
      if (ex)
        check(s, ex->eta == eta,
              who + " eta is " + timeText(ex->eta) + ", expected " + timeText(eta));
    }
    return okStatus();
  }

  Status impact(const YamlField& f) {
    TESSERA_CHECK(f.expectMap());
    TESSERA_CHECK(
        f.onlyKeys({"started", "preempted", "stopped", "gpu_hours_lost", "placement", "warning"}));
    const Impact* im = engine_ && outcome_->result ? &outcome_->result->impact : nullptr;
    if (engine_ && !im) {
      check(f, false,
            outcome_->hadCommand ? "the command failed: " + outcome_->commandError
                                 : std::string("impact expected, but the step ran no command"));
      return okStatus();
    }
    for (const char* key : {"started", "preempted", "stopped"}) {
      if (!f.has(key)) continue;
      const YamlField s = f.child(key);
      TESSERA_TRY(ids, jobIdsOf(s, known_));
      if (!im) continue;
      const std::string k = key;
      const auto& actual = k == "started"     ? im->started
                           : k == "preempted" ? im->preempted
                                              : im->stopped;
      check(s, sortedIds(ids) == sortedIds(actual),
            "impact " + k + " is " + idList(sortedIds(actual)) + ", expected " +
                idList(sortedIds(ids)));
    }
    if (f.has("warning")) {
      const YamlField s = f.child("warning");
      TESSERA_TRY(text, s.asString());
      if (im) {
        std::string all;
        for (const auto& w : im->warnings) all += w.english() + "\n";
        check(s, all.find(text) != std::string::npos,
              "impact warnings '" + all + "' do not contain '" + text + "'");
      }
    }
    if (f.has("gpu_hours_lost")) {
      const YamlField s = f.child("gpu_hours_lost");
      TESSERA_TRY(h, s.asDouble());
      if (im)
        check(s, std::abs(im->gpuHoursLost - h) < 0.01,
              "impact GPU hours lost is " + std::to_string(im->gpuHoursLost) + ", expected " +
                  std::to_string(h));
    }
    if (f.has("placement")) {
      const YamlField s = f.child("placement");
      TESSERA_TRY(needle, s.asString());
      if (im) {
        std::vector<std::string> changes;
        for (const PlacementChange& p : im->placementChanges) changes.push_back(p.english());
        const bool found = std::any_of(changes.begin(), changes.end(),
                                       [&](const std::string& t) { return contains(t, needle); });
        check(s, found,
              "no placement change contains " + inQuotes(needle) + ": " + listText(changes));
      }
    }
    return okStatus();
  }

  Status stats(const YamlField& f) {
    TESSERA_CHECK(f.expectMap());
    TESSERA_CHECK(f.onlyKeys({"pending", "considered", "started", "backfilled", "preempted",
                              "reservations", "placements", "refused_unplaced"}));
    const CycleStats* st = engine_ ? &engine_->stats().last : nullptr;
    const std::pair<const char*, const int CycleStats::*> fields[] = {
        {"pending", &CycleStats::pending},
        {"considered", &CycleStats::considered},
        {"started", &CycleStats::started},
        {"backfilled", &CycleStats::backfilled},
        {"preempted", &CycleStats::preempted},
        {"reservations", &CycleStats::reservations},
        {"placements", &CycleStats::placements},
        {"refused_unplaced", &CycleStats::refusedUnplaced}};
    for (auto [key, member] : fields) {
      if (!f.has(key)) continue;
      const YamlField s = f.child(key);
      TESSERA_TRY(n, s.asInt(0));
      if (st) compare(s, n, st->*member, std::string("last cycle's ") + key);
    }
    return okStatus();
  }
};

// ---------------------------------------------------------------- loading

class ScenarioLoader {
 public:
  explicit ScenarioLoader(std::string file) : file_(std::move(file)) {}

  Expected<Scenario> load(std::string_view text) {
    TESSERA_TRY(doc, parseYaml(text, file_));
    const YamlField root(doc, "", &file_);
    if (!doc.IsMap())
      return root.error("a scenario is a map with name, description, cluster, workload, steps");
    TESSERA_CHECK(
        root.onlyKeys({"name", "description", "cluster", "workload", "policy", "state", "steps"}));
    Scenario s;
    s.file = file_;
    TESSERA_TRY(name, root.stringAt("name"));
    TESSERA_TRY(description, root.stringAt("description"));
    if (name.empty()) return root.child("name").error("a scenario needs a name");
    s.name = name;
    s.description = description;

    TESSERA_TRY(cluster, root.require("cluster"));
    if (cluster.isScalar()) {
      if (cluster.node().Scalar() != "demo")
        return cluster.error("cluster is a cluster spec map, or 'demo' for the built-in one");
      s.cluster = demoCluster();
    } else {
      ClusterSpecOptions options;
      const auto dir = std::filesystem::path(file_).parent_path();
      options.baseDir = dir.empty() ? "." : dir.string();
      TESSERA_TRY(c, loadClusterSpecNode(cluster.node(), file_, "cluster", options));
      s.cluster = c;
    }

    if (root.has("workload")) {
      TESSERA_TRY(w, loadWorkloadNode(root.child("workload").node(), file_, "workload"));
      s.workload = std::move(w);
    } else {
      s.workload.priorityClasses = defaultPriorityClasses();
    }
    if (root.has("policy")) {
      TESSERA_TRY(p, loadPolicyNode(root.child("policy").node(), file_, "policy"));
      s.policy = std::move(p);
    }
    for (const auto& j : s.workload.jobs) known_.insert(j.id);

    // Jobs submitted by steps are known to every expectation (ids are checked, not timing).
    std::vector<std::pair<YamlField, Command>> commands;
    if (root.has("steps") && !root.child("steps").node().IsNull()) {
      const YamlField steps = root.child("steps");
      TESSERA_CHECK(steps.expectSequence());
      for (size_t i = 0; i < steps.size(); ++i) {
        const YamlField st = steps.item(i);
        if (!st.has("command")) continue;
        TESSERA_TRY(c, commandFromYaml(st.child("command"), &s.workload));
        if (const auto* sub = std::get_if<cmd::Submit>(&c)) known_.insert(sub->job.id);
      }
    }
    if (root.has("state")) TESSERA_CHECK(readState(root.child("state"), s));
    if (root.has("steps") && !root.child("steps").node().IsNull()) {
      const YamlField steps = root.child("steps");
      for (size_t i = 0; i < steps.size(); ++i) {
        TESSERA_TRY(step, readStep(steps.item(i), s));
        s.steps.push_back(std::move(step));
      }
    }
    return s;
  }

 private:
  std::string file_;
  std::set<JobId> known_;

  Status readState(const YamlField& f, Scenario& s) {
    TESSERA_CHECK(f.expectMap());
    TESSERA_CHECK(f.onlyKeys({"layouts", "running", "now", "fair_share"}));
    if (f.has("now")) {
      TESSERA_TRY(now, durationOf(f.child("now")));
      s.now = now;
    }
    if (f.has("fair_share")) {
      const YamlField fs = f.child("fair_share");
      TESSERA_CHECK(fs.expectMap());
      for (auto& [team, value] : fs.entries()) {
        if (!s.workload.team(team)) return value.error("unknown team '" + team + "'");
        TESSERA_TRY(usage, value.asDouble());
        if (!(usage >= 0) || usage > 1e18) return value.error("usage must be >= 0 GPU-seconds");
        s.fairShare.emplace_back(team, usage);
      }
    }
    if (f.has("layouts")) {
      const YamlField layouts = f.child("layouts");
      TESSERA_CHECK(layouts.expectMap());
      for (auto& [gpuText, value] : layouts.entries()) {
        const Gpu* g = s.cluster->findGpu(gpuText);
        if (!g) return value.error("unknown GPU '" + gpuText + "' (node/index)");
        if (g->sharing.mode != SharingMode::Mig)
          return value.error("GPU " + gpuText + " is not in MIG mode in the cluster spec");
        TESSERA_TRY(text, value.asString());
        const GpuModel& model = s.cluster->modelOf(g->id);
        auto layout = parseMigLayout(model, text);
        if (!layout) return value.error("invalid MIG layout: " + layout.error().message);
        if (!layout->allPlaced())
          return value.error("every instance needs its start (@N) in a state layout");
        const MigVerdict v = validateMigLayout(*model.mig, *layout);
        if (!v.ok())
          return value.error("invalid MIG layout: " + explainMigVerdict(model, *layout, v));
        s.layouts.emplace_back(gpuText, text);
      }
    }
    if (f.has("running")) {
      const YamlField list = f.child("running");
      TESSERA_CHECK(list.expectSequence());
      std::set<JobId> seen;
      for (size_t i = 0; i < list.size(); ++i) {
        const YamlField r = list.item(i);
        TESSERA_CHECK(r.expectMap());
        TESSERA_CHECK(r.onlyKeys({"job", "started", "work_kept", "tasks"}));
        ScenarioRunning run;
        TESSERA_TRY(jobField, r.require("job"));
        TESSERA_TRY(id, jobIdOf(jobField, known_));
        const Job* job = nullptr;
        for (const auto& j : s.workload.jobs)
          if (j.id == id) job = &j;
        if (!job) return jobField.error("a running job must be one of the workload's jobs");
        if (!seen.insert(id).second)
          return jobField.error("job " + std::to_string(id) + " is listed twice");
        run.job = id;
        if (r.has("started")) {
          TESSERA_TRY(t, durationOf(r.child("started")));
          run.started = t;
        }
        if (r.has("work_kept")) {
          TESSERA_TRY(t, durationOf(r.child("work_kept")));
          run.workKept = t;
        }
        TESSERA_TRY(tasks, r.require("tasks"));
        TESSERA_CHECK(tasks.expectSequence());
        if (static_cast<int>(tasks.size()) != job->tasks)
          return tasks.error("job " + std::to_string(id) + " has " + std::to_string(job->tasks) +
                             " tasks, the state lists " + std::to_string(tasks.size()));
        for (size_t t = 0; t < tasks.size(); ++t) {
          TESSERA_TRY(task, readTask(tasks.item(t), *job, s));
          run.tasks.push_back(std::move(task));
        }
        s.running.push_back(std::move(run));
      }
    }
    return okStatus();
  }

  Expected<ScenarioTask> readTask(const YamlField& f, const Job& job, const Scenario& s) {
    TESSERA_CHECK(f.expectMap());
    TESSERA_CHECK(f.onlyKeys({"node", "gpus", "mig_start"}));
    ScenarioTask task;
    TESSERA_TRY(node, f.stringAt("node"));
    const Node* n = s.cluster->findNode(node);
    if (!n) return f.child("node").error("unknown node '" + node + "'");
    task.node = node;
    if (f.has("gpus")) {
      TESSERA_TRY(gpus, f.child("gpus").asIntList(0, n->gpuCount() - 1));
      task.gpus = std::move(gpus);
    }
    if (f.has("mig_start")) {
      TESSERA_TRY(start, f.intAt("mig_start", 0, kMaxMemorySlices - 1));
      task.migStart = start;
    }
    const int want = job.perTask.kind == GpuRequest::Kind::Whole  ? job.perTask.gpus
                     : job.perTask.kind == GpuRequest::Kind::None ? 0
                                                                  : 1;
    if (static_cast<int>(task.gpus.size()) != want)
      return f.error("a task of job " + std::to_string(job.id) + " holds " + std::to_string(want) +
                     " GPU(s), the state lists " + std::to_string(task.gpus.size()));
    if ((job.perTask.kind == GpuRequest::Kind::Mig) != (task.migStart >= 0))
      return f.error(job.perTask.kind == GpuRequest::Kind::Mig
                         ? "a MIG task needs mig_start (its instance's first memory slice)"
                         : "mig_start is only for MIG tasks");
    return task;
  }

  Expected<ScenarioStep> readStep(const YamlField& f, const Scenario& s) {
    TESSERA_CHECK(f.expectMap());
    TESSERA_CHECK(f.onlyKeys({"at", "cycle", "complete", "fail", "checkpoint", "command", "actor",
                              "dry_run", "expect_error", "expect"}));
    ScenarioStep step;
    step.line = lineOf(f);
    if (f.has("at")) {
      TESSERA_TRY(t, durationOf(f.child("at")));
      step.at = t;
    }
    if (f.has("cycle")) {
      TESSERA_TRY(n, f.intAt("cycle", 0, 100'000));
      step.cycles = n;
    }
    for (auto [key, out] : {std::pair{"complete", &step.complete},
                            {"fail", &step.fail},
                            {"checkpoint", &step.checkpoint}}) {
      if (!f.has(key)) continue;
      TESSERA_TRY(ids, jobIdsOf(f.child(key), known_));
      *out = std::move(ids);
    }
    if (f.has("command")) {
      TESSERA_TRY(c, commandFromYaml(f.child("command"), &s.workload));
      step.command = std::move(c);
    }
    for (const char* key : {"actor", "dry_run", "expect_error"})
      if (f.has(key) && !f.has("command"))
        return f.child(key).error(std::string(key) + " needs a command in the same step");
    if (f.has("actor")) {
      TESSERA_TRY(a, f.child("actor").asString());
      step.actor = a;
    }
    if (f.has("dry_run")) {
      TESSERA_TRY(b, f.child("dry_run").asBool());
      step.dryRun = b;
    }
    if (f.has("expect_error")) {
      TESSERA_TRY(e, f.child("expect_error").asString());
      if (e.empty()) return f.child("expect_error").error("expect_error needs a substring");
      step.expectError = e;
    }
    if (f.has("expect")) {
      const YamlField e = f.child("expect");
      ScenarioReport scratch;
      ExpectWalker walker(known_, nullptr, nullptr, &scratch);
      TESSERA_CHECK(walker.walk(e));
      step.expect = e.node();
    }
    return step;
  }
};

// The job ids a scenario's expectations may name (for re-walking them when running).
std::set<JobId> knownIds(const Scenario& s) {
  std::set<JobId> ids;
  for (const auto& j : s.workload.jobs) ids.insert(j.id);
  for (const auto& st : s.steps)
    if (st.command)
      if (const auto* sub = std::get_if<cmd::Submit>(&*st.command)) ids.insert(sub->job.id);
  return ids;
}

}  // namespace

// ---------------------------------------------------------------- public API

Expected<Scenario> loadScenario(std::string_view text, const std::string& fileName) {
  ScenarioLoader loader(fileName);
  return loader.load(text);
}

Expected<Scenario> loadScenarioFile(const std::string& path) {
  TESSERA_TRY(text, readTextFile(path));
  return loadScenario(text, path);
}

namespace {

// ---------------------------------------------------------------- building

// Puts one running job in place through Engine::restoreRunning: submitted, then given exactly
// the GPUs (and MIG instance starts) the state names, started at its start time.
Status restoreRunning(Engine& e, const Scenario& s, const ScenarioRunning& run) {
  const Cluster& c = e.cluster();
  const std::string who = "state.running: job " + std::to_string(run.job);
  Job job;
  for (const auto& j : s.workload.jobs)
    if (j.id == run.job) job = j;
  if (job.submitTime > run.started)
    return Error{who + " starts (" + formatDuration(run.started) + ") before its submit time (" +
                     formatDuration(job.submitTime) + ")",
                 {}};
  if (run.started > e.now()) TESSERA_CHECK(e.advanceTo(run.started));
  if (auto submitted = e.resubmit(job); !submitted)  // it was running: it could run
    return Error{who + ": " + submitted.error().message, {}};
  std::vector<Engine::RestoredTask> tasks;
  for (const auto& t : run.tasks) {
    const Node& n = *c.findNode(t.node);
    Engine::RestoredTask task;
    task.node = n.id;
    for (int i : t.gpus) task.gpus.push_back(n.firstGpu + static_cast<GpuId>(i));
    task.migStart = t.migStart;
    tasks.push_back(std::move(task));
  }
  if (auto restored = e.restoreRunning(run.job, tasks, run.started, run.workKept); !restored)
    return Error{who + ": " + restored.error().message, {}};
  return okStatus();
}

}  // namespace

namespace {

// The state's clock, then its fair-share usage as it stood then (set after the clock moved, so
// no decay applies to it twice).
Status restoreClock(Engine& e, const Scenario& s) {
  if (s.now) {
    if (*s.now < e.now())
      return Error{"state.now (" + formatDuration(*s.now) + ") is before the latest start (" +
                       formatDuration(e.now()) + ")",
                   {}};
    TESSERA_CHECK(e.advanceTo(*s.now));
  }
  if (!s.fairShare.empty()) TESSERA_CHECK(e.restoreFairShare(s.fairShare));
  return okStatus();
}

}  // namespace

Expected<Engine> buildEngine(const Scenario& s) {
  std::shared_ptr<const Cluster> cluster = s.cluster;
  if (!s.layouts.empty()) {
    auto copy = std::make_shared<Cluster>(*s.cluster);
    for (const auto& [gpuText, text] : s.layouts) {
      const Gpu* g = copy->findGpu(gpuText);
      if (!g) return Error{"state.layouts: unknown GPU '" + gpuText + "'", {}};
      TESSERA_TRY(layout, parseMigLayout(copy->modelOf(g->id), text));
      for (auto& inst : layout) inst.busy = false;
      layout.sortByStart();
      copy->mutableGpu(g->id).sharing.mig = layout;
    }
    cluster = copy;
  }
  Workload tenants = s.workload;
  std::set<JobId> runningIds;
  for (const auto& r : s.running) runningIds.insert(r.job);
  std::vector<Job> rest;
  for (const auto& j : s.workload.jobs)
    if (!runningIds.contains(j.id)) rest.push_back(j);
  tenants.jobs.clear();
  if (s.running.empty()) tenants.jobs = rest;
  TESSERA_TRY(engine, Engine::create(cluster, tenants, s.policy));
  if (s.running.empty()) {
    TESSERA_CHECK(restoreClock(engine, s));
    return engine;
  }
  std::vector<const ScenarioRunning*> order;
  for (const auto& r : s.running) order.push_back(&r);
  std::stable_sort(order.begin(), order.end(),
                   [](const auto* a, const auto* b) { return a->started < b->started; });
  for (const auto* r : order) TESSERA_CHECK(restoreRunning(engine, s, *r));
  // The other jobs, in submit order, as Engine::create would have submitted them.
  std::stable_sort(rest.begin(), rest.end(),
                   [](const Job& a, const Job& b) { return a.submitTime < b.submitTime; });
  for (auto& j : rest) {
    const JobId job = j.id;
    auto id = engine.submit(std::move(j));
    if (!id) return s.workload.atJobSource(job, id.error());
  }
  TESSERA_CHECK(restoreClock(engine, s));
  return engine;
}

Expected<ScenarioReport> runScenario(const Scenario& s, Engine* engineOut) {
  TESSERA_TRY(engine, buildEngine(s));
  ScenarioReport report;
  const std::set<JobId> known = knownIds(s);
  auto invariants = [&](int line, const std::string& when) {
    for (const auto& v : engine.invariantViolations())
      report.failures.push_back({line, "invariant violated " + when + ": " + v});
  };
  invariants(0, "after building the engine");
  for (const auto& step : s.steps) {
    const int line = step.line;
    auto fail = [&](const std::string& m) { report.failures.push_back({line, m}); };
    StepOutcome outcome;
    if (step.at) {
      if (auto st = engine.advanceTo(*step.at); !st)
        fail("at " + formatDuration(*step.at) + ": " + st.error().str());
    }
    if (step.command) {
      outcome.hadCommand = true;
      auto r = execute(engine, *step.command, step.actor, step.dryRun);
      const std::string what = "command " + commandToYaml(*step.command);
      ++report.checks;
      if (r) {
        outcome.result = std::move(*r);
        if (!step.expectError.empty())
          fail(what + " succeeded (" + outcome.result->message.english() +
               "), expected an error containing " + inQuotes(step.expectError));
      } else {
        outcome.commandError = r.error().str();
        if (step.expectError.empty())
          fail(what + " failed: " + outcome.commandError);
        else if (!contains(outcome.commandError, step.expectError))
          fail(what + " failed with " + inQuotes(outcome.commandError) + ", expected " +
               inQuotes(step.expectError));
      }
    }
    for (JobId id : step.complete)
      if (auto st = engine.complete(id); !st)
        fail("complete " + std::to_string(id) + ": " + st.error().str());
    for (JobId id : step.fail)
      if (auto st = engine.fail(id, literal("failed (scenario step)")); !st)
        fail("fail " + std::to_string(id) + ": " + st.error().str());
    for (JobId id : step.checkpoint)
      if (auto st = engine.checkpoint(id); !st)
        fail("checkpoint " + std::to_string(id) + ": " + st.error().str());
    for (int i = 0; i < step.cycles; ++i) {
      engine.runCycle();
      if (step.cycles > 1 && i + 1 < step.cycles)
        invariants(line, "after cycle " + std::to_string(i + 1));
    }
    if (step.expect && !step.expect.IsNull()) {
      ExpectWalker walker(known, &engine, &outcome, &report);
      const YamlField e(step.expect, "expect", &s.file);
      if (auto st = walker.walk(e); !st) fail("expect: " + st.error().str());
    }
    invariants(line, "after the step");
    ++report.stepsRun;
  }
  if (engineOut) *engineOut = std::move(engine);
  return report;
}

std::string exportScenario(const Engine& engine, const std::string& name) {
  const Cluster& c = engine.cluster();
  YAML::Node root(YAML::NodeType::Map);
  root["name"] = name;
  root["description"] = "exported at engine time " + formatDuration(engine.now()) +
                        ": cluster, tenants, active jobs, running placements, MIG layouts, "
                        "reservations and policy; the step runs one cycle at that time";
  root["cluster"] = YAML::Load(writeClusterSpec(c));

  YAML::Node workload = tenantsToYaml(engine.priorityClasses(), engine.quotas().teams());
  YAML::Node jobs(YAML::NodeType::Sequence);
  for (const JobRecord* r : engine.jobs()) {
    if (!r->active()) continue;
    // The resolved pin travels by name, so the replay resolves it on the exported cluster.
    Job j = r->job;
    j.pinNodes.clear();
    j.pinGpus.clear();
    for (GpuId g : r->pinned) j.pinGpus.push_back(c.gpuName(g));
    jobs.push_back(jobToYamlNode(j));
  }
  for (const Job& f : engine.futureJobs()) jobs.push_back(jobToYamlNode(f));
  workload["jobs"] = jobs;
  root["workload"] = workload;
  root["policy"] = YAML::Load(writePolicy(engine.policy()));

  YAML::Node state(YAML::NodeType::Map);
  YAML::Node layouts(YAML::NodeType::Map);
  for (const Gpu& g : c.gpus()) {
    if (g.sharing.mode != SharingMode::Mig) continue;
    const GpuOccupancy& o = engine.state().gpu(g.id);
    MigLayout l = o.layout;
    for (int i = 0; i < l.size(); ++i)
      l[i].busy = o.instanceOwner[static_cast<size_t>(i)] != kNoJob;
    if (l == g.sharing.mig && l.empty()) continue;
    layouts[c.gpuName(g.id)] = formatMigLayout(c.modelOf(g.id), l, true);
  }
  if (layouts.size() > 0) state["layouts"] = layouts;
  YAML::Node running(YAML::NodeType::Sequence);
  for (const JobRecord* r : engine.running()) {
    if (!r->placement) continue;
    YAML::Node n(YAML::NodeType::Map);
    n["job"] = r->job.id;
    n["started"] = formatDuration(r->startTime);
    if (r->workKept > 0) n["work_kept"] = formatDuration(r->workKept);
    YAML::Node tasks(YAML::NodeType::Sequence);
    for (const auto& t : r->placement->tasks) {
      YAML::Node tn(YAML::NodeType::Map);
      tn.SetStyle(YAML::EmitterStyle::Flow);
      tn["node"] = c.node(t.node).name;
      YAML::Node gpus(YAML::NodeType::Sequence);
      gpus.SetStyle(YAML::EmitterStyle::Flow);
      for (GpuId g : t.gpus) gpus.push_back(c.gpu(g).index);
      tn["gpus"] = gpus;
      if (r->job.perTask.kind == GpuRequest::Kind::Mig && t.migStart >= 0)
        tn["mig_start"] = t.migStart;
      tasks.push_back(tn);
    }
    n["tasks"] = tasks;
    running.push_back(n);
  }
  if (running.size() > 0) state["running"] = running;
  state["now"] = formatDuration(engine.now());
  YAML::Node usage(YAML::NodeType::Map);
  const auto& teams = engine.quotas().teams();
  for (size_t t = 0; t < teams.size(); ++t)
    if (const double u = engine.fairShare().usage(static_cast<int>(t)); u > 0)
      usage[teams[t].name] = u;
  if (usage.size() > 0) state["fair_share"] = usage;
  if (state.size() > 0) root["state"] = state;

  YAML::Node steps(YAML::NodeType::Sequence);
  const std::string now = formatDuration(engine.now());
  for (const auto& r : engine.reservations().all()) {
    if (r.kind == Reservation::Kind::Backfill) continue;
    cmd::CreateReservation cr;
    cr.id = r.id;
    cr.nodes = r.nodes;
    if (cr.nodes.empty()) {
      std::set<std::string> names;
      for (GpuId g : r.gpus) names.insert(c.node(c.gpu(g).node).name);
      cr.nodes.assign(names.begin(), names.end());
    }
    cr.from = r.from;
    cr.until = r.until;
    cr.team = r.kind == Reservation::Kind::Team ? r.team : std::string();
    YAML::Node step(YAML::NodeType::Map);
    step["at"] = now;
    step["command"] = commandToYamlNode(Command{cr});
    steps.push_back(step);
  }
  // Nodes an operator drained or returned since the cluster was loaded, with the reason they
  // are out (in English: a scenario file holds an operator's words).
  const auto drainReason = [&](NodeId n) {
    const std::string why = engine.nodeReason(n).english();
    return literal(why.empty() ? std::string("exported state") : why);
  };
  for (const Node& n : c.nodes()) {
    const bool upNow = engine.state().nodeState(n.id) == NodeState::Up;
    if (upNow == (n.state == NodeState::Up)) continue;
    YAML::Node step(YAML::NodeType::Map);
    step["at"] = now;
    step["command"] = upNow ? commandToYamlNode(Command{cmd::Undrain{n.name}})
                            : commandToYamlNode(Command{cmd::Drain{n.name, drainReason(n.id)}});
    steps.push_back(step);
  }
  YAML::Node last(YAML::NodeType::Map);
  last["at"] = now;
  last["cycle"] = 1;
  steps.push_back(last);
  root["steps"] = steps;

  YAML::Emitter out;
  out << root;
  return std::string(out.c_str()) + "\n";
}

std::string ScenarioReport::text(const std::string& file) const {
  std::string out;
  for (const auto& f : failures)
    out += file + ":" + std::to_string(f.line) + ": " + f.message + "\n";
  out += file + ": " + std::to_string(stepsRun) + " steps, " + std::to_string(checks) +
         " checks, " + std::to_string(failures.size()) + " failed\n";
  return out;
}

}  // namespace tessera
