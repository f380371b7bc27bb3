#pragma once
// GPU faults for the simulated-live demo, so the console's health layer has something real to
// show: a seeded Poisson process of Xid errors across the cluster. A fault requeues the jobs on
// the failing GPU and drains its node with the Xid as the reason (as a Slurm health check or
// NVIDIA's GPU operator would); after the repair time the GPU is back and the node returns to
// service, unless an operator drained it for a reason of their own meanwhile.
//
// The state (the next fault's time, how many happened, the faults under repair) is kept as
// text in the backend's stored extras, so a restart neither forgets a fault nor repeats one.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/expected.h"
#include "scheduler/engine.h"

namespace tessera {

// One Xid the demo injects, with the err_msg dcgm-exporter gives it (gpu-hardware.md, DCGM
// exporter metrics). Only Xids that call for a GPU reset are drawn: application errors (13, 31,
// 43) do not take a GPU out.
struct XidKind {
  int xid = 0;
  const char* message = "";
  double weight = 1;  // relative frequency among the injected faults
};
const std::vector<XidKind>& injectedXids();
// The err_msg of an Xid ("GPU has fallen off the bus"); empty when unknown.
std::string xidMessage(int xid);

struct ActiveGpuFault {
  GpuId gpu = 0;
  int xid = 0;
  Seconds since = 0;
  Seconds until = 0;  // repaired then
};
// The drain reason a fault gives its node ("Xid 79 on GPU pod-a-02/3").
Text drainReasonOf(const Cluster& c, const ActiveGpuFault& f);

class GpuFaultInjector {
 public:
  // `perDay`: faults per engine day across the cluster (0: none); `repair`: how long a faulted
  // GPU stays out.
  GpuFaultInjector(double perDay, Seconds repair, uint64_t seed);

  // Repairs the faults due by the engine's clock, then injects the faults due. Returns whether
  // anything changed (the caller commits and redraws).
  bool advance(Engine& engine);

  [[nodiscard]] const std::vector<ActiveGpuFault>& active() const { return active_; }
  [[nodiscard]] const ActiveGpuFault* faultOf(GpuId gpu) const;
  [[nodiscard]] uint64_t injected() const { return count_; }  // faults so far, repaired or not

  // The injector's position as one line of JSON, and back (a text it did not write is an error
  // that names what is wrong).
  [[nodiscard]] std::string save(const Cluster& cluster) const;
  Status restore(const std::string& text, const Engine& engine);

 private:
  void repairDue(Engine& engine);
  void inject(Engine& engine, Seconds at);
  [[nodiscard]] double draw(uint64_t salt) const;   // uniform in [0, 1) for (seed, count, salt)
  [[nodiscard]] Seconds gapAfter(Seconds t) const;  // exponential gap to the next fault

  double perDay_;
  Seconds repair_;
  uint64_t seed_;
  uint64_t count_ = 0;           // faults injected so far
  std::optional<Seconds> next_;  // the next fault's time; unset until the first advance
  std::vector<ActiveGpuFault> active_;
};

}  // namespace tessera
