// The report's numbers against a hand-computed fixture: a tiny cluster and job history where
// every figure is known (the derivations are in the comments), range clipping at the edges,
// time zones and period boundaries, and bad input.
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

#include "clusterspec/cluster_spec.h"
#include "report/report_compute.h"
#include "report/report_source.h"
#include "report/report_time.h"
#include "scheduler/engine.h"
#include "store/metric_store.h"
#include "store/state_store.h"
#include "store/usage_store.h"
#include "workload/workload_spec.h"

using namespace tessera;

namespace {

constexpr Seconds T0 = 1772323200;  // 2026-03-01T00:00:00Z
constexpr Seconds H = 3600;

const char* kCluster = R"(
version: 1
name: fixture
node_templates:
  a100: {gpu_model: A100-SXM4-80GB, gpus: 8}
  h100: {gpu_model: H100-SXM5-80GB, gpus: 8}
fabric:
  spines: [s]
  leafs: [{name: l1, spine: s}]
nodes:
  - {name: n1, template: a100, pool: train, leaf: l1}
  - {name: n2, template: a100, pool: infer, leaf: l1}
  - {name: n3, template: h100, pool: train, leaf: l1}
)";

const char* kTenants = R"(
version: 1
teams:
  - {name: research, weight: 2}
  - {name: vision, parent: research, weight: 1}
  - {name: nlp, parent: research, weight: 3}
  - {name: ops, weight: 1}
)";

const char* kPrices = R"(
currency: EUR
gpu_hour:
  A100-SXM4-80GB: 2.0
  H100-SXM5-80GB: 4.0
mig_instance_hour:
  A100-SXM4-80GB:
    3g.40gb: 1.5
)";

UsageSample reading(Seconds t, double util, double sm) {
  return {t, UsageSample::quantize(util), UsageSample::quantize(sm)};
}

UsageRecord row(JobId job, const std::string& team, const std::string& cls, UsageKind kind,
                UsageShare share, Seconds start, std::optional<Seconds> end,
                std::vector<UsageSample> samples, int part = 0) {
  UsageRecord u;
  u.job = job;
  u.part = part;
  u.team = team;
  u.priorityClass = cls;
  u.workloadClass = "training";
  u.kind = kind;
  u.share = std::move(share);
  u.start = start;
  u.end = end;
  u.endReason = end ? "completed" : "";
  u.samples = std::move(samples);
  return u;
}

// The fixture's usage ledger; hours are from T0, the report's range is [T0, T0 + 10 h).
std::vector<UsageRecord> ledger() {
  std::vector<UsageRecord> rows;
  // Job 1 (vision): 4 whole A100s on n1, 0-4 h; busy 80 % (SM 50 %) for 2 h, then 2 % for 2 h
  // (idle: 2 h >= 30 min). allocated 16, busy 4*2*0.8 + 4*2*0.02 = 6.56, effective 4, idle 8.
  rows.push_back(row(1, "vision", "production-training", UsageKind::Whole,
                     {"n1", "A100-SXM4-80GB", "train", 4, 4, 0}, T0, T0 + 4 * H,
                     {reading(T0, 0.8, 0.5), reading(T0 + 2 * H, 0.02, 0)}));
  // Job 2 (nlp): one 3g.40gb (4 of 8 memory slices: 0.5 GPU) on n2, 1-3 h, preempted losing
  // 0.25 GPU-hours; 50 % busy, 40 % SM. allocated 1, busy 0.5, effective 0.4, slice-hours 8.
  UsageRecord mig =
      row(2, "nlp", "experiment", UsageKind::Mig, {"n2", "A100-SXM4-80GB", "infer", 0.5, 1, 4},
          T0 + H, T0 + 3 * H, {reading(T0 + H, 0.5, 0.4)});
  mig.profile = "3g.40gb";
  mig.endReason = "preempted";
  mig.gpuHoursLost = 0.25;
  rows.push_back(mig);
  // Job 3 (nlp): a quarter of an A100 on n2 from 5 h, still running (until the data's end,
  // 10 h), no telemetry. allocated 0.25 * 5 = 1.25, nothing measured.
  rows.push_back(row(3, "nlp", "experiment", UsageKind::Fraction,
                     {"n2", "A100-SXM4-80GB", "infer", 0.25, 1, 0}, T0 + 5 * H, std::nullopt, {}));
  // Job 4 (ops): 2 GPUs on n1 + 2 on n3 from -2 h to 2 h; 1 % busy until 1 h (an idle episode
  // of 3 h, of which 1 h in the range), then 90 % (SM 70 %). In range: allocated 4*2 = 8,
  // busy 4*1*0.01 + 4*1*0.9 = 3.64, effective 2.8, idle 4.
  const std::vector<UsageSample> s4{reading(T0 - 2 * H, 0.01, 0), reading(T0 + H, 0.9, 0.7)};
  rows.push_back(row(4, "ops", "production-training", UsageKind::Whole,
                     {"n1", "A100-SXM4-80GB", "train", 2, 2, 0}, T0 - 2 * H, T0 + 2 * H, s4, 0));
  rows.push_back(row(4, "ops", "production-training", UsageKind::Whole,
                     {"n3", "H100-SXM5-80GB", "train", 2, 2, 0}, T0 - 2 * H, T0 + 2 * H, s4, 1));
  return rows;
}

struct JobFixture {
  JobId id;
  const char* team;
  const char* cls;
  const char* state;
  Seconds submit;
  std::optional<Seconds> end;
};

// Waits: job 1 waited 1 h, job 2 30 min, job 3 0 (first starts in range); job 4 started before
// the range; job 5 still waits at 10 h (submitted 6 h: 4 h); job 6 was cancelled before it ran.
const std::vector<JobFixture> kJobs{
    {1, "vision", "production-training", "completed", T0 - H, T0 + 4 * H},
    {2, "nlp", "experiment", "pending", T0 + H / 2, std::nullopt},
    {3, "nlp", "experiment", "running", T0 + 5 * H, std::nullopt},
    {4, "ops", "production-training", "completed", T0 - 3 * H, T0 + 2 * H},
    {5, "vision", "experiment", "pending", T0 + 6 * H, std::nullopt},
    {6, "ops", "production-training", "cancelled", T0 + 7 * H, T0 + 8 * H},
};

Status insertJobs(Database& db) {
  for (const JobFixture& j : kJobs) {
    auto q = db.prepare(
        "INSERT INTO jobs(id, team, class, state, submit_time, end_time, spec) "
        "VALUES(?,?,?,?,?,?,'{}')");
    if (!q) return q.error();
    q->bind(1, static_cast<int64_t>(j.id)).bind(2, std::string(j.team));
    q->bind(3, std::string(j.cls)).bind(4, std::string(j.state)).bind(5, int64_t{j.submit});
    if (j.end)
      q->bind(6, int64_t{*j.end});
    else
      q->bindNull(6);
    if (Status st = q->run(); !st) return st;
  }
  return okStatus();
}

bool near(double a, double b) {
  return std::abs(a - b) < 1e-6 * std::max(1.0, std::abs(b));
}

}  // namespace

class TestReport : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  std::string path_;

  ReportRequest request() const {
    ReportRequest r;
    r.from = T0;
    r.to = T0 + 10 * H;
    return r;
  }

  std::unique_ptr<ReportSource> source(const std::string& path) const {
    auto s = openReportDatabase(path);
    if (!s) qFatal("%s", s.error().str().c_str());
    return std::move(*s);
  }
  std::unique_ptr<ReportSource> source() const { return source(path_); }

  Report report(const ReportRequest& r, const std::string& path = {}) const {
    auto rep = computeReport(*source(path.empty() ? path_ : path), r);
    if (!rep) qFatal("%s", rep.error().str().c_str());
    return std::move(*rep);
  }

  // The fixture's cluster, jobs, capacity and stranded series with this usage ledger, at `path`.
  static void writeFixture(const std::string& path, const std::vector<UsageRecord>& rows) {
    auto db = Database::open(path);
    QVERIFY2(db, db ? "" : db.error().str().c_str());
    auto cluster = loadClusterSpec(kCluster, "fixture.yaml");
    QVERIFY2(cluster, cluster ? "" : cluster.error().str().c_str());
    auto tenants = loadWorkload(kTenants, "tenants.yaml");
    QVERIFY2(tenants, tenants ? "" : tenants.error().str().c_str());
    auto engine = Engine::create(*cluster, *tenants, Policy{});
    QVERIFY2(engine, engine ? "" : engine.error().str().c_str());
    QVERIFY(engine->advanceTo(T0 + 10 * H));
    StateStore state(*db);
    UsageStore usage(*db);
    MetricStore metrics(*db, MetricRetention{400 * 86400, 400 * 86400, 400 * 86400});
    const Status written = db->transaction([&](Database& d) -> Status {
      TESSERA_CHECK(state.putMeta("mode", "live"));
      TESSERA_CHECK(state.saveSetup(*engine));
      TESSERA_CHECK(state.saveGlobal(*engine, BackendExtras{}));
      TESSERA_CHECK(usage.saveInTransaction(rows));
      TESSERA_CHECK(insertJobs(d));
      const std::string mig = "gpus_stranded{cause=\"mig-layout\"}";
      TESSERA_CHECK(metrics.recordInTransaction(T0, {{"gpus_capacity", 16}, {mig, 1}}));
      TESSERA_CHECK(metrics.recordInTransaction(T0 + 4 * H, {{mig, 0}}));
      return metrics.recordInTransaction(T0 + 5 * H, {{"gpus_capacity", 12}});
    });
    QVERIFY2(written, written ? "" : written.error().str().c_str());
  }

  static const UsageRow* find(const Report& r, const std::string& key) {
    for (const auto& u : r.usage)
      if (u.key == key) return &u;
    return nullptr;
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    path_ = dir_.filePath("fixture.db").toStdString();
    writeFixture(path_, ledger());
  }

  void totalsMatchTheHandComputedFixture() {
    const Report r = report(request());
    const UsageFigures& t = r.total;
    QVERIFY(near(t.allocated, 16 + 1 + 1.25 + 8));
    QVERIFY(near(t.busy, 6.56 + 0.5 + 3.64));
    QVERIFY(near(t.effective, 4.0 + 0.4 + 2.8));
    QVERIFY(near(t.measured, 16 + 1 + 8));
    QVERIFY(near(t.idle, 8 + 4));
    QVERIFY(near(t.wholeGpu, 24));
    QVERIFY(near(t.mig, 1));
    QVERIFY(near(t.fractional, 1.25));
    QVERIFY(near(t.migSliceHours, 8));
    QCOMPARE(t.preemptions, 1);
    QVERIFY(near(t.gpuHoursLost, 0.25));
    QCOMPARE(t.jobs, size_t{4});
    QVERIFY(!t.cost);  // no price table, no cost
    QCOMPARE(r.header.cluster, std::string("fixture"));
    QCOMPARE(r.header.gpus, 24);
    QVERIFY(r.header.wallClock);
    QVERIFY(near(r.capacityGpuHours, 16 * 5 + 12 * 5));
  }

  // An MPS share is its own category, apart from time-sliced shares: job 7 (nlp) with 25 %
  // active threads of an A100 on n2 from 6 h to 10 h holds 0.25 * 4 = 1 GPU-hour of MPS; job 3's
  // 1.25 time-sliced GPU-hours stay fractional. Priced as its share of the GPU: 2 EUR * 1 = 2
  // EUR. The ledger's kind goes through the store ("mps") and back.
  void mpsShareHoursAreTheirOwnCategory() {
    const std::string path = dir_.filePath("mps.db").toStdString();
    std::vector<UsageRecord> rows = ledger();
    rows.push_back(row(7, "nlp", "experiment", UsageKind::Mps,
                       {"n2", "A100-SXM4-80GB", "infer", 0.25, 1, 0}, T0 + 6 * H, T0 + 10 * H, {}));
    writeFixture(path, rows);
    ReportRequest q = request();
    q.prices = *parsePriceTable(kPrices, "prices.yaml");
    const Report r = report(q, path);
    QVERIFY(near(r.total.mps, 1));
    QVERIFY(near(r.total.fractional, 1.25));
    QVERIFY(near(r.total.allocated, 16 + 1 + 1.25 + 8 + 1));
    const UsageRow* nlp = find(r, "nlp");
    QVERIFY(nlp);
    QVERIFY(near(nlp->figures.mps, 1));
    QVERIFY(near(nlp->figures.fractional, 1.25));
    QVERIFY(near(find(r, "vision")->figures.mps, 0));
    const Report fixture = report(q);
    QVERIFY(near(*r.total.cost - *fixture.total.cost, 2.0));
  }

  void groupsByTeamDepartmentNodeAndModel() {
    ReportRequest q = request();
    const Report byTeam = report(q);
    QCOMPARE(byTeam.usage.size(), size_t{3});
    QCOMPARE(byTeam.usage[0].key, std::string("vision"));  // most allocated first
    QVERIFY(near(find(byTeam, "nlp")->figures.allocated, 2.25));
    QVERIFY(near(find(byTeam, "ops")->figures.idle, 4));
    q.groupBy = ReportGroup::Department;
    const Report byDept = report(q);
    QCOMPARE(byDept.usage.size(), size_t{2});
    QVERIFY(near(find(byDept, "research")->figures.allocated, 18.25));
    QVERIFY(near(find(byDept, "ops")->figures.allocated, 8));  // a top-level team is its own
    q.groupBy = ReportGroup::Node;
    const Report byNode = report(q);
    QVERIFY(near(find(byNode, "n1")->figures.allocated, 16 + 4));
    QVERIFY(near(find(byNode, "n2")->figures.allocated, 2.25));
    QVERIFY(near(find(byNode, "n3")->figures.allocated, 4));
    QCOMPARE(find(byNode, "n1")->figures.jobs, size_t{2});
    q.groupBy = ReportGroup::GpuModel;
    const Report byModel = report(q);
    QVERIFY(near(find(byModel, "A100-SXM4-80GB")->figures.allocated, 22.25));
    QVERIFY(near(find(byModel, "H100-SXM5-80GB")->figures.busy, 2 * 0.01 + 2 * 0.9));
    q.groupBy = ReportGroup::Queue;
    QVERIFY(near(find(report(q), "experiment")->figures.allocated, 2.25));
    q.groupBy = ReportGroup::Pool;
    QVERIFY(near(find(report(q), "infer")->figures.allocated, 2.25));
    q.groupBy = ReportGroup::Job;
    QVERIFY(near(find(report(q), "4")->figures.allocated, 8));
  }

  void migSliceHoursByProfile() {
    const Report r = report(request());
    QCOMPARE(r.mig.size(), size_t{1});
    QCOMPARE(r.mig[0].key, std::string("nlp"));
    QCOMPARE(r.mig[0].profile, std::string("3g.40gb"));
    QVERIFY(near(r.mig[0].instanceHours, 2));
    QVERIFY(near(r.mig[0].sliceHours, 8));
  }

  void idleJobsAreTheOnesResponsible() {
    const Report r = report(request());
    QCOMPARE(r.idleJobs.size(), size_t{2});
    QCOMPARE(r.idleJobs[0].job, JobId{1});
    QVERIFY(near(r.idleJobs[0].idleGpuHours, 8));
    QCOMPARE(r.idleJobs[0].longest, Seconds{2 * H});
    QCOMPARE(r.idleJobs[1].job, JobId{4});
    QVERIFY(near(r.idleJobs[1].idleGpuHours, 4));
    QVERIFY(near(r.idleJobs[1].gpus, 4));  // both nodes of the run
    QCOMPARE(r.idleJobs[1].episodes, 1);
    QCOMPARE(r.idleJobs[1].longest, Seconds{3 * H});  // judged over the whole run
    // A higher minimum duration drops job 1's 2 h episode but keeps job 4's 3 h one.
    ReportRequest q = request();
    q.idleMinDuration = 150 * 60;
    const Report longer = report(q);
    QCOMPARE(longer.idleJobs.size(), size_t{1});
    QVERIFY(near(longer.total.idle, 4));
    // A threshold below 2 % makes job 1's tail busy; job 4's 1 % stays idle.
    q = request();
    q.idleThreshold = 0.015;
    QVERIFY(near(report(q).total.idle, 4));
  }

  void strandedCapacityByCause() {
    const Report r = report(request());
    const auto it = std::find_if(r.stranded.begin(), r.stranded.end(),
                                 [](const StrandedRow& s) { return s.cause == "mig-layout"; });
    QVERIFY(it != r.stranded.end());
    QVERIFY(near(it->gpuHours, 4));
    QVERIFY(near(it->shareOfCapacity, 4.0 / 140));
  }

  void queueWaitsByClass() {
    const Report r = report(request());
    QCOMPARE(r.waits.size(), size_t{2});
    const WaitRow& exp = r.waits[0].priorityClass == "experiment" ? r.waits[0] : r.waits[1];
    const WaitRow& prod = &exp == &r.waits[0] ? r.waits[1] : r.waits[0];
    QCOMPARE(exp.started, size_t{2});
    QCOMPARE(exp.p50, 0.0);  // nearest rank of {0, 1800}
    QCOMPARE(exp.max, 1800.0);
    QCOMPARE(exp.mean, 900.0);
    QCOMPARE(exp.waitingAtEnd, size_t{1});
    QCOMPARE(exp.longestWaitingAtEnd, 4.0 * H);
    QCOMPARE(prod.started, size_t{1});
    QCOMPARE(prod.p99, 3600.0);
    QCOMPARE(prod.waitingAtEnd, size_t{0});  // job 6 was cancelled before the end
  }

  void costsChargebackAndIdleShowback() {
    ReportRequest q = request();
    auto prices = parsePriceTable(kPrices, "prices.yaml");
    QVERIFY2(prices, prices ? "" : prices.error().str().c_str());
    q.prices = *prices;
    const Report r = report(q);
    QCOMPARE(r.header.currency, std::string("EUR"));
    // 32 (job 1) + 3 (MIG at its own 1.5/instance-hour) + 2.5 (quarter A100) + 8 + 16 (job 4).
    QVERIFY(near(*r.total.cost, 61.5));
    QVERIFY(near(*r.total.idleCost, 16 + 4 + 8));
    QCOMPARE(r.chargeback.size(), size_t{3});
    QCOMPARE(r.chargeback[0].team, std::string("vision"));
    QCOMPARE(r.chargeback[0].department, std::string("research"));
    QVERIFY(near(r.chargeback[0].cost, 32));
    QVERIFY(near(r.chargeback[0].idleCost, 16));
    QVERIFY(near(r.chargeback[0].shareOfCost, 32 / 61.5));
    // A MIG profile without its own price costs its share of the GPU: 0.5 * 2 h * 2.0 = 2.
    q.prices->migInstanceHour.clear();
    QVERIFY(near(*report(q).total.cost, 61.5 - 3 + 2));
  }

  void fairShareAgainstWeights() {
    const Report r = report(request());
    QCOMPARE(r.fairShare.size(), size_t{3});
    for (const FairShareRow& f : r.fairShare) {
      if (f.team == "nlp") {
        QVERIFY(near(f.deservedShare, 0.6));
        QVERIFY(near(f.usageShare, 2.25 / 26.25));
      }
      if (f.team == "vision") QVERIFY(near(f.ratio, (16 / 26.25) / 0.2));
    }
  }

  void seriesHoldMeanGpus() {
    const Report r = report(request());
    QCOMPARE(r.seriesStep, Seconds{300});
    QCOMPARE(r.series.size(), size_t{120});
    QVERIFY(near(r.series[0].allocated, 8));  // job 1 (4) + job 4 (4)
    QVERIFY(near(r.series[0].busy, 4 * 0.8 + 4 * 0.01));
    QVERIFY(near(r.series[0].capacity, 16));
    QVERIFY(near(r.series[119].capacity, 12));
    QVERIFY(near(r.series[119].allocated, 0.25));  // job 3 alone
  }

  void rangeEdgesClipRuns() {
    ReportRequest q = request();
    q.from = T0 + H;
    q.to = T0 + 3 * H;
    const Report r = report(q);
    // Job 1: 4 GPUs x 2 h, idle 2-3 h: 4. Job 2 whole (1). Job 4: 4 GPUs x 1 h, busy.
    QVERIFY(near(find(r, "vision")->figures.allocated, 8));
    QVERIFY(near(find(r, "vision")->figures.idle, 4));
    QVERIFY(near(find(r, "ops")->figures.allocated, 4));
    QVERIFY(near(find(r, "ops")->figures.idle, 0));
    QCOMPARE(r.total.preemptions, 0);  // job 2 was preempted at 3 h: the range ends before
    // A range ending at the preemption's second includes it no more than one starting there.
    q.from = T0 + 3 * H;
    q.to = T0 + 4 * H;
    QCOMPARE(report(q).total.preemptions, 1);
  }

  void teamFilter() {
    ReportRequest q = request();
    q.teams = {"nlp"};
    const Report r = report(q);
    QCOMPARE(r.usage.size(), size_t{1});
    QVERIFY(near(r.total.allocated, 2.25));
  }

  void badInputIsRefusedClearly() {
    ReportRequest q = request();
    q.teams = {"nobody"};
    auto r = computeReport(*source(), q);
    QVERIFY(!r);
    QVERIFY(r.error().message.find("unknown team 'nobody'") != std::string::npos);
    QVERIFY(r.error().message.find("vision") != std::string::npos);  // the known ones listed
    q = request();
    q.from = T0 + 5 * H;
    q.to = T0 + 4 * H;
    r = computeReport(*source(), q);
    QVERIFY(!r);
    QVERIFY(r.error().message.find("inverted") != std::string::npos);
    q = request();
    q.prices = *parsePriceTable("gpu_hour: {A100-SXM4-80GB: 2}", "p.yaml");
    r = computeReport(*source(), q);
    QVERIFY(!r);
    QVERIFY(r.error().str().find("H100-SXM5-80GB (4 GPU-hours)") != std::string::npos);
    q.prices->defaultGpuHour = 3.0;  // the documented default closes the gap
    QVERIFY(computeReport(*source(), q));
    q = request();
    q.timeZone = "Mars/Olympus";
    QVERIFY(!computeReport(*source(), q));
    auto bad = parsePriceTable("gpu_hour:\n  A100-SXM4-80GB: cheap\n", "p.yaml");
    QVERIFY(!bad);
    QCOMPARE(bad.error().where.line, 2);
    QCOMPARE(bad.error().where.field, std::string("gpu_hour.A100-SXM4-80GB"));
    QVERIFY(!parsePriceTable("currency: EUR\n", "p.yaml"));  // no prices at all
    QVERIFY(!openReportDatabase(dir_.filePath("missing.db").toStdString()));
  }

  void timeZonesAndPeriods() {
    // Midnight in Berlin on 2026-03-01 is 23:00 UTC the day before.
    auto t = parseReportTime("2026-03-01", "Europe/Berlin", 0);
    QVERIFY(t);
    QCOMPARE(*t, T0 - H);
    QCOMPARE(*parseReportTime("2026-03-01T00:00:00Z", "Europe/Berlin", 0), T0);
    QCOMPARE(*parseReportTime("2026-03-01T02:00+02:00", "UTC", 0), T0);
    QCOMPARE(*parseReportTime("@42", "UTC", 0), Seconds{42});
    QCOMPARE(*parseReportTime("-36h", "UTC", T0), T0 - 36 * H);
    QVERIFY(!parseReportTime("yesterday", "UTC", 0));
    // 2026-03-29 in Berlin is 23 hours long (clocks go forward).
    const Seconds day = *parseReportTime("2026-03-29T12:00", "Europe/Berlin", 0);
    const Seconds start = periodStart(ReportPeriod::Day, day, "Europe/Berlin");
    QCOMPARE(nextPeriodStart(ReportPeriod::Day, day, "Europe/Berlin") - start, 23 * H);
    // Weeks start on Monday: 2026-03-01 is a Sunday, its week began 2026-02-23.
    QCOMPARE(periodStart(ReportPeriod::Week, T0, "UTC"), T0 - 6 * 86400);
    QCOMPARE(nextPeriodStart(ReportPeriod::Month, T0, "UTC"), T0 + 31 * 86400);
    // A report of Berlin's 2026-03-01 clips job 4 (from -2 h UTC = 23:00 Berlin the day before).
    ReportRequest q = request();
    q.timeZone = "Europe/Berlin";
    q.from = *parseReportTime("2026-03-01T01:00", "Europe/Berlin", 0);  // = T0
    QCOMPARE(*q.from, T0);
    QCOMPARE(report(q).header.timeZone, std::string("Europe/Berlin"));
  }
};

QTEST_GUILESS_MAIN(TestReport)
#include "tst_report.moc"
