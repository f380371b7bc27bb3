// Reservation book: maintenance windows block overlapping runs, team holds exempt their team,
// backfill holds exempt their job; the per-node index (touches) and version follow every change.
#include <QtTest>

#include "clusterspec/cluster_spec.h"
#include "scheduler/reservation.h"

using namespace tessera;

namespace {

std::shared_ptr<const Cluster> cluster() {
  static const std::shared_ptr<const Cluster> c = [] {
    auto loaded = loadClusterSpec(R"(version: 1
name: holds
node_templates:
  l4: {gpu_model: L4, gpus: 4}
fabric:
  leafs: [{name: leaf-1}]
nodes:
  - {name: n1, template: l4, leaf: leaf-1}
  - {name: n2, template: l4, leaf: leaf-1}
  - {name: n3, template: l4, leaf: leaf-1}
)",
                                  "holds.yaml");
    if (!loaded) qFatal("%s", loaded.error().str().c_str());
    return *loaded;
  }();
  return c;
}

GpuId gpu(const char* name) {
  const Gpu* g = cluster()->findGpu(name);
  if (!g) qFatal("no GPU %s", name);
  return g->id;
}

NodeId node(const char* name) {
  return cluster()->findNode(name)->id;
}

std::vector<GpuId> nodeGpus(const char* name) {
  const Node& n = *cluster()->findNode(name);
  std::vector<GpuId> out;
  for (int i = 0; i < n.gpuCount(); ++i) out.push_back(n.firstGpu + static_cast<GpuId>(i));
  return out;
}

Reservation maintenance(const char* id, std::vector<GpuId> gpus, Seconds from, Seconds until) {
  Reservation r;
  r.kind = Reservation::Kind::Maintenance;
  r.id = id;
  r.gpus = std::move(gpus);
  r.from = from;
  r.until = until;
  return r;
}

Reservation teamHold(const char* id, std::vector<GpuId> gpus, const char* team, Seconds from,
                     Seconds until) {
  Reservation r = maintenance(id, std::move(gpus), from, until);
  r.kind = Reservation::Kind::Team;
  r.team = team;
  return r;
}

Reservation backfillHold(JobId job, std::vector<GpuId> gpus, Seconds from, Seconds until) {
  Reservation r = maintenance("", std::move(gpus), from, until);
  r.kind = Reservation::Kind::Backfill;
  r.id = "bf-" + std::to_string(job);
  r.job = job;
  return r;
}

}  // namespace

class TstReservation : public QObject {
  Q_OBJECT

 private slots:
  void emptyBook() {
    const ReservationBook defaultBook;
    QVERIFY(defaultBook.empty());
    QVERIFY(!defaultBook.touches(0));
    const ReservationBook b(*cluster());
    QVERIFY(b.empty());
    QVERIFY(!b.touches(node("n1")));
    QVERIFY(b.usable(gpu("n1/0"), "vision", 1, 0, kForever));
    QCOMPARE(b.find("x"), nullptr);
  }

  // Maintenance on n1 over [100, 200): runs that overlap it may not use n1's GPUs.
  void maintenanceBlocksOverlappingRuns() {
    ReservationBook b(*cluster());
    b.add(maintenance("psu", nodeGpus("n1"), 100, 200));
    const GpuId g = gpu("n1/2");
    QVERIFY(!b.usable(g, "vision", 1, 50, 150));            // ends inside
    QVERIFY(!b.usable(g, "vision", 1, 150, 160));           // inside
    QVERIFY(!b.usable(g, "vision", 1, 150, 500));           // starts inside
    QVERIFY(!b.usable(g, "vision", 1, 0, kForever));        // no runtime estimate: runs across
    QVERIFY(!b.usable(g, "vision", 1, 99, 101));            // one second on each side
    QVERIFY(b.usable(g, "vision", 1, 0, 100));              // ends exactly when it begins
    QVERIFY(b.usable(g, "vision", 1, 10, 50));              // ends before `from`
    QVERIFY(b.usable(g, "vision", 1, 200, 300));            // starts when it ends
    QVERIFY(b.usable(gpu("n2/0"), "vision", 1, 150, 160));  // other nodes are free
    // Team and job do not matter for maintenance.
    QVERIFY(!b.usable(g, "psu", 0, 150, 160));
    const Reservation* r = b.blocking(g, "vision", 1, 150, 160);
    QVERIFY(r);
    QCOMPARE(QString::fromStdString(r->id), QString("psu"));
    QCOMPARE(b.blocking(g, "vision", 1, 0, 100), nullptr);
    QCOMPARE(b.find("psu"), r);
  }

  void teamHoldExemptsItsTeam() {
    ReservationBook b(*cluster());
    b.add(teamHold("vision-demo", {gpu("n2/0"), gpu("n2/1")}, "vision", 0, 1000));
    const GpuId g = gpu("n2/1");
    QVERIFY(b.usable(g, "vision", 1, 10, 500));
    QVERIFY(b.usable(g, "vision", 2, 0, kForever));
    QVERIFY(!b.usable(g, "nlp", 3, 10, 500));
    QVERIFY(b.usable(g, "nlp", 3, 1000, 2000));         // after the hold
    QVERIFY(b.usable(gpu("n2/2"), "nlp", 3, 10, 500));  // a GPU not held
    QCOMPARE(QString::fromStdString(b.blocking(g, "nlp", 3, 10, 500)->id), QString("vision-demo"));
  }

  void backfillHoldExemptsItsJob() {
    ReservationBook b(*cluster());
    b.add(backfillHold(7, nodeGpus("n3"), 300, 900));
    const GpuId g = gpu("n3/3");
    QVERIFY(b.usable(g, "vision", 7, 300, 900));
    QVERIFY(!b.usable(g, "vision", 8, 0, 301));  // same team, another job
    QVERIFY(b.usable(g, "vision", 8, 0, 300));   // ends before the reserved start: backfill
  }

  // A GPU under two holds: each exemption covers only its own hold.
  void overlappingHolds() {
    ReservationBook b(*cluster());
    b.add(teamHold("t", {gpu("n1/0")}, "vision", 0, 1000));
    b.add(backfillHold(7, {gpu("n1/0")}, 0, 1000));
    QVERIFY(!b.usable(gpu("n1/0"), "vision", 8, 0, 10));  // team ok, backfill hold blocks
    QVERIFY(!b.usable(gpu("n1/0"), "nlp", 7, 0, 10));     // backfill ok, team hold blocks
    QVERIFY(b.usable(gpu("n1/0"), "vision", 7, 0, 10));   // both exempt
  }

  void touchesPerNode() {
    ReservationBook b(*cluster());
    b.add(maintenance("a", {gpu("n1/0"), gpu("n3/3")}, 0, 100));
    QVERIFY(b.touches(node("n1")));
    QVERIFY(!b.touches(node("n2")));
    QVERIFY(b.touches(node("n3")));
  }

  void removeUpdatesTouchesAndVersion() {
    ReservationBook b(*cluster());
    const uint64_t v0 = b.version();
    b.add(maintenance("a", {gpu("n1/0")}, 0, 100));
    const uint64_t v1 = b.version();
    QVERIFY(v1 > v0);
    b.add(maintenance("b", {gpu("n1/0"), gpu("n2/1")}, 0, 100));
    const uint64_t v2 = b.version();
    QVERIFY(v2 > v1);
    QVERIFY(b.remove("b"));
    const uint64_t v3 = b.version();
    QVERIFY(v3 > v2);
    QVERIFY(b.touches(node("n1")));  // "a" still holds n1/0
    QVERIFY(!b.touches(node("n2")));
    QCOMPARE(b.find("b"), nullptr);
    QVERIFY(b.find("a"));
    QVERIFY(!b.usable(gpu("n1/0"), "x", 1, 0, 10));
    QVERIFY(b.usable(gpu("n2/1"), "x", 1, 0, 10));
    // Removing what is not there changes nothing.
    QVERIFY(!b.remove("b"));
    QCOMPARE(b.version(), v3);
    QVERIFY(b.remove("a"));
    QVERIFY(!b.touches(node("n1")));
    QVERIFY(b.empty());
    QVERIFY(b.version() > v3);
    QVERIFY(b.usable(gpu("n1/0"), "x", 1, 0, 10));
  }

  void clearBackfillKeepsOperatorHolds() {
    ReservationBook b(*cluster());
    b.add(maintenance("m", {gpu("n1/0")}, 0, 100));
    b.add(backfillHold(7, nodeGpus("n2"), 0, 100));
    b.add(backfillHold(8, {gpu("n3/0")}, 0, 100));
    const uint64_t v = b.version();
    b.clearBackfill();
    QVERIFY(b.version() > v);
    QCOMPARE(b.all().size(), size_t{1});
    QCOMPARE(QString::fromStdString(b.all()[0].id), QString("m"));
    QVERIFY(b.touches(node("n1")));
    QVERIFY(!b.touches(node("n2")));
    QVERIFY(!b.touches(node("n3")));
    QVERIFY(b.usable(gpu("n2/0"), "x", 1, 0, 10));
    // Nothing left to clear: the version stays.
    const uint64_t after = b.version();
    b.clearBackfill();
    QCOMPARE(b.version(), after);
  }

  void expireDropsEndedOperatorHolds() {
    ReservationBook b(*cluster());
    b.add(maintenance("early", {gpu("n1/0")}, 0, 100));
    b.add(teamHold("team", {gpu("n2/0")}, "vision", 0, 150));
    b.add(maintenance("late", {gpu("n3/0")}, 50, 500));
    b.add(backfillHold(7, {gpu("n2/1")}, 0, 100));  // backfill holds are not expired
    const uint64_t v0 = b.version();
    b.expire(99);  // nothing has ended yet
    QCOMPARE(b.version(), v0);
    QCOMPARE(b.all().size(), size_t{4});
    b.expire(100);  // "early" ends at 100
    QVERIFY(b.version() > v0);
    QCOMPARE(b.find("early"), nullptr);
    QVERIFY(!b.touches(node("n1")));
    QVERIFY(b.find("bf-7"));
    b.expire(150);
    QCOMPARE(b.find("team"), nullptr);
    QVERIFY(b.touches(node("n2")));  // still the backfill hold on n2/1
    QVERIFY(b.usable(gpu("n2/0"), "nlp", 1, 0, 10));
    QVERIFY(b.find("late"));
    QVERIFY(b.touches(node("n3")));
    QCOMPARE(b.all().size(), size_t{2});
    // The index after expiry still answers right for what is left.
    QVERIFY(!b.usable(gpu("n3/0"), "nlp", 1, 100, 200));
    QVERIFY(!b.usable(gpu("n2/1"), "nlp", 1, 0, 50));
  }

  void kindNames() {
    QCOMPARE(QString(reservationKindName(Reservation::Kind::Maintenance)), QString("maintenance"));
    QCOMPARE(QString(reservationKindName(Reservation::Kind::Team)), QString("team"));
    QCOMPARE(QString(reservationKindName(Reservation::Kind::Backfill)), QString("backfill"));
  }
};

QTEST_APPLESS_MAIN(TstReservation)
#include "tst_reservation.moc"
