#pragma once
// Where the console's data comes from: the embedded demo (the real engine in a Backend on the
// simulator's paced clock, with its state in a throw-away database) or a remote tesserad over
// gRPC. Both are ClusterSessions; the widgets cannot tell them apart.
#include <QString>

#include <memory>

#include "service/backend.h"

namespace tessera::console {

struct EmbeddedOptions {
  std::shared_ptr<const Cluster> cluster;
  Workload workload;  // tenants, and jobs submitted when the demo starts
  Policy policy;
  const GpuCatalog* catalog = nullptr;
  double speed = 60;  // engine seconds per wall second
};

// A Backend in simulated-live mode over a temporary database (removed with the session).
Expected<std::shared_ptr<Backend>> openEmbeddedSession(const EmbeddedOptions& options);

struct RemoteOptions {
  QString address;  // host:port or unix:/path
  QString token;
  QString caFile;  // TLS when set
};
Expected<std::shared_ptr<ClusterSession>> openRemoteSession(const RemoteOptions& options);

}  // namespace tessera::console
