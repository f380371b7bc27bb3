// tessera ctl's operator actions: every Act call (hold, release, preempt, priority, move, pin,
// repartition, drain, undrain, quota, reserve, unreserve) and cancel, each with --dry-run to
// print the predicted impact instead of applying it.
#include <utility>

#include "cli/cli_ctl_internal.h"
#include "scheduler/command_yaml.h"
#include "workload/workload_spec.h"

namespace tessera::cli::ctl {

Expected<Window> reservationWindow(Seconds now, const std::string& from, const std::string& until) {
  const auto f = parseDuration(from);
  if (!f) return Error{"--from: bad duration '" + from + "' (like 0, 90s, 15m, 2h, 1h30m, 1d)", {}};
  const auto u = parseDuration(until);
  if (!u) return Error{"--until: bad duration '" + until + "' (like 90s, 15m, 2h, 1h30m, 1d)", {}};
  if (*u <= *f)
    return Error{
        "--until (" + formatDuration(*u) + ") must come after --from (" + formatDuration(*f) + ")",
        {}};
  return Window{now + *f, now + *u};
}

namespace {

// ============================================================================ printing the impact

// What the action did in the server's words. A dry run's message is "dry run: WHAT; SUMMARY";
// the prefix and the summary are dropped because the lines below say both, item by item.
std::string actionText(const v1::ActResponse& r) {
  std::string text = r.message();
  if (r.applied()) return text;
  if (text.starts_with("dry run: ")) text.erase(0, 9);
  const std::string summary = "; " + r.impact().summary();
  if (!r.impact().summary().empty() && text.ends_with(summary))
    text.erase(text.size() - summary.size());
  return text;
}

void printActResponse(Call& c, const v1::ActResponse& r) {
  const std::string text = actionText(r);
  c.out() << (r.applied() ? "applied" : "dry run, nothing applied")
          << (text.empty() ? "" : ": " + text) << "\n";
  const v1::Impact& i = r.impact();
  Table t;
  // An applied action runs no cycle of its own (docs/api.md): what starts is not known yet.
  const std::string starts =
      r.applied() ? std::string() : std::to_string(i.started_size()) + " start, ";
  t.add({"impact", starts + std::to_string(i.preempted_size()) + " preempted, " +
                       std::to_string(i.stopped_size()) + " stopped, " +
                       fixed(i.gpu_hours_lost(), 2) + " GPU-hours lost" +
                       (r.applied() ? "; the next cycle decides what starts" : "")});
  if (i.started_size()) t.add({"starts", joinAll(i.started())});
  if (i.preempted_size()) t.add({"preempts", joinAll(i.preempted())});
  if (i.stopped_size()) t.add({"stops", joinAll(i.stopped())});
  for (const auto& p : i.placement_changes()) t.add({"placement", p});
  for (const auto& w : i.warnings()) t.add({"warning", w});
  if (r.applied() && r.event_seq() > 0) t.add({"audit event", "#" + std::to_string(r.event_seq())});
  t.print(c.out());
}

// ============================================================================ the call

// Cancel has its own RPC (jobs API); every other action goes through Act.
int act(Call& c, Command command, bool dryRun) {
  // Reservation windows are given relative to the server's clock, which only the server knows.
  if (auto* r = std::get_if<cmd::CreateReservation>(&command)) {
    const auto now = serverNow(c);
    if (!now) return c.failed;
    r->from += *now;
    r->until += *now;
  }
  auto print = [&c](const v1::ActResponse& r) { printActResponse(c, r); };
  if (const auto* cancel = std::get_if<cmd::Cancel>(&command)) {
    v1::CancelJobRequest request;
    request.set_id(cancel->job);
    request.set_dry_run(dryRun);
    return callAndPrint(c, &Stub::CancelJob, request, print);
  }
  return callAndPrint(c, &Stub::Act, rpc::commandToProto(command, dryRun), print);
}

// ============================================================================ registration

// Everything an action call may take; each call registers the options it uses.
struct ActionArgs {
  JobId job = kNoJob;
  JobId before = kNoJob;
  std::string target, value, reason, team, from = "0", until;
  bool top = false, bottom = false, force = false, dryRun = false;
  std::vector<std::string> gpus, nodes;
  int guaranteed = 0, borrow = 0, lend = -1;
};
using AddOptions = std::function<void(CLI::App*, ActionArgs&)>;
using BuildCommand = std::function<Expected<Command>(const ActionArgs&)>;

// An action call: `options` adds its arguments, `build` turns them into the one Command
// vocabulary (checked before the server is contacted), --dry-run predicts instead of applying.
void addAction(const Registrar& r, const std::string& name, const std::string& description,
               const AddOptions& options, BuildCommand build) {
  auto a = std::make_shared<ActionArgs>();
  auto* sub = r.addCall(name, description);
  options(sub, *a);
  sub->add_flag("--dry-run", a->dryRun, "Print the predicted impact; change nothing");
  auto command = std::make_shared<std::optional<Command>>();
  r.onCall(
      sub,
      [a, build = std::move(build), command] {
        auto built = build(*a);
        if (!built) return built.error().str();
        *command = std::move(*built);
        return std::string();
      },
      [a, command](Call& c) { return act(c, **command, a->dryRun); });
}

void jobArg(CLI::App* sub, ActionArgs& a) {
  sub->add_option("ID", a.job, "Job id")->required();
}

void nodeArg(CLI::App* sub, ActionArgs& a) {
  sub->add_option("NODE", a.target, "Node name")->required();
}

void reservationArg(CLI::App* sub, ActionArgs& a) {
  sub->add_option("ID", a.target, "Reservation id")->required();
}

// The command of an action that takes nothing but the job id.
template <typename C>
Expected<Command> jobCommand(const ActionArgs& a) {
  return Command{C{a.job}};
}

void addMoveAction(const Registrar& r) {
  addAction(
      r, "move", "Reorder a pending job among jobs of its priority",
      [](CLI::App* sub, ActionArgs& a) {
        jobArg(sub, a);
        sub->add_flag("--top", a.top, "To the front");
        sub->add_flag("--bottom", a.bottom, "To the back");
        sub->add_option("--before", a.before, "Just ahead of this job")->type_name("JOB");
      },
      [](const ActionArgs& a) -> Expected<Command> {
        const bool before = a.before != kNoJob;
        if (int(a.top) + int(a.bottom) + int(before) != 1)
          return Error{"give one of --top, --bottom, --before JOB", {}};
        cmd::Move m{a.job,
                    a.top      ? cmd::Move::To::Top
                    : a.bottom ? cmd::Move::To::Bottom
                               : cmd::Move::To::Before,
                    a.before};
        return Command{m};
      });
}

void addJobActions(const Registrar& r) {
  addAction(r, "cancel", "Cancel a job (a running one is stopped)", jobArg,
            jobCommand<cmd::Cancel>);
  addAction(r, "hold", "Hold a pending job: it stays queued but does not start", jobArg,
            jobCommand<cmd::Hold>);
  addAction(r, "release", "Release a held job", jobArg, jobCommand<cmd::Release>);
  addAction(r, "preempt", "Preempt a running job: back to the queue", jobArg,
            jobCommand<cmd::Preempt>);
  addAction(
      r, "priority", "Move a job to another priority class",
      [](CLI::App* sub, ActionArgs& a) {
        jobArg(sub, a);
        sub->add_option("CLASS", a.value, "Priority class")->required();
      },
      [](const ActionArgs& a) -> Expected<Command> {
        return Command{cmd::SetPriority{a.job, a.value}};
      });
  addMoveAction(r);
  addAction(
      r, "pin", "Restrict a pending job to GPUs and/or nodes (neither: unpin)",
      [](CLI::App* sub, ActionArgs& a) {
        jobArg(sub, a);
        addList(sub, "--gpu", a.gpus, "Allowed GPU (repeatable)")->type_name("NODE/I");
        addList(sub, "--node", a.nodes, "Allowed node (repeatable)")->type_name("NODE");
      },
      [](const ActionArgs& a) -> Expected<Command> {
        return Command{cmd::Pin{a.job, a.gpus, a.nodes}};
      });
}

void addNodeActions(const Registrar& r) {
  addAction(
      r, "repartition", "Give a GPU a new MIG layout",
      [](CLI::App* sub, ActionArgs& a) {
        sub->add_option("GPU", a.target, "The GPU, NODE/INDEX")->required();
        sub->add_option("LAYOUT", a.value, "MIG layout, like 3g.40gb,4x1g.10gb")->required();
        sub->add_flag("--force", a.force, "Preempt jobs on instances that go away");
      },
      [](const ActionArgs& a) -> Expected<Command> {
        return Command{cmd::Repartition{a.target, a.value, a.force}};
      });
  addAction(
      r, "drain", "Stop placing new work on a node",
      [](CLI::App* sub, ActionArgs& a) {
        nodeArg(sub, a);
        sub->add_option("--reason", a.reason, "Why (shown to operators)");
      },
      [](const ActionArgs& a) -> Expected<Command> {
        return Command{cmd::Drain{a.target, literal(a.reason)}};
      });
  addAction(
      r, "undrain", "Place work on a drained node again", nodeArg,
      [](const ActionArgs& a) -> Expected<Command> { return Command{cmd::Undrain{a.target}}; });
}

void addQuotaAction(const Registrar& r) {
  addAction(
      r, "quota", "Set a team's quota for a GPU model, pool:NAME or *",
      [](CLI::App* sub, ActionArgs& a) {
        sub->add_option("TEAM", a.target, "Team")->required();
        sub->add_option("KEY", a.value, "GPU model, pool:NAME or *")->required();
        sub->add_option("--guaranteed", a.guaranteed, "GPUs always available to the team")
            ->required()
            ->check(CLI::NonNegativeNumber);
        sub->add_option("--borrow", a.borrow, "GPUs it may borrow above the guarantee")
            ->check(CLI::NonNegativeNumber)
            ->capture_default_str();
        sub->add_option("--lend", a.lend, "GPUs of its guarantee others may borrow (default all)")
            ->check(CLI::NonNegativeNumber);
      },
      [](const ActionArgs& a) -> Expected<Command> {
        return Command{cmd::SetQuota{a.target, a.value, Quota{a.guaranteed, a.borrow, a.lend}}};
      });
}

void addReservationActions(const Registrar& r) {
  addAction(
      r, "reserve",
      "Reserve nodes from --from to --until after the server's now (team: held for it, else "
      "a maintenance window)",
      [](CLI::App* sub, ActionArgs& a) {
        reservationArg(sub, a);
        addList(sub, "--node", a.nodes, "Reserved node (repeatable)")
            ->required()
            ->type_name("NODE");
        sub->add_option("--from", a.from, "Start, after the server's now (default 0 = now)")
            ->type_name("DUR");
        sub->add_option("--until", a.until, "End, after the server's now")
            ->required()
            ->type_name("DUR");
        sub->add_option("--team", a.team, "Hold the capacity for this team");
      },
      // The window stays relative here; act() adds the server's clock to it.
      [](const ActionArgs& a) -> Expected<Command> {
        TESSERA_TRY(w, reservationWindow(0, a.from, a.until));
        return Command{cmd::CreateReservation{a.target, a.nodes, w.from, w.until, a.team}};
      });
  addAction(r, "unreserve", "Delete a reservation", reservationArg,
            [](const ActionArgs& a) -> Expected<Command> {
              return Command{cmd::DeleteReservation{a.target}};
            });
}

}  // namespace

void addActionCalls(const Registrar& r) {
  addJobActions(r);
  addNodeActions(r);
  addQuotaAction(r);
  addReservationActions(r);
}

}  // namespace tessera::cli::ctl
