// tessera ctl's job calls: submit (one job from flags, or a --file of jobs as one batch), get,
// list and explain, with the job table and a job's details as they are printed.
#include <algorithm>
#include <utility>

#include "cli/cli_ctl_internal.h"
#include "scheduler/command_yaml.h"

namespace tessera::cli::ctl {

namespace {

// ============================================================================ printing jobs

// "4", "2x4" (gang of 2 tasks with 4 GPUs each), "3g.40gb", "250m" (a quarter GPU).
std::string requestText(const v1::JobSpec& s) {
  std::string per;
  switch (s.per_task().kind_case()) {
    case v1::GpuRequest::kGpus:
      per = std::to_string(s.per_task().gpus());
      break;
    case v1::GpuRequest::kMigProfile:
      per = s.per_task().mig_profile();
      break;
    case v1::GpuRequest::kMilli:
      per = std::to_string(s.per_task().milli()) + "m";
      break;
    case v1::GpuRequest::kMpsThreads:
      per = "mps" + std::to_string(s.per_task().mps_threads()) + "%";
      break;
    case v1::GpuRequest::KIND_NOT_SET:
      per = "-";
      break;
  }
  return s.tasks() > 1 ? std::to_string(s.tasks()) + "x" + per : per;
}

std::string resourcesText(const v1::JobSpec& s) {
  std::string text = requestText(s) + (s.per_task().has_gpus() ? " GPU" : "");
  if (s.per_task().vram_mib() > 0)
    text += ", " + std::to_string(s.per_task().vram_mib()) + " MiB VRAM";
  if (s.cpus_per_task() > 0) text += ", " + std::to_string(s.cpus_per_task()) + " CPUs";
  if (s.memory_mib_per_task() > 0)
    text += ", " + std::to_string(s.memory_mib_per_task() / 1024) + " GiB memory";
  return text + (s.tasks() > 1 ? " (per task)" : "");
}

std::string placementText(const v1::Job& j) {
  std::vector<std::string> tasks;
  for (const auto& p : j.placement()) {
    std::string t = p.node() + " GPUs " + joinAll(p.gpus(), ",");
    if (p.mig_start() >= 0 && j.spec().per_task().has_mig_profile())
      t += " (MIG slice " + std::to_string(p.mig_start()) + ")";
    tasks.push_back(std::move(t));
  }
  return join(tasks, "; ");
}

bool needsNow(const v1::Job& j) {
  return (j.state() == v1::JOB_STATE_PENDING && j.has_eta()) ||
         ((j.state() == v1::JOB_STATE_RUNNING || j.state() == v1::JOB_STATE_ADMITTED) &&
          j.start_time() > 0);
}

// For a pending job when it should start, for a running one when it did.
std::string etaOrStart(const v1::Job& j, std::optional<Seconds> now) {
  auto when = [&now](Seconds t) { return now ? relativeText(t, *now) : clockText(t); };
  if (j.state() == v1::JOB_STATE_PENDING) return j.has_eta() ? when(j.eta()) : "-";
  if (needsNow(j)) return when(j.start_time());
  return "-";
}

std::string reasonText(const v1::Job& j) {
  if (j.blocked_by().empty()) return orDash(j.reason());
  return j.reason() + " [" + j.blocked_by() + "]";
}

// Relative times need the server's clock, fetched only when a row shows one; without it the
// absolute times are shown.
template <typename Jobs>
std::optional<Seconds> nowFor(Call& c, const Jobs& jobs) {
  for (const v1::Job& j : jobs)
    if (needsNow(j)) return displayNow(c);
  return std::nullopt;
}

void printJobTable(Call& c, const google::protobuf::RepeatedPtrField<v1::Job>& jobs) {
  const auto now = nowFor(c, jobs);
  Table t;
  t.add({"ID", "NAME", "TEAM", "CLASS", "STATE", "GPUS", "POSITION", "ETA/START", "REASON"});
  for (const v1::Job& j : jobs)
    t.add({std::to_string(j.id()), orDash(j.spec().name()), j.spec().team(),
           orDash(j.spec().priority_class()), stateWord(j.state()), requestText(j.spec()),
           j.queue_position() ? std::to_string(j.queue_position()) : "-", etaOrStart(j, now),
           reasonText(j)});
  t.print(c.out());
}

// What the job asked for.
void addRequestRows(Table& t, const v1::Job& j) {
  const v1::JobSpec& s = j.spec();
  t.add({"id", std::to_string(j.id())});
  t.add({"name", orDash(s.name())});
  t.add({"team", s.team()});
  t.add({"priority", orDash(s.priority_class()) + " (" + std::to_string(j.priority()) +
                         (s.preemptible() ? ", preemptible)" : ")")});
  t.add({"class", classWord(s.workload_class())});
  t.add({"state", stateWord(j.state()) + (s.held() ? " (held)" : "")});
  t.add({"request", resourcesText(s)});
  if (s.gpu_models_size()) t.add({"models", joinAll(s.gpu_models())});
  if (!s.pool().empty()) t.add({"pool", s.pool()});
  if (s.topology() != v1::TOPOLOGY_LEVEL_UNSPECIFIED && s.topology() != v1::TOPOLOGY_LEVEL_ANY)
    t.add({"topology", topologyWord(s.topology()) + (s.topology_required() ? " (required)" : "")});
  if (s.pin_gpus_size() || s.pin_nodes_size()) {
    std::vector<std::string> pins(s.pin_gpus().begin(), s.pin_gpus().end());
    pins.insert(pins.end(), s.pin_nodes().begin(), s.pin_nodes().end());
    t.add({"pinned", join(pins, ", ")});
  }
  if (s.estimated_runtime_s() > 0) t.add({"runtime", formatDuration(s.estimated_runtime_s())});
  if (s.checkpoint_interval_s() > 0)
    t.add({"checkpoints", "every " + formatDuration(s.checkpoint_interval_s())});
}

// What happened to it so far; `when` prints an engine time.
template <typename When>
void addProgressRows(Table& t, const v1::Job& j, When when) {
  t.add({"submitted", when(j.submit_time())});
  if (j.start_time() > 0) t.add({"started", when(j.start_time())});
  if (j.end_time() > 0) t.add({"ended", when(j.end_time())});
  if (j.queue_position() > 0) t.add({"queue position", std::to_string(j.queue_position())});
  if (j.has_eta()) t.add({"eta", when(j.eta())});
  if (j.placement_size()) t.add({"placement", placementText(j)});
  if (!j.reason().empty()) t.add({"reason", j.reason()});
  if (!j.blocked_by().empty()) t.add({"blocked by", j.blocked_by()});
  if (j.has_external()) {
    // Slurm's view beside Tessera's: its job id, state and (when it says one) its reason.
    const auto& x = j.external();
    std::string line = x.id() + " " + x.state();
    if (!x.reason().empty() && x.reason() != "None") line += " (" + x.reason() + ")";
    t.add({"slurm job", line});
  }
  if (j.preemptions() > 0)
    t.add({"preemptions", std::to_string(j.preemptions()) + " (" + fixed(j.gpu_hours_lost(), 1) +
                              " GPU-hours lost)"});
}

void printJobDetails(Call& c, const v1::Job& j) {
  // Times read best both ways: when on the engine clock, and how long ago or ahead of now.
  const auto now = displayNow(c);
  auto when = [&now](Seconds t) {
    return now ? clockText(t) + " (" + relativeText(t, *now) + ")" : clockText(t);
  };
  Table t;
  addRequestRows(t, j);
  addProgressRows(t, j, when);
  t.print(c.out());
}

// ============================================================================ the calls

int submitOne(Call& c, const v1::JobSpec& spec) {
  v1::SubmitRequest request;
  *request.mutable_job() = spec;
  return callAndPrint(c, &Stub::Submit, request, [&c](const v1::SubmitResponse& r) {
    c.out() << "submitted job " << r.id() << "\n";
  });
}

int submitBatch(Call& c, const std::vector<v1::JobSpec>& specs) {
  v1::SubmitBatchRequest request;
  for (const auto& s : specs) *request.add_jobs() = s;
  return callAndPrint(c, &Stub::SubmitBatch, request, [&](const v1::SubmitBatchResponse& r) {
    for (int i = 0; i < r.ids_size(); ++i) {
      const auto k = static_cast<size_t>(i);
      const std::string name = k < specs.size() ? specs[k].name() : std::string();
      c.out() << "submitted job " << r.ids(i) << (name.empty() ? "" : " (" + name + ")") << "\n";
    }
  });
}

int getJob(Call& c, JobId id) {
  v1::GetJobRequest request;
  request.set_id(id);
  return callAndPrint(c, &Stub::GetJob, request, [&c](const v1::Job& j) { printJobDetails(c, j); });
}

int explainJob(Call& c, JobId id) {
  v1::ExplainRequest request;
  request.set_job(id);
  return callAndPrint(c, &Stub::Explain, request,
                      [&c](const v1::Explanation& x) { printText(c, x.text()); });
}

struct ListArgs {
  std::string team, priorityClass, state;
  bool active = false, all = false;
  uint32_t limit = 0;
};

v1::ListJobsRequest listRequest(const ListArgs& a) {
  v1::ListJobsRequest request;
  request.set_team(a.team);
  request.set_priority_class(a.priorityClass);
  if (!a.state.empty()) {
    v1::JobState state{};
    std::string name = "JOB_STATE_" + a.state;
    std::transform(name.begin(), name.end(), name.begin(), [](char ch) {
      return ch >= 'a' && ch <= 'z' ? static_cast<char>(ch - 'a' + 'A') : ch;
    });
    v1::JobState_Parse(name, &state);
    request.set_state(state);
  }
  request.set_active_only(a.active);
  request.set_page_size(a.limit);
  return request;
}

// The first page, or with --all every page, into `all`; false when a call failed.
bool fetchJobs(Call& c, const ListArgs& a, v1::ListJobsResponse& all) {
  v1::ListJobsRequest request = listRequest(a);
  for (;;) {
    v1::ListJobsResponse page;
    if (!unary(c, &Stub::ListJobs, request, page)) return false;
    all.mutable_jobs()->MergeFrom(page.jobs());
    all.set_next_page_token(page.next_page_token());
    // A server handing back the token it was given would otherwise loop forever.
    if (!a.all || page.next_page_token().empty() || page.next_page_token() == request.page_token())
      return true;
    request.set_page_token(page.next_page_token());
  }
}

int listJobs(Call& c, const ListArgs& a) {
  v1::ListJobsResponse all;
  if (!fetchJobs(c, a, all)) return c.failed;
  if (c.json()) return printJson(c, all);
  if (all.jobs_size() == 0) {
    c.ctx.err << "no jobs match\n";
    return kExitOk;
  }
  printJobTable(c, all.jobs());
  if (!all.next_page_token().empty())
    c.ctx.err << "(more jobs: --all follows every page, --limit N sets the page size)\n";
  return kExitOk;
}

// ============================================================================ registration

struct SubmitArgs {
  SubmitFlags job;
  std::string file;
};

void addJobFlags(CLI::App* s, SubmitFlags& f) {
  s->add_option("--name", f.name, "Job name");
  s->add_option("--team", f.team, "Team that runs it (required)");
  s->add_option("--priority", f.priority, "Priority class (default: the lowest)")
      ->type_name("CLASS");
  s->add_option("--class", f.workloadClass,
                "Workload class: training, inference, interactive, batch")
      ->type_name("CLASS");
  s->add_option("--tasks", f.tasks, "Gang size: tasks that start together (default 1)")
      ->type_name("N");
  s->add_option("--gpus", f.gpus, "Whole GPUs per task (one of --gpus/--mig/--fraction)")
      ->type_name("N");
  s->add_option("--mig", f.mig, "One MIG instance per task, like 3g.40gb")->type_name("PROFILE");
  s->add_option("--fraction", f.fraction, "Share of one time-sliced GPU per task, like 0.25")
      ->type_name("F");
  s->add_option("--mps", f.mps,
                "An MPS client per task with this active-thread percentage, 1-100 (needs "
                "--mps-memory)")
      ->type_name("PERCENT");
  s->add_option("--mps-memory", f.mpsMemory,
                "The MPS client's pinned device memory limit, like 8GiB or 512MiB")
      ->type_name("SIZE");
  s->add_option("--user", f.user, "Who submits the job (MPS servers may share by user)")
      ->type_name("NAME");
  s->add_option("--vram-mib", f.vramMib, "GPU memory each task needs, MiB")->type_name("N");
  s->add_option("--cpus", f.cpus, "CPUs per task")->type_name("N");
  s->add_option("--memory-gib", f.memoryGib, "Host memory per task, GiB")->type_name("N");
  s->add_option("--min-gpu-memory-gib", f.minGpuMemoryGib, "Only GPUs with at least this memory")
      ->type_name("N");
  addList(s, "--model", f.models, "Only these GPU models (repeatable)")->type_name("MODEL");
  s->add_option("--pool", f.pool, "Node pool");
  s->add_option("--topology", f.topology,
                "Keep the gang within node, nvlink-domain, leaf, spine, any")
      ->type_name("LEVEL");
  s->add_flag("--topology-required", f.topologyRequired, "Wait rather than spread wider");
  s->add_option("--runtime", f.runtime, "Estimated runtime, like 2h (backfill uses it)")
      ->type_name("DUR");
  s->add_option("--checkpoint-interval", f.checkpointInterval, "How often it checkpoints, like 30m")
      ->type_name("DUR");
  s->add_flag("--held", f.held, "Submit held: it waits for 'release'");
  addList(s, "--pin-gpu", f.pinGpus, "Only on this GPU (repeatable)")->type_name("NODE/I");
  addList(s, "--pin-node", f.pinNodes, "Only on this node (repeatable)")->type_name("NODE");
  s->add_option("--command", f.command,
                "What it runs on the cluster: a shell command line (tesserad --executor slurm)")
      ->type_name("CMD");
  s->add_option("--script", f.script, "Or a batch script file to run")->type_name("FILE");
  s->add_option("--workdir", f.workDir, "Working directory on the cluster")->type_name("DIR");
  s->add_option("--output", f.output, "Standard output file (Slurm's %j patterns work)")
      ->type_name("FILE");
  s->add_option("--error", f.error, "Standard error file (default: with --output)")
      ->type_name("FILE");
  s->add_option("--account", f.account, "Slurm account (default: the team's mapping)");
  s->add_option("--partition", f.partition, "Slurm partition (default: the pool's mapping)");
  s->add_option("--time-limit", f.timeLimit,
                "Time limit, like 2h (default: --runtime, else the executor's default)")
      ->type_name("DUR");
}

// The jobs to submit, from --file or the job flags, into `specs`; the usage problem if any.
std::string readJobs(const SubmitArgs& a, std::vector<v1::JobSpec>& specs) {
  if (!a.file.empty()) {
    if (a.job.any())
      return std::string("--file takes every job from the file; leave out the job flags");
    auto read = specsFromFile(a.file);
    if (!read) return read.error().str();
    specs = std::move(*read);
    return std::string();
  }
  auto spec = specFromFlags(a.job);
  if (!spec) return spec.error().str();
  specs = {std::move(*spec)};
  return std::string();
}

void addSubmitCall(const Registrar& r) {
  auto a = std::make_shared<SubmitArgs>();
  auto* s = r.addCall(
      "submit", "Submit one job from flags, or every job in --file as one all-or-nothing batch");
  s->add_option("--file", a->file, "YAML list of jobs with the workload file's keys (docs/ctl.md)")
      ->type_name("FILE");
  addJobFlags(s, a->job);
  // The jobs are read before any connection, so a bad file never half-reaches the server.
  auto specs = std::make_shared<std::vector<v1::JobSpec>>();
  r.onCall(
      s, [a, specs] { return readJobs(*a, *specs); },
      [a, specs](Call& c) {
        return a->file.empty() ? submitOne(c, specs->front()) : submitBatch(c, *specs);
      });
}

// A call taking one job id.
void addJobIdCall(const Registrar& r, const std::string& name, const std::string& description,
                  int (*call)(Call&, JobId)) {
  auto id = std::make_shared<JobId>(0);
  auto* sub = r.addCall(name, description);
  sub->add_option("ID", *id, "Job id")->required();
  r.onCall(sub, [id, call](Call& c) { return call(c, *id); });
}

void addListCall(const Registrar& r) {
  auto l = std::make_shared<ListArgs>();
  auto* sub =
      r.addCall("list", "List jobs matching the filters: one page, or every page with --all");
  sub->add_option("--team", l->team, "Only this team's jobs");
  sub->add_option("--class", l->priorityClass, "Only this priority class")->type_name("CLASS");
  sub->add_option("--state", l->state, "Only jobs in this state")
      ->check(CLI::IsMember(
          {"pending", "admitted", "running", "completed", "failed", "cancelled", "preempted"}));
  sub->add_flag("--active", l->active, "Only pending and running jobs");
  sub->add_option("--limit", l->limit, "Jobs per page (default 100, at most 1000)")
      ->check(CLI::Range(1, 1000));
  sub->add_flag("--all", l->all, "Follow every page instead of the first");
  r.onCall(sub, [l](Call& c) { return listJobs(c, *l); });
}

}  // namespace

void addJobCalls(const Registrar& r) {
  addSubmitCall(r);
  addJobIdCall(r, "get", "Show one job: request, state, queue position, ETA, placement", getJob);
  addListCall(r);
  addJobIdCall(r, "explain", "Why a job is pending and when it will start, with counterfactuals",
               explainJob);
}

}  // namespace tessera::cli::ctl
