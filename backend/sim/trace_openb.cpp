// Alibaba openb pod lists (cluster-trace-gpu-v2023, the FGD paper's trace). Schema and mapping:
// docs/trace-formats.md.
#include "core/strings.h"
#include "sim/trace.h"
#include "sim/trace_csv.h"
#include "topology/gpu_catalog.h"

namespace tessera {

namespace {

using tracefmt::CsvRow;
using tracefmt::TraceCollector;

// openb QoS classes, most protected first. LS (latency-sensitive) pods are online services; the
// others are Kubernetes QoS classes of batch pods. Each maps onto one of the default priority
// classes, so a simulation without its own classes keeps the trace's order of protection.
struct QosMapping {
  const char* qos;  // lowercased; also the team name
  const char* priorityClass;
  WorkloadClass workloadClass;
};
constexpr QosMapping kQos[] = {
    {"ls", "serving", WorkloadClass::Inference},
    {"guaranteed", "production-training", WorkloadClass::Batch},
    {"burstable", "experiment", WorkloadClass::Batch},
    {"be", "spot", WorkloadClass::Batch},
};
// Files without a qos column (the multigpu variants).
constexpr QosMapping kNoQos = {"openb", "experiment", WorkloadClass::Batch};

Status readQos(const CsvRow& row, Job& j) {
  const QosMapping* m = &kNoQos;
  if (row.hasColumn("qos")) {
    TESSERA_TRY(qos, row.required("qos"));
    const std::string lower = toLower(qos);
    m = nullptr;
    for (const auto& q : kQos)
      if (lower == q.qos) m = &q;
    if (!m)
      return row.error("qos",
                       "unknown QoS '" + qos + "' (expected LS, Guaranteed, Burstable or BE)");
  }
  j.team = m->qos;
  tracefmt::setDefaultPriorityClass(j, m->priorityClass);
  j.workloadClass = m->workloadClass;
  return okStatus();
}

// num_gpu 0: CPU-only; 1 with gpu_milli < 1000: a share of one GPU; otherwise whole GPUs.
Status readGpus(const CsvRow& row, TraceJob& t) {
  TESSERA_TRY(gpus, row.integer("num_gpu", 0, 64));
  TESSERA_TRY(milli, row.integer("gpu_milli", 0, 1000));
  GpuRequest& r = t.job.perTask;
  if (gpus == 0) {
    if (milli != 0) return row.error("gpu_milli", "must be 0 when num_gpu is 0");
    r.kind = GpuRequest::Kind::None;
    return okStatus();
  }
  if (milli == 0) return row.error("gpu_milli", "must be 1..1000 when num_gpu is not 0");
  if (milli < 1000) {
    if (gpus != 1) return row.error("gpu_milli", "a GPU share (< 1000) needs num_gpu 1");
    r.kind = GpuRequest::Kind::Fraction;
    r.milli = static_cast<int>(milli);
    t.usage = UsageProfile::Inference;
    return okStatus();
  }
  r.kind = GpuRequest::Kind::Whole;
  r.gpus = static_cast<int>(gpus);
  t.usage = UsageProfile::ComputeBound;
  return okStatus();
}

Status readModels(const CsvRow& row, Job& j) {
  if (!row.has("gpu_spec")) return okStatus();
  for (std::string_view name : split(row.text("gpu_spec"), '|')) {
    name = trim(name);
    if (name.empty()) continue;
    const GpuModel* m = GpuCatalog::builtin().find(name);
    if (!m) return row.error("gpu_spec", "unknown GPU model '" + std::string(name) + "'");
    j.model.models.push_back(m->id);
  }
  return okStatus();
}

// Arrival and runtime. Without time columns (multigpu files) every pod arrives at 0 with runtime
// 0, which stands for "unknown": those files only serve placement experiments.
Status readTimes(const CsvRow& row, TraceJob& t) {
  if (!row.hasColumn("creation_time")) return okStatus();
  TESSERA_TRY(created, row.integer("creation_time", 0, int64_t{1} << 40));
  TESSERA_TRY(deleted, row.integer("deletion_time", 0, int64_t{1} << 40));
  Seconds start = created;
  if (row.has("scheduled_time")) {  // empty: never scheduled, it only waited
    TESSERA_TRY(scheduled, row.integer("scheduled_time", 0, int64_t{1} << 40));
    if (scheduled < created)
      return row.error("scheduled_time", "is before creation_time " + std::to_string(created));
    start = scheduled;
  }
  if (deleted < start)
    return row.error("deletion_time", "is before the pod's start " + std::to_string(start));
  t.job.submitTime = created;
  t.runtime = deleted - start;
  return okStatus();
}

Status readPod(const CsvRow& row, TraceCollector& c) {
  TraceJob t;
  TESSERA_TRY(name, row.required("name"));
  t.job.name = name;
  TESSERA_TRY(cpuMilli, row.integer("cpu_milli", 0, int64_t{1} << 30));
  t.job.cpusPerTask = static_cast<int>(tracefmt::ceilDiv(cpuMilli, 1000));
  TESSERA_TRY(memory, row.integer("memory_mib", 0, int64_t{1} << 40));
  t.job.memoryMiBPerTask = memory;
  TESSERA_CHECK(readGpus(row, t));
  TESSERA_CHECK(readModels(row, t.job));
  TESSERA_CHECK(readQos(row, t.job));
  TESSERA_CHECK(readTimes(row, t));
  t.failsAtEnd = toLower(row.text("pod_phase")) == "failed";
  c.add(std::move(t));
  return okStatus();
}

}  // namespace

Expected<Trace> readOpenbPods(const std::string& path, const TraceReadOptions& opts) {
  TraceCollector c(path, opts);
  TESSERA_CHECK(tracefmt::readCsvRows(path,
                                      {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"},
                                      c, [&](const CsvRow& row) { return readPod(row, c); }));
  return std::move(c).finish();
}

}  // namespace tessera
