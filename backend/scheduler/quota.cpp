#include "scheduler/quota.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

#include "core/engine_text.h"

namespace tessera {

namespace {

constexpr double kEps = 1e-9;

}  // namespace

std::string gpuAmountText(double v) {
  // As a stream prints a double (six significant digits), without building one: a cycle words
  // a quota refusal for thousands of (request, team) pairs.
  std::array<char, 32> buf{};
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), std::round(v * 100) / 100,
                               std::chars_format::general, 6);
  return {buf.data(), r.ptr};
}

QuotaCharge QuotaCharge::of(const ClusterState& state, const Job& job,
                            const std::vector<std::vector<GpuId>>& taskGpus) {
  QuotaCharge c;
  for (const auto& gpus : taskGpus)
    for (GpuId g : gpus) {
      double amount = 1.0;
      if (job.perTask.kind == GpuRequest::Kind::Fraction) {
        amount = job.perTask.milli / 1000.0;
      } else if (job.perTask.kind == GpuRequest::Kind::Mps) {
        // An MPS client is charged its active-thread share, as gpuDemand() counts it.
        amount = job.perTask.mpsThreads / 100.0;
      } else if (job.perTask.kind == GpuRequest::Kind::Mig) {
        // A MIG instance counts its share of the GPU's compute.
        const auto& mig = state.cluster().modelOf(g).mig;
        const int p = mig ? mig->profileIndex(job.perTask.migProfile) : -1;
        amount = p >= 0 ? double(mig->profiles[static_cast<size_t>(p)].computeSlices) /
                              mig->computeSlices
                        : 1.0;
      }
      c.gpus.emplace_back(g, amount);
    }
  return c;
}

double QuotaCharge::total() const {
  double sum = 0;
  for (const auto& [g, amount] : gpus) sum += amount;
  return sum;
}

QuotaBook::QuotaBook(std::vector<Team> teams) : teams_(std::move(teams)) {
  parents_.assign(teams_.size(), -1);
  for (size_t i = 0; i < teams_.size(); ++i) parents_[i] = teamIndex(teams_[i].parent);
  usage_.resize(teams_.size());
}

int QuotaBook::teamIndex(const std::string& name) const {
  if (name.empty()) return -1;
  for (size_t i = 0; i < teams_.size(); ++i)
    if (teams_[i].name == name) return static_cast<int>(i);
  return -1;
}

std::string QuotaBook::keyFor(int team, const std::string& model, const std::string& pool) const {
  const auto& q = teams_[static_cast<size_t>(team)].quotas;
  if (q.count(model)) return model;
  if (!pool.empty() && q.count("pool:" + pool)) return "pool:" + pool;
  if (q.count("*")) return "*";
  return {};
}

double QuotaBook::usage(int team, const std::string& key) const {
  const auto& u = usage_[static_cast<size_t>(team)];
  const auto it = u.find(key);
  return it == u.end() ? 0.0 : it->second;
}

bool QuotaBook::managed(int team) const {
  return team >= 0 && !teams_[static_cast<size_t>(team)].quotas.empty();
}

bool QuotaBook::anyQuota() const {
  return std::any_of(teams_.begin(), teams_.end(), [](const Team& t) { return !t.quotas.empty(); });
}

std::vector<std::string> QuotaBook::chargeKeys(int team, const std::string& model,
                                               const std::string& pool) const {
  std::vector<std::string> keys;
  for (int a = team; a >= 0; a = parents_[static_cast<size_t>(a)]) {
    std::string key = keyFor(a, model, pool);
    // A team's own quota table lists everything it may use; a department's only caps.
    if (key.empty() && a == team && managed(a)) key = "!" + model;
    keys.push_back(std::move(key));
  }
  return keys;
}

QuotaBook::Need QuotaBook::needOf(const ClusterState& state, int team, const QuotaCharge& c) const {
  // GPUs of one node share model and pool, so their keys: sum the run, then look the keys up once
  // (a release in backfill's replay charges thousands of jobs back per reservation).
  Need need;
  const Cluster& cl = state.cluster();
  const auto add = [&](NodeId node, double amount) {
    const Node& n = cl.node(node);
    int a = team;
    for (auto& key : chargeKeys(team, n.gpuModel().id, n.pool)) {
      if (!key.empty()) need[{a, std::move(key)}] += amount;
      a = parents_[static_cast<size_t>(a)];
    }
  };
  NodeId node = 0;
  double run = 0;
  for (auto [g, amount] : c.gpus) {
    const NodeId n = cl.gpu(g).node;
    if (run > 0 && n != node) {
      add(node, run);
      run = 0;
    }
    node = n;
    run += amount;
  }
  if (run > 0) add(node, run);
  return need;
}

void QuotaBook::charge(const ClusterState& state, const std::string& team, const QuotaCharge& c,
                       double sign) {
  const int t = teamIndex(team);
  if (t < 0) return;
  for (const auto& [at, amount] : needOf(state, t, c)) {
    if (at.second[0] == '!') continue;
    double& u = usage_[static_cast<size_t>(at.first)][at.second];
    u += sign * amount;
    if (std::abs(u) < kEps) u = 0;
  }
}

double QuotaBook::lendableToSiblingsOf(int team, const std::string& key) const {
  double lendable = 0, borrowedByOthers = 0;
  for (size_t s = 0; s < teams_.size(); ++s) {
    if (static_cast<int>(s) == team || parents_[s] != parents_[static_cast<size_t>(team)]) continue;
    const auto it = teams_[s].quotas.find(key);
    if (it == teams_[s].quotas.end()) continue;
    const Quota& q = it->second;
    const double used = usage(static_cast<int>(s), key);
    const double idle = std::max(0.0, q.guaranteed - used);
    lendable += q.lendLimit < 0 ? idle : std::min<double>(q.lendLimit, idle);
    borrowedByOthers += std::max(0.0, used - q.guaranteed);
  }
  return std::max(0.0, lendable - borrowedByOthers);
}

Text QuotaBook::limitProblem(int t, const std::string& key, double extra) const {
  const Team& team = teams_[static_cast<size_t>(t)];
  const Quota& q = team.quotas.at(key);
  const double used = usage(t, key);
  const double after = used + extra;
  if (after <= q.guaranteed + kEps) return {};
  const double borrow = after - q.guaranteed;
  Text head = phrase(text::kQuotaUses, team.name, gpuAmountText(used), q.guaranteed, key);
  if (borrow > q.borrowLimit + kEps)
    return phrase(text::kQuotaBorrowLimit, std::move(head), q.borrowLimit, gpuAmountText(extra));
  const double available = lendableToSiblingsOf(t, key) - std::max(0.0, used - q.guaranteed);
  if (borrow - std::max(0.0, used - q.guaranteed) > available + kEps)
    return phrase(text::kQuotaLendersShort, std::move(head), gpuAmountText(extra),
                  gpuAmountText(std::max(0.0, available)), key);
  return {};
}

Text QuotaBook::refusal(const ClusterState& state, const std::string& team,
                        const QuotaCharge& c) const {
  const int t = teamIndex(team);
  if (t < 0) return {};
  for (const auto& [at, extra] : needOf(state, t, c)) {
    if (at.second[0] == '!')
      return phrase(text::kQuotaNone, teams_[static_cast<size_t>(at.first)].name,
                    at.second.substr(1));
    if (auto p = limitProblem(at.first, at.second, extra); !p.empty()) return p;
  }
  return {};
}

std::pair<std::string, int> QuotaBook::shortfall(const ClusterState& state, const std::string& team,
                                                 const QuotaCharge& c) const {
  const int t = teamIndex(team);
  if (t < 0) return {};
  for (const auto& [at, extra] : needOf(state, t, c)) {
    if (at.second[0] == '!')
      return {teams_[static_cast<size_t>(at.first)].name + ":" + at.second.substr(1),
              static_cast<int>(std::ceil(extra - kEps))};
    if (limitProblem(at.first, at.second, extra).empty()) continue;
    // The guarantee that would cover the job without borrowing anything more.
    const Quota& q = teams_[static_cast<size_t>(at.first)].quotas.at(at.second);
    const double used = usage(at.first, at.second);
    const double allowed =
        q.guaranteed +
        std::min<double>(q.borrowLimit, std::max(0.0, lendableToSiblingsOf(at.first, at.second)));
    return {teams_[static_cast<size_t>(at.first)].name + ":" + at.second,
            static_cast<int>(std::ceil(used + extra - allowed - kEps))};
  }
  return {};
}

bool QuotaBook::borrowing(int team, const std::string& model, const std::string& pool) const {
  for (int a = team; a >= 0; a = parents_[static_cast<size_t>(a)]) {
    const std::string key = keyFor(a, model, pool);
    if (key.empty()) continue;
    if (usage(a, key) > teams_[static_cast<size_t>(a)].quotas.at(key).guaranteed + kEps)
      return true;
  }
  return false;
}

bool QuotaBook::withinGuarantee(const ClusterState& state, const std::string& team,
                                const QuotaCharge& c) const {
  const int t = teamIndex(team);
  if (t < 0) return false;
  bool any = false;
  for (const auto& [at, extra] : needOf(state, t, c)) {
    if (at.second[0] == '!') return false;
    any = true;
    const Quota& q = teams_[static_cast<size_t>(at.first)].quotas.at(at.second);
    if (usage(at.first, at.second) + extra > q.guaranteed + kEps) return false;
  }
  return any;
}

bool QuotaBook::staysAboveGuarantee(const ClusterState& state, const std::string& team,
                                    const QuotaCharge& c) const {
  const int t = teamIndex(team);
  if (t < 0) return true;
  for (const auto& [at, amount] : needOf(state, t, c)) {
    if (at.second[0] == '!') continue;
    const Quota& q = teams_[static_cast<size_t>(at.first)].quotas.at(at.second);
    if (usage(at.first, at.second) - amount < q.guaranteed - kEps) return false;
  }
  return true;
}

Status QuotaBook::setQuota(const std::string& team, const std::string& key, const Quota& q) {
  const int t = teamIndex(team);
  if (t < 0) return Error::notFound(phrase(text::kUnknownTeam, team));
  if (q.guaranteed < 0 || q.borrowLimit < 0) return Error::of(phrase(text::kQuotaNegative));
  if (q.lendLimit > q.guaranteed) return Error::of(phrase(text::kLendTooMuch, q.guaranteed));
  teams_[static_cast<size_t>(t)].quotas[key] = q;
  return okStatus();
}

}  // namespace tessera
