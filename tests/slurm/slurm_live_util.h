#pragma once
// What the live executor tests share: a Backend running its jobs through the fixture's Slurm,
// and the wait for one of its jobs to run there.
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include <unistd.h>

#include "clusterspec/cluster_spec.h"
#include "executor/slurm_executor.h"
#include "service/backend.h"
#include "slurm/process_runner.h"
#include "slurm/slurm_client.h"
#include "slurm_test_env.h"

namespace tessera::test {

// A client of the fixture's Slurm (its SLURM_CONF), running commands on `runner`.
inline std::unique_ptr<slurm::SlurmClient> fixtureClient(slurm::ProcessRunner& runner) {
  slurm::SlurmClientOptions o;
  o.environment["SLURM_CONF"] = fixtureEnv("SLURM_CONF");
  return std::make_unique<slurm::SlurmClient>(runner, o);
}

// An empty scratch folder of this test process: <tmp>/tessera-<name>-<pid>.
inline std::filesystem::path scratchDir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("tessera-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// The Slurm job whose comment ends in ".<id>" once it runs with its GRES bound, or nullopt
// after `seconds`.
inline std::optional<slurm::SlurmJob> runningInSlurm(slurm::SlurmClient& slurm, JobId id,
                                                     double seconds = 30) {
  using Clock = std::chrono::steady_clock;
  const std::string suffix = "." + std::to_string(id);
  const auto until = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < until) {
    if (auto all = slurm.jobs())
      for (const auto& s : all->jobs)
        if (s.tesseraId && s.tesseraId->ends_with(suffix) && s.state == slurm::JobState::Running &&
            !s.gresDetail.empty())
          return s;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return std::nullopt;
}

// A live Backend on `clusterFile` (tests/slurm/data) with the one team "vision", its database in
// `dir`, whose executor (`executor`, with the fixture's SLURM_CONF and 0.3 s polls) drives the
// fixture's Slurm. The spec is read as tesserad reads it under Slurm: an MPS GPU that does not
// say node_sharing has Slurm's default, one.
inline Expected<std::unique_ptr<Backend>> openSlurmBackend(const std::string& clusterFile,
                                                           const std::filesystem::path& dir,
                                                           SlurmExecutorConfig executor) {
  auto cluster = loadClusterSpecFile(std::string(TESSERA_TEST_DATA) + "/" + clusterFile, nullptr,
                                     MpsNodeSharing::One);
  if (!cluster) return cluster.error();
  BackendConfig c;
  c.database = (dir / "tesserad.db").string();
  c.mode = BackendMode::Live;
  c.cluster = *cluster;
  c.tenants.teams = {Team{"vision", "", 1, {}}};
  c.cycleSeconds = 0.2;
  executor.client.environment["SLURM_CONF"] = fixtureEnv("SLURM_CONF");
  executor.pollSeconds = 0.3;
  c.executor = [executor] {
    return std::make_unique<SlurmExecutor>(std::make_unique<slurm::ProcessRunner>(2), executor);
  };
  return Backend::open(std::move(c));
}

}  // namespace tessera::test
