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
#include <memory>
#include <string>
#include <unordered_map>
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
  QuotaBook();
  explicit QuotaBook(std::vector<Team> teams);

  [[nodiscard]] const std::vector<Team>& teams() const { return config_->teams; }
  [[nodiscard]] int teamIndex(const std::string& name) const;  // -1 if unknown
  [[nodiscard]] int parentOf(int team) const { return config_->parents[static_cast<size_t>(team)]; }
  // The key team `t` accounts GPU `model`/`pool` under ("" = the team has no quota for it).
  [[nodiscard]] std::string keyFor(int team, const std::string& model,
                                   const std::string& pool) const;
  [[nodiscard]] double usage(int team, const std::string& key) const;
  // The key a GPU of `model` in `pool` is charged to at each level of team `t`'s tree: two GPUs
  // with the same list charge a job alike.
  [[nodiscard]] std::vector<std::string> chargeKeys(int team, const std::string& model,
                                                    const std::string& pool) const;

  // One level of a charge: the team (or ancestor) and the index of its quota key in its sorted
  // table; kNoKey when the level has no key for the GPU, kNotListed when the job's own team
  // manages quotas but lists none for the GPU (it may not use it).
  struct Link {
    int team = -1;
    int slot = -1;
    friend bool operator==(const Link&, const Link&) = default;
  };
  static constexpr int kNoKey = -1;
  static constexpr int kNotListed = -2;
  // chargeKeys() as integers, into `out` (cleared first): equal chains charge alike, but for
  // kNotListed levels, which refuse the GPU's model by name.
  void chargeChain(int team, const std::string& model, const std::string& pool,
                   std::vector<Link>& out) const;

  [[nodiscard]] bool managed(int team) const;
  // The most team `t` could ever hold: every key's guarantee plus borrow limit.
  [[nodiscard]] double ceiling(int team) const {
    return config_->ceiling[static_cast<size_t>(team)];
  }
  // Any team (or department) has a quota entry.
  [[nodiscard]] bool anyQuota() const { return config_->anyQuota; }

  void charge(const ClusterState& state, const std::string& team, const QuotaCharge& c,
              double sign);
  void charge(const ClusterState& state, int team, const QuotaCharge& c, double sign);
  // Why the team may not take `c` on top of what it uses (empty = it may).
  [[nodiscard]] Text refusal(const ClusterState& state, const std::string& team,
                             const QuotaCharge& c) const;
  [[nodiscard]] Text refusal(const ClusterState& state, int team, const QuotaCharge& c) const;
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
  // What the teams' tables say, shared by every copy of the book (backfill and preemption copy
  // it per trial) and replaced whole when a quota changes. Keys are resolved to slots once:
  // a charge looks GPUs' keys up without building strings.
  struct Config {
    std::vector<Team> teams;
    std::vector<int> parents;
    std::unordered_map<std::string, int> teamByName;
    std::vector<std::vector<std::string>> keys;  // per team, its quota keys in table order
    std::vector<const Quota*> quotaOf;           // per usage slot (offset[team] + slot)
    std::vector<size_t> offset;                  // per team, its first usage slot
    std::vector<double> ceiling;                 // per team, guaranteed + borrow over its keys
    // Built once: a cycle words a refusal per (request shape, team), thousands of them.
    std::vector<Text> teamText;        // per team, its name
    std::vector<Text> keyText;         // per usage slot, its key
    std::vector<Text> guaranteedText;  // per usage slot
    bool anyQuota = false;

    [[nodiscard]] int slotFor(int team, const std::string& model, const std::string& pool) const;
    [[nodiscard]] int slotOf(int team, const std::string& key) const;  // kNoKey if absent
  };
  static std::shared_ptr<const Config> configure(std::vector<Team> teams);

  // One (level, key) of a charge and its GPUs; `model` names the GPUs of a kNotListed level.
  struct NeedItem {
    Link at;
    const std::string* model = nullptr;
    double amount = 0;
  };
  using Need = std::vector<NeedItem>;  // in (team, key name) order
  [[nodiscard]] Need needOf(const ClusterState& state, int team, const QuotaCharge& c) const;
  [[nodiscard]] std::string keyName(const NeedItem& item) const;
  [[nodiscard]] double used(const Link& at) const {
    return usage_[config_->offset[static_cast<size_t>(at.team)] + static_cast<size_t>(at.slot)];
  }
  [[nodiscard]] const Quota& quotaAt(const Link& at) const {
    return *config_->quotaOf[config_->offset[static_cast<size_t>(at.team)] +
                             static_cast<size_t>(at.slot)];
  }
  [[nodiscard]] double lendableToSiblingsOf(int team, const std::string& key) const;
  [[nodiscard]] Text limitProblem(const Link& at, double extra) const;
  [[nodiscard]] bool withinGuarantee(const ClusterState& state, int team,
                                     const QuotaCharge& c) const;

  std::shared_ptr<const Config> config_;
  std::vector<double> usage_;  // per slot of every team (Config::offset)
};

}  // namespace tessera
