// The scheduling policy file: defaults, every section, errors with file:line:column and field,
// writePolicy round-trips, and the plugin registry that turns a policy into plugin instances.
#include <QtTest>

#include <functional>

#include "scheduler/plugin.h"
#include "scheduler/policy.h"

using namespace tessera;

namespace {

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

using Names = std::vector<std::string>;

// Loads `text`, which must be refused, and returns the error.
Error mustFail(const std::string& text) {
  auto p = loadPolicy(text, "policy.yaml");
  if (p) qFatal("policy unexpectedly loaded:\n%s", text.c_str());
  return p.error();
}

Policy mustLoad(const std::string& text) {
  auto p = loadPolicy(text, "policy.yaml");
  if (!p) qFatal("%s", p.error().str().c_str());
  return std::move(*p);
}

void compareScores(const std::vector<WeightedPlugin>& a, const std::vector<WeightedPlugin>& b) {
  QCOMPARE(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    QCOMPARE(q(a[i].name), q(b[i].name));
    QCOMPARE(a[i].weight, b[i].weight);
  }
}

void comparePolicies(const Policy& a, const Policy& b) {
  QCOMPARE(a.queueOrder, b.queueOrder);
  QCOMPARE(a.admission, b.admission);
  QCOMPARE(a.filter, b.filter);
  compareScores(a.score, b.score);
  QCOMPARE(a.permit, b.permit);
  QCOMPARE(q(a.preemption.plugin), q(b.preemption.plugin));
  QCOMPARE(a.preemption.reclaimBorrowed, b.preemption.reclaimBorrowed);
  QCOMPARE(a.preemption.withinGuarantee, b.preemption.withinGuarantee);
  QCOMPARE(a.preemption.maxAttemptsPerCycle, b.preemption.maxAttemptsPerCycle);
  QCOMPARE(q(a.backfill.plugin), q(b.backfill.plugin));
  QCOMPARE(a.backfill.window, b.backfill.window);
  QCOMPARE(a.backfill.resolution, b.backfill.resolution);
  QCOMPARE(a.backfill.depth, b.backfill.depth);
  QCOMPARE(a.backfill.timeBudgetMs, b.backfill.timeBudgetMs);
  QCOMPARE(a.backfill.interval, b.backfill.interval);
  QCOMPARE(a.fairShare.halfLife, b.fairShare.halfLife);
  QCOMPARE(a.checkInvariants, b.checkInvariants);
}

}  // namespace

class TstPolicy : public QObject {
  Q_OBJECT

 private slots:
  void defaults() {
    const Policy p = mustLoad("version: 1\n");
    QCOMPARE(p.queueOrder, (Names{"priority", "operator-order", "fair-share", "submit-time"}));
    QCOMPARE(p.admission, (Names{"hold", "quota"}));
    QCOMPARE(p.filter, (Names{"reservations", "pin"}));
    QCOMPARE(p.score.size(), size_t{1});
    QCOMPARE(q(p.score[0].name), QString("binpack"));
    QCOMPARE(p.score[0].weight, 1.0);
    QCOMPARE(p.permit, (Names{"quota"}));
    QCOMPARE(q(p.preemption.plugin), QString("checkpoint-aware"));
    QCOMPARE(p.preemption.reclaimBorrowed, true);
    QCOMPARE(p.preemption.withinGuarantee, false);
    QCOMPARE(p.preemption.maxAttemptsPerCycle, 16);
    QCOMPARE(q(p.backfill.plugin), QString("reservations"));
    QCOMPARE(p.backfill.window, Seconds{24 * 3600});
    QCOMPARE(p.backfill.resolution, Seconds{60});
    QCOMPARE(p.backfill.depth, 100);
    QCOMPARE(p.backfill.timeBudgetMs, 50.0);
    QCOMPARE(p.fairShare.halfLife, Seconds{7 * 24 * 3600});
    QCOMPARE(p.checkInvariants, false);
    // A default-constructed Policy is the same as the minimal file.
    comparePolicies(p, Policy{});
  }

  void listSections() {
    const Policy p = mustLoad(R"(version: 1
queue_order: [drf, submit-time]
admission: [hold]
filter: [pin, reservations]
permit: []
)");
    QCOMPARE(p.queueOrder, (Names{"drf", "submit-time"}));
    QCOMPARE(p.admission, (Names{"hold"}));
    QCOMPARE(p.filter, (Names{"pin", "reservations"}));
    QCOMPARE(p.permit, Names{});
    // Sections not named keep their defaults.
    QCOMPARE(p.score.size(), size_t{1});
    QCOMPARE(q(p.score[0].name), QString("binpack"));
  }

  void scoreWithWeights() {
    const Policy p = mustLoad(R"(version: 1
score:
  - {name: topology, weight: 2.5}
  - {name: fgd}
  - {name: spread, weight: 0}
)");
    QCOMPARE(p.score.size(), size_t{3});
    QCOMPARE(q(p.score[0].name), QString("topology"));
    QCOMPARE(p.score[0].weight, 2.5);
    QCOMPARE(q(p.score[1].name), QString("fgd"));
    QCOMPARE(p.score[1].weight, 1.0);  // weight defaults to 1
    QCOMPARE(q(p.score[2].name), QString("spread"));
    QCOMPARE(p.score[2].weight, 0.0);
  }

  void preemptionSection() {
    const Policy p = mustLoad(R"(version: 1
preemption:
  plugin: none
  reclaim_borrowed: false
  within_guarantee: true
  max_attempts_per_cycle: 3
)");
    QCOMPARE(q(p.preemption.plugin), QString("none"));
    QCOMPARE(p.preemption.reclaimBorrowed, false);
    QCOMPARE(p.preemption.withinGuarantee, true);
    QCOMPARE(p.preemption.maxAttemptsPerCycle, 3);
  }

  void backfillSection() {
    const Policy p = mustLoad(R"(version: 1
backfill:
  plugin: none
  window: 2h
  resolution: 90s
  depth: 7
  time_budget_ms: 12.5
  interval: 10m
)");
    QCOMPARE(q(p.backfill.plugin), QString("none"));
    QCOMPARE(p.backfill.window, Seconds{7200});
    QCOMPARE(p.backfill.resolution, Seconds{90});
    QCOMPARE(p.backfill.depth, 7);
    QCOMPARE(p.backfill.timeBudgetMs, 12.5);
    QCOMPARE(p.backfill.interval, Seconds{600});
  }

  void migInstances() {
    QCOMPARE(mustLoad("version: 1\n").mig.createInstances, true);
    const Policy fixed = mustLoad("version: 1\nmig: {create_instances: false}\n");
    QCOMPARE(fixed.mig.createInstances, false);
    QVERIFY(writePolicy(fixed).find("mig: {create_instances: false}") != std::string::npos);
    QCOMPARE(mustLoad(writePolicy(fixed)).mig.createInstances, false);
    const Error e = mustFail("version: 1\nmig: {create: false}\n");
    QCOMPARE(q(e.where.field), QString("mig.create"));
  }

  void fairShareAndInvariants() {
    const Policy p = mustLoad(R"(version: 1
fair_share: {half_life: 1d}
check_invariants: true
)");
    QCOMPARE(p.fairShare.halfLife, Seconds{86400});
    QCOMPARE(p.checkInvariants, true);
    // Plain seconds are a duration too.
    QCOMPARE(mustLoad("version: 1\nfair_share: {half_life: 600}\n").fairShare.halfLife,
             Seconds{600});
  }

  void unknownTopLevelKey() {
    const Error e = mustFail("version: 1\nbogus: 3\n");
    QCOMPARE(q(e.where.file), QString("policy.yaml"));
    QCOMPARE(e.where.line, 2);
    QCOMPARE(e.where.column, 1);
    QCOMPARE(q(e.where.field), QString("bogus"));
    QVERIFY2(q(e.message).contains("unknown field 'bogus'"), e.message.c_str());
    QVERIFY2(q(e.message).contains("queue_order"), e.message.c_str());  // lists what is allowed
    QVERIFY2(q(e.str()).startsWith("policy.yaml:2:1: bogus: "), e.str().c_str());
  }

  void unknownNestedKey() {
    // "preemption: {plugin: none, retries: 2}": the key starts in column 28.
    const Error e = mustFail("version: 1\npreemption: {plugin: none, retries: 2}\n");
    QCOMPARE(e.where.line, 2);
    QCOMPARE(e.where.column, 28);
    QCOMPARE(q(e.where.field), QString("preemption.retries"));
    QVERIFY2(q(e.message).contains("unknown field 'retries'"), e.message.c_str());
  }

  void unknownPluginNamesListKnownOnes() {
    // A queue order plugin, by its list position.
    Error e = mustFail("version: 1\nqueue_order: [priority, bogus]\n");
    QCOMPARE(e.where.line, 2);
    QCOMPARE(e.where.column, 25);
    QCOMPARE(q(e.where.field), QString("queue_order[1]"));
    QCOMPARE(q(e.message),
             QString("unknown queue_order plugin 'bogus' (known: drf, fair-share, operator-order, "
                     "priority, submit-time)"));
    // A score plugin, on its name field.
    e = mustFail("version: 1\nscore:\n  - {name: binpak, weight: 2}\n");
    QCOMPARE(e.where.line, 3);
    QCOMPARE(e.where.column, 12);
    QCOMPARE(q(e.where.field), QString("score[0].name"));
    QCOMPARE(q(e.message), QString("unknown score plugin 'binpak' (known: binpack, fgd, fgd-reach, "
                                   "fraction-pack, mig-fit, spread, topology)"));
    // Preemption and backfill plugins.
    e = mustFail("version: 1\npreemption:\n  plugin: greedy\n");
    QCOMPARE(e.where.line, 3);
    QCOMPARE(e.where.column, 11);
    QCOMPARE(q(e.where.field), QString("preemption.plugin"));
    QCOMPARE(q(e.message), QString("unknown preemption plugin 'greedy' (known: checkpoint-aware)"));
    e = mustFail("version: 1\nbackfill: {plugin: easy}\n");
    QCOMPARE(q(e.where.field), QString("backfill.plugin"));
    QCOMPARE(q(e.message), QString("unknown backfill plugin 'easy' (known: reservations)"));
    // A plugin of another extension point is unknown here.
    e = mustFail("version: 1\nadmission: [hold, binpack]\n");
    QCOMPARE(q(e.where.field), QString("admission[1]"));
    QCOMPARE(q(e.message), QString("unknown admission plugin 'binpack' (known: hold, quota)"));
  }

  void negativeWeight() {
    // "  - {name: spread, weight: -1}": the value starts in column 28.
    const Error e = mustFail("version: 1\nscore:\n  - {name: spread, weight: -1}\n");
    QCOMPARE(q(e.where.file), QString("policy.yaml"));
    QCOMPARE(e.where.line, 3);
    QCOMPARE(e.where.column, 28);
    QCOMPARE(q(e.where.field), QString("score[0].weight"));
    QCOMPARE(q(e.message), QString("weight must be between 0 and 1000000"));
  }

  void badDuration() {
    Error e = mustFail("version: 1\nbackfill:\n  window: 5x\n");
    QCOMPARE(e.where.line, 3);
    QCOMPARE(e.where.column, 11);
    QCOMPARE(q(e.where.field), QString("backfill.window"));
    QVERIFY2(q(e.message).startsWith("bad duration '5x'"), e.message.c_str());
    e = mustFail("version: 1\nfair_share: {half_life: soon}\n");
    QCOMPARE(e.where.line, 2);
    QCOMPARE(e.where.column, 25);
    QCOMPARE(q(e.where.field), QString("fair_share.half_life"));
    QVERIFY2(q(e.message).startsWith("bad duration 'soon'"), e.message.c_str());
    // A well-formed but zero duration is refused too.
    e = mustFail("version: 1\nbackfill: {resolution: 0}\n");
    QCOMPARE(q(e.where.field), QString("backfill.resolution"));
    QCOMPARE(q(e.message), QString("resolution must be positive"));
  }

  void versionMustBeOne() {
    const Error e = mustFail("# a comment\nversion: 2\n");
    QCOMPARE(e.where.line, 2);
    QCOMPARE(e.where.column, 10);
    QCOMPARE(q(e.where.field), QString("version"));
    QCOMPARE(q(e.message), QString("unsupported policy version 2"));
    // Missing altogether.
    const Error m = mustFail("queue_order: [priority]\n");
    QVERIFY2(q(m.message).contains("missing required field 'version'"), m.message.c_str());
  }

  void emptyDocument() {
    for (const char* text : {"", "# only a comment\n"}) {
      const Error e = mustFail(text);
      QCOMPARE(q(e.where.file), QString("policy.yaml"));
      QVERIFY2(q(e.message).contains("the policy is empty"), e.message.c_str());
    }
  }

  void otherValueErrors() {
    Error e = mustFail("version: 1\npreemption: {max_attempts_per_cycle: -1}\n");
    QCOMPARE(q(e.where.field), QString("preemption.max_attempts_per_cycle"));
    e = mustFail("version: 1\ncheck_invariants: maybe\n");
    QCOMPARE(q(e.where.field), QString("check_invariants"));
    QVERIFY2(q(e.message).contains("expected true or false"), e.message.c_str());
    e = mustFail("version: 1\nbackfill: {time_budget_ms: 0}\n");
    QCOMPARE(q(e.where.field), QString("backfill.time_budget_ms"));
  }

  // Operator holds, pins and reservations cannot be switched off by a policy; names appear once.
  void requiredAndRepeatedPlugins() {
    Error e = mustFail("version: 1\nadmission: [quota]\n");
    QCOMPARE(q(e.where.field), QString("admission"));
    QVERIFY2(q(e.message).contains("must include 'hold'"), e.message.c_str());
    e = mustFail("version: 1\nfilter: [pin]\n");
    QVERIFY2(q(e.message).contains("must include 'reservations'"), e.message.c_str());
    e = mustFail("version: 1\nfilter: [reservations]\n");
    QVERIFY2(q(e.message).contains("must include 'pin'"), e.message.c_str());
    e = mustFail("version: 1\nqueue_order: [priority, drf, priority]\n");
    QCOMPARE(q(e.where.field), QString("queue_order[2]"));
    QVERIFY2(q(e.message).contains("'priority' twice"), e.message.c_str());
    e = mustFail("version: 1\nscore:\n  - {name: fgd}\n  - {name: fgd, weight: 2}\n");
    QCOMPARE(q(e.where.field), QString("score[1].name"));
  }

  void writeRoundTripsDefaults() {
    const Policy p;
    const std::string text = writePolicy(p);
    auto back = loadPolicy(text, "written.yaml");
    QVERIFY2(back, back ? "" : (back.error().str() + "\n" + text).c_str());
    comparePolicies(*back, p);
  }

  void writeRoundTripsEverySection() {
    Policy p;
    p.queueOrder = {"drf", "priority", "submit-time"};
    p.admission = {"quota", "hold"};
    p.filter = {"pin", "reservations"};
    p.score = {{"topology", 2.5}, {"fgd", 0.25}, {"spread", 0}};
    p.permit = {};
    p.preemption = {"none", false, true, 3};
    p.backfill = {"none", 7200, 90, 7, 12.5, 600};
    p.fairShare.halfLife = 3600;
    p.checkInvariants = true;
    const std::string text = writePolicy(p);
    auto back = loadPolicy(text, "written.yaml");
    QVERIFY2(back, back ? "" : (back.error().str() + "\n" + text).c_str());
    comparePolicies(*back, p);
    // And the written text is stable: writing the loaded policy again gives the same text.
    QCOMPARE(q(writePolicy(*back)), q(text));
  }

  void writeRoundTripsAnEmptyScoreList() {
    Policy p;
    p.score.clear();
    auto back = loadPolicy(writePolicy(p), "written.yaml");
    QVERIFY2(back, back ? "" : back.error().str().c_str());
    QCOMPARE(back->score.size(), size_t{0});
  }

  // Values an operator may type (and loadPolicy accepts) must survive writePolicy exactly.
  void writeRoundTripsPreciseNumbers() {
    const Policy p = mustLoad(R"(version: 1
score:
  - {name: binpack, weight: 123456.7}
backfill: {time_budget_ms: 1234.5678}
)");
    QCOMPARE(p.score[0].weight, 123456.7);
    QCOMPARE(p.backfill.timeBudgetMs, 1234.5678);
    auto back = loadPolicy(writePolicy(p), "written.yaml");
    QVERIFY(back);
    QVERIFY(back->score[0].weight == p.score[0].weight);
    QVERIFY(back->backfill.timeBudgetMs == p.backfill.timeBudgetMs);
  }

  void registryNames() {
    const auto& r = PluginRegistry::builtin();
    QCOMPARE(r.names("score"), (Names{"binpack", "fgd", "fgd-reach", "fraction-pack", "mig-fit",
                                      "spread", "topology"}));
    QCOMPARE(r.names("preemption"), Names{"checkpoint-aware"});
    QCOMPARE(r.names("no-such-point"), Names{});
    QVERIFY(r.has("queue_order", "drf"));
    QVERIFY(!r.has("queue_order", "binpack"));
    QVERIFY(r.has("permit", "quota"));
  }

  void instantiateDefaults() {
    auto set = PluginRegistry::builtin().instantiate(Policy{});
    QVERIFY2(set, set ? "" : set.error().str().c_str());
    QCOMPARE(set->queueOrder.size(), size_t{4});
    QCOMPARE(set->admission.size(), size_t{2});
    QCOMPARE(q(set->admission[0].first), QString("hold"));
    QCOMPARE(q(set->admission[1].first), QString("quota"));
    QCOMPARE(set->filter.size(), size_t{2});
    QCOMPARE(set->score.size(), size_t{1});
    QCOMPARE(set->score[0].second, 1.0);
    QCOMPARE(set->permit.size(), size_t{1});
    QCOMPARE(q(set->permit[0].first), QString("quota"));
    QVERIFY(set->preemption != nullptr);
    QVERIFY(set->backfill != nullptr);
  }

  void instantiateCustom() {
    Policy p;
    p.queueOrder = {"submit-time"};
    p.admission = {};
    p.filter = {"pin"};
    p.score = {{"binpack", 0}, {"spread", 2}, {"topology", 0.5}};  // weight 0 is left out
    p.permit = {};
    p.preemption.plugin = "none";
    p.backfill.plugin = "none";
    auto set = PluginRegistry::builtin().instantiate(p);
    QVERIFY2(set, set ? "" : set.error().str().c_str());
    QCOMPARE(set->queueOrder.size(), size_t{1});
    QCOMPARE(set->admission.size(), size_t{0});
    QCOMPARE(set->filter.size(), size_t{1});
    QCOMPARE(set->score.size(), size_t{2});
    QCOMPARE(set->score[0].second, 2.0);
    QCOMPARE(set->score[1].second, 0.5);
    QCOMPARE(set->permit.size(), size_t{0});
    QVERIFY(set->preemption == nullptr);
    QVERIFY(set->backfill == nullptr);
  }

  void instantiateFailsOnUnknownNames() {
    const auto& r = PluginRegistry::builtin();
    struct Case {
      const char* point;
      std::function<void(Policy&)> spoil;
    };
    const std::vector<Case> cases{
        {"queue_order", [](Policy& p) { p.queueOrder.push_back("bogus"); }},
        {"admission", [](Policy& p) { p.admission = {"bogus"}; }},
        {"filter",
         [](Policy& p) {
           p.filter = {"pin", "bogus"};
         }},
        {"score",
         [](Policy& p) {
           p.score.push_back({"bogus", 1});
         }},
        {"permit", [](Policy& p) { p.permit = {"bogus"}; }},
        {"preemption", [](Policy& p) { p.preemption.plugin = "bogus"; }},
        {"backfill", [](Policy& p) { p.backfill.plugin = "bogus"; }},
    };
    for (const auto& c : cases) {
      Policy p;
      c.spoil(p);
      auto set = r.instantiate(p);
      QVERIFY2(!set, c.point);
      QCOMPARE(q(set.error().message),
               QString("policy: unknown %1 plugin 'bogus'").arg(QString(c.point)));
    }
  }
};

QTEST_APPLESS_MAIN(TstPolicy)
#include "tst_policy.moc"
