#include "rpc/convert.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <sstream>

#include "core/strings.h"
#include "report/report_csv.h"
#include "report/report_json.h"
#include "store/job_codec.h"

namespace tessera::rpc {
namespace {

Error fieldError(const std::string& field, const std::string& message) {
  return Error{message, {"", 0, 0, field}};
}

WorkloadClass classFromProto(v1::WorkloadClass c) {
  switch (c) {
    case v1::WORKLOAD_CLASS_TRAINING:
      return WorkloadClass::Training;
    case v1::WORKLOAD_CLASS_INFERENCE:
      return WorkloadClass::Inference;
    case v1::WORKLOAD_CLASS_INTERACTIVE:
      return WorkloadClass::Interactive;
    default:
      return WorkloadClass::Batch;
  }
}

v1::WorkloadClass classToProto(WorkloadClass c) {
  switch (c) {
    case WorkloadClass::Training:
      return v1::WORKLOAD_CLASS_TRAINING;
    case WorkloadClass::Inference:
      return v1::WORKLOAD_CLASS_INFERENCE;
    case WorkloadClass::Interactive:
      return v1::WORKLOAD_CLASS_INTERACTIVE;
    case WorkloadClass::Batch:
      return v1::WORKLOAD_CLASS_BATCH;
  }
  return v1::WORKLOAD_CLASS_BATCH;
}

std::optional<TopologyLevel> levelFromProto(v1::TopologyLevel l) {
  switch (l) {
    case v1::TOPOLOGY_LEVEL_UNSPECIFIED:
    case v1::TOPOLOGY_LEVEL_ANY:
      return TopologyLevel::Cluster;
    case v1::TOPOLOGY_LEVEL_NODE:
      return TopologyLevel::Node;
    case v1::TOPOLOGY_LEVEL_NVLINK_DOMAIN:
      return TopologyLevel::NvlinkDomain;
    case v1::TOPOLOGY_LEVEL_LEAF:
      return TopologyLevel::Leaf;
    case v1::TOPOLOGY_LEVEL_SPINE:
      return TopologyLevel::Spine;
    default:
      return std::nullopt;
  }
}

v1::TopologyLevel levelToProto(TopologyLevel l) {
  switch (l) {
    case TopologyLevel::Gpu:
    case TopologyLevel::Node:
      return v1::TOPOLOGY_LEVEL_NODE;
    case TopologyLevel::NvlinkDomain:
      return v1::TOPOLOGY_LEVEL_NVLINK_DOMAIN;
    case TopologyLevel::Leaf:
      return v1::TOPOLOGY_LEVEL_LEAF;
    case TopologyLevel::Spine:
      return v1::TOPOLOGY_LEVEL_SPINE;
    case TopologyLevel::Cluster:
      return v1::TOPOLOGY_LEVEL_ANY;
  }
  return v1::TOPOLOGY_LEVEL_ANY;
}

template <typename Repeated>
std::vector<std::string> strings(const Repeated& r) {
  return {r.begin(), r.end()};
}

template <typename Target>
void addAll(Target* target, const std::vector<std::string>& values) {
  for (const auto& v : values) target->Add(std::string(v));
}

Status checkRequest(const v1::GpuRequest& r, const std::string& field, Job& job) {
  switch (r.kind_case()) {
    case v1::GpuRequest::kGpus:
      if (r.gpus() < 1 || r.gpus() > 64)
        return fieldError(field + ".gpus", "must be between 1 and 64");
      job.perTask.kind = GpuRequest::Kind::Whole;
      job.perTask.gpus = static_cast<int>(r.gpus());
      break;
    case v1::GpuRequest::kMigProfile:
      if (r.mig_profile().empty()) return fieldError(field + ".mig_profile", "is empty");
      job.perTask.kind = GpuRequest::Kind::Mig;
      job.perTask.migProfile = r.mig_profile();
      break;
    case v1::GpuRequest::kMilli:
      if (r.milli() < 1 || r.milli() > 1000)
        return fieldError(field + ".milli", "must be between 1 and 1000");
      job.perTask.kind = GpuRequest::Kind::Fraction;
      job.perTask.milli = static_cast<int>(r.milli());
      break;
    case v1::GpuRequest::kMpsThreads:
      if (r.mps_threads() < 1 || r.mps_threads() > 100)
        return fieldError(field + ".mps_threads", "must be between 1 and 100");
      if (r.vram_mib() < 1)
        return fieldError(field + ".vram_mib",
                          "an MPS request needs its pinned device memory limit (MiB)");
      job.perTask.kind = GpuRequest::Kind::Mps;
      job.perTask.mpsThreads = static_cast<int>(r.mps_threads());
      break;
    default:
      return fieldError(field, "give one of gpus, mig_profile, milli or mps_threads");
  }
  if (r.vram_mib() < 0) return fieldError(field + ".vram_mib", "must not be negative");
  job.perTask.vramMiB = r.vram_mib();
  return okStatus();
}

Status checkTimes(const v1::JobSpec& s, const std::string& field, Job& job) {
  if (s.estimated_runtime_s() < 0)
    return fieldError(field + ".estimated_runtime_s", "must not be negative");
  if (s.checkpoint_interval_s() < 0)
    return fieldError(field + ".checkpoint_interval_s", "must not be negative");
  if (s.estimated_runtime_s() > 0) job.estimatedRuntime = s.estimated_runtime_s();
  if (s.checkpoint_interval_s() > 0) job.checkpointInterval = s.checkpoint_interval_s();
  return okStatus();
}

}  // namespace

Expected<Job> jobFromProto(const v1::JobSpec& s, const std::string& field,
                           const std::vector<PriorityClass>& classes) {
  Job job;
  job.name = s.name();
  if (s.team().empty()) return fieldError(field + ".team", "is required");
  job.team = s.team();
  job.user = s.user();
  job.priorityClass = s.priority_class();
  const PriorityClass* cls = nullptr;
  for (const auto& c : classes)
    if (c.name == s.priority_class()) cls = &c;
  if (s.priority_class().empty() && !classes.empty()) {
    // The lowest class, as a workload file without `priority` gets.
    cls = &*std::min_element(classes.begin(), classes.end(),
                             [](const auto& a, const auto& b) { return a.value < b.value; });
    job.priorityClass = cls->name;
  }
  if (!cls)
    return fieldError(field + ".priority_class",
                      "unknown priority class '" + s.priority_class() + "'");
  job.preemptible = s.has_preemptible() ? s.preemptible() : cls->preemptibleByDefault;
  if (!v1::WorkloadClass_IsValid(s.workload_class()))
    return fieldError(field + ".workload_class",
                      "unknown value " + std::to_string(s.workload_class()));
  job.workloadClass = classFromProto(s.workload_class());
  if (s.tasks() > 4096) return fieldError(field + ".tasks", "must be at most 4096");
  job.tasks = s.tasks() == 0 ? 1 : static_cast<int>(s.tasks());
  TESSERA_CHECK(checkRequest(s.per_task(), field + ".per_task", job));
  job.cpusPerTask = static_cast<int>(s.cpus_per_task());
  if (s.memory_mib_per_task() < 0)
    return fieldError(field + ".memory_mib_per_task", "must not be negative");
  job.memoryMiBPerTask = s.memory_mib_per_task();
  job.model.models = strings(s.gpu_models());
  job.model.minMemoryMiB = s.min_gpu_memory_mib();
  job.pool = s.pool();
  const auto level = levelFromProto(s.topology());
  if (!level)
    return fieldError(field + ".topology", "unknown value " + std::to_string(s.topology()));
  job.topology.level = *level;
  job.topology.required = s.topology_required();
  TESSERA_CHECK(checkTimes(s, field, job));
  job.held = s.held();
  job.pinGpus = strings(s.pin_gpus());
  job.pinNodes = strings(s.pin_nodes());
  if (s.has_launch()) {
    const auto& l = s.launch();
    job.launch = {
        l.command(),  l.script(),
        l.work_dir(), l.output(),
        l.error(),    static_cast<int>(std::min<uint32_t>(l.time_limit_minutes(), 1u << 30)),
        l.account(),  l.partition()};
  }
  return job;
}

v1::JobSpec jobSpecToProto(const Job& job) {
  v1::JobSpec s;
  s.set_name(job.name);
  s.set_team(job.team);
  s.set_user(job.user);
  s.set_priority_class(job.priorityClass);
  s.set_preemptible(job.preemptible);
  s.set_workload_class(classToProto(job.workloadClass));
  s.set_tasks(static_cast<uint32_t>(job.tasks));
  auto* r = s.mutable_per_task();
  switch (job.perTask.kind) {
    case GpuRequest::Kind::Whole:
      r->set_gpus(static_cast<uint32_t>(job.perTask.gpus));
      break;
    case GpuRequest::Kind::Mig:
      r->set_mig_profile(job.perTask.migProfile);
      break;
    case GpuRequest::Kind::Fraction:
      r->set_milli(static_cast<uint32_t>(job.perTask.milli));
      break;
    case GpuRequest::Kind::Mps:
      r->set_mps_threads(static_cast<uint32_t>(job.perTask.mpsThreads));
      break;
    case GpuRequest::Kind::None:
      break;
  }
  r->set_vram_mib(job.perTask.vramMiB);
  s.set_cpus_per_task(static_cast<uint32_t>(job.cpusPerTask));
  s.set_memory_mib_per_task(job.memoryMiBPerTask);
  addAll(s.mutable_gpu_models(), job.model.models);
  s.set_min_gpu_memory_mib(job.model.minMemoryMiB);
  s.set_pool(job.pool);
  s.set_topology(levelToProto(job.topology.level));
  s.set_topology_required(job.topology.required);
  s.set_estimated_runtime_s(job.estimatedRuntime.value_or(0));
  s.set_checkpoint_interval_s(job.checkpointInterval.value_or(0));
  s.set_held(job.held);
  addAll(s.mutable_pin_gpus(), job.pinGpus);
  if (job.launch != JobLaunch{}) {
    auto* l = s.mutable_launch();
    l->set_command(job.launch.command);
    l->set_script(job.launch.script);
    l->set_work_dir(job.launch.workDir);
    l->set_output(job.launch.output);
    l->set_error(job.launch.error);
    l->set_time_limit_minutes(static_cast<uint32_t>(job.launch.timeLimitMinutes));
    l->set_account(job.launch.account);
    l->set_partition(job.launch.partition);
  }
  addAll(s.mutable_pin_nodes(), job.pinNodes);
  return s;
}

v1::JobState stateToProto(JobState s) {
  return static_cast<v1::JobState>(static_cast<int>(s) + 1);
}

std::optional<JobState> stateFromProto(v1::JobState s) {
  if (s <= v1::JOB_STATE_UNSPECIFIED || s > v1::JOB_STATE_PREEMPTED) return std::nullopt;
  return static_cast<JobState>(static_cast<int>(s) - 1);
}

v1::Text textToProto(const Text& t) {
  v1::Text out;
  out.set_pattern(std::string(t.patternText()));
  out.set_literal(t.isLiteral());
  for (const Text& a : t.args()) *out.add_args() = textToProto(a);
  return out;
}

namespace {
Text textFromProto(const v1::Text& t, int depth) {
  if (t.literal() || depth >= kMaxTextDepth) return literal(t.pattern());
  std::vector<Text> args;
  args.reserve(static_cast<size_t>(t.args_size()));
  for (const auto& a : t.args()) args.push_back(textFromProto(a, depth + 1));
  return Text::pattern(t.pattern(), std::move(args));
}
}  // namespace

Text textFromProto(const v1::Text& t) {
  return textFromProto(t, 0);
}

Text textOr(bool has, const v1::Text& t, const std::string& english) {
  return has ? textFromProto(t) : literal(english);
}

std::vector<Text> textsOr(const google::protobuf::RepeatedPtrField<v1::Text>& texts,
                          const google::protobuf::RepeatedPtrField<std::string>& english) {
  std::vector<Text> out;
  const bool translatable = texts.size() == english.size();
  for (int i = 0; i < english.size(); ++i)
    out.push_back(translatable ? textFromProto(texts[i]) : literal(english[i]));
  return out;
}

v1::Job jobToProto(const JobInfo& info) {
  v1::Job j;
  const JobRow& row = info.row;
  j.set_id(row.job.id);
  *j.mutable_spec() = jobSpecToProto(row.job);
  j.set_state(stateToProto(row.state));
  j.set_submit_time(row.job.submitTime);
  j.set_start_time(row.startTime);
  j.set_end_time(row.endTime);
  j.set_reason(row.reason.english());
  *j.mutable_reason_text() = textToProto(row.reason);
  j.set_queue_position(static_cast<uint32_t>(info.queuePosition));
  if (info.eta) j.set_eta(*info.eta);
  for (const auto& t : info.placement) {
    auto* p = j.add_placement();
    p->set_node(t.node);
    for (int g : t.gpus) p->add_gpus(static_cast<uint32_t>(g));
    p->set_mig_start(t.migStart);
  }
  j.set_preemptions(static_cast<uint32_t>(row.preemptions));
  j.set_gpu_hours_lost(row.gpuHoursLost);
  j.set_priority(info.priority);
  j.set_blocked_by(info.blockedBy);
  if (info.external) {
    auto* x = j.mutable_external();
    x->set_id(info.external->id);
    x->set_state(info.external->state);
    x->set_reason(info.external->reason);
    addAll(x->mutable_nodes(), info.external->nodes);
  }
  return j;
}

JobInfo jobFromProto(const v1::Job& j) {
  JobInfo info;
  static const std::vector<PriorityClass> any = defaultPriorityClasses();
  std::vector<PriorityClass> classes = any;
  classes.push_back({j.spec().priority_class(), j.priority(), j.spec().preemptible()});
  if (auto job = jobFromProto(j.spec(), "job", classes)) info.row.job = *job;
  info.row.job.id = j.id();
  info.row.job.submitTime = j.submit_time();
  info.row.job.priority = j.priority();
  info.row.state = stateFromProto(j.state()).value_or(JobState::Pending);
  info.row.startTime = j.start_time();
  info.row.endTime = j.end_time();
  info.row.reason = textOr(j.has_reason_text(), j.reason_text(), j.reason());
  info.row.preemptions = static_cast<int>(j.preemptions());
  info.row.gpuHoursLost = j.gpu_hours_lost();
  info.priority = j.priority();
  info.queuePosition = static_cast<int>(j.queue_position());
  if (j.has_eta()) info.eta = j.eta();
  info.blockedBy = j.blocked_by();
  if (j.has_external())
    info.external = ExternalJob{j.external().id(), j.external().state(), j.external().reason(),
                                strings(j.external().nodes())};
  for (const auto& p : j.placement()) {
    PlacedTask t;
    t.node = p.node();
    for (uint32_t g : p.gpus()) t.gpus.push_back(static_cast<int>(g));
    t.migStart = p.mig_start();
    info.placement.push_back(std::move(t));
  }
  return info;
}

Expected<Command> commandFromProto(const v1::ActRequest& r) {
  using A = v1::ActRequest;
  auto needJob = [](uint64_t id, const char* field) -> Status {
    if (id == 0) return fieldError(field, "a job id is required");
    return okStatus();
  };
  switch (r.action_case()) {
    case A::kHold:
      TESSERA_CHECK(needJob(r.hold().job(), "hold.job"));
      return Command{cmd::Hold{r.hold().job()}};
    case A::kRelease:
      TESSERA_CHECK(needJob(r.release().job(), "release.job"));
      return Command{cmd::Release{r.release().job()}};
    case A::kCancel:
      TESSERA_CHECK(needJob(r.cancel().job(), "cancel.job"));
      return Command{cmd::Cancel{r.cancel().job()}};
    case A::kPreempt:
      TESSERA_CHECK(needJob(r.preempt().job(), "preempt.job"));
      return Command{cmd::Preempt{r.preempt().job()}};
    case A::kSetPriority:
      TESSERA_CHECK(needJob(r.set_priority().job(), "set_priority.job"));
      if (r.set_priority().priority_class().empty())
        return fieldError("set_priority.priority_class", "is required");
      return Command{cmd::SetPriority{r.set_priority().job(), r.set_priority().priority_class()}};
    case A::kMove: {
      TESSERA_CHECK(needJob(r.move().job(), "move.job"));
      if (!v1::MovePosition_IsValid(r.move().to()))
        return fieldError("move.to", "unknown value " + std::to_string(r.move().to()));
      cmd::Move m;
      m.job = r.move().job();
      m.to = r.move().to() == v1::MOVE_POSITION_BOTTOM   ? cmd::Move::To::Bottom
             : r.move().to() == v1::MOVE_POSITION_BEFORE ? cmd::Move::To::Before
                                                         : cmd::Move::To::Top;
      m.before = r.move().before();
      if (m.to == cmd::Move::To::Before && m.before == 0)
        return fieldError("move.before", "a job id is required with to: before");
      return Command{m};
    }
    case A::kPin:
      TESSERA_CHECK(needJob(r.pin().job(), "pin.job"));
      return Command{cmd::Pin{r.pin().job(), strings(r.pin().gpus()), strings(r.pin().nodes())}};
    case A::kRepartition:
      if (r.repartition().gpu().empty()) return fieldError("repartition.gpu", "is required");
      return Command{cmd::Repartition{r.repartition().gpu(), r.repartition().layout(),
                                      r.repartition().force()}};
    case A::kDrain:
      if (r.drain().node().empty()) return fieldError("drain.node", "is required");
      return Command{cmd::Drain{r.drain().node(), literal(r.drain().reason())}};
    case A::kUndrain:
      if (r.undrain().node().empty()) return fieldError("undrain.node", "is required");
      return Command{cmd::Undrain{r.undrain().node()}};
    case A::kSetQuota: {
      const auto& q = r.set_quota();
      if (q.team().empty()) return fieldError("set_quota.team", "is required");
      if (q.key().empty()) return fieldError("set_quota.key", "is required");
      if (q.guaranteed() < 0) return fieldError("set_quota.guaranteed", "must not be negative");
      if (q.borrow_limit() < 0) return fieldError("set_quota.borrow_limit", "must not be negative");
      if (q.has_lend_limit() && q.lend_limit() < 0)
        return fieldError("set_quota.lend_limit", "must not be negative");
      Quota quota{q.guaranteed(), q.borrow_limit(), q.has_lend_limit() ? q.lend_limit() : -1};
      return Command{cmd::SetQuota{q.team(), q.key(), quota}};
    }
    case A::kCreateReservation: {
      const auto& c = r.create_reservation();
      if (c.id().empty()) return fieldError("create_reservation.id", "is required");
      if (c.nodes().empty())
        return fieldError("create_reservation.nodes", "name at least one node");
      if (c.until() <= c.from())
        return fieldError("create_reservation.until", "must be after from");
      return Command{
          cmd::CreateReservation{c.id(), strings(c.nodes()), c.from(), c.until(), c.team()}};
    }
    case A::kDeleteReservation:
      if (r.delete_reservation().id().empty())
        return fieldError("delete_reservation.id", "is required");
      return Command{cmd::DeleteReservation{r.delete_reservation().id()}};
    case A::ACTION_NOT_SET:
      break;
  }
  return fieldError("action", "no action given (or one this server does not know)");
}

v1::ActRequest commandToProto(const Command& command, bool dryRun) {
  v1::ActRequest r;
  r.set_dry_run(dryRun);
  std::visit(
      [&r](const auto& c) {
        using T = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<T, cmd::Hold>) r.mutable_hold()->set_job(c.job);
        if constexpr (std::is_same_v<T, cmd::Release>) r.mutable_release()->set_job(c.job);
        if constexpr (std::is_same_v<T, cmd::Cancel>) r.mutable_cancel()->set_job(c.job);
        if constexpr (std::is_same_v<T, cmd::Preempt>) r.mutable_preempt()->set_job(c.job);
        if constexpr (std::is_same_v<T, cmd::SetPriority>) {
          r.mutable_set_priority()->set_job(c.job);
          r.mutable_set_priority()->set_priority_class(c.priorityClass);
        }
        if constexpr (std::is_same_v<T, cmd::Move>) {
          auto* m = r.mutable_move();
          m->set_job(c.job);
          m->set_to(c.to == cmd::Move::To::Bottom   ? v1::MOVE_POSITION_BOTTOM
                    : c.to == cmd::Move::To::Before ? v1::MOVE_POSITION_BEFORE
                                                    : v1::MOVE_POSITION_TOP);
          m->set_before(c.before);
        }
        if constexpr (std::is_same_v<T, cmd::Pin>) {
          r.mutable_pin()->set_job(c.job);
          addAll(r.mutable_pin()->mutable_gpus(), c.gpus);
          addAll(r.mutable_pin()->mutable_nodes(), c.nodes);
        }
        if constexpr (std::is_same_v<T, cmd::Repartition>) {
          r.mutable_repartition()->set_gpu(c.gpu);
          r.mutable_repartition()->set_layout(c.layout);
          r.mutable_repartition()->set_force(c.force);
        }
        if constexpr (std::is_same_v<T, cmd::Drain>) {
          r.mutable_drain()->set_node(c.node);
          r.mutable_drain()->set_reason(c.reason.english());
        }
        if constexpr (std::is_same_v<T, cmd::Undrain>) r.mutable_undrain()->set_node(c.node);
        if constexpr (std::is_same_v<T, cmd::SetQuota>) {
          auto* q = r.mutable_set_quota();
          q->set_team(c.team);
          q->set_key(c.key);
          q->set_guaranteed(c.quota.guaranteed);
          q->set_borrow_limit(c.quota.borrowLimit);
          if (c.quota.lendLimit >= 0) q->set_lend_limit(c.quota.lendLimit);
        }
        if constexpr (std::is_same_v<T, cmd::CreateReservation>) {
          auto* x = r.mutable_create_reservation();
          x->set_id(c.id);
          addAll(x->mutable_nodes(), c.nodes);
          x->set_from(c.from);
          x->set_until(c.until);
          x->set_team(c.team);
        }
        if constexpr (std::is_same_v<T, cmd::DeleteReservation>)
          r.mutable_delete_reservation()->set_id(c.id);
      },
      command);
  return r;
}

Role requiredRole(const Command& command) {
  const bool clusterWide = std::holds_alternative<cmd::Repartition>(command) ||
                           std::holds_alternative<cmd::Drain>(command) ||
                           std::holds_alternative<cmd::Undrain>(command) ||
                           std::holds_alternative<cmd::SetQuota>(command) ||
                           std::holds_alternative<cmd::CreateReservation>(command) ||
                           std::holds_alternative<cmd::DeleteReservation>(command);
  return clusterWide ? Role::Admin : Role::Operator;
}

v1::ActResponse resultToProto(const CommandResult& r) {
  v1::ActResponse out;
  out.set_applied(r.applied);
  out.set_message(r.message.english());
  *out.mutable_message_text() = textToProto(r.message);
  auto* i = out.mutable_impact();
  for (JobId id : r.impact.started) i->add_started(id);
  for (JobId id : r.impact.preempted) i->add_preempted(id);
  for (JobId id : r.impact.stopped) i->add_stopped(id);
  for (const PlacementChange& p : r.impact.placementChanges) {
    i->add_placement_changes(p.english());
    auto* pp = i->add_placements();
    pp->set_job(p.job);
    pp->set_where(p.where);
  }
  i->set_gpu_hours_lost(r.impact.gpuHoursLost);
  for (const Text& w : r.impact.warnings) {
    i->add_warnings(w.english());
    *i->add_warnings_text() = textToProto(w);
  }
  i->set_summary(r.impact.summary().english());
  return out;
}

CommandResult resultFromProto(const v1::ActResponse& r) {
  CommandResult out;
  out.applied = r.applied();
  out.message = textOr(r.has_message_text(), r.message_text(), r.message());
  const auto& i = r.impact();
  out.impact.started.assign(i.started().begin(), i.started().end());
  out.impact.preempted.assign(i.preempted().begin(), i.preempted().end());
  out.impact.stopped.assign(i.stopped().begin(), i.stopped().end());
  // An older tesserad sends only the English lines: the console then shows no "where".
  for (const auto& p : i.placements()) out.impact.placementChanges.push_back({p.job(), p.where()});
  out.impact.gpuHoursLost = i.gpu_hours_lost();
  out.impact.warnings = textsOr(i.warnings_text(), i.warnings());
  return out;
}

v1::Explanation explanationToProto(const Explanation& x) {
  v1::Explanation out;
  out.set_job(x.job);
  out.set_state(stateToProto(x.state));
  out.set_dominant_reason(x.dominantReason.english());
  out.set_node_summary(x.nodeSummary.english());
  *out.mutable_dominant_reason_text() = textToProto(x.dominantReason);
  *out.mutable_node_summary_text() = textToProto(x.nodeSummary);
  *out.mutable_fragmentation_text() = textToProto(x.fragmentation);
  *out.mutable_placement_text() = textToProto(x.placement);
  for (JobId id : x.blockingJobs) out.add_blocking_jobs(id);
  addAll(out.mutable_blocking_queues(), x.blockingQueues);
  out.set_queue_position(static_cast<uint32_t>(x.queuePosition.value_or(0)));
  out.set_queue_length(static_cast<uint32_t>(x.queueLength));
  if (x.eta) out.set_eta(*x.eta);
  out.set_fragmentation(x.fragmentation.english());
  for (const auto& c : x.counterfactuals) {
    auto* cf = out.add_counterfactuals();
    cf->set_kind(counterfactualKindName(c.kind));
    cf->set_text(c.text.english());
    *cf->mutable_phrase() = textToProto(c.text);
  }
  for (const Text& line : x.history) {
    out.add_history(line.english());
    *out.add_history_text() = textToProto(line);
  }
  out.set_placement(x.placement.english());
  out.set_text(x.text());
  return out;
}

Explanation explanationFromProto(const v1::Explanation& x) {
  Explanation out;
  out.job = x.job();
  out.state = stateFromProto(x.state()).value_or(JobState::Pending);
  out.dominantReason =
      textOr(x.has_dominant_reason_text(), x.dominant_reason_text(), x.dominant_reason());
  out.nodeSummary = textOr(x.has_node_summary_text(), x.node_summary_text(), x.node_summary());
  out.blockingJobs.assign(x.blocking_jobs().begin(), x.blocking_jobs().end());
  out.blockingQueues = strings(x.blocking_queues());
  if (x.queue_position() > 0) out.queuePosition = static_cast<int>(x.queue_position());
  out.queueLength = static_cast<int>(x.queue_length());
  if (x.has_eta()) out.eta = x.eta();
  out.fragmentation = textOr(x.has_fragmentation_text(), x.fragmentation_text(), x.fragmentation());
  constexpr std::array kinds{Counterfactual::Kind::Quota,      Counterfactual::Kind::Repartition,
                             Counterfactual::Kind::JobsEnd,    Counterfactual::Kind::RelaxTopology,
                             Counterfactual::Kind::Preemption, Counterfactual::Kind::Release};
  for (const auto& c : x.counterfactuals())
    for (auto k : kinds)
      if (c.kind() == counterfactualKindName(k))
        out.counterfactuals.push_back({k, textOr(c.has_phrase(), c.phrase(), c.text())});
  out.history = textsOr(x.history_text(), x.history());
  out.placement = textOr(x.has_placement_text(), x.placement_text(), x.placement());
  return out;
}

v1::SnapshotReservation reservationToProto(const ReservationView& r) {
  v1::SnapshotReservation out;
  out.set_id(r.id);
  out.set_kind(r.kind);
  out.set_job(r.job);
  out.set_team(r.team);
  out.set_start(r.start);
  if (r.end) out.set_end(*r.end);
  for (const auto& hold : r.nodes) {
    auto* n = out.add_nodes();
    n->set_node(hold.node);
    for (int g : hold.gpus) n->add_gpus(static_cast<uint32_t>(g));
  }
  return out;
}

ReservationView reservationFromProto(const v1::SnapshotReservation& r) {
  ReservationView out;
  out.id = r.id();
  out.kind = r.kind();
  out.job = r.job();
  out.team = r.team();
  out.start = r.start();
  if (r.has_end()) out.end = r.end();
  for (const auto& n : r.nodes()) {
    ReservationView::NodeHold hold{n.node(), {}};
    for (uint32_t g : n.gpus()) hold.gpus.push_back(static_cast<int>(g));
    out.nodes.push_back(std::move(hold));
  }
  return out;
}

namespace {

// An unknown co-location word (a newer server's) reads as the strictest, team; an unknown
// node-sharing word as the stricter, one; none (a server before the field) as all.
GpuView::Mps mpsFromProto(const v1::GpuMps& m) {
  GpuView::Mps out{static_cast<int>(m.client_limit()), static_cast<int>(m.thread_budget()),
                   MpsCoLocation::Team};
  for (MpsCoLocation c : {MpsCoLocation::User, MpsCoLocation::Any})
    if (m.co_location() == mpsCoLocationName(c)) out.coLocation = c;
  const bool all =
      m.node_sharing().empty() || m.node_sharing() == mpsNodeSharingName(MpsNodeSharing::All);
  out.nodeSharing = all ? MpsNodeSharing::All : MpsNodeSharing::One;
  return out;
}

}  // namespace

v1::ClusterSnapshot snapshotToProto(const ClusterSnapshot& s) {
  v1::ClusterSnapshot out;
  out.set_now(s.now);
  out.set_mode(s.mode);
  for (const NodeView& n : s.nodes) {
    auto* pn = out.add_nodes();
    pn->set_name(n.name);
    pn->set_state(n.state);
    pn->set_state_reason(n.stateReason.english());
    if (!n.stateReason.empty()) *pn->mutable_state_reason_text() = textToProto(n.stateReason);
    pn->set_pool(n.pool);
    pn->set_leaf(n.leaf);
    pn->set_spine(n.spine);
    for (const NodeHoldView& h : n.holds) {
      auto* ph = pn->add_holds();
      ph->set_owner(h.owner);
      ph->set_gpu(h.gpu);
      ph->set_reason(h.reason.english());
      if (!h.reason.isLiteral()) *ph->mutable_reason_text() = textToProto(h.reason);
      ph->set_down(h.down);
      ph->set_since(h.since);
    }
    for (const GpuView& g : n.gpus) {
      auto* pg = pn->add_gpus();
      pg->set_index(static_cast<uint32_t>(g.index));
      pg->set_model(g.model);
      pg->set_sharing(g.sharing);
      pg->set_mig_layout(g.migLayout);
      for (const auto& o : g.occupants) {
        auto* po = pg->add_occupants();
        po->set_job(o.job);
        po->set_milli(static_cast<uint32_t>(o.milli));
        po->set_mig_profile(o.migProfile);
        po->set_team(o.team);
        po->set_mig_start(o.migStart);
        po->set_mps_threads(static_cast<uint32_t>(o.mpsThreads));
        po->set_mps_memory_mib(o.mpsMemoryMiB);
      }
      if (g.mps) {
        auto* pm = pg->mutable_mps();
        pm->set_client_limit(static_cast<uint32_t>(g.mps->clientLimit));
        pm->set_thread_budget(static_cast<uint32_t>(g.mps->threadBudget));
        pm->set_co_location(mpsCoLocationName(g.mps->coLocation));
        pm->set_node_sharing(mpsNodeSharingName(g.mps->nodeSharing));
      }
      pg->set_allocated(g.allocated);
      if (g.util) pg->set_util(*g.util);
      if (g.smActive) pg->set_sm_active(*g.smActive);
      if (g.tensorActive) pg->set_tensor_active(*g.tensorActive);
      if (g.memoryUsed) pg->set_memory_used(*g.memoryUsed);
      if (g.power) pg->set_power(*g.power);
      if (g.temperatureC) pg->set_temperature_c(*g.temperatureC);
      if (g.numa >= 0) pg->set_numa(g.numa);
      if (g.fault) {
        auto* pf = pg->mutable_fault();
        pf->set_xid(g.fault->xid);
        pf->set_message(g.fault->message);
        pf->set_since(g.fault->since);
        if (g.fault->until) pf->set_until(*g.fault->until);
      }
      pg->set_nvlink_domain(g.nvlinkDomain);
    }
  }
  for (const TeamView& t : s.teams) {
    auto* pt = out.add_teams();
    pt->set_name(t.name);
    pt->set_parent(t.parent);
    pt->set_gpus_in_use(t.gpusInUse);
    pt->set_guaranteed(t.guaranteed);
    pt->set_fair_share_usage(t.fairShareUsage);
  }
  out.set_pending_jobs(static_cast<uint32_t>(s.pendingJobs));
  out.set_running_jobs(static_cast<uint32_t>(s.runningJobs));
  out.set_gpus_total(s.gpusTotal);
  out.set_gpus_allocated(s.gpusAllocated);
  out.set_last_event_seq(s.lastEventSeq);
  out.set_cycles(s.cycles);
  out.set_last_cycle_ms(s.lastCycleMs);
  for (const ReservationView& r : s.reservations) *out.add_reservations() = reservationToProto(r);
  auto* ex = out.mutable_executor();
  ex->set_name(s.executor.name);
  ex->set_state(s.executor.state);
  ex->set_detail(s.executor.detail);
  ex->set_last_sync(s.executor.lastSync);
  return out;
}

ClusterSnapshot snapshotFromProto(const v1::ClusterSnapshot& s) {
  ClusterSnapshot out;
  out.now = s.now();
  out.mode = s.mode();
  for (const auto& pn : s.nodes()) {
    NodeView n{pn.name(),
               pn.state(),
               textOr(pn.has_state_reason_text(), pn.state_reason_text(), pn.state_reason()),
               pn.pool(),
               pn.leaf(),
               pn.spine(),
               {},
               {}};
    for (const auto& ph : pn.holds())
      n.holds.push_back({ph.owner(), ph.gpu(),
                         textOr(ph.has_reason_text(), ph.reason_text(), ph.reason()), ph.down(),
                         ph.since()});
    for (const auto& pg : pn.gpus()) {
      GpuView g;
      g.index = static_cast<int>(pg.index());
      g.model = pg.model();
      g.sharing = pg.sharing();
      g.migLayout = pg.mig_layout();
      for (const auto& po : pg.occupants())
        g.occupants.push_back({po.job(), static_cast<int>(po.milli()), po.mig_profile(), po.team(),
                               po.mig_start(), static_cast<int>(po.mps_threads()),
                               po.mps_memory_mib()});
      if (pg.has_mps()) g.mps = mpsFromProto(pg.mps());
      g.allocated = pg.allocated();
      if (pg.has_util()) g.util = pg.util();
      if (pg.has_sm_active()) g.smActive = pg.sm_active();
      if (pg.has_tensor_active()) g.tensorActive = pg.tensor_active();
      if (pg.has_memory_used()) g.memoryUsed = pg.memory_used();
      if (pg.has_power()) g.power = pg.power();
      if (pg.has_temperature_c()) g.temperatureC = pg.temperature_c();
      if (pg.has_numa()) g.numa = pg.numa();
      if (pg.has_fault()) {
        const auto& pf = pg.fault();
        g.fault = GpuView::Fault{pf.xid(), pf.message(), pf.since(), std::nullopt};
        if (pf.has_until()) g.fault->until = pf.until();
      }
      g.nvlinkDomain = pg.nvlink_domain();
      n.gpus.push_back(std::move(g));
    }
    out.nodes.push_back(std::move(n));
  }
  for (const auto& pt : s.teams())
    out.teams.push_back(
        {pt.name(), pt.parent(), pt.gpus_in_use(), pt.guaranteed(), pt.fair_share_usage()});
  out.pendingJobs = static_cast<int>(s.pending_jobs());
  out.runningJobs = static_cast<int>(s.running_jobs());
  out.gpusTotal = s.gpus_total();
  out.gpusAllocated = s.gpus_allocated();
  out.lastEventSeq = s.last_event_seq();
  out.cycles = s.cycles();
  out.lastCycleMs = s.last_cycle_ms();
  for (const auto& r : s.reservations()) out.reservations.push_back(reservationFromProto(r));
  if (s.has_executor())
    out.executor = {s.executor().name(), s.executor().state(), s.executor().detail(),
                    s.executor().last_sync()};
  return out;
}

v1::Event eventToProto(const Event& e) {
  v1::Event out;
  out.set_seq(e.seq);
  out.set_time(e.time);
  out.set_kind(eventKindName(e.kind));
  out.set_job(e.job);
  out.set_from(stateToProto(e.from));
  out.set_to(stateToProto(e.to));
  out.set_reason(e.reason.english());
  *out.mutable_reason_text() = textToProto(e.reason);
  out.set_actor(e.actor);
  out.set_by_job(e.by);
  return out;
}

Event eventFromProto(const v1::Event& e) {
  Event out;
  out.seq = e.seq();
  out.time = e.time();
  for (int k = 0; k <= static_cast<int>(EventKind::Command); ++k)
    if (e.kind() == eventKindName(static_cast<EventKind>(k))) out.kind = static_cast<EventKind>(k);
  out.job = e.job();
  out.from = stateFromProto(e.from()).value_or(JobState::Pending);
  out.to = stateFromProto(e.to()).value_or(JobState::Pending);
  out.reason = textOr(e.has_reason_text(), e.reason_text(), e.reason());
  out.actor = e.actor();
  out.by = e.by_job();
  return out;
}

v1::QueryMetricsResponse metricsToProto(const MetricAnswer& a) {
  v1::QueryMetricsResponse out;
  out.set_series(a.series.name);
  out.set_resolution(metricResolutionName(a.series.resolution));
  for (const auto& p : a.series.points) {
    auto* pp = out.add_points();
    pp->set_time(p.time);
    pp->set_value(p.value);
    pp->set_min(p.min);
    pp->set_max(p.max);
    pp->set_count(p.count);
  }
  addAll(out.mutable_series_names(), a.names);
  return out;
}

MetricAnswer metricsFromProto(const v1::QueryMetricsResponse& r) {
  MetricAnswer a;
  a.series.name = r.series();
  a.series.resolution = parseMetricResolution(r.resolution()).value_or(MetricResolution::Raw);
  for (const auto& p : r.points())
    a.series.points.push_back({p.time(), p.value(), p.min(), p.max(), p.count()});
  a.names = strings(r.series_names());
  return a;
}

// --- reports

namespace {

std::string groupNames() {
  std::vector<std::string> names;
  for (auto g : {ReportGroup::Team, ReportGroup::Department, ReportGroup::Queue, ReportGroup::Pool,
                 ReportGroup::GpuModel, ReportGroup::Node, ReportGroup::Job})
    names.emplace_back(reportGroupName(g));
  return join(names, ", ");
}

// JSON is YAML: quoted keys and shortest round-trip numbers read back exactly.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (const char ch : s) {
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (static_cast<unsigned char>(ch) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(ch));
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::string shortest(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string priceMap(const std::map<std::string, double>& prices) {
  std::string out = "{";
  for (const auto& [key, price] : prices)
    out += (out.size() > 1 ? ", " : "") + quoted(key) + ": " + shortest(price);
  return out + "}";
}

// Every table a report can have (chargeback only with prices).
std::vector<std::string> allCsvTables(bool withPrices) {
  Report r;
  if (withPrices) r.header.currency = "USD";
  return reportCsvTables(r);
}

}  // namespace

std::string priceTableToYaml(const PriceTable& t) {
  std::string out = "{\"currency\": " + quoted(t.currency);
  if (t.defaultGpuHour) out += ", \"default_gpu_hour\": " + shortest(*t.defaultGpuHour);
  if (!t.gpuHour.empty()) out += ", \"gpu_hour\": " + priceMap(t.gpuHour);
  if (!t.migInstanceHour.empty()) {
    std::string mig;
    for (const auto& [model, profiles] : t.migInstanceHour)
      mig += (mig.empty() ? "" : ", ") + quoted(model) + ": " + priceMap(profiles);
    out += ", \"mig_instance_hour\": {" + mig + "}";
  }
  return out + "}\n";
}

Expected<ReportRequest> reportRequestFromProto(const v1::GetReportRequest& r) {
  ReportRequest out;
  if (r.has_from()) out.from = r.from();
  if (r.has_to()) out.to = r.to();
  if (!r.group_by().empty()) {
    const auto group = parseReportGroup(r.group_by());
    if (!group)
      return fieldError("group_by", "unknown group '" + r.group_by() + "' (" + groupNames() + ")");
    out.groupBy = *group;
  }
  if (r.has_idle_threshold()) out.idleThreshold = r.idle_threshold();
  if (r.has_idle_min_seconds()) out.idleMinDuration = r.idle_min_seconds();
  if (!r.prices_yaml().empty()) {
    TESSERA_TRY(prices, parsePriceTable(r.prices_yaml(), "prices_yaml"));
    out.prices = std::move(prices);
  }
  out.teams = strings(r.teams());
  if (!r.time_zone().empty()) out.timeZone = r.time_zone();
  if (r.has_top_idle_jobs()) out.topIdleJobs = r.top_idle_jobs();
  return out;
}

v1::GetReportRequest reportRequestToProto(const ReportRequest& r) {
  v1::GetReportRequest out;
  if (r.from) out.set_from(*r.from);
  if (r.to) out.set_to(*r.to);
  out.set_group_by(reportGroupName(r.groupBy));
  out.set_idle_threshold(r.idleThreshold);
  out.set_idle_min_seconds(r.idleMinDuration);
  if (r.prices) out.set_prices_yaml(priceTableToYaml(*r.prices));
  addAll(out.mutable_teams(), r.teams);
  out.set_time_zone(r.timeZone);
  out.set_top_idle_jobs(static_cast<uint32_t>(std::min<size_t>(r.topIdleJobs, UINT32_MAX)));
  out.set_format("json");
  return out;
}

Expected<ReportFormat> reportFormatFromProto(const v1::GetReportRequest& r, bool withPrices) {
  ReportFormat f;
  if (r.format().empty() || r.format() == "json") {
    if (!r.table().empty())
      return fieldError("table", "only with format csv (the JSON form holds every table)");
    return f;
  }
  if (r.format() != "csv") return fieldError("format", "'" + r.format() + "' (use json or csv)");
  const auto tables = allCsvTables(withPrices);
  if (std::find(tables.begin(), tables.end(), r.table()) == tables.end()) {
    const std::string known = join(tables, ", ");
    if (r.table() == "chargeback")
      return fieldError("table", "chargeback needs a price table (prices_yaml)");
    return fieldError("table", r.table().empty()
                                   ? "format csv needs a table (" + known + ")"
                                   : "unknown table '" + r.table() + "' (" + known + ")");
  }
  f.csv = true;
  f.table = r.table();
  return f;
}

v1::GetReportResponse reportToProto(const Report& report, const ReportFormat& format) {
  v1::GetReportResponse out;
  if (!format.csv) {
    out.set_content_type("application/json");
    out.set_content(reportToJson(report, false));
    return out;
  }
  std::ostringstream csv;
  // The table was checked against the tables a report can have; the report has them all.
  (void)writeReportCsvTable(csv, report, format.table);
  out.set_content_type("text/csv; charset=utf-8");
  out.set_content(csv.str());
  return out;
}

}  // namespace tessera::rpc
