// Alibaba openb pod lists (cluster-trace-gpu-v2023, the FGD paper's trace) as a Trace: the rows of
// openb_data.h, each mapped onto a job. Schema and mapping: docs/trace-formats.md.
#include "core/strings.h"
#include "sim/openb_data.h"
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

Status readQos(const OpenbPodRow& p, const CsvRow& row, Job& j) {
  const QosMapping* m = &kNoQos;
  if (row.hasColumn("qos")) {
    if (p.qos.empty()) return row.missing("qos");
    const std::string lower = toLower(p.qos);
    m = nullptr;
    for (const auto& q : kQos)
      if (lower == q.qos) m = &q;
    if (!m)
      return row.error("qos",
                       "unknown QoS '" + p.qos + "' (expected LS, Guaranteed, Burstable or BE)");
  }
  j.team = m->qos;
  tracefmt::setDefaultPriorityClass(j, m->priorityClass);
  j.workloadClass = m->workloadClass;
  return okStatus();
}

// num_gpu 0: CPU-only; 1 with gpu_milli < 1000: a share of one GPU; otherwise whole GPUs. The
// rows allow more GPUs and milli than a simulated job can ask for; such a row is malformed here.
Status readGpus(const OpenbPodRow& p, const CsvRow& row, TraceJob& t) {
  TESSERA_CHECK(row.inRange("num_gpu", p.numGpu, 0, 64));
  TESSERA_CHECK(row.inRange("gpu_milli", p.gpuMilli, 0, 1000));
  GpuRequest& r = t.job.perTask;
  if (p.numGpu == 0) {
    if (p.gpuMilli != 0) return row.error("gpu_milli", "must be 0 when num_gpu is 0");
    r.kind = GpuRequest::Kind::None;
    return okStatus();
  }
  if (p.gpuMilli == 0) return row.error("gpu_milli", "must be 1..1000 when num_gpu is not 0");
  if (p.gpuMilli < 1000) {
    if (p.numGpu != 1) return row.error("gpu_milli", "a GPU share (< 1000) needs num_gpu 1");
    r.kind = GpuRequest::Kind::Fraction;
    r.milli = p.gpuMilli;
    t.usage = UsageProfile::Inference;
    return okStatus();
  }
  r.kind = GpuRequest::Kind::Whole;
  r.gpus = p.numGpu;
  t.usage = UsageProfile::ComputeBound;
  return okStatus();
}

Status readModels(const OpenbPodRow& p, const CsvRow& row, Job& j) {
  for (const std::string& name : p.spec) {
    const GpuModel* m = GpuCatalog::builtin().find(name);
    if (!m) return row.error("gpu_spec", "unknown GPU model '" + name + "'");
    j.model.models.push_back(m->id);
  }
  return okStatus();
}

// Arrival and runtime. Without time columns (multigpu files) every pod arrives at 0 with runtime
// 0, which stands for "unknown": those files only serve placement experiments.
Status readTimes(const OpenbPodRow& p, const CsvRow& row, TraceJob& t) {
  if (!row.hasColumn("creation_time")) return okStatus();
  if (!p.creationTime) return row.missing("creation_time");
  if (!p.deletionTime) return row.missing("deletion_time");
  const Seconds created = *p.creationTime;
  Seconds start = created;
  if (p.scheduledTime) {  // missing: never scheduled, it only waited
    if (*p.scheduledTime < created)
      return row.error("scheduled_time", "is before creation_time " + std::to_string(created));
    start = *p.scheduledTime;
  }
  if (*p.deletionTime < start)
    return row.error("deletion_time", "is before the pod's start " + std::to_string(start));
  t.job.submitTime = created;
  t.runtime = *p.deletionTime - start;
  return okStatus();
}

// cpu_milli is narrower here than in the rows: cpusPerTask is an int.
Status readPod(const OpenbPodRow& p, const CsvRow& row, TraceCollector& c) {
  TraceJob t;
  t.job.name = p.name;
  TESSERA_CHECK(row.inRange("cpu_milli", p.cpuMilli, 0, int64_t{1} << 30));
  t.job.cpusPerTask = static_cast<int>(tracefmt::ceilDiv(p.cpuMilli, 1000));
  t.job.memoryMiBPerTask = p.memoryMiB;
  TESSERA_CHECK(readGpus(p, row, t));
  TESSERA_CHECK(readModels(p, row, t.job));
  TESSERA_CHECK(readQos(p, row, t.job));
  TESSERA_CHECK(readTimes(p, row, t));
  t.failsAtEnd = toLower(p.podPhase) == "failed";
  c.add(std::move(t));
  return okStatus();
}

}  // namespace

Expected<Trace> readOpenbPods(const std::string& path, const TraceReadOptions& opts) {
  TraceCollector c(path, opts);
  TESSERA_CHECK(forEachOpenbPodRow(
      path, c, [&](const OpenbPodRow& p, const CsvRow& row) { return readPod(p, row, c); }));
  return std::move(c).finish();
}

}  // namespace tessera
