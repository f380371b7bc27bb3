#pragma once
// Repartition planning: from a GPU's current instances (some busy) to a desired set of profiles,
// keeping busy instances where they are and as many idle ones as possible.
#include <string>
#include <vector>

#include "core/expected.h"
#include "topology/mig_layout.h"

namespace tessera {

struct MigPlanStep {
  enum class Kind { Destroy, Create };
  Kind kind;
  MigInstance instance;
};

struct MigPlan {
  MigLayout target;                // every instance placed, in start order
  std::vector<MigPlanStep> steps;  // destroys first, then creates (largest first)
  int keptInstances = 0;           // current instances left untouched (busy + reused idle)
};

// `desired` lists the full target set: each entry is a profile with an optional fixed start and
// optional compute instances. Busy instances of `current` must appear in it (same profile; the
// busy instance's start is kept). Among valid targets, the plan keeps the most current instances
// (fewest steps), then leaves the least MIG fragmentation, then prefers lower starts.
// Fails with a reason when no valid target exists.
Expected<MigPlan> planMigRepartition(const GpuModel& model, const MigLayout& current,
                                     const MigLayout& desired);

std::string formatMigPlan(const GpuModel& model, const MigPlan& plan);

}  // namespace tessera
