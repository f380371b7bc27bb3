#include "console/session_factory.h"

#include "report/report_compute.h"
#include "report/report_source.h"
#include "rpc/client.h"

namespace tessera::console {

Expected<std::shared_ptr<ClusterSession>> openRemoteSession(const RemoteOptions& options) {
  rpc::ClientOptions o;
  o.address = options.address.toStdString();
  o.token = options.token.toStdString();
  o.caFile = options.caFile.toStdString();
  o.timeoutSeconds = 10;
  TESSERA_TRY(session, rpc::RemoteSession::connect(o));
  // Fail now on a wrong address or token, not on the first refresh.
  auto who = session->whoAmI();
  if (const auto* e = std::get_if<ApiError>(&who))
    return Error{options.address.toStdString() + ": " + e->message, {}};
  return std::shared_ptr<ClusterSession>(std::move(session));
}

ReportWorkers::~ReportWorkers() {
  stop_ = true;
  std::lock_guard lock(mutex_);
  for (Worker& w : workers_) w.thread.join();
}

void ReportWorkers::run(std::function<void(const std::atomic<bool>& stop)> work) {
  reap();
  auto done = std::make_shared<std::atomic<bool>>(false);
  std::lock_guard lock(mutex_);
  std::thread t([this, done, work = std::move(work)] {
    work(stop_);
    *done = true;
  });
  workers_.push_back({std::move(t), std::move(done)});
}

void ReportWorkers::reap() {
  std::lock_guard lock(mutex_);
  for (auto it = workers_.begin(); it != workers_.end();) {
    if (!*it->done) {
      ++it;
      continue;
    }
    it->thread.join();
    it = workers_.erase(it);
  }
}

namespace {

// Runs `work` on `workers`, or answers `done` at once when they are gone (the window closed).
void onWorker(const std::weak_ptr<ReportWorkers>& workers, const widgets::ReportDoneCallback& done,
              std::function<void(const std::atomic<bool>& stop)> work) {
  const auto w = workers.lock();
  if (!w) {
    done(std::string("the session is closed"));
    return;
  }
  w->run(std::move(work));
}

}  // namespace

widgets::ReportRunner embeddedReportRunner(std::string database, const GpuCatalog* catalog,
                                           std::shared_ptr<const void> keepAlive,
                                           std::weak_ptr<ReportWorkers> workers) {
  return [database = std::move(database), catalog, keepAlive = std::move(keepAlive),
          workers = std::move(workers)](ReportRequest request,
                                        widgets::ReportProgressCallback progress,
                                        widgets::ReportDoneCallback done) {
    onWorker(workers, done,
             [database, catalog, keepAlive, request = std::move(request),
              progress = std::move(progress), done](const std::atomic<bool>& stop) {
               auto source = openReportDatabase(database, catalog);
               if (!source) return done(source.error().str());
               auto report = computeReport(**source, request, [&](double fraction) {
                 return !stop && (!progress || progress(fraction));
               });
               if (!report) return done(report.error().str());
               done(std::move(*report));
             });
  };
}

widgets::ReportRunner sessionReportRunner(std::shared_ptr<ClusterSession> session,
                                          std::weak_ptr<ReportWorkers> workers) {
  return [session = std::move(session), workers = std::move(workers)](
             ReportRequest request, widgets::ReportProgressCallback,
             widgets::ReportDoneCallback done) {
    // A remote call waits on the network: never on the GUI thread.
    onWorker(workers, done,
             [session, request = std::move(request), done](const std::atomic<bool>&) {
               session->report(request, [done](std::variant<Report, ApiError> r) {
                 if (auto* e = std::get_if<ApiError>(&r)) return done(e->message);
                 done(std::move(std::get<Report>(r)));
               });
             });
  };
}

}  // namespace tessera::console
