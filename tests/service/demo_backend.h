#pragma once
// The fixture the service, RPC and widget tests share: a Backend on the demo cluster and demo
// tenants (no jobs submitted), with its database at `path`, on a fixed clock, cycling only when
// a test asks (Backend::cycleNow).
#include <QString>
#include <QtTest>

#include <functional>
#include <memory>

#include "clusterspec/cluster_spec.h"
#include "demo_jobs.h"
#include "service/backend.h"
#include "workload/workload_spec.h"

namespace tessera::test {

// `adjust` may change the configuration before the backend opens (an onCycle hook, say).
inline std::unique_ptr<Backend> openDemoBackend(
    const QString& path, Seconds clock = 5000,
    const std::function<void(BackendConfig&)>& adjust = {}) {
  BackendConfig c;
  c.database = path.toStdString();
  c.cluster = demoCluster();
  auto w = demoWorkload();
  if (!w) qFatal("demo workload: %s", w.error().str().c_str());
  c.tenants = *w;
  c.runCycles = false;
  c.clock = [clock] { return clock; };
  if (adjust) adjust(c);
  auto b = Backend::open(c);
  if (!b) qFatal("%s", b.error().str().c_str());
  return std::move(*b);
}

}  // namespace tessera::test
