#pragma once
// A live cluster: the engine clock is the wall clock, node agents push their GPUs' telemetry,
// and an Executor runs what the engine decides and reports what the cluster did by itself.
// A GPU that an agent reports with an Xid that needs a reset holds its node (a GPU-fault hold,
// as in the simulated world) until a fresh reading shows the GPU without it. Agents' inventories
// keep the model true to the hardware (inventory_keeper.h).
#include <memory>

#include "service/inventory_keeper.h"
#include "service/world.h"

namespace tessera {

class LiveWorld final : public World {
 public:
  LiveWorld(std::unique_ptr<Executor> executor, const GpuCatalog* catalog, bool autoAdmit);
  [[nodiscard]] BackendMode mode() const override { return BackendMode::Live; }
  void startClock(Seconds) override {}
  [[nodiscard]] Seconds now(Seconds engineNow) const override;
  void setSpeed(Seconds, double) override {}
  Status restore(const Engine&, const BackendExtras& extras) override;
  void save(const Engine&, BackendExtras& extras) const override;
  void beforeCycle(Engine& engine, BackendExtras& extras) override;
  void afterDecisions(const Engine& engine) override { executor_->carryOut(engine); }
  void afterCycle(const Engine&) override {}
  void submitted(const Job&, BackendExtras&) override {}
  [[nodiscard]] const std::vector<GpuTelemetry>* modelledTelemetry() const override {
    return nullptr;
  }
  [[nodiscard]] std::optional<JobTelemetry> jobTelemetry(const JobRecord& job,
                                                         Seconds t) const override;
  void describeGpu(GpuId g, Seconds now, GpuView& view) const override;
  Expected<TelemetryPush> pushTelemetry(Engine& engine, const DcgmScrape& scrape,
                                        const std::string& node) override;
  Expected<InventoryReply> reportInventory(Engine& engine, const InventoryReport& report) override {
    return inventory_.ingest(engine, report);
  }
  Expected<NodeJoin> admitNode(Engine& engine, const std::string& node,
                               const std::string& actor) override {
    return inventory_.admit(engine, node, actor);
  }
  [[nodiscard]] std::vector<NodeInventoryView> nodeInventory(const Engine& engine) const override {
    return inventory_.list(engine);
  }
  [[nodiscard]] ExecutorStatus executor() const override { return executor_->status(); }
  void setWake(std::function<void()> wake) override { executor_->setWake(std::move(wake)); }
  [[nodiscard]] Status admit(const Job& job) const override { return executor_->admit(job); }
  [[nodiscard]] std::optional<ExternalJob> externalJob(JobId id) const override {
    return executor_->job(id);
  }

 private:
  void applyObservations(Engine& engine, BackendExtras& extras, const Observations& seen);
  void adopt(Engine& engine, BackendExtras& extras, const observed::Offer& offer);
  Status takeRunning(Engine& engine, JobId id, const observed::Offer& offer);
  void rebind(Engine& engine, const observed::JobBound& bound);
  // Over the GPUs of `node`, or of every node when empty (a cluster-wide scrape).
  void holdFaultyGpus(Engine& engine, const std::string& node);
  void holdFaultyGpu(Engine& engine, const Gpu& gpu);

  std::unique_ptr<Executor> executor_;
  std::string instance_;  // this database's name for the cluster (executor tags)
  LiveTelemetry live_;
  InventoryKeeper inventory_;
};

}  // namespace tessera
