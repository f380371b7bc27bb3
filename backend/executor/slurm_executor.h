#pragma once
// `tesserad --executor slurm`: Tessera decides, Slurm runs. The engine thread turns the engine's
// decisions into intents (slurm_driver.h) and picks up what Slurm did; a worker thread of its
// own polls Slurm and carries the intents out, so a slow or absent slurmctld never stalls the
// engine (its queue keeps accepting work; status() says "unavailable" meanwhile).
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "executor/slurm_driver.h"
#include "scheduler/engine.h"
#include "service/executor.h"
#include "slurm/process_runner.h"

namespace tessera {

struct SlurmExecutorConfig {
  slurm::SlurmClientOptions client;
  SlurmDriverConfig driver;
  // One squeue and one sinfo per poll; the squeue is the light listing between full
  // (--json) ones, every driver.fullPollSeconds.
  double pollSeconds = 1.0;
  // While Slurm has no live job and the engine none for it (SlurmDriver::idle): two process
  // spawns a second are most of an idle tesserad's CPU.
  double idlePollSeconds = 5.0;
  int maxConcurrent = 4;  // Slurm commands at once
  // Slurm GRES type of each GPU model ("H100-SXM5-80GB" -> "h100"); a model not named gets the
  // lower-cased first word of its id.
  std::map<std::string, std::string> gresTypes;
  std::map<std::string, std::string> teamAccounts;    // team -> --account
  std::map<std::string, std::string> poolPartitions;  // pool -> --partition
  // Adopted jobs: the team of a Slurm user or account (user first), else defaultTeam.
  std::map<std::string, std::string> userTeams;
  std::string defaultTeam;
  std::string adoptedClass;          // priority class of adopted jobs; empty: the lowest
  int defaultTimeLimitMinutes = 60;  // a job without a limit or an estimate
  // The site's per-device GRES types (gpu:h100_g5, gpu:a100_3g.40gb_s4; docs/slurm.md): jobs
  // submitted through Tessera get exactly the engine's GPUs and MIG slots. Since Slurm never
  // lets a job's GPU request change, their Slurm job is made when the engine places them (and
  // made again for another placement), not while they wait.
  bool exactGpus = false;
  // gres/mps count of each GPU in the site's gres.conf (Slurm's convention: 100). An MPS share
  // of P % active threads asks for mps:ceil(P * mpsPerGpu / 100); Slurm sets the client's
  // CUDA_MPS_ACTIVE_THREAD_PERCENTAGE from that count back to P.
  int mpsPerGpu = 100;
  // Each job's seconds from the engine's placement to RUNNING seen in Slurm (the daemon's
  // tessera_executor_start_seconds histogram); called on the worker thread.
  std::function<void(double)> onStartLatency;
};

class SlurmExecutor final : public Executor {
 public:
  // Starts the worker thread. `runner` runs the Slurm commands (a ProcessRunner in tesserad).
  SlurmExecutor(std::unique_ptr<slurm::CommandRunner> runner, SlurmExecutorConfig config);
  ~SlurmExecutor() override;

  [[nodiscard]] ExecutorStatus status() const override;
  [[nodiscard]] Status admit(const Job& job) const override;
  void carryOut(const Engine& engine) override;
  Observations observe(const Engine& engine) override;
  void adopted(int64_t externalId, JobId job) override;
  void refused(int64_t externalId, const std::string& why) override;
  void resync(const std::string& instance) override;
  [[nodiscard]] std::optional<ExternalJob> job(JobId id) const override;
  void setWake(std::function<void()> wake) override;

  // The sbatch request of a job (tests, dry runs); nullopt when the job has no launch.
  [[nodiscard]] std::optional<slurm::SubmitRequest> submitRequest(const Engine& engine,
                                                                  const Job& job) const;
  // What the engine wants of one job on the Slurm side (tests, dry runs).
  [[nodiscard]] JobIntent intentOf(const Engine& engine, const JobRecord& r) const;

 private:
  void run();
  void post(std::vector<JobIntent> intents);
  [[nodiscard]] std::string gresTypeOf(const std::string& model) const;
  [[nodiscard]] std::string shareGres(const Job& job) const;
  void askForDevices(const Engine& engine, const JobRecord& r, slurm::SubmitRequest& req) const;
  [[nodiscard]] NodeIntents nodeIntents(const Engine& engine);
  [[nodiscard]] std::map<std::string, slurm::ReservationRequest> maintenanceWindows(
      const Engine& engine) const;
  [[nodiscard]] observed::Offer translate(const Engine& engine, const SlurmOffer& offer) const;
  void takeRunning(const SlurmOffer& offer, observed::Offer& out) const;

  SlurmExecutorConfig config_;
  std::unique_ptr<slurm::CommandRunner> runner_;
  std::unique_ptr<slurm::SlurmClient> client_;
  SlurmDriver driver_;  // worker thread only

  // Engine thread only.
  size_t eventCursor_ = 0;
  bool resync_ = true;
  std::map<std::string, std::string> modelOfType_;  // GRES type -> GPU model, for offers
  std::set<std::string> slurmHeld_;  // nodes with the executor's hold at the last carryOut
  // MIG nodes' configurations, rebuilt only for a node whose layouts changed (carryOut runs
  // after every commit): the layouts they were built from, per GPU.
  std::map<std::string, MigNodeConfig> migConfigs_;
  std::vector<MigLayout> migLayouts_;
  void refreshMigConfigs(const Engine& engine);

  // Shared with the worker, under mutex_.
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<JobIntent> inbox_;
  std::optional<NodeIntents> nodeInbox_;
  std::vector<std::pair<int64_t, std::optional<JobId>>> answers_;
  std::map<int64_t, std::string> refusals_;
  std::string instance_ = "0";  // tags: tessera:<instance>.<job>
  std::optional<std::string> instanceInbox_;
  Observations outbox_;
  std::vector<SlurmOffer> offers_;
  std::function<void()> hostWake_;  // the host's cycle, when a step saw news
  ExecutorStatus status_{"slurm", ExecutorState::Unavailable, "not polled yet", 0};
  std::unordered_map<JobId, ExternalJob> external_;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace tessera
