#include "sim/openb_data.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "core/strings.h"
#include "sim/trace_csv.h"
#include "topology/gpu_catalog.h"

namespace tessera {

namespace {

using tracefmt::CsvRow;
using tracefmt::LineReader;
using tracefmt::TraceCollector;

const std::vector<std::string> kNodeColumns{"sn", "cpu_milli", "memory_mib", "gpu", "model"};
// The multigpu pod lists have only these; the others are read when present.
const std::vector<std::string> kPodColumns{"name", "cpu_milli", "memory_mib", "num_gpu",
                                           "gpu_milli"};

constexpr int64_t kMaxAmount = int64_t{1} << 40;  // milli-CPUs, MiB and seconds alike
constexpr int64_t kMaxPodGpus = 1024;
// A pod may ask for more than one GPU's worth per GPU; the experiment clips such values, so the
// row keeps them as written.
constexpr int64_t kMaxGpuMilli = 1000000;

// The cluster spec's rule for node names (they appear in GPU names such as "node/3").
bool hostnameChars(const std::string& name) {
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

Expected<OpenbNode> readNode(const CsvRow& row) {
  OpenbNode n;
  n.line = row.line();
  TESSERA_TRY(name, row.required("sn"));
  if (!hostnameChars(name) || name.size() > 253)
    return row.error("sn",
                     "node name '" + name + "' may contain only letters, digits, '-', '_' and '.'");
  n.name = name;
  TESSERA_TRY(cpu, row.integer("cpu_milli", 0, int64_t{1} << 30));
  n.cpuMilli = cpu;
  TESSERA_TRY(memory, row.integer("memory_mib", 0, kMaxAmount));
  n.memoryMiB = memory;
  TESSERA_TRY(gpus, row.integer("gpu", 0, 64));
  n.gpus = static_cast<int>(gpus);
  n.model = std::string(row.text("model"));
  if (n.gpus > 0) {
    if (!row.has("model")) return row.error("model", "a node with GPUs needs a GPU model");
    if (!GpuCatalog::builtin().find(n.model))
      return row.error("model", "unknown GPU model '" + n.model +
                                    "' (known: " + GpuCatalog::builtin().knownIds() + ")");
  }
  return n;
}

Expected<std::vector<OpenbNode>> nodeList(Expected<LineReader> opened, const std::string& file,
                                          const TraceReadOptions& opts,
                                          std::vector<TraceProblem>* problems) {
  TESSERA_TRY(lines, std::move(opened));
  TraceCollector c(file, opts);
  std::vector<OpenbNode> nodes;
  std::map<std::string, int> lineOf;
  TESSERA_CHECK(
      tracefmt::readCsvRows(lines, file, kNodeColumns, c, [&](const CsvRow& row) -> Status {
        TESSERA_TRY(n, readNode(row));
        if (auto [it, fresh] = lineOf.emplace(n.name, n.line); !fresh)
          return row.error("sn", "duplicate node name '" + n.name + "' (first on line " +
                                     std::to_string(it->second) + ")");
        nodes.push_back(std::move(n));
        c.countRow();
        return okStatus();
      }));
  if (problems) *problems = std::move(c.trace().problems);
  return nodes;
}

// Missing values are allowed here (a pod never scheduled has no scheduled_time); a consumer that
// needs the value reports CsvRow::missing.
Expected<std::optional<int64_t>> optionalInteger(const CsvRow& row, std::string_view column,
                                                 int64_t min, int64_t max) {
  if (!row.has(column)) return std::optional<int64_t>{};
  TESSERA_TRY(v, row.integer(column, min, max));
  return std::optional<int64_t>{v};
}

std::string optionalText(const CsvRow& row, std::string_view column) {
  return row.has(column) ? std::string(row.text(column)) : std::string();
}

Expected<OpenbPodRow> readPod(const CsvRow& row) {
  OpenbPodRow p;
  p.line = row.line();
  TESSERA_TRY(name, row.required("name"));
  p.name = std::move(name);
  TESSERA_TRY(cpu, row.integer("cpu_milli", 0, kMaxAmount));
  p.cpuMilli = cpu;
  TESSERA_TRY(memory, row.integer("memory_mib", 0, kMaxAmount));
  p.memoryMiB = memory;
  TESSERA_TRY(gpus, row.integer("num_gpu", 0, kMaxPodGpus));
  p.numGpu = static_cast<int>(gpus);
  TESSERA_TRY(milli, row.integer("gpu_milli", 0, kMaxGpuMilli));
  p.gpuMilli = static_cast<int>(milli);
  if (row.has("gpu_spec"))
    for (std::string_view model : split(row.text("gpu_spec"), '|'))
      if (!trim(model).empty()) p.spec.emplace_back(trim(model));
  p.qos = optionalText(row, "qos");
  p.podPhase = optionalText(row, "pod_phase");
  TESSERA_TRY(created, optionalInteger(row, "creation_time", 0, kMaxAmount));
  p.creationTime = created;
  TESSERA_TRY(deleted, optionalInteger(row, "deletion_time", 0, kMaxAmount));
  p.deletionTime = deleted;
  TESSERA_TRY(scheduled, optionalInteger(row, "scheduled_time", 0, kMaxAmount));
  p.scheduledTime = scheduled;
  return p;
}

Status podRows(LineReader& lines, const std::string& file, TraceCollector& c,
               const std::function<Status(OpenbPodRow, const CsvRow&)>& use) {
  return tracefmt::readCsvRows(lines, file, kPodColumns, c, [&](const CsvRow& row) -> Status {
    TESSERA_TRY(p, readPod(row));
    return use(std::move(p), row);
  });
}

Expected<std::vector<OpenbPodRow>> podList(Expected<LineReader> opened, const std::string& file,
                                           const TraceReadOptions& opts,
                                           std::vector<TraceProblem>* problems) {
  TESSERA_TRY(lines, std::move(opened));
  TraceCollector c(file, opts);
  std::vector<OpenbPodRow> rows;
  TESSERA_CHECK(podRows(lines, file, c, [&](OpenbPodRow p, const CsvRow&) {
    rows.push_back(std::move(p));
    c.countRow();
    return okStatus();
  }));
  if (problems) *problems = std::move(c.trace().problems);
  return rows;
}

}  // namespace

Expected<std::vector<OpenbNode>> readOpenbNodeList(const std::string& path,
                                                   const TraceReadOptions& opts,
                                                   std::vector<TraceProblem>* problems) {
  return nodeList(LineReader::open(path), path, opts, problems);
}

Expected<std::vector<OpenbNode>> parseOpenbNodeList(std::string_view text, const std::string& file,
                                                    const TraceReadOptions& opts,
                                                    std::vector<TraceProblem>* problems) {
  return nodeList(LineReader::fromText(std::string(text), file), file, opts, problems);
}

Expected<std::vector<OpenbPodRow>> readOpenbPodRows(const std::string& path,
                                                    const TraceReadOptions& opts,
                                                    std::vector<TraceProblem>* problems) {
  return podList(LineReader::open(path), path, opts, problems);
}

Expected<std::vector<OpenbPodRow>> parseOpenbPodRows(std::string_view text, const std::string& file,
                                                     const TraceReadOptions& opts,
                                                     std::vector<TraceProblem>* problems) {
  return podList(LineReader::fromText(std::string(text), file), file, opts, problems);
}

Status forEachOpenbPodRow(const std::string& path, TraceCollector& c,
                          const std::function<Status(OpenbPodRow, const CsvRow&)>& use) {
  TESSERA_TRY(lines, LineReader::open(path));
  return podRows(lines, path, c, use);
}

}  // namespace tessera
