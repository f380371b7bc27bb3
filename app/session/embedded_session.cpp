#include "session/embedded_session.h"

#include <QTemporaryDir>

#include <future>

namespace tessera::session {

Expected<EmbeddedSession> openEmbeddedSession(const EmbeddedOptions& options) {
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
  c.gpuFaultsPerDay = options.gpuFaultsPerDay;
  c.gpuFaultRepair = options.gpuFaultRepair;
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
  return EmbeddedSession{std::move(shared), c.database};
}

}  // namespace tessera::session
