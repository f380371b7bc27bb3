#pragma once
// Team quotas: a guarantee per GPU model, pool or any GPU ("*"), a borrowing limit above it and a
// lending limit below it, at every level of the team tree (department -> team -> ...). Usage is
// kept per team and key in GPU equivalents (a MIG instance counts its compute share, a fraction
// its milli-GPU), charged to the team and every ancestor with its own key for the GPU.
//
// A team with no quota entry at all is not managed (no limit, no guarantee). A managed team may
// use its guarantee plus what it borrows, up to its borrow limit, from the idle lendable guarantee
// of its siblings under the same parent (departments borrow from departments).
#include <map>
#include <string>
#include <vector>

#include "core/text.h"

#include "scheduler/cluster_state.h"
#include "workload/job.h"

namespace tessera {

// "8", "2.5", "0.43": GPU equivalents in messages.
std::string gpuAmountText(double gpus);

// What one placement charges: GPU equivalents per GPU.
struct QuotaCharge {
  std::vector<std::pair<GpuId, double>> gpus;
  [[nodiscard]] double total() const;
  static QuotaCharge of(const ClusterState& state, const Job& job,
                        const std::vector<std::vector<GpuId>>& taskGpus);
};

class QuotaBook {
 public:
  QuotaBook() = default;
  explicit QuotaBook(std::vector<Team> teams);

  [[nodiscard]] const std::vector<Team>& teams() const { return teams_; }
  [[nodiscard]] int teamIndex(const std::string& name) const;  // -1 if unknown
  [[nodiscard]] int parentOf(int team) const { return parents_[static_cast<size_t>(team)]; }
  // The key team `t` accounts GPU `model`/`pool` under ("" = the team has no quota for it).
  [[nodiscard]] std::string keyFor(int team, const std::string& model,
                                   const std::string& pool) const;
  [[nodiscard]] double usage(int team, const std::string& key) const;
  // The key a GPU of `model` in `pool` is charged to at each level of team `t`'s tree: two GPUs
  // with the same list charge a job alike.
  [[nodiscard]] std::vector<std::string> chargeKeys(int team, const std::string& model,
                                                    const std::string& pool) const;
  [[nodiscard]] bool managed(int team) const;
  // Any team (or department) has a quota entry.
  [[nodiscard]] bool anyQuota() const;

  void charge(const ClusterState& state, const std::string& team, const QuotaCharge& c,
              double sign);
  // Why the team may not take `c` on top of what it uses (empty = it may).
  [[nodiscard]] Text refusal(const ClusterState& state, const std::string& team,
                             const QuotaCharge& c) const;
  // The smallest guarantee increase (GPUs, on the key that refuses) that would admit `c`; 0 when
  // it is admitted already or no single key blocks.
  [[nodiscard]] std::pair<std::string, int> shortfall(const ClusterState& state,
                                                      const std::string& team,
                                                      const QuotaCharge& c) const;
  // Team `t` (or an ancestor) uses more than its guarantee under the key of this GPU.
  [[nodiscard]] bool borrowing(int team, const std::string& model, const std::string& pool) const;
  // Team `t` would stay within its guarantee (at every level) after taking `c`.
  [[nodiscard]] bool withinGuarantee(const ClusterState& state, const std::string& team,
                                     const QuotaCharge& c) const;
  // Team `t` keeps at least its guarantee after giving `c` back (victims inside it are protected).
  [[nodiscard]] bool staysAboveGuarantee(const ClusterState& state, const std::string& team,
                                         const QuotaCharge& c) const;

  Status setQuota(const std::string& team, const std::string& key, const Quota& q);

 private:
  using Need = std::map<std::pair<int, std::string>, double>;  // (team or ancestor, key) -> GPUs
  [[nodiscard]] Need needOf(const ClusterState& state, int team, const QuotaCharge& c) const;
  [[nodiscard]] double lendableToSiblingsOf(int team, const std::string& key) const;
  [[nodiscard]] Text limitProblem(int t, const std::string& key, double extra) const;

  std::vector<Team> teams_;
  std::vector<int> parents_;
  std::vector<std::map<std::string, double>> usage_;
};

}  // namespace tessera
