// tessera schedule | scenario run | policy show | policy validate
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cli.h"
#include "cli/cli_context.h"
#include "scheduler/explain.h"
#include "scheduler/scenario.h"
#include "workload/workload_spec.h"

namespace tessera::cli {

namespace {

struct ScheduleArgs {
  std::string cluster, workload, policy, exportPath;
  std::string at = "0";
  int cycles = 1;
  std::vector<JobId> explain;
};

std::string requestText(const Job& j) {
  std::string per;
  switch (j.perTask.kind) {
    case GpuRequest::Kind::Whole:
      per = std::to_string(j.perTask.gpus) + " GPU";
      break;
    case GpuRequest::Kind::Mig:
      per = j.perTask.migProfile;
      break;
    case GpuRequest::Kind::Fraction:
      per = std::to_string(j.perTask.milli) + "m GPU";
      break;
    case GpuRequest::Kind::Mps:
      per = "MPS " + std::to_string(j.perTask.mpsThreads) + "%";
      break;
    case GpuRequest::Kind::None:
      per = "-";
      break;
  }
  return j.tasks > 1 ? std::to_string(j.tasks) + "x" + per : per;
}

Expected<Engine> buildScheduleEngine(Context& ctx, const ScheduleArgs& a, Seconds& at) {
  const GpuCatalog* catalog = ctx.catalog();
  if (!catalog) return Error{"cannot load the GPU catalog", {}};
  TESSERA_TRY(cluster, loadClusterOrDemo(a.cluster, *catalog));
  TESSERA_TRY(workload,
              a.workload.empty() ? demoWorkload(catalog) : loadWorkloadFile(a.workload, catalog));
  Policy policy;
  if (!a.policy.empty()) {
    TESSERA_TRY(p, loadPolicyFile(a.policy));
    policy = std::move(p);
  }
  const auto when = parseDuration(a.at);
  if (!when) return Error{"--at: bad duration '" + a.at + "' (like 0, 90s, 15m, 2h)", {}};
  at = *when;
  return Engine::create(cluster, workload, std::move(policy));
}

nlohmann::json jobJson(const Engine& e, const JobRecord& j) {
  nlohmann::json o{{"id", j.job.id},
                   {"name", j.job.name},
                   {"team", j.job.team},
                   {"priority", j.job.priorityClass},
                   {"request", requestText(j.job)},
                   {"state", jobStateName(j.state)}};
  if (j.placement) o["placement"] = placementText(e.cluster(), *j.placement);
  if (j.state == JobState::Pending) {
    o["queue_position"] = e.queuePosition(j);
    o["reason"] = j.reason.english();
    if (j.eta) o["eta"] = *j.eta;
  }
  return o;
}

void printText(std::ostream& out, const Engine& e, const CycleStats& st) {
  const auto jobs = e.jobs();
  const int total = static_cast<int>(e.cluster().gpus().size());
  out << "t=" << e.now() << "s  cycle " << st.cycle << ": " << st.started << " started ("
      << st.backfilled << " backfilled), " << st.preempted << " preempted, " << st.reservations
      << " reservations, " << std::fixed << std::setprecision(1) << st.cycleMs << " ms\n";
  out << "whole GPUs free: " << e.state().freeWholeGpus() << " of " << total << "\n\nRUNNING\n";
  out << std::left << std::setw(5) << "ID" << std::setw(20) << "NAME" << std::setw(9) << "TEAM"
      << std::setw(21) << "PRIORITY" << std::setw(11) << "REQUEST"
      << "PLACEMENT\n";
  for (const JobRecord* j : jobs)
    if (j->state == JobState::Running)
      out << std::setw(5) << j->job.id << std::setw(20) << j->job.name.substr(0, 19) << std::setw(9)
          << j->job.team << std::setw(21) << j->job.priorityClass << std::setw(11)
          << requestText(j->job) << placementText(e.cluster(), *j->placement) << "\n";
  out << "\nPENDING (queue order)\n"
      << std::setw(5) << "POS" << std::setw(5) << "ID" << std::setw(20) << "NAME" << std::setw(9)
      << "TEAM" << std::setw(11) << "REQUEST" << std::setw(9) << "ETA"
      << "REASON\n";
  for (const JobRecord* j : e.queue())
    out << std::setw(5) << e.queuePosition(*j) << std::setw(5) << j->job.id << std::setw(20)
        << j->job.name.substr(0, 19) << std::setw(9) << j->job.team << std::setw(11)
        << requestText(j->job) << std::setw(9)
        << (j->eta ? "t=" + std::to_string(*j->eta) : std::string("-")) << j->reason.english()
        << "\n";
  out << std::right;
}

int schedule(Context& ctx, const ScheduleArgs& a) {
  Seconds at = 0;
  auto engine = buildScheduleEngine(ctx, a, at);
  if (!engine) return ctx.fail(engine.error().str(), kExitUsage);
  Engine& e = *engine;
  if (auto moved = e.advanceTo(at); !moved) return ctx.fail(moved.error().str(), kExitUsage);
  CycleStats st;
  for (int i = 0; i < a.cycles; ++i) st = e.runCycle();
  std::vector<Explanation> explanations;
  for (JobId id : a.explain) {
    auto ex = explain(e, id);
    if (!ex) return ctx.fail("--explain: " + ex.error().str(), kExitUsage);
    explanations.push_back(std::move(*ex));
  }
  if (ctx.format == "json") {
    nlohmann::json out{{"now", e.now()},
                       {"cycle",
                        {{"number", st.cycle},
                         {"ms", st.cycleMs},
                         {"started", st.started},
                         {"backfilled", st.backfilled},
                         {"preempted", st.preempted},
                         {"reservations", st.reservations},
                         {"pending", st.pending}}},
                       {"free_whole_gpus", e.state().freeWholeGpus()},
                       {"jobs", nlohmann::json::array()},
                       {"explanations", nlohmann::json::array()}};
    for (const JobRecord* j : e.jobs()) out["jobs"].push_back(jobJson(e, *j));
    for (const auto& ex : explanations) {
      nlohmann::json cf = nlohmann::json::array();
      for (const auto& c : ex.counterfactuals)
        cf.push_back({{"kind", counterfactualKindName(c.kind)}, {"text", c.text.english()}});
      out["explanations"].push_back({{"job", ex.job},
                                     {"state", jobStateName(ex.state)},
                                     {"reason", ex.dominantReason.english()},
                                     {"nodes", ex.nodeSummary.english()},
                                     {"fragmentation", ex.fragmentation.english()},
                                     {"queue_position", ex.queuePosition.value_or(0)},
                                     {"eta", ex.eta ? nlohmann::json(*ex.eta) : nlohmann::json()},
                                     {"blocking_jobs", ex.blockingJobs},
                                     {"counterfactuals", cf}});
    }
    ctx.out << out.dump(2) << "\n";
  } else {
    printText(ctx.out, e, st);
    for (const auto& ex : explanations) ctx.out << "\n" << ex.text();
  }
  if (!a.exportPath.empty()) {
    std::ofstream file(a.exportPath);
    if (!(file << exportScenario(e, "exported-from-tessera-schedule")) || !file.flush())
      return ctx.fail("cannot write '" + a.exportPath + "'", kExitUsage);
    ctx.err << "wrote " << a.exportPath << " (replay: tessera scenario run " << a.exportPath
            << ")\n";
  }
  return kExitOk;
}

int runScenarios(Context& ctx, const std::vector<std::string>& paths, bool verbose) {
  int code = kExitOk;
  for (const auto& path : paths) {
    auto s = loadScenarioFile(path);
    if (!s) {
      ctx.err << s.error().str() << "\n";
      code = std::max(code, loadErrorCode(path));
      continue;
    }
    // The finished engine is kept only to print its event log.
    std::optional<Engine> finished;
    if (verbose) finished = *Engine::create(s->cluster, {}, {});
    auto report = runScenario(*s, finished ? &*finished : nullptr);
    if (!report) {
      ctx.err << path << ": " << report.error().str() << "\n";
      code = std::max(code, kExitInvalid);
      continue;
    }
    if (report->ok()) {
      ctx.out << path << ": OK (" << report->stepsRun << " steps, " << report->checks
              << " checks)\n";
    } else {
      ctx.out << report->text(path);
      code = std::max(code, kExitInvalid);
    }
    if (finished)
      for (const auto& ev : finished->events())
        ctx.out << "  #" << ev.seq << " t=" << ev.time << " " << eventKindName(ev.kind)
                << (ev.job ? " job " + std::to_string(ev.job) : std::string()) << ": "
                << ev.reason.english() << "\n";
  }
  return code;
}

int showPolicy(Context& ctx, const std::string& path) {
  Policy p;
  if (!path.empty()) {
    auto loaded = loadPolicyFile(path);
    if (!loaded) return ctx.fail(loaded.error().str(), loadErrorCode(path));
    p = std::move(*loaded);
  }
  ctx.out << "# effective policy" << (path.empty() ? " (built-in defaults)" : " of " + path) << "\n"
          << writePolicy(p) << "\n# plugins available at each extension point\n";
  for (const char* point :
       {"queue_order", "admission", "filter", "score", "permit", "preemption", "backfill"}) {
    ctx.out << "# " << point << ":";
    for (const auto& n : PluginRegistry::builtin().names(point)) ctx.out << " " << n;
    ctx.out << "\n";
  }
  return kExitOk;
}

int validatePolicies(Context& ctx, const std::vector<std::string>& paths) {
  int code = kExitOk;
  for (const auto& path : paths) {
    auto p = loadPolicyFile(path);
    if (!p) {
      ctx.err << p.error().str() << "\n";
      code = std::max(code, loadErrorCode(path));
      continue;
    }
    ctx.out << path << ": OK\n";
  }
  return code;
}

}  // namespace

void addScheduleVerbs(CLI::App& app, Context& ctx) {
  auto a = std::make_shared<ScheduleArgs>();
  auto* sched = app.add_subcommand(
      "schedule",
      "Run the scheduler engine on a cluster and workload: placements, pending reasons, "
      "explanations (default: the demo cluster and demo workload)");
  sched->add_option("--cluster", a->cluster, "Cluster spec (default: the built-in demo cluster)");
  sched->add_option("--workload", a->workload,
                    "Workload file: teams, priority classes, jobs (default: the demo workload)");
  sched->add_option("--policy", a->policy, "Policy file (default: the built-in policy)");
  sched->add_option("--at", a->at, "Clock before the first cycle (jobs submitted by then arrive)")
      ->capture_default_str();
  sched->add_option("--cycles", a->cycles, "Scheduling cycles to run")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  sched->add_option("--explain", a->explain, "Explain this job (repeatable)");
  sched->add_option("--export", a->exportPath,
                    "Write the engine's input as a replayable scenario file");
  sched->add_option("-o,--output", ctx.format, "Output format")
      ->check(CLI::IsMember({"text", "json"}));
  sched->callback([&ctx, a] { ctx.exitCode = schedule(ctx, *a); });

  auto* scenario =
      app.add_subcommand("scenario", "Declarative scheduler scenarios (docs/scenario-format.md)");
  scenario->require_subcommand(1);
  auto paths = std::make_shared<std::vector<std::string>>();
  auto verbose = std::make_shared<bool>(false);
  auto* run = scenario->add_subcommand(
      "run", "Run scenario files and check their expectations (exit 1 when one fails)");
  run->add_option("FILE", *paths, "Scenario files")->required();
  run->add_flag("-v,--verbose", *verbose, "Print each scenario's event log");
  run->callback([&ctx, paths, verbose] { ctx.exitCode = runScenarios(ctx, *paths, *verbose); });

  auto* policy = app.add_subcommand("policy", "Scheduler policy files (docs/scheduler-policy.md)");
  policy->require_subcommand(1);
  auto showPath = std::make_shared<std::string>();
  auto* show = policy->add_subcommand(
      "show", "Print the effective policy (default: built-in) and the plugins available");
  show->add_option("FILE", *showPath, "Policy file");
  show->callback([&ctx, showPath] { ctx.exitCode = showPolicy(ctx, *showPath); });
  auto policyPaths = std::make_shared<std::vector<std::string>>();
  auto* validate =
      policy->add_subcommand("validate", "Check policy files; errors name file:line:column");
  validate->add_option("FILE", *policyPaths, "Policy files")->required();
  validate->callback([&ctx, policyPaths] { ctx.exitCode = validatePolicies(ctx, *policyPaths); });
}

}  // namespace tessera::cli
