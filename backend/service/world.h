#pragma once
// What happens around the engine between cycles: its clock, the work that arrives by itself,
// how jobs end, faults and telemetry. The Backend hosts one World and knows nothing of which:
// SimulatedWorld (the demo: a sped-up clock, synthetic arrivals, simulated ends, injected GPU
// faults, modelled telemetry) or LiveWorld (the wall clock, node agents' telemetry, and an
// Executor that runs what the engine decides).
//
// Every call comes from the backend's engine thread.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/expected.h"
#include "scheduler/engine.h"
#include "service/executor.h"
#include "service/live_telemetry.h"
#include "service/node_report.h"
#include "service/session.h"
#include "sim/dcgm_metrics.h"
#include "sim/telemetry.h"
#include "store/state_store.h"

namespace tessera {

enum class BackendMode : uint8_t { Live, SimulatedLive };
const char* backendModeName(BackendMode m);

class World {
 public:
  virtual ~World() = default;
  [[nodiscard]] virtual BackendMode mode() const = 0;

  // --- the clock
  // Starts the clock at the engine's time (open, and after a rollback reloaded the engine).
  virtual void startClock(Seconds engineNow) = 0;
  // The engine time it is now; never before `engineNow`.
  [[nodiscard]] virtual Seconds now(Seconds engineNow) const = 0;
  // Engine seconds per wall second from `engineNow` on (0 pauses); only a simulated clock has
  // a speed.
  virtual void setSpeed(Seconds engineNow, double speed) = 0;

  // --- state kept in the database (BackendExtras::meta and actualRuntime)
  // Takes the world's own state back from what was stored (open, and after a rollback).
  virtual Status restore(const Engine& engine, const BackendExtras& extras) = 0;
  // Writes the world's state into `extras` before a commit.
  virtual void save(const Engine& engine, BackendExtras& extras) const = 0;

  // --- around the cycle
  // Before a cycle: what happened outside the engine since the last one (jobs that ended,
  // faults, arrivals). New jobs take their ids from extras.nextJob.
  virtual void beforeCycle(Engine& engine, BackendExtras& extras) = 0;
  // After a cycle or an applied operator command: carry out what the engine decided.
  virtual void afterDecisions(const Engine& engine) = 0;
  // After a cycle: refresh what the world measures (telemetry).
  virtual void afterCycle(const Engine& engine) = 0;
  // A job an operator submitted (a simulated world decides how long it will run).
  virtual void submitted(const Job& job, BackendExtras& extras) = 0;

  // --- what the world measures
  // Per-GPU telemetry of the last cycle, when the world models it (the simulated one).
  [[nodiscard]] virtual const std::vector<GpuTelemetry>* modelledTelemetry() const = 0;
  // A running job's telemetry at `t`, for the usage ledger; none when unmeasured.
  [[nodiscard]] virtual std::optional<JobTelemetry> jobTelemetry(const JobRecord& job,
                                                                 Seconds t) const = 0;
  // A GPU's readings and fault, as the snapshot shows them.
  virtual void describeGpu(GpuId g, Seconds now, GpuView& view) const = 0;
  // A node agent's scrape; FailedPrecondition-worthy error when the world makes its own.
  virtual Expected<TelemetryPush> pushTelemetry(Engine& engine, const DcgmScrape& scrape,
                                                const std::string& node) = 0;
  // A node agent's inventory (inventory_keeper.h); the simulated world has no agents.
  virtual Expected<InventoryReply> reportInventory(Engine&, const InventoryReport&) {
    return Error::wrongState(literal("node inventories are taken in live mode only"));
  }
  // An operator admits a node that announced itself: the model with the node added, which the
  // backend stores and rebuilds the engine on; as above outside live mode.
  virtual Expected<NodeJoin> admitNode(Engine&, const std::string&, const std::string&) {
    return Error::wrongState(literal("node admission is for live mode only"));
  }
  [[nodiscard]] virtual std::vector<NodeInventoryView> nodeInventory(const Engine&) const {
    return {};
  }
  [[nodiscard]] virtual ExecutorStatus executor() const = 0;
  // The host's wake-up for a cycle when the world has news (Executor::setWake); any thread.
  virtual void setWake(std::function<void()> wake) { (void)wake; }
  // Whether the cluster behind the world could ever run `job` (the engine's checks come first).
  [[nodiscard]] virtual Status admit(const Job& job) const = 0;
  // The cluster's record of the engine's job (its Slurm job), when there is one.
  [[nodiscard]] virtual std::optional<ExternalJob> externalJob(JobId id) const = 0;
};

}  // namespace tessera
