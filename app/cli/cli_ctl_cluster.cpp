// tessera ctl's cluster and admin calls: snapshot (with --nodes), watch (events as they happen),
// metrics, whoami, health, backup and report (computed by the server, docs/ctl.md#report).
#include <algorithm>

#include <nlohmann/json.hpp>

#include "cli/cli_ctl_internal.h"
#include "report/report.h"
#include "report/report_time.h"
#include "topology/yaml_reader.h"
#include "workload/workload_spec.h"

namespace tessera::cli::ctl {

namespace {

// ============================================================================ snapshot

// "slurm ready, last sync <time>" or "slurm unavailable, last sync <time>: <why>".
std::string executorLine(const std::string& name, const std::string& state,
                         const std::string& detail, int64_t lastSync) {
  std::string line = name + " " + state;
  if (lastSync > 0) line += ", last sync " + clockText(lastSync);
  if (!detail.empty()) line += ": " + detail;
  return line;
}

void printSnapshotSummary(Call& c, const v1::ClusterSnapshot& s) {
  const double share = s.gpus_total() > 0 ? 100.0 * s.gpus_allocated() / s.gpus_total() : 0.0;
  Table t;
  t.add({"now", clockText(s.now())});
  t.add({"mode", orDash(s.mode())});
  if (s.has_executor() && s.executor().name() != "none") {
    const auto& x = s.executor();
    t.add({"executor", executorLine(x.name(), x.state(), x.detail(), x.last_sync())});
  }
  t.add({"pending", std::to_string(s.pending_jobs())});
  t.add({"running", std::to_string(s.running_jobs())});
  t.add({"allocation", fixed(s.gpus_allocated(), 1) + " of " + number(s.gpus_total()) + " GPUs (" +
                           fixed(share, 1) + "%)"});
  t.add({"nodes", std::to_string(s.nodes_size())});
  t.add({"last event", "#" + std::to_string(s.last_event_seq())});
  t.add({"cycles", std::to_string(s.cycles()) + " (last " + fixed(s.last_cycle_ms(), 1) + " ms)"});
  t.print(c.out());
}

void printTeams(Call& c, const v1::ClusterSnapshot& s) {
  if (s.teams_size() == 0) return;
  c.out() << "\n";
  Table teams;
  teams.add({"TEAM", "PARENT", "GPUS IN USE", "GUARANTEED", "FAIR-SHARE USAGE"});
  for (const auto& team : s.teams())
    teams.add({team.name(), orDash(team.parent()), fixed(team.gpus_in_use(), 1),
               std::to_string(team.guaranteed()), number(team.fair_share_usage())});
  teams.print(c.out());
}

// One node's row: its GPUs' allocation summed, utilization averaged, models listed once each.
void addNodeRow(Table& t, const v1::SnapshotNode& n) {
  double allocated = 0, util = 0;
  int withUtil = 0;
  std::vector<std::string> models;
  for (const auto& g : n.gpus()) {
    allocated += g.allocated();
    if (g.has_util()) {
      util += g.util();
      ++withUtil;
    }
    if (std::find(models.begin(), models.end(), g.model()) == models.end())
      models.push_back(g.model());
  }
  t.add({n.name(), n.state(), orDash(n.pool()), orDash(n.leaf()), std::to_string(n.gpus_size()),
         fixed(allocated, 2), withUtil ? fixed(100.0 * util / withUtil, 0) + "%" : "-",
         orDash(join(models, ",")), orDash(n.state_reason())});
}

void printNodes(Call& c, const v1::ClusterSnapshot& s) {
  c.out() << "\n";
  Table t;
  t.add({"NODE", "STATE", "POOL", "LEAF", "GPUS", "ALLOCATED", "UTIL", "MODELS", "REASON"});
  for (const auto& n : s.nodes()) addNodeRow(t, n);
  t.print(c.out());
}

int showSnapshot(Call& c, bool nodes) {
  return callAndPrint(c, &Stub::GetSnapshot, v1::GetSnapshotRequest{},
                      [&c, nodes](const v1::ClusterSnapshot& s) {
                        printSnapshotSummary(c, s);
                        printTeams(c, s);
                        if (nodes) printNodes(c, s);
                      });
}

// ============================================================================ watch

std::string eventLine(const Event& e) {
  std::string line =
      "#" + std::to_string(e.seq) + " " + clockText(e.time) + " " + eventKindName(e.kind);
  if (e.job != kNoJob) {
    line += " job " + std::to_string(e.job);
    if (e.from != e.to)
      line += std::string(" (") + jobStateName(e.from) + " -> " + jobStateName(e.to) + ")";
  }
  if (e.by != kNoJob) line += " for job " + std::to_string(e.by);
  if (!e.reason.empty()) line += ": " + e.reason.english();
  // The scheduler is the usual actor; naming it on every line would only be noise.
  if (!e.actor.empty() && e.actor != "scheduler") line += " [" + e.actor + "]";
  return line;
}

struct WatchArgs {
  uint64_t after = 0;
  bool afterGiven = false;
  JobId job = kNoJob;
  int count = 0;  // 0 = until interrupted
};

int watchEvents(Call& c, const WatchArgs& a) {
  uint64_t after = a.after;
  if (!a.afterGiven) {
    // Without --after only what happens from now on: a long-lived server's history is large.
    auto snapshot = fetchSnapshot(c);
    if (!snapshot) return c.failed;
    after = snapshot->last_event_seq();
  }
  int printed = 0;
  const auto error = c.remote->watch(after, [&](const Event& e) {
    if (a.job != kNoJob && e.job != a.job) return true;
    if (c.json())
      printJson(c, rpc::eventToProto(e), true);
    else
      c.out() << eventLine(e) << "\n";
    c.out().flush();  // a pipe (| grep) should see each event as it happens
    ++printed;
    return a.count == 0 || printed < a.count;
  });
  if (error) return failApi(c, *error);
  return kExitOk;
}

// ============================================================================ metrics and reports

// With --since DUR, the last DUR up to the server's now, into `window`; false when the server's
// clock could not be read (reported, see Call::failed). `since` was checked before the call.
bool sinceWindow(Call& c, const std::string& since, std::optional<Window>& window) {
  if (since.empty()) return true;
  const auto now = serverNow(c);
  if (!now) return false;
  window = Window{*now - *parseDuration(since), *now};
  return true;
}

struct MetricsArgs {
  std::string series, since, resolution = "auto";
  uint32_t maxPoints = 0;
};

void printMetrics(Call& c, const v1::QueryMetricsResponse& r) {
  if (r.series().empty()) {
    for (const auto& name : r.series_names()) c.out() << name << "\n";
    return;
  }
  Table t;
  t.add({"TIME", "VALUE", "MIN", "MAX", "COUNT"});
  for (const auto& p : r.points())
    t.add({clockText(p.time()), number(p.value()), number(p.min()), number(p.max()),
           std::to_string(p.count())});
  t.print(c.out());
}

int queryMetrics(Call& c, const MetricsArgs& a) {
  v1::QueryMetricsRequest request;
  request.set_series(a.series);
  request.set_resolution(a.resolution);
  request.set_max_points(a.maxPoints);
  std::optional<Window> window;
  if (!sinceWindow(c, a.since, window)) return c.failed;
  if (window) request.set_from(window->from);
  return callAndPrint(c, &Stub::QueryMetrics, request,
                      [&c](const v1::QueryMetricsResponse& r) { printMetrics(c, r); });
}

// `ctl report` as given; checkReport() validates it offline and reads the price table.
struct ReportArgs {
  std::string from, to, groupBy = "team", pricesFile, timeZone = "UTC";
  std::string idleMin, format = "json", table;
  double idleThreshold = -1;  // -1 = the server's default
  std::vector<std::string> teams;
  int64_t topIdleJobs = -1;  // -1 = the server's default
  std::string pricesText;    // the file's text, sent as it is
};

std::string timeProblem(const std::string& flag, const std::string& text, const std::string& zone) {
  if (text.empty()) return {};
  // A relative time needs the server's clock, but its syntax can be checked now.
  if (auto t = parseReportTime(text, zone, 0); !t) return flag + ": " + t.error().message;
  return {};
}

std::string checkReport(ReportArgs& a) {
  if (!parseReportGroup(a.groupBy))
    return "--group-by: unknown group '" + a.groupBy +
           "' (team, department, queue, pool, model, node, job)";
  if (auto st = checkTimeZone(a.timeZone); !st) return "--tz: " + st.error().message;
  for (const auto& [flag, text] : {std::pair{"--from", &a.from}, std::pair{"--to", &a.to}})
    if (auto problem = timeProblem(flag, *text, a.timeZone); !problem.empty()) return problem;
  if (auto problem = durationProblem("--idle-min", a.idleMin); !problem.empty()) return problem;
  if (a.format == "csv" && a.table.empty())
    return "--format csv needs --table (summary, usage, mig, idle_jobs, stranded, waits, "
           "chargeback, fair_share, series, notes)";
  if (a.format != "csv" && !a.table.empty()) return "--table needs --format csv";
  if (!a.pricesFile.empty()) {
    auto text = readTextFile(a.pricesFile);
    if (!text) return "--prices: " + text.error().str();
    if (auto table = parsePriceTable(*text, a.pricesFile); !table) return table.error().str();
    a.pricesText = std::move(*text);
  }
  return {};
}

// --from/--to as engine seconds; a relative time ("-7d") counts back from the server's clock.
bool reportRange(Call& c, const ReportArgs& a, v1::GetReportRequest& request) {
  std::optional<Seconds> now;
  if (a.from.starts_with('-') || a.to.starts_with('-')) {
    now = serverNow(c);
    if (!now) return false;
  }
  for (const auto& [text, isFrom] : {std::pair{&a.from, true}, std::pair{&a.to, false}}) {
    if (text->empty()) continue;
    const Seconds t = *parseReportTime(*text, a.timeZone, now.value_or(0));
    if (isFrom)
      request.set_from(t);
    else
      request.set_to(t);
  }
  return true;
}

int getReport(Call& c, const ReportArgs& a) {
  v1::GetReportRequest request;
  if (!reportRange(c, a, request)) return c.failed;
  request.set_group_by(a.groupBy);
  if (a.idleThreshold >= 0) request.set_idle_threshold(a.idleThreshold);
  if (!a.idleMin.empty()) request.set_idle_min_seconds(*parseDuration(a.idleMin));
  request.set_prices_yaml(a.pricesText);
  for (const auto& team : a.teams) request.add_teams(team);
  request.set_time_zone(a.timeZone);
  if (a.topIdleJobs >= 0) request.set_top_idle_jobs(static_cast<uint32_t>(a.topIdleJobs));
  request.set_format(a.format);
  request.set_table(a.table);
  // The content is already the JSON report or the CSV table asked for.
  return callAndPrint(c, &Stub::GetReport, request,
                      [&c](const v1::GetReportResponse& r) { printText(c, r.content()); });
}

// ============================================================================ admin

int whoAmI(Call& c) {
  return callAndPrint(c, &Stub::WhoAmI, v1::WhoAmIRequest{}, [&c](const v1::WhoAmIResponse& r) {
    Table t;
    t.add({"name", r.name()});
    t.add({"role", r.role()});
    t.add({"server", c.address});
    t.add({"server version", r.server_version()});
    t.add({"mode", r.mode()});
    t.print(c.out());
  });
}

int health(Call& c) {
  auto answer = c.remote->health();
  if (const auto* e = std::get_if<ApiError>(&answer)) return failApi(c, *e);
  const auto& [status, reason, executor] = std::get<rpc::ServerHealth>(answer);
  // "none" is live mode without an executor and simulated-live: nothing to report.
  const bool hasExecutor = executor && executor->name != "none";
  if (c.json()) {
    nlohmann::json out{{"status", status}};
    if (!reason.empty()) out["reason"] = reason;
    if (hasExecutor)
      out["executor"] = {{"name", executor->name},
                         {"state", executor->state},
                         {"detail", executor->detail},
                         {"last_sync", executor->lastSync}};
    c.out() << out.dump() << "\n";
  } else {
    c.out() << status << (reason.empty() ? "" : ": " + reason) << "\n";
    if (hasExecutor)
      c.out() << "executor " + executorLine(executor->name, executor->state, executor->detail,
                                            executor->lastSync)
              << "\n";
  }
  // A health check is for scripts: anything but SERVING must fail them.
  return status == "SERVING" ? kExitOk : kExitRefused;
}

int backup(Call& c, const std::string& path) {
  v1::BackupRequest request;
  request.set_path(path);
  return callAndPrint(c, &Stub::Backup, request, [&c](const v1::BackupResponse& r) {
    c.out() << "backup written on the server: " << r.path() << " (" << r.bytes() << " bytes)\n";
  });
}

// ============================================================================ registration

void addSnapshotCall(const Registrar& r) {
  auto nodes = std::make_shared<bool>(false);
  auto* sub =
      r.addCall("snapshot", "Cluster summary: clock, mode, jobs, allocation, per-team usage");
  sub->add_flag("--nodes", *nodes, "Add a table of the nodes");
  r.onCall(sub, [nodes](Call& c) { return showSnapshot(c, *nodes); });
}

void addWatchCall(const Registrar& r) {
  auto w = std::make_shared<WatchArgs>();
  auto* sub =
      r.addCall("watch", "Print events as they happen, one per line; survives server restarts");
  auto* after = sub->add_option("--after", w->after,
                                "Start after this event number (0 = from the first; default: "
                                "only new events)")
                    ->type_name("SEQ");
  sub->add_option("--job", w->job, "Only this job's events")->type_name("ID");
  sub->add_option("--count", w->count, "Stop after N events (default: until interrupted)")
      ->check(CLI::PositiveNumber);
  r.onCall(
      sub,
      [w, after] {
        w->afterGiven = after->count() > 0;
        return std::string();
      },
      [w](Call& c) { return watchEvents(c, *w); });
}

void addMetricsCall(const Registrar& r) {
  auto m = std::make_shared<MetricsArgs>();
  auto* sub = r.addCall("metrics", "A metric series as a table; without SERIES, the names");
  sub->add_option("SERIES", m->series, "Series name, like cluster_allocation");
  sub->add_option("--since", m->since, "Only the last DUR (default: everything kept)")
      ->type_name("DUR");
  sub->add_option("--resolution", m->resolution, "auto, raw, 1m or 1h")
      ->check(CLI::IsMember({"auto", "raw", "1m", "1h"}))
      ->capture_default_str();
  sub->add_option("--max-points", m->maxPoints, "At most N points (default 2000)")
      ->check(CLI::Range(1, 1'000'000));
  r.onCall(
      sub, [m] { return durationProblem("--since", m->since); },
      [m](Call& c) { return queryMetrics(c, *m); });
}

void addBackupCall(const Registrar& r) {
  auto path = std::make_shared<std::string>();
  auto* sub = r.addCall("backup", "Write a consistent copy of the database (admin)");
  sub->add_option("PATH", *path, "Path on the server's file system; must not exist yet")
      ->required();
  r.onCall(sub, [path](Call& c) { return backup(c, *path); });
}

void addReportCall(const Registrar& r) {
  auto a = std::make_shared<ReportArgs>();
  auto* sub = r.addCall("report",
                        "A utilization and chargeback report computed by the server: JSON, or "
                        "one CSV table");
  sub->add_option("--from", a->from,
                  "Start: 2026-11-01, 2026-11-01T08:30, ...+01:00, @SECONDS or -7d (default: "
                  "where the data begins)")
      ->type_name("TIME");
  sub->add_option("--to", a->to, "End, like --from (default: the server's clock)")
      ->type_name("TIME");
  sub->add_option("--group-by", a->groupBy, "team, department, queue, pool, model, node or job")
      ->capture_default_str();
  sub->add_option("--prices", a->pricesFile, "Price table (YAML), read here and sent")
      ->type_name("FILE");
  addList(sub, "--team", a->teams, "Only this team (repeatable)");
  sub->add_option("--tz", a->timeZone, "Time zone of dates and of the report (IANA or +hh:mm)")
      ->capture_default_str();
  sub->add_option("--idle-threshold", a->idleThreshold,
                  "GPU utilization below this fraction is idle (default 0.05)")
      ->check(CLI::Range(0.0, 1.0))
      ->type_name("FRACTION");
  sub->add_option("--idle-min", a->idleMin, "...when it lasts this long (default 30m)")
      ->type_name("DUR");
  sub->add_option("--top-idle-jobs", a->topIdleJobs, "Rows of the idle-jobs table (0 = all)")
      ->check(CLI::Range(int64_t{0}, int64_t{UINT32_MAX}));
  sub->add_option("--format", a->format, "json (the whole report) or csv (one --table)")
      ->check(CLI::IsMember({"csv", "json"}))
      ->capture_default_str();
  sub->add_option("--table", a->table, "With --format csv: the table to print")->type_name("TABLE");
  r.onCall(
      sub, [a] { return checkReport(*a); }, [a](Call& c) { return getReport(c, *a); });
}

}  // namespace

void addClusterCalls(const Registrar& r) {
  addSnapshotCall(r);
  addWatchCall(r);
  addMetricsCall(r);
  r.onCall(r.addCall("whoami", "Who the server takes you for, your role, its version and mode"),
           whoAmI);
  r.onCall(r.addCall("health", "The server's health status (exit 0 only when SERVING)"), health);
  addBackupCall(r);
  addReportCall(r);
}

}  // namespace tessera::cli::ctl
