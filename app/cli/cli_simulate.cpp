// tessera simulate | simulate compare | simulate whatif | simulate sharing-study | simulate openb
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "cli/chart.h"
#include "cli/cli.h"
#include "cli/cli_context.h"
#include "cli/progress.h"
#include "clusterspec/cluster_spec.h"
#include "report/sim_record.h"
#include "scheduler/command_yaml.h"
#include "scheduler/scenario.h"
#include "sim/openb_cluster.h"
#include "sim/openb_data.h"
#include "sim/openb_experiment.h"
#include "sim/openb_families.h"
#include "sim/placement_quality.h"
#include "sim/sharing_study.h"
#include "sim/simulator.h"
#include "sim/synthetic.h"
#include "sim/trace_file.h"
#include "sim/whatif.h"

namespace tessera::cli {

namespace {

struct SimArgs {
  std::string cluster, openbNodes, snapshot;
  std::string workload, format, events;
  std::vector<std::string> policies;  // one for simulate/whatif; several for compare
  size_t synthetic = 0;               // synthetic jobs (default 1000 without --workload)
  double rate = 60;                   // synthetic arrivals per hour
  std::string seeds;                  // compare: several ("1,2,3" or "1-5")
  std::string duration, cycle = "30s", sample = "5m", grace = "30s", reconfig = "2m";
  bool keepGoing = false;
  size_t limit = 0;
  std::string metricsJson, samplesCsv, jobsCsv, chart, changes;
  std::string qualityChart;  // compare: placement quality per policy
  std::string record;        // a database for reports (report/sim_record.h)
  double pace = 0;
  bool noProgress = false, checkInvariants = false;
  bool studyMix = false;  // sharing-study: the synthetic workload is inference and dev work
};

// Everything a run needs, loaded once.
struct Inputs {
  std::shared_ptr<const Cluster> cluster;
  std::optional<Engine> snapshot;  // a saved state to start from
  Trace trace;
  std::vector<ScheduledEvent> events;
  SimConfig config;
};

// "42-51" or "42,43,45" (or both mixed).
Expected<std::vector<uint64_t>> seedList(const std::string& text) {
  std::vector<uint64_t> out;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    const auto dash = part.find('-');
    try {
      size_t used = 0;
      const uint64_t lo = std::stoull(part.substr(0, dash), &used);
      const uint64_t hi = dash == std::string::npos ? lo : std::stoull(part.substr(dash + 1));
      if (hi < lo || hi - lo > 10000) throw std::invalid_argument(part);
      for (uint64_t s = lo; s <= hi; ++s) out.push_back(s);
    } catch (const std::exception&) {
      return Error{"--seeds: bad seed list '" + text + "' (like 42-51 or 1,2,3)", {}};
    }
  }
  if (out.empty()) return Error{"--seeds: no seeds given", {}};
  return out;
}

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ','))
    if (!part.empty()) out.push_back(part);
  return out;
}

Expected<Seconds> durationArg(const std::string& flag, const std::string& text) {
  const auto d = parseDuration(text);
  if (!d) return Error{flag + ": bad duration '" + text + "' (like 90s, 15m, 2h, 1d)", {}};
  return *d;
}

Expected<SimConfig> configOf(const SimArgs& a, uint64_t seed) {
  SimConfig c;
  c.seed = seed;
  TESSERA_TRY(cycle, durationArg("--cycle-interval", a.cycle));
  TESSERA_TRY(sample, durationArg("--sample-interval", a.sample));
  TESSERA_TRY(grace, durationArg("--grace", a.grace));
  TESSERA_TRY(reconfig, durationArg("--mig-reconfig-time", a.reconfig));
  if (cycle <= 0 || sample <= 0)
    return Error{"--cycle-interval and --sample-interval must be positive", {}};
  c.cycleInterval = cycle;
  c.sampleInterval = sample;
  c.preemptionGrace = grace;
  c.migReconfigTime = reconfig;
  c.checkInvariants = a.checkInvariants;
  if (!a.duration.empty()) {
    TESSERA_TRY(d, durationArg("--duration", a.duration));
    c.until = d;
  }
  return c;
}

Expected<Trace> traceOf(const SimArgs& a, const Cluster& cluster, uint64_t seed) {
  if (a.workload.empty()) {
    SyntheticConfig sc = a.studyMix ? sharingStudySyntheticDefaults() : SyntheticConfig{};
    sc.jobs = a.synthetic > 0 ? a.synthetic : 1000;
    sc.arrivalsPerHour = a.rate;
    sc.seed = seed;
    return a.studyMix ? synthesizeForSharingStudy(cluster, sc) : synthesize(cluster, sc);
  }
  TraceReadOptions opts;
  opts.stopOnError = !a.keepGoing;
  opts.limit = a.limit;
  return loadTraceFile(a.workload, a.format, opts);
}

Workload tenantsOf(const Trace& t) {
  Workload w;
  w.priorityClasses = t.priorityClasses.empty() ? defaultPriorityClasses() : t.priorityClasses;
  w.teams = t.teams;
  return w;
}

// Options that do not depend on any file, checked before anything runs.
Status checkOptions(const SimArgs& a) {
  if (!(a.rate > 0) || !std::isfinite(a.rate) || a.rate > 1e6)
    return Error{"--rate must be more than 0 and at most 1000000 jobs per hour", {}};
  if (a.pace != 0 && (!(a.pace > 0) || !std::isfinite(a.pace) || a.pace > 1e9))
    return Error{"--pace must be a positive speed of at most 1e9", {}};
  for (const auto& [flag, file] :
       {std::pair{"--chart", a.chart}, {"--quality-chart", a.qualityChart}}) {
    const auto ext = std::filesystem::path(file).extension().string();
    if (!file.empty() && ext != ".svg" && ext != ".png")
      return Error{std::string(flag) + ": the file must end in .svg or .png: " + file, {}};
  }
  if (!a.seeds.empty()) TESSERA_CHECK(seedList(a.seeds));
  return okStatus();
}

uint64_t firstSeed(const SimArgs& a) {
  return a.seeds.empty() ? 1 : seedList(a.seeds)->front();
}

Expected<Inputs> loadInputs(Context& ctx, const SimArgs& a, uint64_t seed) {
  Inputs in;
  const GpuCatalog* catalog = ctx.catalog();
  if (!catalog) return Error{"cannot load the GPU catalog", {}};
  if (!a.snapshot.empty()) {
    if (!a.cluster.empty() || !a.openbNodes.empty())
      return Error{"--snapshot carries its own cluster: drop --cluster/--openb-nodes", {}};
    TESSERA_TRY(scenario, loadScenarioFile(a.snapshot));
    TESSERA_TRY(engine, buildEngine(scenario));
    in.cluster = scenario.cluster;
    in.snapshot.emplace(std::move(engine));
  } else if (!a.openbNodes.empty()) {
    TESSERA_TRY(c, readOpenbNodes(a.openbNodes));
    in.cluster = c;
  } else {
    TESSERA_TRY(c, loadClusterOrDemo(a.cluster, *catalog));
    in.cluster = c;
  }
  if (in.cluster->gpus().empty())
    return Error{"cluster '" + in.cluster->name + "' has no GPUs to simulate",
                 {a.cluster, 0, 0, ""}};
  TESSERA_TRY(trace, traceOf(a, *in.cluster, seed));
  in.trace = std::move(trace);
  for (size_t i = 0; i < in.trace.problems.size() && i < 5; ++i)
    ctx.err << "tessera: skipped " << in.trace.problems[i].str() << "\n";
  if (in.trace.problems.size() > 5)
    ctx.err << "tessera: ... and " << in.trace.problems.size() - 5 << " more skipped rows\n";
  if (!a.events.empty()) {
    const Workload tenants = tenantsOf(in.trace);
    TESSERA_TRY(events, loadSimEventsFile(a.events, &tenants));
    TESSERA_CHECK(checkSimEvents(*in.cluster, events));
    in.events = std::move(events);
  }
  TESSERA_TRY(config, configOf(a, seed));
  in.config = config;
  return in;
}

Expected<Policy> policyOf(const std::string& path) {
  if (path.empty() || path == "default") return Policy{};
  return loadPolicyFile(path);
}

Expected<Engine> engineOf(const Inputs& in, const Policy& policy) {
  if (in.snapshot) {
    Engine e = *in.snapshot;
    TESSERA_CHECK(e.setPolicy(policy));
    // The trace's teams join the snapshot's tenants only if it names them already.
    return e;
  }
  return engineForTrace(in.cluster, in.trace, policy);
}

// A progress bar on a terminal; nothing when stderr is a file or a test's stream.

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Paced against wall time: the console's live mode, here with a one-line status.
Status runPaced(Simulator& sim, double speed, bool status) {
  PacedClock clock(speed);
  const auto t0 = std::chrono::steady_clock::now();
  clock.start(sim.now(), 0);
  while (!sim.finished()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    TESSERA_TRY(more, sim.runUntil(clock.simTimeAt(secondsSince(t0))));
    if (status)
      std::fprintf(stderr, "\rt=%s running %zu", formatDuration(sim.now()).c_str(),
                   sim.engine().running().size());
    std::fflush(stderr);
    if (!more) break;
  }
  if (status) std::fprintf(stderr, "\n");
  return okStatus();
}

Status writeOutputs(const SimArgs& a, const Simulator& sim, const SimSummary& s) {
  auto open = [](const std::string& path, auto&& write) -> Status {
    std::ofstream f(path);
    if (!f) return Error{"cannot write " + path, {}};
    write(f);
    if (!f) return Error{"cannot write " + path, {}};
    return okStatus();
  };
  if (!a.metricsJson.empty())
    TESSERA_CHECK(open(a.metricsJson, [&](std::ostream& o) { writeSummaryJson(o, s); }));
  if (!a.samplesCsv.empty())
    TESSERA_CHECK(
        open(a.samplesCsv, [&](std::ostream& o) { writeSamplesCsv(o, sim.metrics().samples()); }));
  if (!a.jobsCsv.empty())
    TESSERA_CHECK(open(a.jobsCsv, [&](std::ostream& o) { writeJobsCsv(o, sim.outcomes()); }));
  return okStatus();
}

// 2 when a named file cannot be read (or an option is malformed), 1 when it was read and is
// invalid: the rule every verb follows.
int inputError(Context& ctx, const Error& e) {
  return ctx.fail(e.str(), e.where.file.empty() ? kExitUsage : loadErrorCode(e.where.file));
}

// What one run (or a what-if's baseline) starts from: checked options, inputs, policy, engine.
struct Prepared {
  Inputs in;
  std::optional<Engine> engine;
};

// Fails with the exit code the verb returns (its message already printed).
Expected<Prepared> prepare(Context& ctx, const SimArgs& a, int& code) {
  auto fail = [&](const Error& e, int exit) -> Expected<Prepared> {
    code = exit < 0 ? inputError(ctx, e) : ctx.fail(e.str(), exit);
    return e;
  };
  if (const Status ok = checkOptions(a); !ok) return fail(ok.error(), -1);
  auto in = loadInputs(ctx, a, firstSeed(a));
  if (!in) return fail(in.error(), -1);
  auto policy = policyOf(a.policies.empty() ? "" : a.policies.front());
  if (!policy) return fail(policy.error(), -1);
  auto engine = engineOf(*in, *policy);
  if (!engine) return fail(engine.error(), kExitInvalid);
  Prepared p{std::move(*in), {}};
  p.engine.emplace(std::move(*engine));
  return p;
}

int simulate(Context& ctx, const SimArgs& a) {
  int code = kExitOk;
  auto prepared = prepare(ctx, a, code);
  if (!prepared) return code;
  const Inputs* in = &prepared->in;
  Simulator sim(std::move(*prepared->engine), in->trace, in->config, in->events);
  // Fail before a long run, not after it, when the record cannot be written.
  if (!a.record.empty() && std::filesystem::exists(a.record))
    return ctx.fail(a.record + ": the record file exists already; give a new file", kExitUsage);
  UsageRecorder usage([&sim](const JobRecord& r, Seconds t) -> std::optional<JobTelemetry> {
    return sim.jobTelemetry(r.job.id, t);
  });
  if (!a.record.empty()) sim.recordUsage(&usage);
  const auto t0 = std::chrono::steady_clock::now();
  Progress progress(ctx, !a.noProgress && ctx.format == "text", "of arrivals");
  const bool status = !a.noProgress && ctx.format == "text";
  const Status run = a.pace > 0 ? runPaced(sim, a.pace, status) : sim.run(std::ref(progress));
  progress.finish();
  if (!run) return ctx.fail("simulation stopped: " + run.error().str(), kExitInvalid);
  SimSummary s = sim.summary();
  s.wallSeconds = secondsSince(t0);
  if (const Status w = writeOutputs(a, sim, s); !w) return ctx.fail(w.error().str(), kExitUsage);
  if (!a.record.empty()) {
    usage.follow(sim.engine());
    if (const Status w = writeSimulationRecord(sim, usage, a.record); !w)
      return ctx.fail(w.error().str(), kExitUsage);
  }
  if (ctx.format == "json") {
    std::ostringstream o;
    writeSummaryJson(o, s);
    auto j = nlohmann::json::parse(o.str());
    j["log_hash"] = std::to_string(sim.logHash());
    j["trace"] = {{"source", in->trace.source},
                  {"jobs", in->trace.jobs.size()},
                  {"skipped_rows", in->trace.problems.size()}};
    ctx.out << j.dump(2) << "\n";
  } else {
    ctx.out << in->trace.source << ": " << in->trace.jobs.size() << " jobs on "
            << in->cluster->gpus().size() << " GPUs\n"
            << summaryText(s);
    for (const auto& l : sim.log())
      ctx.out << "  t=" << formatDuration(l.time) << " " << l.what << "\n";
    ctx.out << "log hash " << std::hex << sim.logHash() << std::dec << "\n";
  }
  return kExitOk;
}

// ---- compare

struct CompareRun {
  std::string policy;
  uint64_t seed = 0;
  SimSummary summary;
  std::vector<MetricSample> samples;
  PlacementQuality quality;
  std::string error;
};

std::string policyLabel(const std::string& path) {
  if (path.empty() || path == "default") return "default";
  return std::filesystem::path(path).stem().string();
}

// One policy x seed on inputs loaded beforehand (read once, shared read-only by the threads).
void runOne(const Inputs& in, const Policy& policy, CompareRun& r) {
  auto engine = engineOf(in, policy);
  if (!engine) return void(r.error = engine.error().str());
  Simulator sim(std::move(*engine), in.trace, in.config, in.events);
  const auto t0 = std::chrono::steady_clock::now();
  auto quality = runMeasuringPlacement(sim);
  if (!quality) return void(r.error = quality.error().str());
  r.quality = *quality;
  r.summary = sim.summary();
  r.summary.wallSeconds = secondsSince(t0);
  r.samples = sim.metrics().samples();
}

void printCompareTable(Context& ctx, const std::vector<CompareRun>& runs) {
  auto& o = ctx.out;
  o << std::left << std::setw(16) << "policy" << std::right << std::setw(6) << "seed"
    << std::setw(8) << "alloc%" << std::setw(8) << "busy%" << std::setw(8) << "SM%" << std::setw(11)
    << "wait p50m" << std::setw(11) << "wait p95m" << std::setw(10) << "JCT p50h" << std::setw(10)
    << "slowdown" << std::setw(9) << "preempt" << std::setw(10) << "GPUh lost" << std::setw(8)
    << "done" << std::setw(8) << "wall s"
    << "\n";
  for (const auto& r : runs) {
    const SimSummary& s = r.summary;
    o << std::left << std::setw(16) << r.policy.substr(0, 15) << std::right << std::setw(6)
      << r.seed << std::fixed << std::setprecision(1) << std::setw(8) << 100 * s.allocation
      << std::setw(8) << 100 * s.busy << std::setw(8) << 100 * s.effective << std::setw(11)
      << s.wait.p50 / 60 << std::setw(11) << s.wait.p95 / 60 << std::setw(10) << s.jct.p50 / 3600
      << std::setprecision(2) << std::setw(10) << s.slowdown.p50 << std::setw(9) << s.preemptions
      << std::setprecision(1) << std::setw(10) << s.gpuHoursLost << std::setw(8) << s.completed
      << std::setprecision(2) << std::setw(8) << s.wallSeconds << "\n";
  }
}

// A share as a percentage, or "-" when no gang qualified.
std::string shareText(double share) {
  if (share < 0) return "-";
  std::ostringstream o;
  o << std::fixed << std::setprecision(1) << 100 * share;
  return o.str();
}

void printQualityTable(Context& ctx, const std::vector<CompareRun>& runs) {
  auto& o = ctx.out;
  o << "\nplacement quality (docs/simulator.md#placement-quality): MIG instances still placeable "
       "(mean), gangs together (% of starts), stranded GPUs by cause (mean)\n"
    << std::left << std::setw(16) << "policy" << std::right << std::setw(6) << "seed"
    << std::setw(7) << "3g" << std::setw(7) << "7g" << std::setw(8) << "nvl%" << std::setw(8)
    << "leaf%";
  for (size_t c = 0; c < kStrandCauses; ++c)
    o << std::setw(c == 1 || c == 4 ? 15 : 14) << strandCauseName(StrandCause(c));
  o << "\n";
  for (const auto& r : runs) {
    const PlacementQuality& q = r.quality;
    o << std::left << std::setw(16) << r.policy.substr(0, 15) << std::right << std::setw(6)
      << r.seed << std::fixed << std::setprecision(1) << std::setw(7) << q.mig3g << std::setw(7)
      << q.mig7g << std::setw(8) << shareText(q.domainShare()) << std::setw(8)
      << shareText(q.leafShare());
    for (size_t c = 0; c < kStrandCauses; ++c)
      o << std::setw(c == 1 || c == 4 ? 15 : 14) << r.summary.stranded[c];
    o << "\n";
  }
}

nlohmann::json qualityJson(const PlacementQuality& q) {
  auto share = [](double v) { return v < 0 ? nlohmann::json(nullptr) : nlohmann::json(v); };
  return {{"mig_3g_placeable", q.mig3g},
          {"mig_7g_placeable", q.mig7g},
          {"mig_samples", q.samples},
          {"gangs_domain_judged", q.domainGangs},
          {"gangs_in_one_nvlink_domain", q.inOneDomain},
          {"nvlink_domain_share", share(q.domainShare())},
          {"gangs_leaf_judged", q.leafGangs},
          {"gangs_in_one_leaf", q.inOneLeaf},
          {"leaf_share", share(q.leafShare())}};
}

nlohmann::json compareJson(const std::vector<CompareRun>& runs) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : runs) {
    std::ostringstream o;
    writeSummaryJson(o, r.summary);
    out.push_back({{"policy", r.policy},
                   {"seed", r.seed},
                   {"summary", nlohmann::json::parse(o.str())},
                   {"placement", qualityJson(r.quality)}});
  }
  return out;
}

// Per policy, the mean over its seeds of every placement-quality figure, in three panels.
BarChart qualityChart(const std::vector<CompareRun>& runs) {
  BarChart chart{"Placement quality per policy (mean over seeds)", {}, {}};
  BarPanel mig{"MIG room (instances)", {"3g.40gb class", "7g (full GPU)"}, {}};
  BarPanel gangs{"gangs together (% of starts)", {"one NVLink domain", "one leaf"}, {}};
  BarPanel stranded{"stranded GPUs by cause (mean)", {}, {}};
  for (size_t c = 0; c < kStrandCauses; ++c)
    stranded.groups.emplace_back(strandCauseName(StrandCause(c)));
  for (const auto& r : runs) {
    if (std::find(chart.series.begin(), chart.series.end(), r.policy) != chart.series.end())
      continue;
    chart.series.push_back(r.policy);
    std::vector<double> m(2, 0), g(2, 0), s(kStrandCauses, 0);
    std::array<int, 2> shares{};  // seeds with a share to average
    int seeds = 0;
    for (const auto& x : runs) {
      if (x.policy != r.policy) continue;
      ++seeds;
      m[0] += x.quality.mig3g, m[1] += x.quality.mig7g;
      const double sh[2] = {x.quality.domainShare(), x.quality.leafShare()};
      for (size_t i = 0; i < 2; ++i)
        if (sh[i] >= 0) g[i] += 100 * sh[i], ++shares[i];
      for (size_t c = 0; c < kStrandCauses; ++c) s[c] += x.summary.stranded[c];
    }
    for (double& v : m) v /= seeds;
    for (size_t i = 0; i < 2; ++i) g[i] = shares[i] > 0 ? g[i] / shares[i] : NAN;
    for (double& v : s) v /= seeds;
    mig.values.push_back(m);
    gangs.values.push_back(g);
    stranded.values.push_back(s);
  }
  chart.panels = {mig, gangs, stranded};
  return chart;
}

int compare(Context& ctx, const SimArgs& a) {
  if (const Status ok = checkOptions(a); !ok) return inputError(ctx, ok.error());
  std::vector<std::string> policies =
      a.policies.empty() ? std::vector<std::string>{"default"} : a.policies;
  std::vector<uint64_t> seeds = a.seeds.empty() ? std::vector<uint64_t>{1} : *seedList(a.seeds);
  // Every file is read once, before the runs: a bad one fails with its own exit code.
  std::map<uint64_t, Inputs> inputs;
  for (uint64_t seed : seeds) {
    auto in = loadInputs(ctx, a, seed);
    if (!in) return inputError(ctx, in.error());
    inputs.emplace(seed, std::move(*in));
  }
  std::map<std::string, Policy> loaded;
  for (const auto& p : policies) {
    auto policy = policyOf(p);
    if (!policy) return inputError(ctx, policy.error());
    loaded.emplace(p, std::move(*policy));
  }
  std::vector<CompareRun> runs;
  for (const auto& p : policies)
    for (uint64_t s : seeds) runs.push_back({p, s, {}, {}, {}, {}});
  std::atomic<size_t> next{0};
  const size_t threads =
      std::min<size_t>(runs.size(), std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (size_t t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      for (size_t i = next++; i < runs.size(); i = next++)
        runOne(inputs.at(runs[i].seed), loaded.at(runs[i].policy), runs[i]);
    });
  for (auto& t : pool) t.join();
  for (const auto& r : runs)
    if (!r.error.empty())
      return ctx.fail(r.policy + " seed " + std::to_string(r.seed) + ": " + r.error, kExitInvalid);
  for (auto& r : runs) r.policy = policyLabel(r.policy);
  if (ctx.format == "json") {
    ctx.out << compareJson(runs).dump(2) << "\n";
  } else {
    printCompareTable(ctx, runs);
    printQualityTable(ctx, runs);
  }
  if (!a.qualityChart.empty()) {
    if (const Status w = writeChart(qualityChart(runs), a.qualityChart); !w)
      return ctx.fail(w.error().str(), kExitUsage);
    if (ctx.format != "json") ctx.out << "wrote " << a.qualityChart << "\n";
  }
  if (!a.chart.empty()) {
    Chart chart{"GPU allocation over time (seed " + std::to_string(seeds.front()) + ")",
                "simulated hours",
                "GPUs allocated (% of capacity)",
                {}};
    for (const auto& r : runs) {
      if (r.seed != seeds.front()) continue;
      ChartSeries s{r.policy, {}};
      for (const auto& m : r.samples)
        if (m.capacity > 0)
          s.points.emplace_back(double(m.time) / 3600.0, 100 * m.allocated / m.capacity);
      chart.series.push_back(std::move(s));
    }
    if (const Status w = writeChart(chart, a.chart); !w)
      return ctx.fail(w.error().str(), kExitUsage);
    if (ctx.format != "json") ctx.out << "wrote " << a.chart << "\n";
  }
  return kExitOk;
}

// ---- what-if

int whatIf(Context& ctx, const SimArgs& a) {
  int code = kExitOk;
  auto prepared = prepare(ctx, a, code);
  if (!prepared) return code;
  const Inputs* in = &prepared->in;
  const Engine* base = &*prepared->engine;
  const Workload tenants = tenantsOf(in->trace);
  auto changes = loadWhatIfFile(a.changes, &tenants);
  if (!changes) return inputError(ctx, changes.error());
  auto r = runWhatIf(*base, in->trace, in->config, in->events, *changes);
  if (!r) return ctx.fail(r.error().str(), kExitInvalid);
  if (ctx.format == "json")
    writeWhatIfJson(ctx.out, *r, changes->name);
  else
    ctx.out << "what-if '" << changes->name << "' against the baseline, " << in->trace.jobs.size()
            << " jobs:\n"
            << whatIfTable(*r, changes->name);
  return kExitOk;
}

// ---- sharing study

struct StudyArgs {
  std::vector<std::string> modes;  // each may be a comma list
  std::vector<std::string> targets;
  int slots = 4;
  int threads = 0;
  bool noSearch = false;
};

// Options that need no file, checked first: the error names the option.
Expected<SharingStudyConfig> studyConfigOf(const SimArgs& a, const StudyArgs& s) {
  if (!a.snapshot.empty())
    return Error{"--snapshot: the sharing study declares the cluster's GPUs itself; give --cluster",
                 {}};
  if (!a.events.empty())
    return Error{"--events: the sharing study replays the workload without cluster events", {}};
  if (s.slots < 2 || s.slots > 64)
    return Error{
        "--slots must be 2 to 64 slots per time-sliced GPU, not " + std::to_string(s.slots), {}};
  if (s.threads < 0) return Error{"--threads must be 0 (one per core) or more", {}};
  SharingStudyConfig c;
  if (!s.modes.empty()) {
    c.modes.clear();
    c.modesExplicit = true;
    for (const auto& list : s.modes)
      for (const auto& name : splitList(list)) {
        const auto m = parseSharingStudyMode(name);
        if (!m)
          return Error{"--modes: unknown mode '" + name + "' (whole, time-slicing, mps, mig)", {}};
        if (std::find(c.modes.begin(), c.modes.end(), *m) == c.modes.end()) c.modes.push_back(*m);
      }
  }
  if (!s.targets.empty()) {
    TESSERA_TRY(targets, parseWaitTargets(s.targets));
    c.targets = targets;
  }
  c.timeSliceSlots = s.slots;
  c.threads = s.threads;
  c.searchGpusNeeded = !s.noSearch;
  return c;
}

// Side by side per mode: GPUs needed, busy %, stranded GPUs, co-located jobs, wait p95 by class.
BarChart studyChart(const SharingStudy& s) {
  BarChart chart{"Sharing study: " + s.workload + " on " + s.cluster, {}, {}};
  std::vector<const ModeFigures*> modes;
  for (const auto& f : s.modes)
    if (f.skipped.empty())
      modes.push_back(&f), chart.series.push_back(sharingStudyModeName(f.mode));
  auto panel = [&](std::string title, auto value) {
    BarPanel p{std::move(title), {""}, {}};
    for (const ModeFigures* f : modes) p.values.push_back({value(*f)});
    chart.panels.push_back(std::move(p));
  };
  panel("GPUs needed for the wait targets",
        [](const ModeFigures& f) { return f.gpusNeeded ? double(*f.gpusNeeded) : std::nan(""); });
  panel("GPUs busy (% of capacity)", [](const ModeFigures& f) { return 100 * f.busy; });
  panel("GPUs stranded (mean)", [](const ModeFigures& f) { return f.strandedGpus; });
  panel("jobs co-located without fault isolation",
        [](const ModeFigures& f) { return double(f.coLocatedJobs); });
  BarPanel waits{"wait p95 (minutes)", {}, std::vector<std::vector<double>>(modes.size())};
  for (const auto& t : s.targets) {
    waits.groups.push_back(workloadClassName(t.workloadClass));
    for (size_t i = 0; i < modes.size(); ++i) {
      const auto w = modes[i]->waitByClass.find(t.workloadClass);
      waits.values[i].push_back(w == modes[i]->waitByClass.end() ? std::nan("")
                                                                 : w->second.p95 / 60);
    }
  }
  if (!waits.groups.empty()) chart.panels.push_back(std::move(waits));
  return chart;
}

int sharingStudy(Context& ctx, const SimArgs& a, const StudyArgs& s) {
  auto config = studyConfigOf(a, s);
  if (!config) return inputError(ctx, config.error());
  if (const Status ok = checkOptions(a); !ok) return inputError(ctx, ok.error());
  auto in = loadInputs(ctx, a, firstSeed(a));
  if (!in) return inputError(ctx, in.error());
  auto policy = policyOf(a.policies.empty() ? "" : a.policies.front());
  if (!policy) return inputError(ctx, policy.error());
  config->sim = in->config;
  config->policy = *policy;
  Progress progress(ctx, !a.noProgress && ctx.format == "text", "of the modes");
  auto study = runSharingStudy(*in->cluster, in->trace, *config, std::ref(progress));
  progress.finish();
  if (!study) return ctx.fail(study.error().str(), kExitInvalid);
  if (ctx.format == "json")
    writeSharingStudyJson(ctx.out, *study);
  else if (ctx.format == "csv")
    writeSharingStudyCsv(ctx.out, *study);
  else
    ctx.out << sharingStudyText(*study);
  if (!a.chart.empty()) {
    if (const Status w = writeChart(studyChart(*study), a.chart); !w)
      return ctx.fail(w.error().str(), kExitUsage);
    if (ctx.format == "text") ctx.out << "wrote " << a.chart << "\n";
  }
  return kExitOk;
}

// ---- openb placement quality

struct OpenbArgs {
  std::string nodes;
  std::vector<std::string> pods;
  std::string policies = "random,dot-product,gpu-clustering,gpu-packing,best-fit,fgd,tessera";
  std::string seeds = "42-51";
  double tune = 1.3;
  int threads = 0;
  bool uniformTies = false;
  bool engineTies = false;
  std::vector<std::string> families;  // FAMILY:SHARE, generated from each --pods list
  uint64_t familySeed = 2023;
  std::string chart;
};

// The traces to run: each --pods list, or with --family the families generated from each.
Expected<std::vector<std::pair<std::string, std::vector<OpenbPodRow>>>> openbTraces(
    const OpenbArgs& a, const std::vector<OpenbNode>& nodes) {
  std::vector<std::pair<std::string, std::vector<OpenbPodRow>>> out;
  for (const auto& path : a.pods) {
    TESSERA_TRY(pods, readOpenbPodRows(path));
    const std::string stem = std::filesystem::path(path).stem().string();
    if (a.families.empty()) out.emplace_back(stem, std::move(pods));
    for (const auto& text : a.families) {
      TESSERA_TRY(family, parseOpenbFamily(text));
      TESSERA_TRY(generated, generateOpenbFamily(pods, nodes, family, a.familySeed));
      out.emplace_back(stem + "/" + openbFamilyName(family), std::move(generated));
    }
  }
  return out;
}

struct PolicyStats {
  double mean = 0, min = 0, max = 0;
  std::vector<double> perSeed;
  std::vector<double> curve;  // mean allocation % by arrived %, over seeds
};

PolicyStats statsOf(const std::vector<OpenbRun>& runs, const std::string& policy) {
  PolicyStats s;
  s.curve.assign(kOpenbMaxArrivedPercent + 1, 0.0);
  std::vector<int> counts(s.curve.size(), 0);
  for (const auto& r : runs) {
    if (r.policy != policy) continue;
    s.perSeed.push_back(r.unallocatedAt100);
    for (size_t a = 0; a < r.allocatedByArrived.size() && a < s.curve.size(); ++a)
      if (std::isfinite(r.allocatedByArrived[a]))
        s.curve[a] += r.allocatedByArrived[a], ++counts[a];
  }
  for (size_t a = 0; a < s.curve.size(); ++a)
    s.curve[a] = counts[a] ? s.curve[a] / counts[a] : std::nan("");
  if (s.perSeed.empty()) return s;
  s.min = *std::min_element(s.perSeed.begin(), s.perSeed.end());
  s.max = *std::max_element(s.perSeed.begin(), s.perSeed.end());
  for (double v : s.perSeed) s.mean += v / double(s.perSeed.size());
  return s;
}

int openb(Context& ctx, const OpenbArgs& a) {
  auto seeds = seedList(a.seeds);
  if (!seeds) return inputError(ctx, seeds.error());
  auto nodes = readOpenbNodeList(a.nodes);
  if (!nodes) return inputError(ctx, nodes.error());
  OpenbConfig config;
  config.policies = splitList(a.policies);
  config.seeds = *seeds;
  config.tune = a.tune;
  config.threads = a.threads;
  config.ties = a.uniformTies  ? OpenbTieBreak::Uniform
                : a.engineTies ? OpenbTieBreak::Engine
                               : OpenbTieBreak::NodeOrder;
  nlohmann::json json = nlohmann::json::array();
  Chart chart{"Unallocated GPU capacity as the workload arrives (mean over seeds)",
              "arrived GPU demand (% of capacity)",
              "unallocated GPUs (% of capacity)",
              {}};
  auto traces = openbTraces(a, *nodes);
  if (!traces) return inputError(ctx, traces.error());
  for (const auto& [trace, podList] : *traces) {
    const auto* pods = &podList;
    auto runs = runOpenbExperiment(*nodes, *pods, config);
    if (!runs) return inputError(ctx, runs.error());
    if (ctx.format == "text")
      ctx.out << trace << ": " << nodes->size() << " nodes, " << pods->size()
              << " pods; unallocated GPU % at 100 % arrived (lower is better)\n"
              << std::left << std::setw(16) << "policy" << std::right << std::setw(8) << "mean"
              << std::setw(8) << "min" << std::setw(8) << "max"
              << "  per seed\n";
    for (const auto& policy : config.policies) {
      const PolicyStats s = statsOf(*runs, policy);
      if (ctx.format == "text") {
        ctx.out << std::left << std::setw(16) << policy << std::right << std::fixed
                << std::setprecision(2) << std::setw(8) << s.mean << std::setw(8) << s.min
                << std::setw(8) << s.max << " ";
        for (double v : s.perSeed) ctx.out << ' ' << v;
        ctx.out << "\n";
      }
      json.push_back({{"trace", trace},
                      {"policy", policy},
                      {"mean", s.mean},
                      {"seeds", config.seeds},
                      {"unallocated_at_100", s.perSeed}});
      if (trace != traces->front().first) continue;  // the chart shows the first trace
      ChartSeries series{policy, {}};
      for (int arrived = 90; arrived <= kOpenbMaxArrivedPercent; ++arrived)
        series.points.emplace_back(arrived, 100 - s.curve[static_cast<size_t>(arrived)]);
      chart.series.push_back(std::move(series));
    }
  }
  if (ctx.format == "json") ctx.out << json.dump(2) << "\n";
  if (!a.chart.empty()) {
    if (const Status w = writeChart(chart, a.chart); !w)
      return ctx.fail(w.error().str(), kExitUsage);
    if (ctx.format != "json") ctx.out << "wrote " << a.chart << "\n";
  }
  return kExitOk;
}

void addInputOptions(CLI::App* c, SimArgs& a) {
  c->add_option("--cluster", a.cluster, "Cluster spec (default: the built-in demo cluster)");
  c->add_option("--openb-nodes", a.openbNodes, "An openb node list CSV as the cluster");
  c->add_option("--snapshot", a.snapshot,
                "Start from a saved state: a scenario exported by 'tessera schedule --export'");
  c->add_option("--workload", a.workload,
                "Trace or job list (default: a synthetic workload shaped to the cluster)");
  c->add_option("--format", a.format,
                "Trace format: openb, helios, philly, swf, jobs (default: detected)");
  c->add_option("--synthetic", a.synthetic, "Synthetic jobs (default 1000)");
  c->add_option("--rate", a.rate, "Synthetic arrivals per hour")->capture_default_str();
  c->add_option("--limit", a.limit, "Read at most this many trace jobs");
  c->add_flag("--keep-going", a.keepGoing,
              "Skip malformed trace rows (reported) instead of stopping");
  c->add_option("--events", a.events, "Scheduled cluster events and operator actions (YAML)");
  c->add_option("--duration", a.duration,
                "Stop at this simulated time (default: when all work ends)");
  c->add_option("--cycle-interval", a.cycle, "Scheduler period")->capture_default_str();
  c->add_option("--sample-interval", a.sample, "Metrics sample period")->capture_default_str();
  c->add_option("--grace", a.grace, "Preemption grace period")->capture_default_str();
  c->add_option("--mig-reconfig-time", a.reconfig, "Time a MIG repartition takes")
      ->capture_default_str();
  c->add_flag("--check-invariants", a.checkInvariants,
              "Run the engine's invariant checker every cycle");
}

}  // namespace

void addSimulateVerbs(CLI::App& app, Context& ctx) {
  auto a = std::make_shared<SimArgs>();
  auto* sim = app.add_subcommand(
      "simulate",
      "Run the scheduler engine on a simulated clock over a trace or synthetic workload "
      "(docs/simulator.md)");
  addInputOptions(sim, *a);
  sim->add_option("--policy", a->policies, "Policy file (default: the built-in policy)")
      ->expected(0, 1);
  sim->add_option("--seed", a->seeds, "Seed for synthetic work and telemetry");
  sim->add_option("--metrics-json", a->metricsJson, "Write the summary as JSON");
  sim->add_option("--samples-csv", a->samplesCsv, "Write the metric samples over time as CSV");
  sim->add_option("--jobs-csv", a->jobsCsv, "Write every job's outcome as CSV");
  sim->add_option("--record", a->record,
                  "Write the run as a database for 'tessera report' (a new file)")
      ->type_name("FILE");
  sim->add_option("--pace", a->pace, "Run paced against wall time at this speed (e.g. 600)");
  sim->add_flag("--no-progress", a->noProgress, "No progress bar");
  sim->add_option("-o,--output", ctx.format, "Output format")
      ->check(CLI::IsMember({"text", "json"}));
  sim->callback([&ctx, a, sim] {
    if (sim->get_subcommands().empty()) ctx.exitCode = simulate(ctx, *a);
  });

  auto b = std::make_shared<SimArgs>();
  auto* cmp = sim->add_subcommand(
      "compare", "Run several policies and seeds in parallel and compare them side by side");
  addInputOptions(cmp, *b);
  cmp->add_option("--policy", b->policies, "Policy files ('default' = built-in); repeatable");
  cmp->add_option("--seeds", b->seeds, "Seeds, like 1,2,3 or 1-5");
  cmp->add_option("--chart", b->chart, "Write allocation over time per policy (.svg or .png)");
  cmp->add_option("--quality-chart", b->qualityChart,
                  "Write placement quality per policy: MIG room, gangs together, stranded GPUs "
                  "(.svg or .png)");
  cmp->add_option("-o,--output", ctx.format, "Output format")
      ->check(CLI::IsMember({"text", "json"}));
  cmp->callback([&ctx, b] { ctx.exitCode = compare(ctx, *b); });

  auto w = std::make_shared<SimArgs>();
  auto* wi = sim->add_subcommand(
      "whatif", "Fork the state, apply changes, simulate both and show the differences");
  addInputOptions(wi, *w);
  wi->add_option("--changes", w->changes, "What-if changes file (docs/simulator.md#what-if)")
      ->required();
  wi->add_option("--policy", w->policies, "Baseline policy file")->expected(0, 1);
  wi->add_option("--seed", w->seeds, "Seed");
  wi->add_option("-o,--output", ctx.format, "Output format")
      ->check(CLI::IsMember({"text", "json"}));
  wi->callback([&ctx, w] { ctx.exitCode = whatIf(ctx, *w); });

  auto ss = std::make_shared<SimArgs>();
  ss->studyMix = true;
  auto st = std::make_shared<StudyArgs>();
  auto* study = sim->add_subcommand(
      "sharing-study",
      "Which way to share GPUs: run one workload on the cluster with its GPUs whole, "
      "time-sliced, MPS and MIG (layouts from the repartition planner) and compare GPUs needed "
      "for the wait targets, utilization, stranded capacity, jobs co-located without fault "
      "isolation and wait p95 by class (docs/simulator.md#sharing-study)");
  addInputOptions(study, *ss);
  study->add_option("--policy", ss->policies, "Policy file (default: the built-in policy)")
      ->expected(0, 1);
  study->add_option("--seed", ss->seeds, "Seed for the synthetic workload and telemetry");
  study->add_option("--modes", st->modes,
                    "Modes to compare, comma-separated: whole, time-slicing, mps, mig (default: "
                    "all; a mode the cluster cannot run is skipped unless named here)");
  study->add_option("--wait-target", st->targets,
                    "p95 queue wait per workload class, like inference=5m or 10m for every class; "
                    "repeatable (default: inference=5m, interactive=15m)");
  study->add_option("--slots", st->slots, "Time-sliced replicas per GPU")->capture_default_str();
  study->add_option("--threads", st->threads, "Modes run in parallel (0 = one per core)");
  study->add_flag("--no-search", st->noSearch,
                  "Skip the search for the fewest GPUs meeting the wait targets");
  study->add_option("--chart", ss->chart, "Write the figures side by side as bars (.svg or .png)");
  study->add_flag("--no-progress", ss->noProgress, "No progress bar");
  study->add_option("-o,--output", ctx.format, "Output format")
      ->check(CLI::IsMember({"text", "json", "csv"}));
  study->callback([&ctx, ss, st] { ctx.exitCode = sharingStudy(ctx, *ss, *st); });

  auto o = std::make_shared<OpenbArgs>();
  auto* ob = sim->add_subcommand(
      "openb",
      "The FGD paper's placement-quality experiment on openb traces: unallocated GPU % when the "
      "arrived workload reaches 100 % of capacity, per policy and seed (docs/openb-experiment.md)");
  ob->add_option("--nodes", o->nodes, "openb node list (openb_node_list_gpu_node.csv)")->required();
  ob->add_option("--pods", o->pods, "openb pod list(s), one table each")->required();
  ob->add_option("--family", o->families,
                 "Generate a trace family from each pod list, as the FGD paper does: "
                 "cpu-only:SHARE, gpushare:SHARE, multigpu:SHARE or gpuspec:SHARE (0.5 or 50%; "
                 "docs/openb-experiment.md); repeatable");
  ob->add_option("--family-seed", o->familySeed, "Seed of the family generator")
      ->capture_default_str();
  ob->add_option("--policies", o->policies, "Comma-separated policies")->capture_default_str();
  ob->add_option("--seeds", o->seeds, "Seeds, like 42-51 or 1,2,3")->capture_default_str();
  ob->add_option("--tune", o->tune, "Offered GPU demand as a multiple of capacity")
      ->check(CLI::Range(0.1, 10.0))
      ->capture_default_str();
  ob->add_option("--threads", o->threads, "Parallel runs (0 = all cores)");
  ob->add_flag("--uniform-ties", o->uniformTies,
               "Break score ties uniformly at random instead of by a per-seed node order");
  ob->add_flag("--engine-ties", o->engineTies,
               "Break score ties as the engine does: fewest free whole GPUs, then the node order")
      ->excludes("--uniform-ties");
  ob->add_option("--chart", o->chart,
                 "Write unallocated % against arrived % per policy (.svg or .png)");
  ob->add_option("-o,--output", ctx.format, "Output format")
      ->check(CLI::IsMember({"text", "json"}));
  ob->callback([&ctx, o] { ctx.exitCode = openb(ctx, *o); });
}

}  // namespace tessera::cli
