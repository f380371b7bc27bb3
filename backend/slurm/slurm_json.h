#pragma once
// squeue --json and sinfo --json (Slurm 22.05: openapi/v0.0.38) as value types.
//
// Parsing policy (docs/slurm.md): a missing optional field gets its default; a field of the wrong
// type, or a malformed document, is an Error whose location names the JSON path
// ("jobs[3].job_state"); nothing throws. Documents of another (newer) plugin version are read
// best-effort: numbers may also come in the later {"set","infinite","number"} wrapping, job_state
// and exit_code in their later array/object shapes, and unknown fields are ignored.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"

namespace tessera::slurm {

enum class JobState : uint8_t {
  Pending,
  Running,
  Suspended,
  Completing,
  Completed,
  Failed,
  Cancelled,
  Timeout,
  NodeFail,
  OutOfMemory,
  Preempted,
  Other,  // BOOT_FAIL, DEADLINE, REQUEUED, ... (SlurmJob::stateText keeps Slurm's word)
};
std::string_view slurmWord(JobState state);
// Slurm's upper-case state word ("RUNNING", "OUT_OF_MEMORY"); anything unknown is Other.
JobState jobStateFromSlurm(std::string_view word);
[[nodiscard]] bool isFinished(JobState state);

// A process's end as Slurm reports it: squeue --json's exit_code is a raw wait status.
struct ExitStatus {
  int code = 0;    // exit(3) -> 3
  int signal = 0;  // killed by SIGKILL -> 9
  bool operator==(const ExitStatus&) const = default;
};
ExitStatus decodeWaitStatus(int64_t raw);

// One generic resource count: "gpu:h100:4" -> {gpu, h100, 4}; "gpu:2" -> {gpu, "", 2}.
struct GresCount {
  std::string name;
  std::string type;  // empty when untyped
  int count = 0;
  bool operator==(const GresCount&) const = default;
};
// A gres list: "gpu:h100:4,gpu:a100_3g.40gb:2"; the "gres:"/"gres/" prefix of tres_per_node and
// a trailing "(S:0-1)" socket note are accepted. "" and "N/A" and "(null)" are empty.
Expected<std::vector<GresCount>> parseGresList(std::string_view text);

// Resources in use with the device indices bound: "gpu:h100:2(IDX:0-1)"; "(IDX:N/A)" = none.
struct GresUse {
  GresCount gres;
  std::vector<int> indices;
  bool operator==(const GresUse&) const = default;
};
Expected<std::vector<GresUse>> parseGresUsed(std::string_view text);

// The GPUs a running job holds on one of its nodes (from gres_detail, in node-list order).
struct NodeGres {
  std::string node;
  std::vector<GresUse> gres;
};

// The "tessera:" comment prefix that marks (and names) jobs Tessera submitted.
inline constexpr std::string_view kTesseraTag = "tessera:";
// "tessera:<id>" -> id; anything else (or an empty id) -> nullopt.
std::optional<std::string> tesseraIdFromComment(std::string_view comment);

struct SlurmJob {
  int64_t id = 0;
  std::string name;
  std::string user;
  std::string account;
  std::string partition;
  JobState state = JobState::Other;
  std::string stateText;    // Slurm's own word, e.g. "BOOT_FAIL" for Other
  std::string stateReason;  // "None", "JobHeldUser", "BadConstraints", "BeginTime", ...
  int64_t priority = 0;
  std::vector<std::string> nodes;          // where it runs or ran, expanded
  std::vector<std::string> requiredNodes;  // the pin (ReqNodeList), expanded
  std::string comment;
  std::optional<std::string> tesseraId;
  int64_t timeLimitMinutes = 0;  // 0 = none (UNLIMITED)
  ExitStatus exit;
  int restartCount = 0;
  int64_t submitTime = 0;  // seconds since the epoch; 0 = not (yet) known
  int64_t eligibleTime = 0;
  int64_t startTime = 0;
  int64_t endTime = 0;  // projected from the time limit while the job runs
  int nodeCount = 0;
  int cpus = 0;
  bool held = false;                   // priority 0 and held (JobHeld*, requeued held)
  std::string tresPerNode;             // "gres:gpu:h100:2", as Slurm wrote it
  std::vector<GresCount> gresPerNode;  // the same, parsed
  std::vector<NodeGres> gresDetail;    // only while running
};

// Held by a hold (the gate's, Tessera's, a requeue's): priority 0 for one of the hold reasons.
// BadConstraints also has priority 0 but is a rejected release, not a hold.
[[nodiscard]] bool isHeld(int64_t priority, std::string_view reason);

enum class NodeState : uint8_t { Idle, Mixed, Allocated, Completing, Down, Error, Future, Other };
std::string_view slurmWord(NodeState state);
NodeState nodeStateFromSlurm(std::string_view word);  // "idle", "MIXED", ...

struct SlurmNode {
  std::string name;
  NodeState state = NodeState::Other;
  std::string stateText;           // Slurm's word ("idle")
  std::vector<std::string> flags;  // "DRAIN", "NOT_RESPONDING", "RESERVED", ...
  std::string reason;
  std::string reasonSetByUser;
  int64_t reasonChangedAt = 0;
  std::vector<GresCount> gres;
  std::vector<GresUse> gresUsed;
  int cpus = 0;
  int allocCpus = 0;
  int64_t realMemoryMb = 0;
  int64_t allocMemoryMb = 0;
  std::vector<std::string> partitions;
  std::vector<std::string> features;

  [[nodiscard]] bool hasFlag(std::string_view flag) const;
  // Draining: no new jobs, some still running; drained: no new jobs and none running.
  [[nodiscard]] bool draining() const;
  [[nodiscard]] bool drained() const;
};

// Which plugin wrote the document: "openapi/v0.0.38" and Slurm "22.05.8".
struct SlurmMeta {
  std::string pluginType;
  std::string release;
  int major = 0;
  int minor = 0;
  int micro = 0;
  // The version this parser was written against; others are read best-effort.
  [[nodiscard]] bool knownVersion() const;
};
inline constexpr std::string_view kKnownPlugin = "openapi/v0.0.38";

struct JobsDocument {
  SlurmMeta meta;
  std::vector<SlurmJob> jobs;
  std::vector<std::string> slurmErrors;  // the document's own "errors" entries
};
struct NodesDocument {
  SlurmMeta meta;
  std::vector<SlurmNode> nodes;
  std::vector<std::string> slurmErrors;
};

Expected<JobsDocument> parseSqueueJson(std::string_view text);
Expected<NodesDocument> parseSinfoJson(std::string_view text);

}  // namespace tessera::slurm
