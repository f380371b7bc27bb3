#pragma once
// Work and tenants for the scheduler engine: jobs (gangs of tasks with one GPU request each),
// priority classes, and the team tree with quotas. Plain values; the engine owns the state.
//
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/expected.h"
#include "core/ids.h"
#include "core/text.h"
#include "topology/links.h"

namespace tessera {

enum class WorkloadClass : uint8_t { Training, Inference, Interactive, Batch };
enum class JobState : uint8_t {
  Pending,
  Admitted,
  Running,
  Completed,
  Failed,
  Cancelled,
  Preempted
};
const char* workloadClassName(WorkloadClass c);
// A topology constraint's level as the workload format writes it: node, nvlink-domain, leaf,
// spine, any.
const char* topologyConstraintName(TopologyLevel l);
const char* jobStateName(JobState s);
Text jobStateText(JobState s);  // the state in a sentence the console translates
// "job 4", or "jobs 4, 7 and 9"
Text jobsText(const std::vector<JobId>& ids);
// The ids alone, every one: "4, 7, 9"
Text jobIdList(const std::vector<JobId>& ids);

// What one task of a job asks for on the GPU side.
struct GpuRequest {
  enum class Kind : uint8_t { None, Whole, Mig, Fraction, Mps };
  Kind kind = Kind::None;
  int gpus = 0;            // Whole: GPUs per task
  std::string migProfile;  // Mig: profile name, resolved against each candidate GPU's model
  int milli = 0;           // Fraction: thousandths of one GPU
  // Fraction (and any kind): GPU memory the task needs. Mps: the pinned device memory limit
  // (CUDA_MPS_PINNED_DEVICE_MEM_LIMIT), required there: MPS does not isolate memory otherwise.
  int64_t vramMiB = 0;
  int mpsThreads = 0;  // Mps: active-thread percentage, 1-100 (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE)
};

// Which GPUs qualify: any of the listed models (catalog ids), and/or at least this much memory.
struct ModelConstraint {
  std::vector<std::string> models;
  int64_t minMemoryMiB = 0;
};

// The tightest level a gang must (required) or should (preferred) stay within.
struct TopologyConstraint {
  TopologyLevel level =
      TopologyLevel::Cluster;  // Node, NvlinkDomain, Leaf, Spine or Cluster (= any)
  bool required = false;
};

// How a job runs on a real cluster. The engine never reads it; an executor does (Slurm: sbatch's
// --wrap or batch script, --chdir, --output/--error, --time, --account, --partition).
struct JobLaunch {
  std::string command;       // a shell command line; or
  std::string script;        // a batch script ("#!/bin/bash\n..."); at most one of the two
  std::string workDir;       // empty: the executor's default
  std::string output;        // stdout file; empty: the executor's default
  std::string error;         // stderr file; empty: with stdout
  int timeLimitMinutes = 0;  // 0: the estimated runtime, else the executor's default
  std::string account;       // empty: the team's account
  std::string partition;     // empty: the pool's partition
  [[nodiscard]] bool empty() const { return command.empty() && script.empty(); }
  friend bool operator==(const JobLaunch&, const JobLaunch&) = default;
};

struct Job {
  // What a scheduling cycle reads of every queued job comes first, next to the engine record's
  // own head (scheduler/engine.h): the pass over 150,000 pending jobs is bound by cache misses.
  JobId id = kNoJob;
  int priority = 0;  // resolved from the class
  int tasks = 1;     // gang size: all tasks start together or none does
  bool held = false;
  bool preemptible = false;
  WorkloadClass workloadClass = WorkloadClass::Batch;
  std::optional<Seconds> estimatedRuntime;
  GpuRequest perTask;
  std::string name;
  std::string team;
  std::string user;  // who submitted it (empty = unknown); MPS co-location by user reads it
  std::string priorityClass;
  int cpusPerTask = 0;
  int64_t memoryMiBPerTask = 0;
  ModelConstraint model;
  std::string pool;  // empty = any pool
  TopologyConstraint topology;
  Seconds submitTime = 0;
  std::optional<Seconds> checkpointInterval;
  std::optional<Seconds> lastCheckpoint;
  int64_t queueRank = 0;  // operator's move in the queue: lower goes first among equal priority
  // Operator pin by name ("node/index" GPUs, whole nodes); the engine resolves them at submit.
  std::vector<std::string> pinGpus;
  std::vector<std::string> pinNodes;
  JobState state = JobState::Pending;
  JobLaunch launch;

  // GPUs the whole gang needs, in whole-GPU equivalents (MIG and fractions count as their share).
  [[nodiscard]] double gpuDemand() const;
};

// An MPS request's values: active-thread percentage 1-100 and a pinned memory limit above 0
// (fields per_task.mps_threads, per_task.vram_mib). Other kinds pass.
Status checkMpsRequest(const GpuRequest& r);
// Checks the strings and lists of a job against core/input_limits.h (names of at most 253
// characters, UTF-8, no control characters); the error names the field as the API does: name,
// team, user, priority_class, pool, per_task.mig_profile, gpu_models[i], pin_gpus[i], pin_nodes[i].
Status checkJobFields(const Job& job);
// The launch's fields: program text within core/input_limits.h, paths and names as text, a
// command or a script but not both (launch.command, launch.script, launch.work_dir, ...).
Status checkLaunchFields(const JobLaunch& launch);

struct PriorityClass {
  std::string name;
  int value = 0;
  bool preemptibleByDefault = false;
};

// Serving > production-training > experiment > spot, as operators expect by default.
std::vector<PriorityClass> defaultPriorityClasses();

struct Quota {
  int guaranteed = 0;   // GPUs always available to the team
  int borrowLimit = 0;  // GPUs it may borrow above its guarantee from idle quota of others
  int lendLimit = -1;   // GPUs of its guarantee others may borrow while idle; -1 = all
};

struct Team {
  std::string name;
  std::string parent;  // empty for a department (top level)
  double weight = 1.0;
  std::map<std::string, Quota> quotas;  // key: GPU model id, or "pool:NAME", or "*" for any GPU
};

}  // namespace tessera
