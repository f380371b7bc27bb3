#pragma once
// The Alibaba openb files (cluster-trace-gpu-v2023, the FGD paper's trace) as raw rows: node lists
// (sn,cpu_milli,memory_mib,gpu,model) and pod lists (name,cpu_milli,memory_mib,num_gpu,gpu_milli,
// ...). This is the one reader of each file: the simulator's trace (readOpenbPods in trace.h), its
// cluster (openb_cluster.h) and the placement-quality experiment (openb_experiment.h) all build on
// these rows. Format: docs/trace-formats.md.
//
// Both readers follow TraceReadOptions: a malformed row stops the read with a
// file:line:column: column-name error (opts.stopOnError), or is skipped and, if `problems` is
// given, recorded there; opts.limit bounds the rows kept; time options do not apply.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "sim/trace.h"

namespace tessera {

// One row of a node list.
struct OpenbNode {
  std::string name;
  int64_t cpuMilli = 0;
  int64_t memoryMiB = 0;
  int gpus = 0;
  std::string model;  // as written in the file (G2, V100M16, ...); empty for CPU-only nodes
  int line = 0;       // in the file, for messages
};

// Every row, CPU-only nodes included. A GPU node's model must be in the built-in GPU catalog,
// node names must be unique and usable as host names.
Expected<std::vector<OpenbNode>> readOpenbNodeList(const std::string& path,
                                                   const TraceReadOptions& opts = {},
                                                   std::vector<TraceProblem>* problems = nullptr);
// The same for text already in memory; `file` only names it in errors.
Expected<std::vector<OpenbNode>> parseOpenbNodeList(std::string_view text, const std::string& file,
                                                    const TraceReadOptions& opts = {},
                                                    std::vector<TraceProblem>* problems = nullptr);

// One row of a pod list. The reader checks that every value is well formed; what a value means
// (a GPU share, a QoS class, a GPU model, times in order) is each consumer's to check, since the
// trace reader and the experiment read the same rows differently (docs/trace-formats.md and
// docs/openb-experiment.md).
struct OpenbPodRow {
  std::string name;
  int64_t cpuMilli = 0;           // 0..2^40
  int64_t memoryMiB = 0;          // 0..2^40
  int numGpu = 0;                 // 0..1024
  int gpuMilli = 0;               // per GPU as written, 0..10^6 (the experiment clips it to 1000)
  std::vector<std::string> spec;  // gpu_spec split at '|', models as written; empty = any
  // The optional columns (the multigpu files have none of them). qos and podPhase are as written,
  // "" when the column is absent or the value missing; a time is nullopt in either case (an empty
  // scheduled_time: the pod was never scheduled).
  std::string qos;
  std::string podPhase;
  std::optional<int64_t> creationTime;   // seconds, 0..2^40
  std::optional<int64_t> deletionTime;   // seconds, 0..2^40
  std::optional<int64_t> scheduledTime;  // seconds, 0..2^40
  int line = 0;                          // in the file, for messages
};

Expected<std::vector<OpenbPodRow>> readOpenbPodRows(const std::string& path,
                                                    const TraceReadOptions& opts = {},
                                                    std::vector<TraceProblem>* problems = nullptr);
// The same for text already in memory; `file` only names it in errors.
Expected<std::vector<OpenbPodRow>> parseOpenbPodRows(std::string_view text, const std::string& file,
                                                     const TraceReadOptions& opts = {},
                                                     std::vector<TraceProblem>* problems = nullptr);

// Internal to the simulator library, for readers that turn pod rows into something else
// (trace_openb.cpp): each well-formed row goes to `use` with its CSV row, in file order and under
// the collector's stop-or-record rule, so the consumer's own checks stop or skip the same row and
// name the column where the value is. Reading stops when the collector is full.
namespace tracefmt {
class CsvRow;
class TraceCollector;
}  // namespace tracefmt
Status forEachOpenbPodRow(const std::string& path, tracefmt::TraceCollector& c,
                          const std::function<Status(OpenbPodRow, const tracefmt::CsvRow&)>& use);

}  // namespace tessera
