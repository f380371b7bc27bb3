#pragma once
// Time-bounded holds on GPUs: maintenance windows (nobody may run across them), capacity held for
// a team (only that team's jobs may use it), and the backfill reservations the engine makes for
// blocked jobs each cycle. A job may take a held GPU when its own run [start, end) does not
// overlap the hold, or when the hold is for it (its team, or itself).
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/ids.h"
#include "topology/cluster.h"

namespace tessera {

inline constexpr Seconds kForever = std::numeric_limits<Seconds>::max() / 4;

struct Reservation {
  enum class Kind : uint8_t { Maintenance, Team, Backfill };
  Kind kind = Kind::Maintenance;
  std::string id;  // operator-given name; backfill ones are "bf-JOB"
  std::vector<GpuId> gpus;
  Seconds from = 0;
  Seconds until = kForever;
  std::string team;                // Team: who may use it
  JobId job = kNoJob;              // Backfill: whose it is
  std::vector<std::string> nodes;  // as the operator named them (Maintenance, Team)
  // Backfill: the host CPUs and memory the job will need on each of its nodes, held like its GPUs
  // (a backfilled job must not take the CPUs the blocked job needs either).
  struct HostHold {
    NodeId node = 0;
    int cpus = 0;
    int64_t memoryMiB = 0;
  };
  std::vector<HostHold> host;

  // Whether a job of `team` (id `job`) may ignore this hold: it is held for it.
  [[nodiscard]] bool exempts(const std::string& forTeam, JobId forJob) const {
    return (kind == Kind::Team && team == forTeam) || (kind == Kind::Backfill && job == forJob);
  }
};
const char* reservationKindName(Reservation::Kind k);

class ReservationBook {
 public:
  ReservationBook() = default;
  explicit ReservationBook(const Cluster& cluster);

  void add(Reservation r);
  bool remove(const std::string& id);
  void clearBackfill();
  // Removes the backfill reservations of jobs for which `keep(job)` is false.
  template <typename Keep>
  void dropBackfillUnless(Keep&& keep) {
    const auto before = entries_.size();
    std::erase_if(entries_, [&](const Reservation& r) {
      return r.kind == Reservation::Kind::Backfill && !keep(r.job);
    });
    if (entries_.size() != before) reindex();
  }
  [[nodiscard]] const Reservation* find(const std::string& id) const;
  [[nodiscard]] const std::vector<Reservation>& all() const { return entries_; }
  [[nodiscard]] bool empty() const { return entries_.empty(); }
  // Changes whenever the set changes (placement caches key on it).
  [[nodiscard]] uint64_t version() const { return version_; }

  [[nodiscard]] bool touches(NodeId n) const {
    return !nodeHolds_.empty() && (nodeHolds_[n] > 0 || !nodeHostHolds_[n].empty());
  }
  // CPUs and memory on node n a job of `team` (id `job`) running over [start, end) may not use.
  [[nodiscard]] std::pair<int, int64_t> hostHeld(NodeId n, const std::string& team, JobId job,
                                                 Seconds start, Seconds end) const;
  // May a job of `team` (id `job`) running over [start, end) take GPU g?
  [[nodiscard]] bool usable(GpuId g, const std::string& team, JobId job, Seconds start,
                            Seconds end) const;
  // The reservation that keeps the job off GPU g (nullptr = none does).
  [[nodiscard]] const Reservation* blocking(GpuId g, const std::string& team, JobId job,
                                            Seconds start, Seconds end) const;
  // Drops maintenance and team holds that ended before `now`.
  void expire(Seconds now);

 private:
  void reindex();

  // A hold on one GPU with its window copied beside the entry's index: placement asks for every
  // GPU of every touched node, and most holds are rejected on the window alone, without a visit
  // to the (large) Reservation.
  struct GpuHold {
    Seconds from = 0;
    Seconds until = 0;
    uint32_t entry = 0;
  };

  std::vector<Reservation> entries_;
  std::vector<std::vector<GpuHold>> gpuHolds_;        // per GPU, in the order of entries_
  std::vector<int> nodeHolds_;                        // per node: GPUs with any hold
  std::vector<std::vector<uint32_t>> nodeHostHolds_;  // per node: entries holding CPUs/memory
  std::vector<NodeId> gpuNode_;
  uint64_t version_ = 0;
};

}  // namespace tessera
