// The engine's sentences in the operator's language: the console translates a Text's template
// under "tessera::text" and fills in its arguments, each shown the same way; literals and
// templates it does not know stay as they are. Checked with the shipped German catalogue
// (compiled from translations/tessera_de.ts for this test).
#include <QLabel>
#include <QListWidget>
#include <QSignalSpy>
#include <QTranslator>
#include <QtTest>

#include "core/engine_text.h"
#include "engine_text.h"
#include "heatmap_widget.h"
#include "job_inspector.h"
#include "job_table_model.h"
#include "mig_editor.h"
#include "scheduler/events.h"
#include "scheduler/explain.h"
#include "workload/job.h"

using namespace tessera;
using namespace tessera::widgets;

namespace {

QString de(const char* pattern) {
  return QCoreApplication::translate(kEngineTextContext, pattern);
}

}  // namespace

class TstEngineText : public QObject {
  Q_OBJECT

  QTranslator german_;

 private slots:
  void initTestCase() {
    QVERIFY2(german_.load(QStringLiteral(TESSERA_TEST_QM_DIR "/tessera_de.qm")),
             TESSERA_TEST_QM_DIR "/tessera_de.qm");
    QVERIFY(QCoreApplication::installTranslator(&german_));
    // The catalogue is compiled in (tst_translations checks that every template is translated).
    QVERIFY(de(text::kHeld) != QLatin1String(text::kHeld));
    QVERIFY(de(text::kNoNodeHosts) != QLatin1String(text::kNoNodeHosts));
  }

  void templateTranslatedArgumentsFilled() {
    QCOMPARE(displayText(phrase(text::kHeld)), de(text::kHeld));
    QCOMPARE(displayText(phrase(text::kNotPending, 7)),
             de(text::kNotPending).replace(QLatin1String("%1"), QLatin1String("7")));
  }

  // Nested sentences are translated part by part, then put together.
  void nestedSentences() {
    const Text summary =
        phrase(text::kClauses, phrase(text::kNodesFit, 0, 62),
               listText({phrase(text::kNodesRejected, 40, phrase(text::kRejectGpus)),
                         phrase(text::kNodesRejected, 22, phrase(text::kRejectPool))}));
    auto fill = [](QString p, const QStringList& args) {
      for (int i = 0; i < args.size(); ++i) p.replace(QStringLiteral("%%1").arg(i + 1), args[i]);
      return p;
    };
    const QString fit = fill(de(text::kNodesFit), {"0", "62"});
    const QString gpus = fill(de(text::kNodesRejected), {"40", de(text::kRejectGpus)});
    const QString pool = fill(de(text::kNodesRejected), {"22", de(text::kRejectPool)});
    const QString want =
        fill(de(text::kNoNodeHosts),
             {fill(de(text::kClauses), {fit, fill(de(text::kPair), {gpus, pool})})});
    QCOMPARE(displayText(phrase(text::kNoNodeHosts, summary)), want);
    QVERIFY(!want.contains(QLatin1String("not enough free GPUs")));
  }

  // Names and an operator's words are never translated, even when they happen to be a template's
  // English; a template the catalogue does not know (a newer tesserad) shows in English.
  void literalsAndUnknownTemplates() {
    QCOMPARE(displayText(literal(text::kHeld)), QString::fromLatin1(text::kHeld));
    QCOMPARE(displayText(phrase(text::kDidDrainWhy, "pod-a-02", "held by an operator")),
             de(text::kDidDrainWhy)
                 .replace(QLatin1String("%1"), QLatin1String("pod-a-02"))
                 .replace(QLatin1String("%2"), QLatin1String("held by an operator")));
    QCOMPARE(displayText(Text::pattern("brand new %1 sentence", {phrase(text::kHeld)})),
             QStringLiteral("brand new %1 sentence").arg(de(text::kHeld)));
    // An argument holding "%2" is not expanded again.
    const QString shown = displayText(phrase(text::kDoRepartition, "a%2", "b"));
    QVERIFY2(shown.contains(QLatin1String("a%2")) && !shown.contains(QLatin1String("ab")),
             qPrintable(shown));
  }

  // The queue's reason column and the inspector show the engine's words in German.
  void queueAndInspectorTranslate() {
    JobTableModel model;
    JobInfo held;
    held.row.job.id = 4;
    held.row.job.team = "vision";
    held.row.state = JobState::Pending;
    held.row.reason = phrase(text::kHeld);
    JobInfo older = held;  // from a tesserad that sends English only
    older.row.job.id = 5;
    older.row.reason = literal(text::kHeld);
    model.setJobs({held, older}, 100);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(0, JobTableModel::Reason).data().toString(), de(text::kHeld));
    QCOMPARE(model.index(1, JobTableModel::Reason).data().toString(),
             QString::fromLatin1(text::kHeld));

    JobInspector inspector;
    Explanation x;
    x.job = 4;
    x.state = JobState::Pending;
    x.dominantReason = phrase(text::kHeld);
    x.counterfactuals = {{Counterfactual::Kind::Release, phrase(text::kCfRelease)}};
    inspector.setExplanation(x);
    QCOMPARE(inspector.findChild<QLabel*>(QStringLiteral("reason"))->text(), de(text::kHeld));
    QVERIFY(inspector.findChild<QLabel*>(QStringLiteral("suggestions"))
                ->text()
                .contains(de(text::kCfRelease).toHtmlEscaped()));
  }

  // A job's history: each event line (time, kind, reason) in German, built from the engine's own
  // events; a line from an English-only server stays as it came.
  void historyTranslates() {
    Event held;
    held.time = 120;
    held.kind = EventKind::Held;
    held.reason = phrase(text::kHeldBy, "alice");
    Event started;
    started.time = 300;
    started.kind = EventKind::Started;
    started.reason = phrase(text::kStartedOn, phrase(text::kGpuOfNode, "pod-a-02", "0,1"),
                            phrase(text::kLevelNode));
    Explanation x;
    x.job = 4;
    x.state = JobState::Running;
    x.history = {historyLine(held), historyLine(started), literal("t=400 requeued: as sent")};
    JobInspector inspector;
    inspector.setExplanation(x);
    auto* list = inspector.findChild<QListWidget*>(QStringLiteral("history"));
    QVERIFY(list);
    QCOMPARE(list->count(), 3);
    auto fill = [](QString p, const QStringList& args) {
      for (int i = 0; i < args.size(); ++i) p.replace(QStringLiteral("%%1").arg(i + 1), args[i]);
      return p;
    };
    const QString heldLine = fill(de(text::kHistoryLine),
                                  {"120", de(text::kEvHeld), fill(de(text::kHeldBy), {"alice"})});
    QCOMPARE(list->item(0)->text(), heldLine);
    const QString where =
        fill(de(text::kStartedOn),
             {fill(de(text::kGpuOfNode), {"pod-a-02", "0,1"}), de(text::kLevelNode)});
    QCOMPARE(list->item(1)->text(),
             fill(de(text::kHistoryLine), {"300", de(text::kEvStarted), where}));
    QVERIFY(list->item(1)->text() != QString::fromStdString(x.history[1].english()));
    QCOMPARE(list->item(2)->text(), QStringLiteral("t=400 requeued: as sent"));
  }

  // The MIG editor refuses a layout the planner cannot build with the planner's reason, in
  // German: 7g.80gb and 1g.10gb need 9 of the A100's 8 memory slices.
  void migEditorRefusalTranslates() {
    GpuView gpu;
    gpu.model = "A100-SXM4-80GB";
    gpu.sharing = "mig";
    MigEditor editor;
    QVERIFY(editor.setGpu(gpu, QStringLiteral("n1/0")));
    QSignalSpy refused(&editor, &MigEditor::refused);
    QVERIFY(!editor.setInitialLayout(QStringLiteral("7g.80gb,1g.10gb")));
    QCOMPARE(refused.count(), 1);
    const QString inner = de(text::kMigNeedsMemory)
                              .replace(QLatin1String("%1"), QLatin1String("9"))
                              .replace(QLatin1String("%2"), QLatin1String("A100-SXM4-80GB"))
                              .replace(QLatin1String("%3"), QLatin1String("8"));
    QCOMPARE(refused.at(0).at(0).toString(),
             QString(de(text::kMigImpossible)).replace(QLatin1String("%1"), inner));
  }

  // Why a node is out, in the heatmap's tooltip: a fault's reason is a sentence and reads in
  // German; an operator's own words stay as written.
  void nodeReasonTranslates() {
    ClusterSnapshot s;
    for (const char* name : {"n1", "n2"}) {
      NodeView n;
      n.name = name;
      n.state = "draining";
      n.leaf = "leaf-a";
      GpuView g;
      g.model = "H100-SXM5-80GB";
      g.sharing = "exclusive";
      n.gpus.push_back(g);
      s.nodes.push_back(n);
    }
    s.nodes[0].stateReason = phrase(text::kOutXid, 79, "n1/0");
    s.nodes[1].stateReason = literal("PSU swap, ticket 4711");
    HeatmapWidget w;
    w.setLegendVisible(false);
    w.resize(600, 400);
    w.setSnapshot(s);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.fitToView();
    auto headerTip = [&](const char* node) {
      const HeatmapLayout& l = w.heatmapLayout();
      const auto& box = l.nodes().at(static_cast<size_t>(l.nodeOf(QString::fromLatin1(node))));
      return w.toolTipAt(w.mapFromScene(box.header.center()));
    };
    const QString xid = de(text::kOutXid)
                            .replace(QLatin1String("%1"), QLatin1String("79"))
                            .replace(QLatin1String("%2"), QLatin1String("n1/0"));
    QVERIFY(xid != QLatin1String("Xid 79 on GPU n1/0"));
    QVERIFY2(headerTip("n1").contains(QLatin1Char('(') + xid + QLatin1Char(')')),
             qPrintable(headerTip("n1")));
    QVERIFY2(headerTip("n2").contains(QLatin1String("(PSU swap, ticket 4711)")),
             qPrintable(headerTip("n2")));
  }
};

QTEST_MAIN(TstEngineText)
#include "tst_engine_text.moc"
