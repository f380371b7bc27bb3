#pragma once
// The MPS cluster the engine, service, console and terminal tests share.
//
// p1 (2 x L40S, 46068 MiB): GPU 0 runs MPS shared by user with a thread budget of 150, GPU 1 is
// exclusive. m1 (A100-SXM4-40GB): MIG 3g.20gb@0 + 3g.20gb@4 (19968 MiB each), MPS in both.
#include <string>

namespace tessera::test {

inline constexpr const char* kMpsClusterSpec = R"(version: 1
name: mps-test
node_templates:
  l40s: {gpu_model: L40S, gpus: 2}
  a100: {gpu_model: A100-SXM4-40GB, gpus: 1}
fabric:
  leafs: [{name: l1}]
nodes:
  - {name: p1, template: l40s, leaf: l1}
  - {name: m1, template: a100, leaf: l1}
overrides:
  - nodes: p1
    gpus: {"0": {mps: {co_location: user, thread_budget: 150}}}
  - nodes: m1
    gpus: {"0": {mig: "3g.20gb@0,3g.20gb@4", mps: true}}
)";

// The same cluster with p1's MPS GPU under node_sharing: one. It is the node's only MPS GPU, so
// the rule refuses nothing more; the views say it.
inline std::string mpsClusterSpecOneSharing() {
  std::string s = kMpsClusterSpec;
  const std::string from = "thread_budget: 150}";
  s.replace(s.find(from), from.size(), "thread_budget: 150, node_sharing: one}");
  return s;
}

}  // namespace tessera::test
