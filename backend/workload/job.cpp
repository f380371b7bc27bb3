#include "workload/job.h"

#include "core/engine_text.h"
#include "core/input_limits.h"

namespace tessera {

const char* workloadClassName(WorkloadClass c) {
  switch (c) {
    case WorkloadClass::Training:
      return "training";
    case WorkloadClass::Inference:
      return "inference";
    case WorkloadClass::Interactive:
      return "interactive";
    case WorkloadClass::Batch:
      return "batch";
  }
  return "?";
}

const char* topologyConstraintName(TopologyLevel l) {
  // The constraint's words differ from the level names only at the two ends.
  if (l == TopologyLevel::Gpu) return "node";
  if (l == TopologyLevel::Cluster) return "any";
  return topologyLevelName(l);
}

Text jobStateText(JobState s) {
  switch (s) {
    case JobState::Pending:
      return phrase(text::kStatePending);
    case JobState::Admitted:
      return phrase(text::kStateAdmitted);
    case JobState::Running:
      return phrase(text::kStateRunning);
    case JobState::Completed:
      return phrase(text::kStateCompleted);
    case JobState::Failed:
      return phrase(text::kStateFailed);
    case JobState::Cancelled:
      return phrase(text::kStateCancelled);
    case JobState::Preempted:
      return phrase(text::kStatePreempted);
  }
  return literal(jobStateName(s));
}

namespace {
std::vector<Text> idItems(const std::vector<JobId>& ids, size_t most) {
  std::vector<Text> items;
  for (size_t i = 0; i < ids.size() && i < most; ++i) items.push_back(literal(ids[i]));
  return items;
}
}  // namespace

Text jobIdList(const std::vector<JobId>& ids) {
  return listText(idItems(ids, ids.size()));
}

Text jobsText(const std::vector<JobId>& ids) {
  if (ids.size() == 1) return phrase(text::kJob, ids[0]);
  // A sentence names a handful; the rest are counted ("jobs 4, 7, ... and 12 more").
  constexpr size_t kNamed = 10;
  if (ids.size() > kNamed)
    return phrase(text::kJobs,
                  phrase(text::kAndMore, listText(idItems(ids, kNamed)), ids.size() - kNamed));
  return phrase(text::kJobs, listText(idItems(ids, kNamed), true));
}

const char* jobStateName(JobState s) {
  switch (s) {
    case JobState::Pending:
      return "pending";
    case JobState::Admitted:
      return "admitted";
    case JobState::Running:
      return "running";
    case JobState::Completed:
      return "completed";
    case JobState::Failed:
      return "failed";
    case JobState::Cancelled:
      return "cancelled";
    case JobState::Preempted:
      return "preempted";
  }
  return "?";
}

double Job::gpuDemand() const {
  switch (perTask.kind) {
    case GpuRequest::Kind::Whole:
      return double(tasks) * perTask.gpus;
    case GpuRequest::Kind::Fraction:
      return double(tasks) * perTask.milli / 1000.0;
    case GpuRequest::Kind::Mps:
      return double(tasks) * perTask.mpsThreads / 100.0;
    // A MIG instance's share depends on the GPU it lands on; one slice of seven is the floor.
    case GpuRequest::Kind::Mig:
      return double(tasks) / 7.0;
    case GpuRequest::Kind::None:
      break;
  }
  return 0;
}

std::vector<PriorityClass> defaultPriorityClasses() {
  return {{"serving", 1000, false},
          {"production-training", 800, false},
          {"experiment", 500, true},
          {"spot", 100, true}};
}

Status checkLaunchFields(const JobLaunch& l) {
  if (!l.command.empty() && !l.script.empty())
    return Error::of(phrase(text::kLaunchBoth), SourceLocation{"", 0, 0, "launch.script"});
  TESSERA_CHECK(checkProgramField(l.command, kMaxCommandChars, "launch.command"));
  TESSERA_CHECK(checkProgramField(l.script, kMaxScriptBytes, "launch.script"));
  TESSERA_CHECK(checkTextField(l.workDir, kMaxCommandChars, "launch.work_dir"));
  TESSERA_CHECK(checkTextField(l.output, kMaxCommandChars, "launch.output"));
  TESSERA_CHECK(checkTextField(l.error, kMaxCommandChars, "launch.error"));
  TESSERA_CHECK(checkTextField(l.account, kMaxNameChars, "launch.account"));
  TESSERA_CHECK(checkTextField(l.partition, kMaxNameChars, "launch.partition"));
  if (l.timeLimitMinutes < 0)
    return Error::of(phrase(text::kNegativeTimeLimit),
                     SourceLocation{"", 0, 0, "launch.time_limit_minutes"});
  return okStatus();
}

Status checkMpsRequest(const GpuRequest& r) {
  if (r.kind != GpuRequest::Kind::Mps) return okStatus();
  if (r.mpsThreads < 1 || r.mpsThreads > 100)
    return Error::of(phrase(text::kMpsThreadsRange, r.mpsThreads),
                     SourceLocation{"", 0, 0, "per_task.mps_threads"});
  if (r.vramMiB <= 0)
    return Error::of(phrase(text::kMpsMemoryNeeded), SourceLocation{"", 0, 0, "per_task.vram_mib"});
  return okStatus();
}

Status checkJobFields(const Job& job) {
  TESSERA_CHECK(checkTextField(job.name, kMaxNameChars, "name"));
  TESSERA_CHECK(checkTextField(job.team, kMaxNameChars, "team"));
  TESSERA_CHECK(checkTextField(job.user, kMaxNameChars, "user"));
  TESSERA_CHECK(checkTextField(job.priorityClass, kMaxNameChars, "priority_class"));
  TESSERA_CHECK(checkTextField(job.pool, kMaxNameChars, "pool"));
  TESSERA_CHECK(checkTextField(job.perTask.migProfile, kMaxNameChars, "per_task.mig_profile"));
  TESSERA_CHECK(checkNameList(job.model.models, "gpu_models"));
  TESSERA_CHECK(checkNameList(job.pinGpus, "pin_gpus"));
  TESSERA_CHECK(checkNameList(job.pinNodes, "pin_nodes"));
  TESSERA_CHECK(checkMpsRequest(job.perTask));
  return checkLaunchFields(job.launch);
}

}  // namespace tessera
