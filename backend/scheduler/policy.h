#pragma once
// The scheduling policy: which plugins run at each extension point, in which order and with which
// weights, plus the knobs of preemption, backfill and fair share. Read from a YAML policy file
// (docs/scheduler-policy.md); every error names file, line, column and field.
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/expected.h"
#include "core/ids.h"

namespace tessera {

struct WeightedPlugin {
  std::string name;
  double weight = 1.0;
};

struct PreemptionPolicy {
  std::string plugin = "checkpoint-aware";  // or "none"
  bool reclaimBorrowed = true;              // a team below its guarantee takes back lent GPUs
  bool withinGuarantee = false;  // priority may preempt jobs inside their team's guarantee
  int maxAttemptsPerCycle = 16;  // blocked jobs that may search for victims in one cycle
};

// Slurm-style backfill knobs (bf_window, bf_resolution, bf_max_job_test, bf_max_time).
struct BackfillPolicy {
  std::string plugin = "reservations";  // or "none": every job tried, no reservations
  Seconds window = 24 * 3600;           // how far ahead reservations are planned
  Seconds resolution = 60;              // running jobs' ends are grouped to this step
  int depth = 100;                      // blocked jobs that get a reservation per cycle
  double timeBudgetMs = 50;             // planning time per cycle before it stops reserving
  // Slurm's bf_interval: plan reservations at most this often (0 = every cycle). Cycles in
  // between keep the last plan's reservations (dropping those of jobs no longer waiting) and
  // make no new ones, so a deep backlog is not re-planned on every arrival.
  Seconds interval = 0;
};

// Whether placement may create MIG instances on free slices. Under an executor whose partitions
// are fixed (Slurm's GRES types are declared in gres.conf) it may not: jobs take the instances
// that exist, and only an operator's repartition changes a layout.
struct MigPolicy {
  bool createInstances = true;
};

struct FairSharePolicy {
  Seconds halfLife = 7 * 24 * 3600;  // usage decay (Slurm PriorityDecayHalfLife)
};

struct Policy {
  std::vector<std::string> queueOrder{"priority", "operator-order", "fair-share", "submit-time"};
  std::vector<std::string> admission{"hold", "quota"};
  std::vector<std::string> filter{"reservations", "pin"};
  std::vector<WeightedPlugin> score{{"binpack", 1.0}};
  std::vector<std::string> permit{"quota"};
  PreemptionPolicy preemption;
  BackfillPolicy backfill;
  FairSharePolicy fairShare;
  MigPolicy mig;
  bool checkInvariants = false;  // run the invariant checker after every cycle
};

// Reads a policy document; plugin names are checked against the built-in registry.
Expected<Policy> loadPolicy(std::string_view text, const std::string& fileName);
Expected<Policy> loadPolicyNode(const YAML::Node& doc, const std::string& fileName,
                                const std::string& fieldPath);
Expected<Policy> loadPolicyFile(const std::string& path);
// The policy as YAML (round-trips through loadPolicy).
std::string writePolicy(const Policy& policy);

}  // namespace tessera
