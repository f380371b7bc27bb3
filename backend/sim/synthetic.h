#pragma once
// Synthetic workloads shaped to a cluster: Poisson arrivals of multi-node training gangs (whole
// GPUs, checkpointing), MIG-sized inference services, fractional dev notebooks that mostly idle,
// and short batch jobs; runtimes heavy-tailed (log-normal); users' runtime estimates padded like
// real ones. Kinds the cluster cannot host (no MIG GPUs, no time-sliced GPUs) give their share
// to training. Deterministic for a seed.
#include <cstdint>
#include <string>
#include <vector>

#include "core/expected.h"
#include "sim/trace.h"
#include "topology/cluster.h"

namespace tessera {

struct SyntheticConfig {
  size_t jobs = 1000;
  double arrivalsPerHour = 60;  // Poisson rate
  uint64_t seed = 1;
  // Mix by count; normalized.
  double training = 0.30, inference = 0.25, notebooks = 0.20, batch = 0.25;
  std::vector<std::string> teams = {"vision", "language", "speech", "platform"};
  double runtimeScale = 1.0;  // multiplies every runtime (shorter or longer work)
};

// Fails on a rate or scale that is not positive, no teams, or a cluster without usable GPUs.
Expected<Trace> synthesize(const Cluster& cluster, const SyntheticConfig& config);

}  // namespace tessera
