// Golden screens of the terminal console's screen model: the fixed demo snapshot (tui_fixture.h)
// rendered at 80x24, 120x40 and 200x60 in each main view (and the heatmap in each layer), compared
// with the text and colour roles stored in tests/data/tui/. A difference fails with the first
// differing line. After an intended change, regenerate with TESSERA_UPDATE_GOLDEN=1 (the test then
// writes the files and passes; read `git diff tests/data/tui` before committing them).
#include <QDir>
#include <QFile>
#include <QTranslator>
#include <QtTest>

#include "../service/mps_fixture.h"
#include "tui/controller.h"
#include "tui/render.h"
#include "tui/rows.h"
#include "tui_fixture.h"

using namespace tessera;
using namespace tessera::tui;

namespace {

const QString kGoldenDir = QStringLiteral(TESSERA_TEST_DATA "/tui");

QString firstDifference(const QString& want, const QString& got) {
  const QStringList a = want.split('\n'), b = got.split('\n');
  for (qsizetype i = 0; i < std::max(a.size(), b.size()); ++i) {
    const QString x = i < a.size() ? a[i] : QString(), y = i < b.size() ? b[i] : QString();
    if (x != y) return QStringLiteral("line %1:\n  want |%2|\n  got  |%3|").arg(i + 1).arg(x, y);
  }
  return {};
}

void compareGolden(const QString& name, const std::string& dump) {
  const QString path = kGoldenDir + "/" + name + ".txt";
  const QString got = QString::fromStdString(dump);
  if (qEnvironmentVariableIsSet("TESSERA_UPDATE_GOLDEN")) {
    QDir().mkpath(kGoldenDir);
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(got.toUtf8());
    return;
  }
  QFile f(path);
  QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(path + " is missing (TESSERA_UPDATE_GOLDEN=1)"));
  const QString want = QString::fromUtf8(f.readAll());
  QVERIFY2(want == got, qPrintable(name + ": " + firstDifference(want, got)));
}

}  // namespace

class TstTuiGolden : public QObject {
  Q_OBJECT
  std::unique_ptr<test::TuiDemo> demo_;

  State stateIn(View v) {
    State s = demo_->state;
    s.ui.stack = {v};
    return s;
  }

 private slots:
  void initTestCase() { demo_ = std::make_unique<test::TuiDemo>(); }

  void screens_data() {
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    for (const auto& [w, h] : {std::pair{80, 24}, {120, 40}, {200, 60}})
      QTest::addRow("%dx%d", w, h) << w << h;
  }

  // Each main view at each size.
  void screens() {
    QFETCH(int, width);
    QFETCH(int, height);
    const QString size = QStringLiteral("%1x%2").arg(width).arg(height);
    for (View v : {View::Jobs, View::Pending, View::Running, View::Nodes, View::Gpus, View::Mig,
                   View::Teams})
      compareGolden(QString::fromLatin1(viewCommand(v)) + "-" + size,
                    render(stateIn(v), width, height).dump());
    // The drill-downs: the first pending job with its explanation, a busy node.
    State job = stateIn(View::Pending);
    job.ui.detailJob = demo_->pendingJob();
    job.ui.stack.push_back(View::JobDetail);
    demo_->explain(job.ui.detailJob);
    job.data = demo_->state.data;
    compareGolden("job-" + size, render(job, width, height).dump());
    State node = stateIn(View::Nodes);
    node.ui.detailNode = "inf-05";
    node.ui.stack.push_back(View::NodeDetail);
    compareGolden("node-" + size, render(node, width, height).dump());
  }

  // MPS (mps_fixture.h): a GPU row gives each server's clients of the limit and active threads
  // of the budget, and each client's limits; the job detail the variables its server enforces.
  void mpsScreens() {
    test::TuiDemo mps(test::useMpsCluster, test::mpsWorkload());
    State node = mps.state;
    node.ui.stack = {View::Nodes, View::NodeDetail};
    for (const char* name : {"p1", "m1"}) {
      node.ui.detailNode = name;
      compareGolden(QStringLiteral("mps-node-%1-200x24").arg(name), render(node, 200, 24).dump());
    }
    // Under node_sharing: one the GPU's own server says so ("1/node").
    test::TuiDemo one(test::useMpsClusterOneSharing, test::mpsWorkload());
    State oneNode = one.state;
    oneNode.ui.stack = {View::Nodes, View::NodeDetail};
    oneNode.ui.detailNode = "p1";
    compareGolden(QStringLiteral("mps-node-p1-one-sharing-200x24"),
                  render(oneNode, 200, 24).dump());
    JobId pinned24 = kNoJob;  // the job pinning 24 GiB (ids are the backend's)
    for (const JobInfo& j : mps.state.data.jobs)
      if (j.row.job.perTask.vramMiB == 24576) pinned24 = j.row.job.id;
    mps.explain(pinned24);
    State job = mps.state;
    job.ui.stack = {View::Running, View::JobDetail};
    job.ui.detailJob = pinned24;
    compareGolden("mps-job-120x24", render(job, 120, 24).dump());
  }

  // Nodes that announced themselves and wait for an admin, and the warnings of the nodes' last
  // reports, at the foot of the Nodes view with the command that admits a node.
  void nodesAwaitingAdmission() {
    test::TuiDemo demo;  // its own: the shared one's history grows with the other cases
    State s = demo.state;
    s.ui.stack = {View::Nodes};
    NodeInventoryView pending;
    pending.node = pending.hostname = "gpu-new";
    pending.admission = Admission::Pending;
    pending.gpus = 2;
    pending.warnings = {"GPU 1: the catalog's MIG profile 1g.10gb has 9 placements, NVML 8"};
    NodeInventoryView warned;
    warned.node = warned.hostname = "pod-a-03";
    warned.gpus = 8;
    warned.warnings = {
        "pod-a-03/0 is A100-SXM4-80GB on the node but H100-SXM5-80GB in the "
        "cluster model",
        "pod-a-03 reports GPU 8, which the cluster model lacks (it has 8)"};
    NodeInventoryView quiet;  // in the model with nothing to say: not listed
    quiet.node = quiet.hostname = "pod-a-01";
    quiet.gpus = 8;
    s.data.inventory = {quiet, warned, pending};
    compareGolden("nodes-admission-120x40", render(s, 120, 40).dump());
    compareGolden("nodes-admission-80x24", render(s, 80, 24).dump());
  }

  // A job's detail refreshes with the brief explanation (it never waits behind a cycle) and keeps
  // the last whole answer's node breakdown and advice; the whole explanation comes again when the
  // verdict changes or after Feed::kWholeExplainEvery.
  void theJobDetailRefreshesBriefly() {
    test::TuiDemo demo;
    const JobId id = demo.pendingJob();
    demo.explain(id);
    const Explanation whole = *demo.state.data.explanation;
    const auto wholeAt = demo.state.data.explainedWhole;
    QVERIFY(!whole.nodeSummary.empty());
    demo.explain(id);
    QCOMPARE(demo.state.data.explainedWhole, wholeAt);  // a brief refresh
    QCOMPARE(demo.state.data.explanation->nodeSummary.english(), whole.nodeSummary.english());
    QCOMPARE(demo.state.data.explanation->dominantReason.english(), whole.dominantReason.english());
    QCOMPARE(demo.state.data.explanation->counterfactuals.size(), whole.counterfactuals.size());
    // Ten seconds on, the whole explanation again.
    demo.state.data.explainedWhole -= tui::Feed::kWholeExplainEvery;
    demo.explain(id);
    QVERIFY(demo.state.data.explainedWhole > wholeAt - tui::Feed::kWholeExplainEvery);
    // An operator holds the job: its verdict changed, so the next refresh is whole again.
    const auto before = demo.state.data.explainedWhole;
    test::ok(test::await<CommandResult>(
        [&](auto r) { demo.backend->act(cmd::Hold{id}, false, Caller{"op"}, std::nullopt, r); }));
    test::ok(test::await<CycleStats>([&](auto r) { demo.backend->cycleNow(r); }));
    demo.explain(id);
    QVERIFY(demo.state.data.explainedWhole > before);
    QVERIFY(demo.state.data.explanation->dominantReason.english().find("held") !=
            std::string::npos);
  }

  // Every heatmap layer (MIG GPUs are slice bars in each), and a GPU selected with the arrows.
  void heatmapLayers() {
    for (int l = 0; l < kHeatLayerCount; ++l) {
      State s = stateIn(View::Gpus);
      s.ui.layer = static_cast<HeatLayer>(l);
      compareGolden(QStringLiteral("gpus-%1-120x40").arg(heatLayerName(s.ui.layer)),
                    render(s, 120, 40).dump());
    }
    State s = stateIn(View::Gpus);
    s.ui.width = 120;
    for (char32_t key : {kKeyDown, kKeyDown, kKeyRight, kKeyRight, kKeyRight}) onKey(s, key);
    compareGolden("gpus-selected-120x40", render(s, 120, 40).dump());
  }

  // LANG=C / TERM=vt100: the same screens in ASCII, nothing above 0x7f.
  void asciiScreens() {
    for (View v : {View::Jobs, View::Gpus, View::Mig}) {
      State s = stateIn(v);
      s.glyphs = &asciiGlyphs();
      const std::string dump = render(s, 80, 24).dump();
      for (char c : dump) QVERIFY2(static_cast<unsigned char>(c) < 0x80, viewCommand(v));
      compareGolden(QStringLiteral("ascii-%1-80x24").arg(viewCommand(v)), dump);
    }
  }

  // German and Simplified Chinese from the desktop's catalogues; Chinese column titles are wide
  // characters, so the columns must still line up by display width.
  void translatedScreens() {
    for (const char* lang : {"de", "zh_CN"}) {
      QTranslator t;
      QVERIFY(t.load(QStringLiteral(TESSERA_TEST_QM_DIR "/tessera_%1.qm").arg(lang)));
      QVERIFY(QCoreApplication::installTranslator(&t));
      for (View v : {View::Pending, View::Gpus})
        compareGolden(QStringLiteral("%1-%2-80x24").arg(lang, viewCommand(v)),
                      render(stateIn(v), 80, 24).dump());
      QCoreApplication::removeTranslator(&t);
    }
    const std::string english = render(stateIn(View::Pending), 80, 24).dump(false);
    QVERIFY(english.find("<Pending>") != std::string::npos);
  }

  // The confirmation shows the engine's dry-run answer for a hold.
  void confirmation() {
    State s = stateIn(View::Pending);
    const JobId job = demo_->pendingJob();
    const auto rows = visibleJobs(s);
    for (size_t i = 0; i < rows.size(); ++i)
      if (rows[i]->row.job.id == job) s.ui.selected = static_cast<int>(i);
    const auto requests = onKey(s, U'h');
    QCOMPARE(requests.size(), size_t{1});
    QCOMPARE(requests[0].kind, Request::Kind::DryRun);
    showDryRun(s, requests[0].command, demo_->feed->act(requests[0].command, true));
    compareGolden("confirm-hold-80x24", render(s, 80, 24).dump());
  }
};

QTEST_GUILESS_MAIN(TstTuiGolden)
#include "tst_tui_golden.moc"
