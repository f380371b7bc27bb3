#include "report/report_source.h"

#include <nlohmann/json.hpp>

#include "clusterspec/cluster_spec.h"
#include "store/job_codec.h"
#include "store/state_store.h"
#include "store/usage_store.h"
#include "topology/gpu_catalog.h"
#include "workload/workload_spec.h"

namespace tessera {
namespace {

class DatabaseSource final : public ReportSource {
 public:
  explicit DatabaseSource(Database db)
      : db_(std::move(db)), state_(db_), usage_(db_), metrics_(db_) {}

  Status load(const GpuCatalog& catalog) {
    const std::string where = db_.path() + ": ";
    if (db_.schemaVersion() < 3)
      return Error{where + "the database is from an older version (schema " +
                       std::to_string(db_.schemaVersion()) +
                       ") without a usage ledger; open it once with this tesserad to upgrade it",
                   {}};
    TESSERA_TRY(clusterText, state_.meta("cluster"));
    TESSERA_TRY(tenantsText, state_.meta("tenants"));
    if (!clusterText || !tenantsText)
      return Error{where + "the database holds no cluster setup (is it a Tessera state?)", {}};
    ClusterSpecOptions options;
    options.catalog = &catalog;
    auto cluster = loadClusterSpec(*clusterText, "<database: cluster>", options);
    if (!cluster) return Error{where + cluster.error().str(), {}};
    auto tenants = loadWorkload(*tenantsText, "<database: tenants>", &catalog);
    if (!tenants) return Error{where + tenants.error().str(), {}};
    setup_.cluster = (*cluster)->name;
    setup_.source = db_.path();
    setup_.gpus = static_cast<int>((*cluster)->gpus().size());
    setup_.teams = tenants->teams;
    setup_.classes =
        tenants->priorityClasses.empty() ? defaultPriorityClasses() : tenants->priorityClasses;
    TESSERA_TRY(mode, state_.meta("mode"));
    setup_.wallClock = mode.value_or(std::string()) == "live";
    return loadSpan();
  }

  [[nodiscard]] const ReportSetup& setup() const override { return setup_; }

  Status forEachUsage(Seconds from, Seconds to,
                      const std::function<Status(const UsageRecord&)>& row) const override {
    return usage_.forEach(from, to, row);
  }

  Status forEachJob(Seconds to,
                    const std::function<Status(const JobAccount&)>& job) const override {
    TESSERA_TRY(q, db_.prepare("SELECT j.id, j.team, j.class, j.submit_time, j.state, j.end_time,"
                               " (SELECT min(u.start) FROM usage u WHERE u.job = j.id)"
                               " FROM jobs j WHERE j.submit_time < ?1"));
    q.bind(1, int64_t{to});
    while (true) {
      TESSERA_TRY(more, q.step());
      if (!more) return okStatus();
      JobAccount a;
      a.id = static_cast<JobId>(q.int64At(0));
      a.team = q.textAt(1);
      a.priorityClass = q.textAt(2);
      a.submit = q.int64At(3);
      bool known = false;
      a.state = jobStateFromName(q.textAt(4), &known);
      if (!q.isNull(5) && q.int64At(5) > 0) a.end = q.int64At(5);
      if (!q.isNull(6)) a.firstStart = q.int64At(6);
      TESSERA_CHECK(job(a));
    }
  }

  [[nodiscard]] Expected<MetricSeries> series(const std::string& name, Seconds from,
                                              Seconds to) const override {
    return metrics_.query(name, from, to, MetricResolution::Auto, 100000);
  }

  [[nodiscard]] Expected<size_t> usageCount(Seconds from, Seconds to) const override {
    return usage_.count(from, to);
  }

 private:
  // The data's first time (earliest run, submission or sample) and last (the engine's clock).
  Status loadSpan() {
    TESSERA_TRY(span, usage_.span());
    TESSERA_TRY(q, db_.prepare("SELECT min(submit_time) FROM jobs"));
    TESSERA_TRY(row, q.step());
    Seconds first = span ? span->first : 0, last = span ? span->second : 0;
    if (row && !q.isNull(0)) first = span ? std::min(first, q.int64At(0)) : q.int64At(0);
    TESSERA_TRY(globalText, state_.meta("global"));
    if (globalText) {
      const auto global = nlohmann::json::parse(*globalText, nullptr, false);
      if (global.is_object() && global.contains("now") && global["now"].is_number_integer())
        last = std::max(last, global["now"].get<Seconds>());
    }
    setup_.first = first;
    setup_.last = std::max(first, last);
    return okStatus();
  }

  mutable Database db_;  // reads only; prepare() is not const
  StateStore state_;
  UsageStore usage_;
  MetricStore metrics_;
  ReportSetup setup_;
};

}  // namespace

Expected<std::unique_ptr<ReportSource>> openReportDatabase(const std::string& path,
                                                           const GpuCatalog* catalog) {
  TESSERA_TRY(db, Database::openReadOnly(path));
  auto source = std::make_unique<DatabaseSource>(std::move(db));
  TESSERA_CHECK(source->load(catalog ? *catalog : GpuCatalog::builtin()));
  return std::unique_ptr<ReportSource>(std::move(source));
}

}  // namespace tessera
