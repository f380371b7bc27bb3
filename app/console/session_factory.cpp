#include "console/session_factory.h"

#include <QTemporaryDir>

#include <future>

#include "rpc/client.h"

namespace tessera::console {

Expected<std::shared_ptr<Backend>> openEmbeddedSession(const EmbeddedOptions& options) {
  auto dir = std::make_shared<QTemporaryDir>();
  if (!dir->isValid()) return Error{"cannot create a temporary directory for the demo", {}};
  BackendConfig c;
  c.database = dir->filePath(QStringLiteral("console-demo.db")).toStdString();
  c.mode = BackendMode::SimulatedLive;
  c.cluster = options.cluster;
  c.tenants = options.workload;
  c.policy = options.policy;
  c.catalog = options.catalog;
  c.cycleSeconds = 1;
  c.speed = options.speed;
  TESSERA_TRY(backend, Backend::open(c));
  // The demo workload's jobs start the show; the load generator keeps it going.
  std::vector<Job> jobs = options.workload.jobs;
  for (Job& j : jobs) j.id = kNoJob;
  if (!jobs.empty()) {
    std::promise<void> done;
    backend->submit(std::move(jobs), Caller{"demo"}, std::nullopt,
                    [&done](std::variant<std::vector<JobId>, ApiError>) { done.set_value(); });
    done.get_future().wait();
  }
  // The directory (and the database in it) lives as long as the backend.
  std::shared_ptr<Backend> shared(backend.release(), [dir](Backend* b) { delete b; });
  return shared;
}

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

}  // namespace tessera::console
