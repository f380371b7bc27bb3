// Team quotas: key precedence, usage charged to a team and its department, the refusal texts of
// the permit (guarantee, borrowing from siblings, lend limits, department caps, missing keys),
// shortfall, and the predicates preemption uses. Every expected number is worked out by hand.
#include <QtTest>

#include "clusterspec/cluster_spec.h"
#include "scheduler/quota.h"

using namespace tessera;

namespace {

const char* kH100 = "H100-SXM5-80GB";

// h1, h2: 8 x H100 in pool train (16 H100s); l1: 4 x L4 in pool infer; m1: 2 x A100 in MIG mode.
const char* kClusterYaml = R"(version: 1
name: quota
node_templates:
  h100: {gpu_model: H100-SXM5-80GB, gpus: 8}
  l4: {gpu_model: L4, gpus: 4}
  a100: {gpu_model: A100-SXM4-80GB, gpus: 2}
fabric:
  leafs: [{name: leaf-1}]
nodes:
  - {name: h1, template: h100, leaf: leaf-1, pool: train}
  - {name: h2, template: h100, leaf: leaf-1, pool: train}
  - {name: l1, template: l4, leaf: leaf-1, pool: infer}
  - name: m1
    template: a100
    leaf: leaf-1
    pool: train
    gpus:
      "0-1": {mig: "-"}
)";

std::shared_ptr<const Cluster> cluster() {
  static const std::shared_ptr<const Cluster> c = [] {
    auto loaded = loadClusterSpec(kClusterYaml, "quota.yaml");
    if (!loaded) qFatal("%s", loaded.error().str().c_str());
    return *loaded;
  }();
  return c;
}

// GPUs node/first .. node/first+count-1.
std::vector<GpuId> gpus(const std::string& node, int first, int count) {
  std::vector<GpuId> out;
  for (int i = first; i < first + count; ++i) {
    const Gpu* g = cluster()->findGpu(node + "/" + std::to_string(i));
    if (!g) qFatal("no GPU %s/%d", node.c_str(), i);
    out.push_back(g->id);
  }
  return out;
}

// One task holding the given whole GPUs.
QuotaCharge whole(const ClusterState& s, const std::vector<GpuId>& ids) {
  Job j;
  j.perTask.kind = GpuRequest::Kind::Whole;
  j.perTask.gpus = static_cast<int>(ids.size());
  return QuotaCharge::of(s, j, {ids});
}

// research (department) -> vision {H100: 4 guaranteed, borrow 4, lend all}
//                       -> nlp    {H100: 8 guaranteed, borrow 0, lend 2}
// ops (department, no quota: unmanaged)
std::vector<Team> tree() {
  return {
      Team{"research", "", 1, {}},
      Team{"vision", "research", 1, {{kH100, Quota{4, 4, -1}}}},
      Team{"nlp", "research", 1, {{kH100, Quota{8, 0, 2}}}},
      Team{"ops", "", 1, {}},
  };
}

QString q(const std::string& s) {
  return QString::fromStdString(s);
}
QString q(const tessera::Text& t) {
  return QString::fromStdString(t.english());
}

}  // namespace

class TstQuota : public QObject {
  Q_OBJECT

 private slots:
  void treeShape() {
    const QuotaBook b(tree());
    QCOMPARE(b.teamIndex("research"), 0);
    QCOMPARE(b.teamIndex("nlp"), 2);
    QCOMPARE(b.teamIndex("nobody"), -1);
    QCOMPARE(b.teamIndex(""), -1);
    QCOMPARE(b.parentOf(0), -1);
    QCOMPARE(b.parentOf(1), 0);
    QCOMPARE(b.parentOf(2), 0);
    QCOMPARE(b.parentOf(3), -1);
    QVERIFY(!b.managed(0));  // a department with no quota entry
    QVERIFY(b.managed(1));
    QVERIFY(!b.managed(3));
    QVERIFY(!b.managed(-1));
  }

  void keyPrecedence() {
    const QuotaBook b({
        Team{"mix",
             "",
             1,
             {{kH100, Quota{1, 0, -1}}, {"pool:train", Quota{2, 0, -1}}, {"*", Quota{3, 0, -1}}}},
        Team{"pooled", "", 1, {{"pool:infer", Quota{1, 0, -1}}}},
    });
    // model > pool > *
    QCOMPARE(q(b.keyFor(0, kH100, "train")), q(kH100));
    QCOMPARE(q(b.keyFor(0, kH100, "infer")), q(kH100));
    QCOMPARE(q(b.keyFor(0, "L4", "train")), QString("pool:train"));
    QCOMPARE(q(b.keyFor(0, "L4", "infer")), QString("*"));
    QCOMPARE(q(b.keyFor(0, "L4", "")), QString("*"));
    // No model, no "*": only the pool matches; anything else has no key.
    QCOMPARE(q(b.keyFor(1, "L4", "infer")), QString("pool:infer"));
    QCOMPARE(q(b.keyFor(1, kH100, "train")), QString());
    QCOMPARE(q(b.keyFor(1, "L4", "")), QString());
  }

  void chargeOfWholeFractionAndMig() {
    const ClusterState s(cluster());
    const QuotaCharge w = whole(s, gpus("h1", 0, 3));
    QCOMPARE(w.gpus.size(), size_t{3});
    for (const auto& [g, amount] : w.gpus) QCOMPARE(amount, 1.0);

    // Fraction: 250 milli-GPU per task on two GPUs = 0.25 each.
    Job f;
    f.perTask.kind = GpuRequest::Kind::Fraction;
    f.perTask.milli = 250;
    const QuotaCharge fc = QuotaCharge::of(s, f, {gpus("l1", 0, 1), gpus("l1", 1, 1)});
    QCOMPARE(fc.gpus.size(), size_t{2});
    QCOMPARE(fc.gpus[0].first, gpus("l1", 0, 1)[0]);
    QCOMPARE(fc.gpus[0].second, 0.25);
    QCOMPARE(fc.gpus[1].second, 0.25);

    // MIG: 3g.40gb has 3 of the A100's 7 compute slices = 3/7 of a GPU.
    Job m;
    m.perTask.kind = GpuRequest::Kind::Mig;
    m.perTask.migProfile = "3g.40gb";
    const QuotaCharge mc = QuotaCharge::of(s, m, {gpus("m1", 0, 1)});
    QCOMPARE(mc.gpus.size(), size_t{1});
    QCOMPARE(mc.gpus[0].second, 3.0 / 7.0);
    // A profile the model does not have counts as a whole GPU.
    m.perTask.migProfile = "9g.999gb";
    QCOMPARE(QuotaCharge::of(s, m, {gpus("m1", 1, 1)}).gpus[0].second, 1.0);
  }

  void chargeAndUnchargeAtTeamAndDepartment() {
    const ClusterState s(cluster());
    auto teams = tree();
    teams[0].quotas["*"] = Quota{20, 0, -1};  // the department counts every GPU under "*"
    QuotaBook b(teams);
    const QuotaCharge three = whole(s, gpus("h1", 0, 3));
    b.charge(s, "vision", three, +1);
    QCOMPARE(b.usage(1, kH100), 3.0);  // vision
    QCOMPARE(b.usage(0, "*"), 3.0);    // research, under its own key
    QCOMPARE(b.usage(0, kH100), 0.0);  // research has no H100 key
    QCOMPARE(b.usage(2, kH100), 0.0);  // the sibling is untouched
    // An L4: vision has no key for it (nothing charged there), research's "*" takes it.
    const QuotaCharge l4 = whole(s, gpus("l1", 0, 1));
    b.charge(s, "vision", l4, +1);
    QCOMPARE(b.usage(1, kH100), 3.0);
    QCOMPARE(b.usage(1, "L4"), 0.0);
    QCOMPARE(b.usage(0, "*"), 4.0);  // 3 + 1
    // A MIG instance charged to the department itself: 3/7.
    Job m;
    m.perTask.kind = GpuRequest::Kind::Mig;
    m.perTask.migProfile = "3g.40gb";
    const QuotaCharge mig = QuotaCharge::of(s, m, {gpus("m1", 0, 1)});
    b.charge(s, "research", mig, +1);
    QCOMPARE(b.usage(0, "*"), 4.0 + 3.0 / 7.0);
    // Giving everything back leaves exactly zero.
    b.charge(s, "vision", three, -1);
    QCOMPARE(b.usage(1, kH100), 0.0);
    QCOMPARE(b.usage(0, "*"), 1.0 + 3.0 / 7.0);
    b.charge(s, "vision", l4, -1);
    b.charge(s, "research", mig, -1);
    QCOMPARE(b.usage(0, "*"), 0.0);
    // An unknown team is ignored.
    b.charge(s, "nobody", three, +1);
    QCOMPARE(b.usage(0, "*"), 0.0);
    QCOMPARE(b.usage(1, kH100), 0.0);
  }

  // (a) vision uses 0 of 4; 3 more stay within its guarantee.
  void withinGuaranteeIsAdmitted() {
    const ClusterState s(cluster());
    const QuotaBook b(tree());
    const QuotaCharge c = whole(s, gpus("h1", 0, 3));
    QCOMPARE(q(b.refusal(s, "vision", c)), QString());
    QCOMPARE(b.shortfall(s, "vision", c).second, 0);
    QCOMPARE(q(b.shortfall(s, "vision", c).first), QString());
    // Exactly the guarantee (4) is still within it.
    QCOMPARE(q(b.refusal(s, "vision", whole(s, gpus("h1", 0, 4)))), QString());
  }

  // (b) 6 GPUs: 4 guaranteed + borrow 2. Borrow limit 4 >= 2, and nlp lends min(lend 2,
  // idle 8 - 0) = 2 >= 2: admitted.
  void borrowingWithinLimitsIsAdmitted() {
    const ClusterState s(cluster());
    const QuotaBook b(tree());
    const QuotaCharge c = whole(s, gpus("h1", 0, 6));
    QCOMPARE(q(b.refusal(s, "vision", c)), QString());
    QCOMPARE(b.shortfall(s, "vision", c).second, 0);
  }

  // (c) 9 GPUs: borrow 9 - 4 = 5 > borrow limit 4.
  void aboveBorrowLimitIsRefused() {
    const ClusterState s(cluster());
    QuotaBook b(tree());
    const QuotaCharge c = whole(s, gpus("h1", 0, 8));
    QuotaCharge nine = c;
    nine.gpus.push_back({gpus("h2", 0, 1)[0], 1.0});
    QCOMPARE(q(b.refusal(s, "vision", nine)),
             QString("team vision uses 0 of its 4 guaranteed H100-SXM5-80GB GPUs and may borrow "
                     "4; the job needs 9"));
    // Shortfall: allowed = 4 + min(borrow 4, lendable 2) = 6; 0 + 9 - 6 = 3.
    const auto [key, n] = b.shortfall(s, "vision", nine);
    QCOMPARE(q(key), QString("vision:H100-SXM5-80GB"));
    QCOMPARE(n, 3);
    // And +3 is enough: guaranteed 7, borrow 9 - 7 = 2 <= 4 and <= lendable 2.
    QVERIFY(b.setQuota("vision", kH100, Quota{7, 4, -1}).ok());
    QCOMPARE(q(b.refusal(s, "vision", nine)), QString());
  }

  // (d) 7 GPUs: borrow 3 <= limit 4, but nlp lends at most 2.
  void siblingsLendLimitIsRefused() {
    const ClusterState s(cluster());
    QuotaBook b(tree());
    const QuotaCharge seven = whole(s, gpus("h1", 0, 7));
    QCOMPARE(q(b.refusal(s, "vision", seven)),
             QString("team vision uses 0 of its 4 guaranteed H100-SXM5-80GB GPUs; the job needs 7 "
                     "and other teams lend only 2 idle H100-SXM5-80GB GPUs now"));
    // Shortfall: 0 + 7 - (4 + min(4, 2)) = 1.
    QCOMPARE(b.shortfall(s, "vision", seven), std::make_pair(std::string("vision:") + kH100, 1));
  }

  // Borrowing already done counts against what the siblings lend.
  void lendableShrinksWithUse() {
    const ClusterState s(cluster());
    QuotaBook b(tree());
    // vision uses 5: 1 borrowed of nlp's 2 lendable; 1 more is fine, 2 more are not.
    b.charge(s, "vision", whole(s, gpus("h1", 0, 5)), +1);
    QCOMPARE(q(b.refusal(s, "vision", whole(s, gpus("h2", 0, 1)))), QString());
    const QuotaCharge two = whole(s, gpus("h2", 0, 2));
    QCOMPARE(q(b.refusal(s, "vision", two)),
             QString("team vision uses 5 of its 4 guaranteed H100-SXM5-80GB GPUs; the job needs 2 "
                     "and other teams lend only 1 idle H100-SXM5-80GB GPUs now"));
    // 5 + 2 - (4 + min(4, 2)) = 1.
    QCOMPARE(b.shortfall(s, "vision", two).second, 1);

    // nlp busy with 7 of its 8: idle 1, so it lends min(2, 1) = 1.
    QuotaBook busy(tree());
    busy.charge(s, "nlp", whole(s, gpus("h2", 0, 7)), +1);
    QCOMPARE(q(busy.refusal(s, "vision", whole(s, gpus("h1", 0, 5)))), QString());
    const QuotaCharge six = whole(s, gpus("h1", 0, 6));
    QCOMPARE(q(busy.refusal(s, "vision", six)),
             QString("team vision uses 0 of its 4 guaranteed H100-SXM5-80GB GPUs; the job needs 6 "
                     "and other teams lend only 1 idle H100-SXM5-80GB GPUs now"));
    // 0 + 6 - (4 + min(4, 1)) = 1.
    QCOMPARE(busy.shortfall(s, "vision", six).second, 1);
  }

  // (e) research capped at 10 H100s with no borrowing: nlp's 8 + vision's 3 = 11 > 10.
  void departmentCapIsRefused() {
    const ClusterState s(cluster());
    QuotaBook b(tree());
    QVERIFY(b.setQuota("research", kH100, Quota{10, 0, -1}).ok());
    b.charge(s, "nlp", whole(s, gpus("h1", 0, 8)), +1);
    QCOMPARE(b.usage(0, kH100), 8.0);
    const QuotaCharge three = whole(s, gpus("h2", 0, 3));
    QCOMPARE(q(b.refusal(s, "vision", three)),
             QString("team research uses 8 of its 10 guaranteed H100-SXM5-80GB GPUs and may "
                     "borrow 0; the job needs 3"));
    // 8 + 3 - (10 + min(0, 0)) = 1, on the department's key.
    QCOMPARE(b.shortfall(s, "vision", three), std::make_pair(std::string("research:") + kH100, 1));
    QCOMPARE(q(b.refusal(s, "vision", whole(s, gpus("h2", 0, 2)))), QString());
  }

  // (f) a managed team without a key for a model may not use it at all.
  void missingKeyIsRefused() {
    const ClusterState s(cluster());
    const QuotaBook b(tree());
    const QuotaCharge l4 = whole(s, gpus("l1", 0, 2));
    QCOMPARE(q(b.refusal(s, "vision", l4)), QString("team vision has no quota for L4 GPUs"));
    QCOMPARE(b.shortfall(s, "vision", l4), std::make_pair(std::string("vision:L4"), 2));
    // Unmanaged and unknown teams are never refused.
    QCOMPARE(q(b.refusal(s, "ops", l4)), QString());
    QCOMPARE(q(b.refusal(s, "ops", whole(s, gpus("h1", 0, 8)))), QString());
    QCOMPARE(q(b.refusal(s, "nobody", l4)), QString());
    QCOMPARE(b.shortfall(s, "nobody", l4).second, 0);
  }

  void borrowingFlag() {
    const ClusterState s(cluster());
    QuotaBook b(tree());
    QVERIFY(!b.borrowing(1, kH100, "train"));
    const QuotaCharge four = whole(s, gpus("h1", 0, 4));
    b.charge(s, "vision", four, +1);
    QVERIFY(!b.borrowing(1, kH100, "train"));  // 4 of 4: not above
    const QuotaCharge one = whole(s, gpus("h1", 4, 1));
    b.charge(s, "vision", one, +1);
    QVERIFY(b.borrowing(1, kH100, "train"));  // 5 of 4
    QVERIFY(!b.borrowing(2, kH100, "train"));
    QVERIFY(!b.borrowing(1, "L4", "infer"));  // no key: never borrowing
    b.charge(s, "vision", one, -1);
    QVERIFY(!b.borrowing(1, kH100, "train"));

    // An ancestor above its guarantee makes its teams borrowers too.
    QuotaBook capped(tree());
    QVERIFY(capped.setQuota("research", kH100, Quota{2, 8, -1}).ok());
    capped.charge(s, "nlp", whole(s, gpus("h1", 0, 3)), +1);  // nlp 3 of 8, research 3 of 2
    QVERIFY(capped.borrowing(2, kH100, "train"));
    QVERIFY(capped.borrowing(1, kH100, "train"));  // vision uses nothing, its department borrows
  }

  void withinGuaranteePredicate() {
    const ClusterState s(cluster());
    QuotaBook b(tree());
    QVERIFY(b.withinGuarantee(s, "vision", whole(s, gpus("h1", 0, 4))));
    QVERIFY(!b.withinGuarantee(s, "vision", whole(s, gpus("h1", 0, 5))));
    QVERIFY(!b.withinGuarantee(s, "vision", whole(s, gpus("l1", 0, 1))));  // no key
    QVERIFY(!b.withinGuarantee(s, "ops", whole(s, gpus("h1", 0, 1))));     // nothing guaranteed
    QVERIFY(!b.withinGuarantee(s, "nobody", whole(s, gpus("h1", 0, 1))));
    b.charge(s, "vision", whole(s, gpus("h1", 0, 3)), +1);
    QVERIFY(b.withinGuarantee(s, "vision", whole(s, gpus("h2", 0, 1))));   // 3 + 1 = 4
    QVERIFY(!b.withinGuarantee(s, "vision", whole(s, gpus("h2", 0, 2))));  // 3 + 2 = 5

    // Every level counts: research capped at 10, nlp uses 8.
    QuotaBook capped(tree());
    QVERIFY(capped.setQuota("research", kH100, Quota{10, 0, -1}).ok());
    capped.charge(s, "nlp", whole(s, gpus("h1", 0, 8)), +1);
    QVERIFY(capped.withinGuarantee(s, "vision", whole(s, gpus("h2", 0, 2))));   // 10 of 10
    QVERIFY(!capped.withinGuarantee(s, "vision", whole(s, gpus("h2", 0, 3))));  // 11 of 10
  }

  void staysAboveGuaranteePredicate() {
    const ClusterState s(cluster());
    QuotaBook b(tree());
    b.charge(s, "vision", whole(s, gpus("h1", 0, 6)), +1);                     // 6 of 4
    QVERIFY(b.staysAboveGuarantee(s, "vision", whole(s, gpus("h1", 0, 2))));   // 4 >= 4
    QVERIFY(!b.staysAboveGuarantee(s, "vision", whole(s, gpus("h1", 0, 3))));  // 3 < 4
    // Keys the team does not have and unknown teams protect nothing.
    QVERIFY(b.staysAboveGuarantee(s, "vision", whole(s, gpus("l1", 0, 1))));
    QVERIFY(b.staysAboveGuarantee(s, "nobody", whole(s, gpus("h1", 0, 3))));

    // A department below its guarantee protects its teams' jobs.
    QuotaBook capped(tree());
    QVERIFY(capped.setQuota("research", kH100, Quota{10, 0, -1}).ok());
    capped.charge(s, "vision", whole(s, gpus("h1", 0, 6)), +1);  // vision 6 of 4, research 6 of 10
    QVERIFY(!capped.staysAboveGuarantee(s, "vision", whole(s, gpus("h1", 0, 1))));
  }

  // Both parts of a charge refuse: the one named is the first key by name ("!L4", a model the
  // team does not list, sorts before any key), whatever order the GPUs come in.
  void refusalNamesTheSameKeyWhateverTheGpuOrder() {
    const ClusterState s(cluster());
    const QuotaBook b(tree());
    QuotaCharge h100First = whole(s, gpus("h1", 0, 8));
    h100First.gpus.push_back({gpus("h2", 0, 1)[0], 1.0});  // 9 H100s: above vision's borrow limit
    h100First.gpus.push_back({gpus("l1", 0, 1)[0], 1.0});
    QuotaCharge l4First;
    l4First.gpus.push_back(h100First.gpus.back());
    l4First.gpus.insert(l4First.gpus.end(), h100First.gpus.begin(), h100First.gpus.end() - 1);
    const QString expected("team vision has no quota for L4 GPUs");
    QCOMPARE(q(b.refusal(s, "vision", h100First)), expected);
    QCOMPARE(q(b.refusal(s, "vision", l4First)), expected);
    QCOMPARE(b.shortfall(s, "vision", h100First), std::make_pair(std::string("vision:L4"), 1));
    // Without the L4 the H100 part is what refuses.
    h100First.gpus.pop_back();
    QVERIFY(q(b.refusal(s, "vision", h100First)).startsWith("team vision uses 0 of its 4"));
  }

  // The integer chain equals where the key names do: what the permit compares between GPU kinds.
  void chargeChainsMatchTheKeyNames() {
    QuotaBook b(tree());
    QVERIFY(b.setQuota("research", "pool:train", Quota{10, 0, -1}).ok());
    std::vector<QuotaBook::Link> h100, a100, l4, again;
    b.chargeChain(1, kH100, "train", h100);
    b.chargeChain(1, "A100-SXM4-80GB", "train", a100);
    b.chargeChain(1, "L4", "infer", l4);
    b.chargeChain(1, kH100, "train", again);
    QCOMPARE(h100.size(), size_t{2});  // vision, then research
    QCOMPARE(h100[0].team, 1);
    QCOMPARE(h100[1].team, 0);
    QVERIFY(h100 == again);
    QVERIFY(h100 != a100);  // vision lists no A100: refused there, not charged like an H100
    QCOMPARE(a100[0].slot, QuotaBook::kNotListed);
    QCOMPARE(a100[1].slot, h100[1].slot);  // both under research's pool:train
    QCOMPARE(l4[1].slot, QuotaBook::kNoKey);
    const auto names = [&](const std::string& model, const std::string& pool) {
      return b.chargeKeys(1, model, pool);
    };
    QCOMPARE(names(kH100, "train"), (std::vector<std::string>{kH100, "pool:train"}));
    QCOMPARE(names("A100-SXM4-80GB", "train"),
             (std::vector<std::string>{"!A100-SXM4-80GB", "pool:train"}));
    QCOMPARE(names("L4", "infer"), (std::vector<std::string>{"!L4", ""}));
  }

  // Backfill and preemption charge copies of the book: a copy's usage and table are its own, and
  // a new key starts unused while the old keys keep what they counted.
  void copiesAndNewKeysKeepTheirUsage() {
    const ClusterState s(cluster());
    QuotaBook original(tree());
    original.charge(s, "vision", whole(s, gpus("h1", 0, 3)), +1);
    QuotaBook copy = original;
    copy.charge(s, "vision", whole(s, gpus("h1", 3, 2)), +1);
    QCOMPARE(original.usage(1, kH100), 3.0);
    QCOMPARE(copy.usage(1, kH100), 5.0);
    QVERIFY(copy.setQuota("vision", "*", Quota{2, 0, -1}).ok());
    QCOMPARE(copy.usage(1, kH100), 5.0);
    QCOMPARE(copy.usage(1, "*"), 0.0);
    QVERIFY(!original.teams()[1].quotas.count("*"));
    QCOMPARE(q(original.keyFor(1, "L4", "infer")), QString());
    QCOMPARE(q(copy.keyFor(1, "L4", "infer")), QString("*"));
    copy.charge(s, "vision", whole(s, gpus("l1", 0, 2)), +1);
    QCOMPARE(copy.usage(1, "*"), 2.0);
    QCOMPARE(original.usage(1, "*"), 0.0);
  }

  void setQuotaValidation() {
    QuotaBook b(tree());
    auto st = b.setQuota("nobody", "*", Quota{1, 0, -1});
    QVERIFY(!st);
    QCOMPARE(q(st.error().message), QString("unknown team 'nobody'"));
    st = b.setQuota("ops", "*", Quota{-1, 0, -1});
    QVERIFY(!st);
    QCOMPARE(q(st.error().message), QString("guaranteed and borrow must be >= 0"));
    st = b.setQuota("ops", "*", Quota{4, -1, -1});
    QVERIFY(!st);
    QCOMPARE(q(st.error().message), QString("guaranteed and borrow must be >= 0"));
    st = b.setQuota("ops", "*", Quota{4, 0, 5});
    QVERIFY(!st);
    QCOMPARE(q(st.error().message), QString("cannot lend more than the guaranteed 4"));
    QVERIFY(!b.managed(3));  // nothing was stored by the refused calls
    QVERIFY(b.setQuota("ops", "*", Quota{4, 2, 4}).ok());
    QVERIFY(b.managed(3));
    QCOMPARE(q(b.keyFor(3, "L4", "infer")), QString("*"));
    QCOMPARE(b.teams()[3].quotas.at("*").borrowLimit, 2);
    // Replacing an existing key.
    QVERIFY(b.setQuota("vision", kH100, Quota{1, 0, 0}).ok());
    QCOMPARE(b.teams()[1].quotas.at(kH100).guaranteed, 1);
    QCOMPARE(b.teams()[1].quotas.size(), size_t{1});
  }
};

QTEST_APPLESS_MAIN(TstQuota)
#include "tst_quota.moc"
