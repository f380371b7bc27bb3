#pragma once
// One vocabulary of operator actions: every change an operator can make is a Command value. The
// console's gestures, the CLI, scenario files and the gRPC API all build the same value and send
// it through execute(), which either applies it (and records an audit event: who, when, what,
// result) or, as a dry run, applies it in a what-if on the engine, runs one cycle there, reports
// the predicted impact and undoes it all.
#include <string>
#include <variant>
#include <vector>

#include "scheduler/engine.h"

namespace tessera {

namespace cmd {
struct Submit {
  Job job;
};
struct Cancel {
  JobId job = kNoJob;
};
struct Hold {
  JobId job = kNoJob;
};
struct Release {
  JobId job = kNoJob;
};
struct SetPriority {
  JobId job = kNoJob;
  std::string priorityClass;
};
// Within jobs of the same priority: to the top, to the bottom, or just ahead of another job.
struct Move {
  JobId job = kNoJob;
  enum class To : uint8_t { Top, Bottom, Before } to = To::Top;
  JobId before = kNoJob;
};
// Restricts a pending job to GPUs ("node/index") and/or whole nodes; empty lists unpin.
struct Pin {
  JobId job = kNoJob;
  std::vector<std::string> gpus;
  std::vector<std::string> nodes;
};
struct Preempt {
  JobId job = kNoJob;
};
// New MIG layout for a GPU, in the layout syntax; busy instances must stay unless `force`
// (which preempts the jobs on instances that go away).
struct Repartition {
  std::string gpu;  // "node/index"
  std::string layout;
  bool force = false;
};
// The reason is kept with the node and shown with it: an operator's words are a literal, a
// service that drains (the GPU fault injector) gives a sentence the console can translate.
struct Drain {
  std::string node;
  Text reason;
};
struct Undrain {
  std::string node;
};
struct SetQuota {
  std::string team;
  std::string key;  // GPU model, "pool:NAME" or "*"
  Quota quota;
};
struct CreateReservation {
  std::string id;
  std::vector<std::string> nodes;
  Seconds from = 0;
  Seconds until = 0;
  std::string team;  // empty = maintenance window (nobody runs), else capacity held for the team
};
struct DeleteReservation {
  std::string id;
};
}  // namespace cmd

using Command =
    std::variant<cmd::Submit, cmd::Cancel, cmd::Hold, cmd::Release, cmd::SetPriority, cmd::Move,
                 cmd::Pin, cmd::Preempt, cmd::Repartition, cmd::Drain, cmd::Undrain, cmd::SetQuota,
                 cmd::CreateReservation, cmd::DeleteReservation>;

// "hold job 12", "repartition node3/0 to 3g.40gb+4x1g.10gb" (audit text).
std::string describe(const Command& c);
Text describeText(const Command& c);  // describe() as the console translates it

// A job a command starts, and where: node names and GPU indexes only ("n1[0,1] n2[0]"), which
// read the same in every language.
struct PlacementChange {
  JobId job = kNoJob;
  std::string where;
  [[nodiscard]] std::string english() const;  // "job 7: n1[0,1] n2[0]"
  bool operator==(const PlacementChange&) const = default;
};

// A dry run's prediction of the command and the cycle after it; for an applied command, what the
// command itself did (the next cycle decides what starts).
struct Impact {
  std::vector<JobId> started;                     // pending -> running
  std::vector<JobId> preempted;                   // running -> pending
  std::vector<JobId> stopped;                     // running -> cancelled/other
  std::vector<PlacementChange> placementChanges;  // of the started jobs
  double gpuHoursLost = 0;
  // What the command does not change but an operator should know: running jobs that will still
  // hold a reservation's nodes when it starts (the engine keeps new work away, it does not evict).
  std::vector<Text> warnings;
  [[nodiscard]] Text summary() const;
};

// What an applied command changed beyond the events it recorded, so a store saves just that:
// the jobs whose records change (its job, and the peers a move re-ranks) and whether the setup
// (teams and quotas) did.
struct Touched {
  std::vector<JobId> jobs;
  bool setup = false;
};

struct CommandResult {
  bool applied = false;  // false for dry runs
  Impact impact;
  Text message;     // what happened, in the operator's words
  Touched touched;  // empty for dry runs
};

// The job a command names (hold 12, move 12 ...); none for a submit and for node, GPU, quota
// and reservation commands.
std::optional<JobId> targetJob(const Command& c);

// Validates and runs `c` as `actor`. Invalid commands return an Error naming the field; nothing
// changes then. A dry run never changes `engine`.
Expected<CommandResult> execute(Engine& engine, const Command& c, const std::string& actor,
                                bool dryRun);

}  // namespace tessera
