#pragma once
// The small engine the scheduler's and service's unit tests share: two nodes of 4 H100s, two
// teams with the default priority classes, and whole-GPU jobs of an hour.
#include <QtTest>

#include "clusterspec/cluster_spec.h"
#include "scheduler/engine.h"

namespace tessera::test {

// Two nodes of 4 H100s: 8 GPUs.
inline std::shared_ptr<const Cluster> cluster() {
  static const std::shared_ptr<const Cluster> c = [] {
    auto loaded = loadClusterSpec(R"(version: 1
name: engine
node_templates:
  h100: {gpu_model: H100-SXM5-80GB, gpus: 4, cpus: 64, memory_gib: 512}
fabric:
  leafs: [{name: leaf-1}]
nodes:
  - {name: h1, template: h100, leaf: leaf-1}
  - {name: h2, template: h100, leaf: leaf-1}
)",
                                  "engine.yaml");
    if (!loaded) qFatal("%s", loaded.error().str().c_str());
    return *loaded;
  }();
  return c;
}

inline Workload tenants() {
  Workload w;
  w.teams = {Team{"vision", "", 1, {}}, Team{"nlp", "", 1, {}}};
  return w;  // default priority classes
}

inline Job job(JobId id, int gpus, const char* team = "vision", const char* cls = "experiment") {
  Job j;
  j.id = id;
  j.team = team;
  j.priorityClass = cls;
  j.perTask.kind = GpuRequest::Kind::Whole;
  j.perTask.gpus = gpus;
  j.estimatedRuntime = 3600;
  return j;
}

}  // namespace tessera::test
