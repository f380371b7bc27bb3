// Tessera's own job lists: a workload file (docs/workload-spec.md), YAML or JSON, whose jobs may
// add what only a simulation needs: actual_runtime, usage and fails. Mapping:
// docs/trace-formats.md.
#include "sim/trace.h"
#include "sim/trace_csv.h"
#include "topology/yaml_reader.h"

namespace tessera {

namespace {

// The keys a job list adds to a workload job.
struct Extras {
  std::optional<Seconds> actualRuntime;
  std::optional<UsageProfile> usage;
  bool fails = false;
};

Expected<Extras> readExtras(const YamlField& job) {
  Extras x;
  if (job.has("actual_runtime")) {
    const YamlField f = job.child("actual_runtime");
    TESSERA_TRY(text, f.asString());
    auto d = parseDuration(text);
    if (!d)
      return f.error("bad duration '" + text + "' (seconds, or like 90s, 15m, 2h, 1h30m, 1d)");
    x.actualRuntime = *d;
  }
  if (job.has("usage")) {
    const YamlField f = job.child("usage");
    TESSERA_TRY(text, f.asString());
    x.usage = parseUsageProfile(text);
    if (!x.usage)
      return f.error("usage must be compute-bound, input-bound, inference or idle-notebook, got '" +
                     text + "'");
  }
  if (job.has("fails")) {
    TESSERA_TRY(b, job.child("fails").asBool());
    x.fails = b;
  }
  return x;
}

// Reads the extras of every job and removes them from the document, so that the workload loader
// validates everything else with its own messages. Jobs that are not mappings are left for the
// loader to report.
Expected<std::vector<Extras>> takeExtras(const YamlField& root) {
  std::vector<Extras> out;
  if (!root.isMap() || !root.has("jobs") || !root.child("jobs").isSequence()) return out;
  const YamlField jobs = root.child("jobs");
  for (size_t i = 0; i < jobs.size(); ++i) {
    const YamlField job = jobs.item(i);
    if (!job.isMap()) {
      out.emplace_back();
      continue;
    }
    TESSERA_TRY(x, readExtras(job));
    out.push_back(x);
    YAML::Node node = job.node();  // shares the document's node: removing edits the document
    for (const char* key : {"actual_runtime", "usage", "fails"}) node.remove(key);
  }
  return out;
}

// The workload loader lists the keys a job may have; a job list allows three more.
Error withJobListKeys(Error e) {
  if (e.where.field.rfind("jobs[", 0) == 0 && e.message.rfind("unknown field", 0) == 0)
    e.message += "; a job list also allows actual_runtime, usage, fails";
  return e;
}

// Without a `usage`, the job's class suggests how it uses its GPUs.
UsageProfile usageOf(const Job& j) {
  switch (j.workloadClass) {
    case WorkloadClass::Inference:
      return UsageProfile::Inference;
    case WorkloadClass::Interactive:
      return UsageProfile::IdleNotebook;
    case WorkloadClass::Training:
    case WorkloadClass::Batch:
      break;
  }
  return UsageProfile::ComputeBound;
}

}  // namespace

Expected<Trace> readJobList(const std::string& path, const TraceReadOptions& opts) {
  TESSERA_TRY(text, tracefmt::readWholeFile(path));
  TESSERA_TRY(doc, parseYaml(text, path));
  const YamlField root(doc, "", &path);
  TESSERA_TRY(extras, takeExtras(root));
  auto loaded = loadWorkloadNode(doc, path, "");
  if (!loaded) return withJobListKeys(loaded.error());
  Workload workload = std::move(*loaded);
  // A document is validated whole, like every Tessera input: the first error stops the read
  // whatever opts.stopOnError says.
  tracefmt::TraceCollector c(path, opts);
  c.trace().priorityClasses = workload.priorityClasses;
  c.trace().teams = workload.teams;
  for (size_t i = 0; i < workload.jobs.size() && !c.full(); ++i) {
    TraceJob t;
    t.job = std::move(workload.jobs[i]);
    const Extras& x = extras[i];
    const auto runtime = x.actualRuntime ? x.actualRuntime : t.job.estimatedRuntime;
    if (!runtime)
      return root.child("jobs").item(i).error(
          "job " + std::to_string(t.job.id) +
          " needs actual_runtime or runtime: the simulator must know how long it runs");
    t.runtime = *runtime;
    t.usage = x.usage.value_or(usageOf(t.job));
    t.failsAtEnd = x.fails;
    c.add(std::move(t));
  }
  return std::move(c).finish();
}

}  // namespace tessera
