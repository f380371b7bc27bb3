#pragma once
// Where the console's data comes from: the embedded demo (the real engine in a Backend on the
// simulator's paced clock, with its state in a throw-away database) or a remote tesserad over
// gRPC. Both are ClusterSessions; the widgets cannot tell them apart. Also the report runners
// of the export dialog for either kind of session.
#include <QString>

#include <atomic>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "report_export_dialog.h"
#include "service/backend.h"
#include "session/embedded_session.h"

namespace tessera::console {

// The embedded demo lives in app/session (the terminal console opens it too).
using session::EmbeddedOptions;
using session::EmbeddedSession;
using session::openEmbeddedSession;

struct RemoteOptions {
  QString address;  // host:port or unix:/path
  QString token;
  QString caFile;  // TLS when set
};
Expected<std::shared_ptr<ClusterSession>> openRemoteSession(const RemoteOptions& options);

// The threads reports are computed on. Owned by whoever shows the dialog; its destruction asks
// the running ones to stop (through `stop`, which the embedded runner's progress checks) and
// joins them, so no report outlives the window. A remote request cannot be interrupted: joining
// waits for its answer or the session's call timeout.
class ReportWorkers {
 public:
  ReportWorkers() = default;
  ReportWorkers(const ReportWorkers&) = delete;
  ReportWorkers& operator=(const ReportWorkers&) = delete;
  ~ReportWorkers();
  void run(std::function<void(const std::atomic<bool>& stop)> work);

 private:
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  void reap();  // joins the workers that have finished
  std::mutex mutex_;
  std::list<Worker> workers_;
  std::atomic<bool> stop_{false};
};

// Computes reports from the embedded demo's database file on `workers` (openReportDatabase and
// computeReport, with real progress). `keepAlive` (the session's backend) is held until each
// report is done, so its temporary database outlives the read. Once `workers` is gone the
// runner answers with an error.
widgets::ReportRunner embeddedReportRunner(std::string database, const GpuCatalog* catalog,
                                           std::shared_ptr<const void> keepAlive,
                                           std::weak_ptr<ReportWorkers> workers);
// Asks the session (ClusterSession::report: a remote tesserad) on `workers`; it cannot report
// progress, so the dialog shows a busy bar.
widgets::ReportRunner sessionReportRunner(std::shared_ptr<ClusterSession> session,
                                          std::weak_ptr<ReportWorkers> workers);

}  // namespace tessera::console
