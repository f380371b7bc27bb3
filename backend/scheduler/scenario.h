#pragma once
// Declarative scheduler scenarios (docs/scenario-format.md): one YAML file holds a cluster, the
// tenants and jobs, a policy, optionally the state of running jobs, and steps - clock moves,
// cycles, completions, operator commands - each with expectations about job states, placements,
// reasons, explanations, events and statistics. The same file is an engine test, a bug report and
// a replay of scheduler input exported from a live engine (exportScenario).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "scheduler/command.h"
#include "scheduler/engine.h"

namespace tessera {

struct ScenarioStep {
  int line = 0;               // in the scenario file, for messages
  std::optional<Seconds> at;  // advance the clock to this time first
  int cycles = 0;             // cycles to run
  std::vector<JobId> complete, fail, checkpoint;
  std::optional<Command> command;
  std::string actor = "operator";
  bool dryRun = false;
  std::string expectError;  // the command must fail with a message containing this
  YAML::Node expect;        // checked after the step (null = nothing to check)
};

// A running job at the start (exported state): where each task sits.
struct ScenarioTask {
  std::string node;
  std::vector<int> gpus;  // local GPU indexes
  int migStart = -1;      // MIG: the instance's first memory slice
};
struct ScenarioRunning {
  JobId job = kNoJob;
  Seconds started = 0;
  Seconds workKept = 0;
  std::vector<ScenarioTask> tasks;
};

struct Scenario {
  std::string file;
  std::string name;
  std::string description;
  std::shared_ptr<const Cluster> cluster;
  Workload workload;
  Policy policy;
  std::vector<std::pair<std::string, std::string>> layouts;  // "node/i" -> current MIG layout
  std::vector<ScenarioRunning> running;
  std::optional<Seconds> now;                             // the clock when the state was taken
  std::vector<std::pair<std::string, double>> fairShare;  // team -> decayed GPU-seconds at `now`
  std::vector<ScenarioStep> steps;
};

Expected<Scenario> loadScenario(std::string_view text, const std::string& fileName);
Expected<Scenario> loadScenarioFile(const std::string& path);

// The engine at the start of the scenario: jobs submitted, running ones placed as given.
Expected<Engine> buildEngine(const Scenario& s);

struct ScenarioFailure {
  int line = 0;
  std::string message;
};

struct ScenarioReport {
  std::vector<ScenarioFailure> failures;  // expectations that did not hold, invariant violations
  int stepsRun = 0;
  int checks = 0;  // expectations evaluated
  [[nodiscard]] bool ok() const { return failures.empty(); }
  [[nodiscard]] std::string text(const std::string& file) const;
};

// Runs every step, checking expectations and the invariant checker after each. `engineOut`
// receives the final engine when given.
Expected<ScenarioReport> runScenario(const Scenario& s, Engine* engineOut = nullptr);

// The engine's current input as a scenario: cluster, tenants, active jobs, running placements,
// MIG layouts, reservations, policy, and one step that runs a cycle at the current time.
std::string exportScenario(const Engine& engine, const std::string& name);

}  // namespace tessera
