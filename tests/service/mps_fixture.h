#pragma once
// The MPS cluster of ../scheduler/mps_spec.h with a workload, for the service, console and
// terminal tests.
//
// Jobs 1 and 2 (user ana) share p1/0's server: 60 + 30 % of its 150 %, 24 + 20 GiB pinned (no
// MIG instance's 19968 MiB holds either). Job 3 (user bo) may not join them and takes a MIG
// instance's server on m1: 60 %, 12 GiB.
#include <QtTest>

#include <memory>

#include "../scheduler/mps_spec.h"
#include "clusterspec/cluster_spec.h"
#include "service/backend.h"
#include "workload/workload_spec.h"

namespace tessera::test {

inline constexpr const char* kMpsWorkload = R"(version: 1
teams: [{name: search}]
jobs:
  - {id: 1, team: search, user: ana, priority: experiment, mps: {threads: 60, memory: 24GiB}}
  - {id: 2, team: search, user: ana, priority: experiment, mps: {threads: 30, memory: 20GiB}}
  - {id: 3, team: search, user: bo, priority: experiment, mps: {threads: 60, memory: 12GiB}}
)";

// The workload above, read.
inline Workload mpsWorkload() {
  auto w = loadWorkload(kMpsWorkload, "mps-jobs.yaml");
  if (!w) qFatal("%s", w.error().str().c_str());
  return *w;
}

// Puts the MPS cluster and its teams into a backend's configuration (openDemoBackend's hook).
inline void useMpsCluster(BackendConfig& c) {
  auto cluster = loadClusterSpec(kMpsClusterSpec, "mps.yaml");
  if (!cluster) qFatal("%s", cluster.error().str().c_str());
  c.cluster = *cluster;
  c.tenants = mpsWorkload();
}

// The same with p1's MPS GPU under node_sharing: one (mps_spec.h).
inline void useMpsClusterOneSharing(BackendConfig& c) {
  useMpsCluster(c);
  auto cluster = loadClusterSpec(mpsClusterSpecOneSharing(), "mps-one.yaml");
  if (!cluster) qFatal("%s", cluster.error().str().c_str());
  c.cluster = *cluster;
}

}  // namespace tessera::test
