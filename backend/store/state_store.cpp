#include "store/state_store.h"

#include <algorithm>

#include "clusterspec/cluster_spec.h"
#include "clusterspec/cluster_spec_writer.h"
#include "scheduler/command_yaml.h"
#include "store/job_codec.h"
#include "store/node_holds_codec.h"
#include "topology/mig_layout.h"

namespace tessera {
namespace {

using nlohmann::json;

constexpr const char* kUpsertJob =
    "INSERT INTO jobs(id, team, class, state, submit_time, start_time, end_time, spec, run, "
    "preemptions, gpu_hours_lost, reason, actual_runtime, reason_text) "
    "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
    "ON CONFLICT(id) DO UPDATE SET team=excluded.team, class=excluded.class, "
    "state=excluded.state, start_time=excluded.start_time, end_time=excluded.end_time, "
    "spec=excluded.spec, run=excluded.run, preemptions=excluded.preemptions, "
    "gpu_hours_lost=excluded.gpu_hours_lost, reason=excluded.reason, "
    "actual_runtime=excluded.actual_runtime, reason_text=excluded.reason_text";

constexpr const char* kJobColumns =
    "SELECT id, state, start_time, end_time, spec, run, preemptions, gpu_hours_lost, reason, "
    "actual_runtime, reason_text FROM jobs ";

// The job as the engine holds it, with its resolved pin written back by name (the engine keeps
// the operator's later pins only in resolved form).
Job currentJob(const Cluster& c, const JobRecord& r) {
  Job j = r.job;
  j.pinNodes.clear();
  j.pinGpus.clear();
  for (GpuId g : r.pinned) j.pinGpus.push_back(c.gpuName(g));
  return j;
}

json reservationsToJson(const Engine& e) {
  const Cluster& c = e.cluster();
  json out = json::array();
  for (const Reservation& r : e.reservations().all()) {
    if (r.kind == Reservation::Kind::Backfill) continue;
    json gpus = json::array();
    for (GpuId g : r.gpus) gpus.push_back(c.gpuName(g));
    out.push_back(json{{"id", r.id},
                       {"kind", reservationKindName(r.kind)},
                       {"gpus", std::move(gpus)},
                       {"nodes", r.nodes},
                       {"from", r.from},
                       {"until", r.until},
                       {"team", r.team}});
  }
  return out;
}

json layoutsToJson(const Engine& e) {
  const Cluster& c = e.cluster();
  json out = json::object();
  for (const Gpu& g : c.gpus()) {
    if (g.sharing.mode != SharingMode::Mig) continue;
    MigLayout l = e.state().gpu(g.id).layout;
    for (auto& inst : l) inst.busy = false;
    out[c.gpuName(g.id)] = formatMigLayout(c.modelOf(g.id), l);
  }
  return out;
}

Expected<json> parseJson(const std::string& text, const std::string& what) {
  try {
    return json::parse(text);
  } catch (const json::exception& ex) {
    return Error{"stored " + what + " is not valid JSON: " + ex.what(), {}};
  }
}

JobRow rowFrom(const Statement& s, Job job) {
  JobRow row;
  row.job = std::move(job);
  row.state = jobStateFromName(s.textAt(1), nullptr);
  row.startTime = s.isNull(2) ? 0 : s.int64At(2);
  row.endTime = s.isNull(3) ? 0 : s.int64At(3);
  row.run = s.isNull(5) ? std::string() : s.textAt(5);
  row.preemptions = static_cast<int>(s.int64At(6));
  row.gpuHoursLost = s.doubleAt(7);
  if (!s.isNull(9)) row.actualRuntime = s.int64At(9);
  return row;
}

// `withReason` false skips decoding the reason: a restart restores active jobs, whose reasons the
// engine's first cycle recomputes anyway.
Expected<JobRow> readRow(const Statement& s, bool withReason = true) {
  const JobId id = static_cast<JobId>(s.int64At(0));
  const std::string where = "job " + std::to_string(id) + ": ";
  bool known = false;
  jobStateFromName(s.textAt(1), &known);
  if (!known) return Error{where + "unknown state '" + s.textAt(1) + "'", {}};
  auto spec = parseJson(s.textAt(4), "job " + std::to_string(id));
  if (!spec) return spec.error();
  auto job = jobFromJson(*spec);
  if (!job) return Error{where + job.error().message, {}};
  if (job->id != id) return Error{where + "its spec names job " + std::to_string(job->id), {}};
  JobRow row = rowFrom(s, std::move(*job));
  if (withReason) row.reason = storedReason(s, 8, 10);
  return row;
}

struct Setup {
  std::shared_ptr<const Cluster> cluster;
  Workload tenants;
  Policy policy;
};

Expected<Setup> loadSetup(const StateStore& store, const GpuCatalog& catalog) {
  Setup s;
  TESSERA_TRY(clusterText, store.meta("cluster"));
  TESSERA_TRY(tenantsText, store.meta("tenants"));
  TESSERA_TRY(policyText, store.meta("policy"));
  if (!clusterText || !tenantsText || !policyText)
    return Error{"the database has no complete setup (cluster, tenants, policy)", {}};
  ClusterSpecOptions options;
  options.catalog = &catalog;
  TESSERA_TRY(cluster, loadClusterSpec(*clusterText, "<database: cluster>", options));
  TESSERA_TRY(tenants, loadWorkload(*tenantsText, "<database: tenants>", &catalog));
  TESSERA_TRY(policy, loadPolicy(*policyText, "<database: policy>"));
  s.cluster = std::move(cluster);
  s.tenants = std::move(tenants);
  s.policy = std::move(policy);
  return s;
}

// The cluster with the GPUs' current MIG layouts (all instances idle: running jobs are put back
// on them afterwards).
Expected<std::shared_ptr<const Cluster>> withLayouts(std::shared_ptr<const Cluster> cluster,
                                                     const json& layouts) {
  if (!layouts.is_object() || layouts.empty()) return cluster;
  auto copy = std::make_shared<Cluster>(*cluster);
  for (const auto& [name, text] : layouts.items()) {
    const Gpu* g = copy->findGpu(name);
    if (!g) return Error{"stored layouts: unknown GPU '" + name + "'", {}};
    if (!text.is_string()) return Error{"stored layouts: " + name + " is not text", {}};
    TESSERA_TRY(layout, parseMigLayout(copy->modelOf(g->id), text.get<std::string>()));
    for (auto& inst : layout) inst.busy = false;
    layout.sortByStart();
    copy->mutableGpu(g->id).sharing.mig = layout;
  }
  return std::shared_ptr<const Cluster>(std::move(copy));
}

Status restoreReservations(Engine& e, const json& list) {
  for (const json& r : list) {
    Reservation res;
    try {
      res.id = r.at("id").get<std::string>();
      const std::string kind = r.at("kind").get<std::string>();
      res.kind = kind == "team" ? Reservation::Kind::Team : Reservation::Kind::Maintenance;
      res.nodes = r.at("nodes").get<std::vector<std::string>>();
      res.from = r.at("from").get<Seconds>();
      res.until = r.at("until").get<Seconds>();
      res.team = r.at("team").get<std::string>();
      for (const auto& name : r.at("gpus").get<std::vector<std::string>>()) {
        const Gpu* g = e.cluster().findGpu(name);
        if (!g) return Error{"stored reservation " + res.id + ": unknown GPU " + name, {}};
        res.gpus.push_back(g->id);
      }
    } catch (const json::exception& ex) {
      return Error{std::string("stored reservation is malformed: ") + ex.what(), {}};
    }
    TESSERA_CHECK(e.addReservation(std::move(res)));
  }
  return okStatus();
}

Status restoreFairShare(Engine& e, const json& usage) {
  std::vector<std::pair<std::string, double>> values;
  for (const auto& [team, u] : usage.items()) {
    if (!u.is_number()) return Error{"stored fair share of " + team + " is not a number", {}};
    values.emplace_back(team, u.get<double>());
  }
  return e.restoreFairShare(values);
}

struct ActiveJobs {
  std::vector<JobRow> running;  // by start time
  std::vector<JobRow> pending;  // by id: the order they were submitted in
};

Expected<ActiveJobs> readActive(Database& db) {
  TESSERA_TRY(stmt, db.prepare(std::string(kJobColumns) +
                               "WHERE state IN ('pending','admitted','running') ORDER BY id"));
  ActiveJobs active;
  while (true) {
    TESSERA_TRY(more, stmt.step());
    if (!more) break;
    TESSERA_TRY(row, readRow(stmt, false));
    (row.state == JobState::Running ? active.running : active.pending).push_back(std::move(row));
  }
  std::stable_sort(active.running.begin(), active.running.end(),
                   [](const JobRow& a, const JobRow& b) { return a.startTime < b.startTime; });
  return active;
}

Status restoreJob(Engine& e, JobRow& row, BackendExtras& extras) {
  const JobId id = row.job.id;
  const std::string who = "job " + std::to_string(id) + ": ";
  std::optional<StoredRun> run;
  if (row.state == JobState::Running) {
    TESSERA_TRY(spec, parseJson(row.run, "run of job " + std::to_string(id)));
    TESSERA_TRY(r, runFromJson(e.cluster(), spec));
    run = std::move(r);
  }
  // Taken back whatever the cluster became: a stored job is never lost on restart.
  if (auto submitted = e.resubmit(std::move(row.job)); !submitted)
    return Error{who + submitted.error().message, {}};
  if (run)
    if (auto st = e.restoreRunning(id, run->tasks, run->started, run->workKept); !st)
      return Error{who + st.error().message, {}};
  TESSERA_CHECK(e.restoreCounters(id, row.preemptions, row.gpuHoursLost));
  if (row.actualRuntime) extras.actualRuntime[id] = *row.actualRuntime;
  return okStatus();
}

// Running jobs first, by start time (each takes its GPUs back), then the pending ones in the
// order they were submitted. Rows are moved into the engine, not copied.
Status restoreJobs(Engine& e, ActiveJobs& active, BackendExtras& extras) {
  for (JobRow& row : active.running) TESSERA_CHECK(restoreJob(e, row, extras));
  for (JobRow& row : active.pending) TESSERA_CHECK(restoreJob(e, row, extras));
  return okStatus();
}

}  // namespace

Expected<bool> StateStore::hasState() const {
  TESSERA_TRY(v, meta("global"));
  return v.has_value();
}

Status StateStore::putMeta(const std::string& key, const std::string& value) {
  TESSERA_TRY(stmt, db_.prepare("INSERT INTO meta(key, value) VALUES(?, ?) "
                                "ON CONFLICT(key) DO UPDATE SET value=excluded.value"));
  return stmt.bind(1, key).bind(2, value).run();
}

Status StateStore::saveSetup(const Engine& engine) {
  TESSERA_CHECK(putMeta("cluster", writeClusterSpec(engine.cluster())));
  YAML::Emitter tenants;
  tenants << tenantsToYaml(engine.priorityClasses(), engine.quotas().teams());
  TESSERA_CHECK(putMeta("tenants", std::string(tenants.c_str()) + "\n"));
  return putMeta("policy", writePolicy(engine.policy()));
}

Status StateStore::saveJobs(const Engine& engine, const std::vector<JobId>& ids,
                            const std::unordered_map<JobId, Seconds>& actualRuntime) {
  if (ids.empty()) return okStatus();
  TESSERA_TRY(stmt, db_.prepare(kUpsertJob));
  const Cluster& c = engine.cluster();
  for (JobId id : ids) {
    const JobRecord* r = engine.job(id);
    if (!r) continue;
    const bool running = r->state == JobState::Running && r->placement;
    stmt.bind(1, static_cast<int64_t>(id))
        .bind(2, r->job.team)
        .bind(3, r->job.priorityClass)
        .bind(4, std::string(jobStateName(r->state)))
        .bind(5, static_cast<int64_t>(r->job.submitTime));
    if (r->startTime > 0 || running)
      stmt.bind(6, static_cast<int64_t>(r->startTime));
    else
      stmt.bindNull(6);
    if (!r->active())
      stmt.bind(7, static_cast<int64_t>(r->endTime));
    else
      stmt.bindNull(7);
    stmt.bind(8, jobToJson(currentJob(c, *r)).dump());
    if (running)
      stmt.bind(9, runToJson(c, *r).dump());
    else
      stmt.bindNull(9);
    stmt.bind(10, static_cast<int64_t>(r->preemptions))
        .bind(11, r->gpuHoursLost)
        .bind(12, r->reason.english());
    if (const auto it = actualRuntime.find(id); it != actualRuntime.end())
      stmt.bind(13, static_cast<int64_t>(it->second));
    else
      stmt.bindNull(13);
    if (r->reason.isLiteral())
      stmt.bindNull(14);
    else
      stmt.bind(14, textToJson(r->reason).dump());
    TESSERA_CHECK(stmt.run());
    TESSERA_CHECK(stmt.reset());
  }
  return okStatus();
}

Status StateStore::saveGlobal(const Engine& engine, const BackendExtras& extras) {
  json usage = json::object();
  const auto& teams = engine.quotas().teams();
  for (size_t t = 0; t < teams.size(); ++t)
    if (const double u = engine.fairShare().usage(static_cast<int>(t)); u > 0)
      usage[teams[t].name] = u;
  json global{{"now", engine.now()},
              {"next_job", extras.nextJob},
              {"fair_share", std::move(usage)},
              {"layouts", layoutsToJson(engine)},
              {"nodes", nodeHoldsToJson(engine)},
              {"reservations", reservationsToJson(engine)}};
  for (const auto& [key, value] : extras.meta) TESSERA_CHECK(putMeta("extra." + key, value));
  return putMeta("global", global.dump());
}

Expected<StateStore::Loaded> StateStore::load(const GpuCatalog& catalog) const {
  TESSERA_TRY(setup, loadSetup(*this, catalog));
  TESSERA_TRY(globalText, meta("global"));
  if (!globalText) return Error{"the database holds no saved engine state", {}};
  TESSERA_TRY(global, parseJson(*globalText, "global state"));
  try {
    TESSERA_TRY(cluster, withLayouts(setup.cluster, global.at("layouts")));
    Workload tenants = setup.tenants;
    tenants.jobs.clear();
    TESSERA_TRY(engine, Engine::create(cluster, tenants, setup.policy));
    // The clock first: jobs then go straight into the queue (none is "submitted in the
    // future"), and no usage accrues while the engine is being filled.
    TESSERA_CHECK(engine.advanceTo(global.at("now").get<Seconds>()));
    BackendExtras extras;
    extras.nextJob = global.at("next_job").get<JobId>();
    TESSERA_TRY(active, readActive(db_));
    TESSERA_CHECK(restoreJobs(engine, active, extras));
    TESSERA_CHECK(restoreFairShare(engine, global.at("fair_share")));
    TESSERA_CHECK(restoreNodeHolds(engine, global.at("nodes")));
    TESSERA_CHECK(restoreReservations(engine, global.at("reservations")));
    TESSERA_TRY(stmt, db_.prepare("SELECT key, value FROM meta WHERE key LIKE 'extra.%'"));
    while (true) {
      TESSERA_TRY(more, stmt.step());
      if (!more) break;
      extras.meta.emplace_back(stmt.textAt(0).substr(6), stmt.textAt(1));
    }
    const size_t activeJobs = active.running.size() + active.pending.size();
    return Loaded{std::move(engine), std::move(extras), activeJobs};
  } catch (const json::exception& ex) {
    return Error{std::string("stored global state is malformed: ") + ex.what(), {}};
  }
}

Expected<std::optional<JobRow>> StateStore::job(JobId id) const {
  TESSERA_TRY(stmt, db_.prepare(std::string(kJobColumns) + "WHERE id = ?"));
  stmt.bind(1, static_cast<int64_t>(id));
  TESSERA_TRY(found, stmt.step());
  if (!found) return std::optional<JobRow>();
  TESSERA_TRY(row, readRow(stmt));
  return std::optional<JobRow>(std::move(row));
}

Expected<std::vector<JobRow>> StateStore::list(const JobFilter& f) const {
  std::string sql = std::string(kJobColumns) + "WHERE id > ?";
  if (!f.team.empty()) sql += " AND team = ?";
  if (!f.priorityClass.empty()) sql += " AND class = ?";
  if (f.state) sql += " AND state = ?";
  if (f.activeOnly) sql += " AND state IN ('pending','admitted','running')";
  sql += " ORDER BY id LIMIT ?";
  TESSERA_TRY(stmt, db_.prepare(sql));
  int i = 1;
  stmt.bind(i++, static_cast<int64_t>(f.afterId));
  if (!f.team.empty()) stmt.bind(i++, f.team);
  if (!f.priorityClass.empty()) stmt.bind(i++, f.priorityClass);
  if (f.state) stmt.bind(i++, std::string(jobStateName(*f.state)));
  stmt.bind(i, static_cast<int64_t>(f.limit));
  std::vector<JobRow> rows;
  while (true) {
    TESSERA_TRY(more, stmt.step());
    if (!more) break;
    TESSERA_TRY(row, readRow(stmt));
    rows.push_back(std::move(row));
  }
  return rows;
}

Expected<std::optional<std::string>> StateStore::meta(const std::string& key) const {
  TESSERA_TRY(stmt, db_.prepare("SELECT value FROM meta WHERE key = ?"));
  stmt.bind(1, key);
  TESSERA_TRY(found, stmt.step());
  if (!found) return std::optional<std::string>();
  return std::optional<std::string>(stmt.textAt(0));
}

}  // namespace tessera
