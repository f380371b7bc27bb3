#pragma once
// The embedded demo both consoles open (the desktop window and `tessera top`): the real engine in
// a Backend on the simulator's paced clock, with its state in a throw-away database. QtCore only
// (a temporary directory), so the terminal console can open it without any GUI library.
#include <memory>
#include <string>

#include "service/backend.h"

namespace tessera::session {

struct EmbeddedOptions {
  std::shared_ptr<const Cluster> cluster;
  Workload workload;  // tenants, and jobs submitted when the demo starts
  Policy policy;
  const GpuCatalog* catalog = nullptr;
  double speed = 60;  // engine seconds per wall second
  // GPU faults (gpu_faults.h), far more often than a real fleet sees them (a few per thousand
  // GPUs a day) so the Health layer has something to show: at the demo's speed one about every
  // two minutes, each out for two.
  double gpuFaultsPerDay = 12;
  Seconds gpuFaultRepair = 7200;
};

struct EmbeddedSession {
  std::shared_ptr<Backend> backend;
  // The demo's database file, removed with the backend: reports read it directly (with
  // progress) instead of asking the backend, which has no way to say how far it is.
  std::string database;
};

// A Backend in simulated-live mode over a temporary database (removed with the session).
Expected<EmbeddedSession> openEmbeddedSession(const EmbeddedOptions& options);

}  // namespace tessera::session
