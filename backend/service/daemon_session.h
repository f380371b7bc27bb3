#pragma once
// What tesserad's gRPC server serves: a ClusterSession plus the daemon's own faces - health, the
// event hub that WatchEvents streams, backups, telemetry and inventories pushed by node agents
// (and the admission of new nodes), reports bounded by a caller's deadline. The server depends
// on this interface, not on Backend (the one implementation), so it can be built and tested over
// any session that offers these.
#include <functional>
#include <string>
#include <vector>

#include "service/event_hub.h"
#include "service/executor.h"
#include "service/live_telemetry.h"
#include "service/node_inventory_source.h"
#include "service/node_report.h"
#include "service/session.h"
#include "service/world.h"

namespace tessera {

// Whether the backend takes work, and if not, why (for the gRPC health service, `tessera ctl
// health` and the tessera_backend_up gauge).
struct BackendHealth {
  bool serving = true;
  std::string reason;  // empty while serving

  friend bool operator==(const BackendHealth&, const BackendHealth&) = default;
};

// How a report may be cut short: the API server passes its caller's deadline and whether the
// call was cancelled (a client gone, the server shutting down), so no worker outlives its use.
struct ReportLimits {
  Deadline deadline;
  std::function<bool()> cancelled;  // polled from the worker thread; true abandons the report
};

class DaemonSession : public ClusterSession, public NodeInventorySource {
 public:
  using ClusterSession::report;
  virtual void report(ReportRequest request, ReportLimits limits, Reply<Report> reply) = 0;
  // A consistent copy of the database at `path` (which must not exist).
  virtual void backup(std::string path, Reply<uint64_t> reply) = 0;
  // A node agent's dcgm-exporter scrape; `node` names the node when the scrape's Hostname
  // labels do not.
  virtual void pushTelemetry(DcgmScrape scrape, std::string node, Reply<TelemetryPush> reply) = 0;
  // A node agent's inventory (node_report.h).
  virtual void reportInventory(InventoryReport report, Reply<InventoryReply> reply) = 0;
  // An operator admits a node that announced itself (audited as `actor`).
  virtual void admitNode(std::string node, std::string actor, Reply<std::string> reply) = 0;

  // Readable from any thread.
  [[nodiscard]] virtual BackendHealth health() const = 0;
  // Calls `onChange` with the new health whenever it changes; the returned function
  // unsubscribes, and no call of `onChange` runs after it returns.
  virtual CancelWatch watchHealth(std::function<void(const BackendHealth&)> onChange) = 0;
  // What runs the jobs (GetHealth's details); readable from any thread.
  [[nodiscard]] virtual ExecutorStatus executorStatus() const = 0;
  [[nodiscard]] virtual EventHub& events() = 0;
  // Fixed for the life of the session; readable from any thread.
  [[nodiscard]] virtual const std::vector<PriorityClass>& priorityClasses() const = 0;
  [[nodiscard]] virtual BackendMode mode() const = 0;
};

}  // namespace tessera
