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

QuotaBook::QuotaBook() : config_(configure({})) {}

QuotaBook::QuotaBook(std::vector<Team> teams) : config_(configure(std::move(teams))) {
  usage_.assign(config_->quotaOf.size(), 0.0);
}

std::shared_ptr<const QuotaBook::Config> QuotaBook::configure(std::vector<Team> teams) {
  auto c = std::make_shared<Config>();
  c->teams = std::move(teams);
  for (size_t i = 0; i < c->teams.size(); ++i)
    c->teamByName.emplace(c->teams[i].name, static_cast<int>(i));
  for (const Team& t : c->teams) {
    const auto it = t.parent.empty() ? c->teamByName.end() : c->teamByName.find(t.parent);
    c->parents.push_back(it == c->teamByName.end() ? -1 : it->second);
    c->offset.push_back(c->quotaOf.size());
    auto& keys = c->keys.emplace_back();
    c->teamText.push_back(literal(t.name));
    double most = 0;
    for (const auto& [key, q] : t.quotas) {
      keys.push_back(key);
      c->quotaOf.push_back(&q);
      c->keyText.push_back(literal(key));
      c->guaranteedText.push_back(literal(q.guaranteed));
      most += q.guaranteed + q.borrowLimit;
    }
    c->ceiling.push_back(most);
    c->anyQuota = c->anyQuota || !t.quotas.empty();
  }
  return c;
}

int QuotaBook::Config::slotOf(int team, const std::string& key) const {
  const auto& k = keys[static_cast<size_t>(team)];
  const auto it = std::lower_bound(k.begin(), k.end(), key);
  return it != k.end() && *it == key ? static_cast<int>(it - k.begin()) : kNoKey;
}

int QuotaBook::Config::slotFor(int team, const std::string& model, const std::string& pool) const {
  // Precedence: the model's own key, then "pool:NAME", then "*".
  const auto& k = keys[static_cast<size_t>(team)];
  int poolSlot = kNoKey, anySlot = kNoKey;
  constexpr std::string_view kPool = "pool:";
  for (size_t i = 0; i < k.size(); ++i) {
    const std::string& key = k[i];
    if (key == model) return static_cast<int>(i);
    if (key == "*")
      anySlot = static_cast<int>(i);
    else if (!pool.empty() && key.size() == kPool.size() + pool.size() && key.starts_with(kPool) &&
             std::string_view(key).substr(kPool.size()) == pool)
      poolSlot = static_cast<int>(i);
  }
  return poolSlot != kNoKey ? poolSlot : anySlot;
}

int QuotaBook::teamIndex(const std::string& name) const {
  if (name.empty()) return -1;
  const auto it = config_->teamByName.find(name);
  return it == config_->teamByName.end() ? -1 : it->second;
}

std::string QuotaBook::keyFor(int team, const std::string& model, const std::string& pool) const {
  const int slot = config_->slotFor(team, model, pool);
  return slot == kNoKey ? std::string() : config_->keys[static_cast<size_t>(team)][size_t(slot)];
}

double QuotaBook::usage(int team, const std::string& key) const {
  const int slot = config_->slotOf(team, key);
  return slot == kNoKey ? 0.0 : used({team, slot});
}

bool QuotaBook::managed(int team) const {
  return team >= 0 && !config_->teams[static_cast<size_t>(team)].quotas.empty();
}

void QuotaBook::chargeChain(int team, const std::string& model, const std::string& pool,
                            std::vector<Link>& out) const {
  out.clear();
  for (int a = team; a >= 0; a = parentOf(a)) {
    int slot = config_->slotFor(a, model, pool);
    // A team's own quota table lists everything it may use; a department's only caps.
    if (slot == kNoKey && a == team && managed(a)) slot = kNotListed;
    out.push_back({a, slot});
  }
}

std::vector<std::string> QuotaBook::chargeKeys(int team, const std::string& model,
                                               const std::string& pool) const {
  std::vector<Link> chain;
  chargeChain(team, model, pool, chain);
  std::vector<std::string> keys;
  for (const Link& l : chain) keys.push_back(keyName(NeedItem{l, &model, 0}));
  return keys;
}

std::string QuotaBook::keyName(const NeedItem& item) const {
  if (item.at.slot == kNotListed) return "!" + *item.model;
  if (item.at.slot == kNoKey) return {};
  return config_->keys[static_cast<size_t>(item.at.team)][static_cast<size_t>(item.at.slot)];
}

QuotaBook::Need QuotaBook::needOf(const ClusterState& state, int team, const QuotaCharge& c) const {
  // GPUs of one node share model and pool, so their keys: sum the run, then look the keys up once
  // (a release in backfill's replay charges thousands of jobs back per reservation).
  Need need;
  const Cluster& cl = state.cluster();
  std::vector<Link> chain;
  const auto add = [&](NodeId node, double amount) {
    const Node& n = cl.node(node);
    const std::string& model = n.gpuModel().id;
    chargeChain(team, model, n.pool, chain);
    for (const Link& at : chain) {
      if (at.slot == kNoKey) continue;
      const auto same = [&](const NeedItem& i) {
        return i.at == at && (at.slot != kNotListed || *i.model == model);
      };
      if (auto it = std::find_if(need.begin(), need.end(), same); it != need.end())
        it->amount += amount;
      else
        need.push_back({at, &model, amount});
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
  // The order of the key names within a team ("!" sorts first, slots follow their names), so
  // the first refusal named is the same whatever order the GPUs came in.
  if (need.size() > 1)
    std::sort(need.begin(), need.end(), [](const NeedItem& x, const NeedItem& y) {
      if (x.at.team != y.at.team) return x.at.team < y.at.team;
      const bool xn = x.at.slot == kNotListed, yn = y.at.slot == kNotListed;
      if (xn != yn) return xn;
      return xn ? *x.model < *y.model : x.at.slot < y.at.slot;
    });
  return need;
}

void QuotaBook::charge(const ClusterState& state, const std::string& team, const QuotaCharge& c,
                       double sign) {
  charge(state, teamIndex(team), c, sign);
}

void QuotaBook::charge(const ClusterState& state, int team, const QuotaCharge& c, double sign) {
  if (team < 0) return;
  for (const NeedItem& item : needOf(state, team, c)) {
    if (item.at.slot == kNotListed) continue;
    double& u = usage_[config_->offset[static_cast<size_t>(item.at.team)] + size_t(item.at.slot)];
    u += sign * item.amount;
    if (std::abs(u) < kEps) u = 0;
  }
}

double QuotaBook::lendableToSiblingsOf(int team, const std::string& key) const {
  double lendable = 0, borrowedByOthers = 0;
  const auto& teams = config_->teams;
  for (size_t s = 0; s < teams.size(); ++s) {
    if (static_cast<int>(s) == team || parentOf(int(s)) != parentOf(team)) continue;
    const int slot = config_->slotOf(static_cast<int>(s), key);
    if (slot == kNoKey) continue;
    const Link at{static_cast<int>(s), slot};
    const Quota& q = quotaAt(at);
    const double u = used(at);
    const double idle = std::max(0.0, q.guaranteed - u);
    lendable += q.lendLimit < 0 ? idle : std::min<double>(q.lendLimit, idle);
    borrowedByOthers += std::max(0.0, u - q.guaranteed);
  }
  return std::max(0.0, lendable - borrowedByOthers);
}

Text QuotaBook::limitProblem(const Link& at, double extra) const {
  const Config& c = *config_;
  const size_t slot = c.offset[static_cast<size_t>(at.team)] + static_cast<size_t>(at.slot);
  const Quota& q = *c.quotaOf[slot];
  const double u = usage_[slot];
  const double after = u + extra;
  if (after <= q.guaranteed + kEps) return {};
  const double borrow = after - q.guaranteed;
  Text head = phrase(text::kQuotaUses, c.teamText[static_cast<size_t>(at.team)], gpuAmountText(u),
                     c.guaranteedText[slot], c.keyText[slot]);
  if (borrow > q.borrowLimit + kEps)
    return phrase(text::kQuotaBorrowLimit, std::move(head), q.borrowLimit, gpuAmountText(extra));
  const std::string& key = c.keys[static_cast<size_t>(at.team)][static_cast<size_t>(at.slot)];
  const double available = lendableToSiblingsOf(at.team, key) - std::max(0.0, u - q.guaranteed);
  if (borrow - std::max(0.0, u - q.guaranteed) > available + kEps)
    return phrase(text::kQuotaLendersShort, std::move(head), gpuAmountText(extra),
                  gpuAmountText(std::max(0.0, available)), c.keyText[slot]);
  return {};
}

Text QuotaBook::refusal(const ClusterState& state, const std::string& team,
                        const QuotaCharge& c) const {
  return refusal(state, teamIndex(team), c);
}

Text QuotaBook::refusal(const ClusterState& state, int team, const QuotaCharge& c) const {
  if (team < 0) return {};
  for (const NeedItem& item : needOf(state, team, c)) {
    if (item.at.slot == kNotListed)
      return phrase(text::kQuotaNone, config_->teams[static_cast<size_t>(item.at.team)].name,
                    *item.model);
    if (auto p = limitProblem(item.at, item.amount); !p.empty()) return p;
  }
  return {};
}

std::pair<std::string, int> QuotaBook::shortfall(const ClusterState& state, const std::string& team,
                                                 const QuotaCharge& c) const {
  const int t = teamIndex(team);
  if (t < 0) return {};
  for (const NeedItem& item : needOf(state, t, c)) {
    const std::string& name = config_->teams[static_cast<size_t>(item.at.team)].name;
    if (item.at.slot == kNotListed)
      return {name + ":" + *item.model, static_cast<int>(std::ceil(item.amount - kEps))};
    if (limitProblem(item.at, item.amount).empty()) continue;
    // The guarantee that would cover the job without borrowing anything more.
    const std::string key = keyName(item);
    const Quota& q = quotaAt(item.at);
    const double allowed =
        q.guaranteed +
        std::min<double>(q.borrowLimit, std::max(0.0, lendableToSiblingsOf(item.at.team, key)));
    return {name + ":" + key,
            static_cast<int>(std::ceil(used(item.at) + item.amount - allowed - kEps))};
  }
  return {};
}

bool QuotaBook::borrowing(int team, const std::string& model, const std::string& pool) const {
  for (int a = team; a >= 0; a = parentOf(a)) {
    const int slot = config_->slotFor(a, model, pool);
    if (slot == kNoKey) continue;
    if (used({a, slot}) > quotaAt({a, slot}).guaranteed + kEps) return true;
  }
  return false;
}

bool QuotaBook::withinGuarantee(const ClusterState& state, const std::string& team,
                                const QuotaCharge& c) const {
  return withinGuarantee(state, teamIndex(team), c);
}

bool QuotaBook::withinGuarantee(const ClusterState& state, int team, const QuotaCharge& c) const {
  if (team < 0) return false;
  bool any = false;
  for (const NeedItem& item : needOf(state, team, c)) {
    if (item.at.slot == kNotListed) return false;
    any = true;
    if (used(item.at) + item.amount > quotaAt(item.at).guaranteed + kEps) return false;
  }
  return any;
}

bool QuotaBook::staysAboveGuarantee(const ClusterState& state, const std::string& team,
                                    const QuotaCharge& c) const {
  const int t = teamIndex(team);
  if (t < 0) return true;
  for (const NeedItem& item : needOf(state, t, c)) {
    if (item.at.slot == kNotListed) continue;
    if (used(item.at) - item.amount < quotaAt(item.at).guaranteed - kEps) return false;
  }
  return true;
}

Status QuotaBook::setQuota(const std::string& team, const std::string& key, const Quota& q) {
  const int t = teamIndex(team);
  if (t < 0) return Error::notFound(phrase(text::kUnknownTeam, team));
  if (q.guaranteed < 0 || q.borrowLimit < 0) return Error::of(phrase(text::kQuotaNegative));
  if (q.lendLimit > q.guaranteed) return Error::of(phrase(text::kLendTooMuch, q.guaranteed));
  // A new table for this book alone (copies share the old one); usage follows its keys.
  std::vector<Team> teams = config_->teams;
  teams[static_cast<size_t>(t)].quotas[key] = q;
  auto changed = configure(std::move(teams));
  std::vector<double> usage(changed->quotaOf.size(), 0.0);
  for (size_t i = 0; i < changed->teams.size(); ++i)
    for (size_t s = 0; s < changed->keys[i].size(); ++s)
      usage[changed->offset[i] + s] = this->usage(static_cast<int>(i), changed->keys[i][s]);
  config_ = std::move(changed);
  usage_ = std::move(usage);
  return okStatus();
}

}  // namespace tessera
