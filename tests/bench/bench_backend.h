// What the benchmarks that drive a Backend share: a cluster of N DGX H100 nodes in pods of 50,
// the process's resident memory, and a synchronous call into the session interface that ends the
// benchmark on an error (a benchmark has nobody to hand an error to).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <future>
#include <memory>
#include <sstream>
#include <string>
#include <variant>

#include "clusterspec/cluster_spec.h"
#include "service/session.h"

namespace tessera::bench {

[[noreturn]] inline void exitWith(const std::string& who, const std::string& why) {
  std::fprintf(stderr, "%s: %s\n", who.c_str(), why.c_str());
  std::exit(1);
}

// `nodes` DGX H100 (8 GPUs each), 50 to a pod with one leaf switch each, under one spine.
inline std::shared_ptr<const Cluster> dgxCluster(int nodes, const std::string& name) {
  std::ostringstream s;
  s << "version: 1\nname: " << name << "\nnode_templates:\n"
    << "  dgx: {gpu_model: H100-SXM5-80GB, gpus: 8, cpus: 224, memory_gib: 2048}\n"
    << "fabric:\n  spines: [spine-1]\ngroups:\n";
  for (int pod = 0; pod < (nodes + 49) / 50; ++pod)
    s << "  - {name: pod" << pod << ", template: dgx, count: " << std::min(50, nodes - pod * 50)
      << ", leafs: {count: 1, spine: spine-1}}\n";
  auto c = loadClusterSpec(s.str(), name + ".yaml");
  if (!c) exitWith(name, c.error().str());
  return *c;
}

inline double rssMiB() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.starts_with("VmRSS:")) return std::stod(line.substr(6)) / 1024.0;
  return 0;
}

template <typename T, typename Call>
T awaitOrExit(const std::string& who, Call&& call) {
  std::promise<std::variant<T, ApiError>> p;
  auto f = p.get_future();
  call([&p](std::variant<T, ApiError> r) { p.set_value(std::move(r)); });
  auto r = f.get();
  if (auto* e = std::get_if<ApiError>(&r)) exitWith(who, "backend: " + e->message);
  return std::get<T>(std::move(r));
}

}  // namespace tessera::bench
