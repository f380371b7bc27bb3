// The console's "Sharing study…" dialog, offscreen: the study runs on a worker thread while the
// GUI keeps processing events, and its result fills the table (an item model checked by
// QAbstractItemModelTester), the bar chart and the recommendation; a trace file is read by the
// CLI's reader (its errors shown, the dialog still usable); wait targets and slots are checked as
// the CLI checks them; Stop and closing the dialog cancel the study and join its thread; the
// recommendation shows in the console's language. The figures themselves are tested in
// tests/sim/tst_sharing_study.cpp.
#include <QAbstractItemModelTester>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QElapsedTimer>
#include <QPushButton>
#include <QSignalSpy>
#include <QTranslator>
#include <QtTest>

#include "clusterspec/cluster_spec.h"
#include "engine_text.h"
#include "sharing_study_dialog.h"
#include "sharing_study_model.h"
#include "sim/trace_file.h"

using namespace tessera;
using namespace tessera::widgets;

namespace {

std::shared_ptr<const Cluster> cluster() {
  auto c = loadClusterSpec(R"(version: 1
name: dialog
node_templates:
  a100: {gpu_model: A100-SXM4-80GB, gpus: 8, cpus: 64, memory_gib: 512}
fabric:
  leafs: [{name: leaf-1}]
groups:
  - {name: a, template: a100, count: 2, leaf: leaf-1}
)",
                           "dialog.yaml");
  if (!c) qFatal("%s", c.error().str().c_str());
  return *c;
}

const QString kTraces = QStringLiteral(TESSERA_TEST_DATA "/traces/");

// A study that runs for minutes (thousands of jobs on 16 GPUs, four modes, each searched):
// whatever ends it within seconds was the cancellation.
void startLongStudy(SharingStudyDialog& dialog) {
  dialog.setWorkload(5000, 120, 3);
  dialog.run();
  QVERIFY(dialog.running());
  QTest::qWait(300);  // under way: past synthesis, into the simulations
  QVERIFY(dialog.running());
}

}  // namespace

class TstSharingStudyDialog : public QObject {
  Q_OBJECT
 private slots:
  void runsOffTheGuiThreadAndFillsTableChartAndRecommendation() {
    SharingStudyDialog dialog(cluster());
    QAbstractItemModelTester tester(dialog.model(),
                                    QAbstractItemModelTester::FailureReportingMode::Fatal);
    QCOMPARE(dialog.model()->rowCount(), 0);
    dialog.setWorkload(60, 4, 4);
    QSignalSpy done(&dialog, &SharingStudyDialog::studyDone);
    dialog.run();
    QVERIFY(dialog.running());  // returned at once: the study runs elsewhere
    QVERIFY(done.wait(60000));
    QVERIFY(!dialog.running());
    SharingStudyModel* m = dialog.model();
    QCOMPARE(m->rowCount(), 4);
    QCOMPARE(m->columnCount(), SharingStudyModel::FirstWait + 2);  // inference, interactive
    QCOMPARE(m->index(3, SharingStudyModel::Mode).data().toString(), QStringLiteral("mig"));
    QCOMPARE(m->headerData(SharingStudyModel::FirstWait, Qt::Horizontal).toString(),
             QStringLiteral("Wait p95 inference (min)"));
    // The table shows the study's own figures.
    const ModeFigures& mps = m->study().modes[2];
    // Not every small job shared a GPU here, so a cell or bar showing the small jobs would differ.
    QVERIFY(mps.coLocatedJobs != mps.smallJobs);
    QCOMPARE(m->index(2, SharingStudyModel::CoLocated).data().toULongLong(),
             static_cast<qulonglong>(mps.coLocatedJobs));
    QCOMPARE(dialog.recommendation(), QString::fromStdString(m->study().recommendation));
    QVERIFY(!dialog.recommendation().isEmpty());
    const auto series = dialog.chart()->series();
    QCOMPARE(series.size(), 1);
    const auto sets = static_cast<QBarSeries*>(series.front())->barSets();
    QCOMPARE(sets.size(), 4);
    QCOMPARE(sets[2]->label(), QStringLiteral("mps"));
    QCOMPARE(sets[2]->at(2), double(mps.coLocatedJobs));
    // A second run replaces the first (the model resets under the tester).
    dialog.setWorkload(40, 30, 5);
    dialog.run();
    QVERIFY(done.wait(60000));
    QCOMPARE(done.count(), 2);
    QCOMPARE(dialog.chart()->series().size(), 1);
  }

  // A trace file, read by the CLI's reader (format detected, or named): the study runs on its jobs.
  void traceFileWorkload() {
    SharingStudyDialog dialog(cluster());
    QSignalSpy done(&dialog, &SharingStudyDialog::studyDone);
    const QString path = kTraces + QStringLiteral("openb-pods-small.csv");
    const auto trace = loadTraceFile(path.toStdString(), "");
    QVERIFY(bool(trace));
    for (const QString& format : {QString(), QStringLiteral("openb")}) {
      dialog.setTraceFile(path, format);
      dialog.run();
      QVERIFY(dialog.running());
      QVERIFY(done.wait(60000));
      QVERIFY2(dialog.traceError().isEmpty(), qPrintable(dialog.traceError()));
      QVERIFY2(dialog.status().isEmpty(), qPrintable(dialog.status()));
      QCOMPARE(dialog.model()->study().jobs, trace->jobs.size());
      QCOMPARE(dialog.model()->study().workload, trace->source);
    }
  }

  // A trace that does not load: the reader's error (file:line:column for a malformed row) under
  // the field, no crash, no study, and Run still works (here on the synthetic workload).
  void traceThatFailsShowsItsError() {
    SharingStudyDialog dialog(cluster());
    QSignalSpy done(&dialog, &SharingStudyDialog::studyDone);
    const QString bad = kTraces + QStringLiteral("openb-pods-malformed.csv");
    const std::string expected = loadTraceFile(bad.toStdString(), "").error().str();
    dialog.setTraceFile(bad);
    dialog.run();
    QVERIFY(done.wait(60000));
    QCOMPARE(dialog.traceError(), QString::fromStdString(expected));
    QVERIFY2(dialog.traceError().startsWith(bad + QStringLiteral(":3:9: cpu_milli: ")),
             qPrintable(dialog.traceError()));
    QCOMPARE(dialog.model()->rowCount(), 0);
    QVERIFY(!dialog.running());
    QVERIFY(dialog.runButton()->isEnabled());
    // A missing file and a format that does not match are the reader's errors too.
    dialog.setTraceFile(QStringLiteral("/nonexistent/trace.csv"));
    dialog.run();
    QVERIFY(done.wait(60000));
    QCOMPARE(dialog.traceError(), QStringLiteral("/nonexistent/trace.csv: cannot open file"));
    dialog.setTraceFile(kTraces + QStringLiteral("openb-pods-small.csv"), QStringLiteral("swf"));
    dialog.run();
    QVERIFY(done.wait(60000));
    QVERIFY(!dialog.traceError().isEmpty());
    // No file chosen: said at once, nothing starts.
    dialog.setTraceFile(QString());
    dialog.run();
    QVERIFY(!dialog.running());
    QVERIFY(!dialog.traceError().isEmpty());
    QVERIFY(dialog.runButton()->isEnabled());
    dialog.setWorkload(40, 30, 5);
    QVERIFY(dialog.traceError().isEmpty());
    dialog.runButton()->click();
    QVERIFY(dialog.running());
    QVERIFY(done.wait(60000));
    QCOMPARE(dialog.model()->rowCount(), 4);
  }

  // Wait targets and slots mean what --wait-target and --slots mean: a bad target shows the CLI's
  // error beside the field and starts nothing; good ones reach the study.
  void waitTargetsAndSlots() {
    SharingStudyDialog dialog(cluster());
    QSignalSpy done(&dialog, &SharingStudyDialog::studyDone);
    dialog.setWorkload(40, 30, 5);
    for (const char* bad : {"inference=-5m", "gaming=5m", "inference=5m soon"}) {
      dialog.setTargets(QString::fromUtf8(bad), 4);
      std::vector<std::string> texts;
      for (const QString& t : QString::fromUtf8(bad).split(QLatin1Char(' ')))
        texts.push_back(t.toStdString());
      dialog.run();
      QVERIFY(!dialog.running());
      QCOMPARE(dialog.targetsError(),
               QString::fromStdString(parseWaitTargets(texts).error().str()));
      QVERIFY(dialog.targetsError().startsWith(QStringLiteral("--wait-target: ")));
    }
    QCOMPARE(done.count(), 0);
    dialog.setTargets(QStringLiteral("inference=2m, batch=1h"), 8);
    dialog.run();
    QVERIFY(dialog.targetsError().isEmpty());
    QVERIFY(done.wait(60000));
    const SharingStudy& s = dialog.model()->study();
    const std::vector<WaitTarget> want{{WorkloadClass::Inference, 120},
                                       {WorkloadClass::Batch, 3600}};
    QCOMPARE(s.targets, want);
    QCOMPARE(s.timeSliceSlots, 8);
    QCOMPARE(dialog.model()->columnCount(), SharingStudyModel::FirstWait + 2);
    // Empty: the CLI's defaults.
    dialog.setTargets(QString(), 4);
    dialog.run();
    QVERIFY(done.wait(60000));
    QCOMPARE(dialog.model()->study().targets, defaultWaitTargets());
  }

  // Stop ends a long study within seconds: "stopped", no figures, and Run works again.
  void stopCancelsTheStudy() {
    SharingStudyDialog dialog(cluster());
    QSignalSpy done(&dialog, &SharingStudyDialog::studyDone);
    startLongStudy(dialog);
    QVERIFY(dialog.stopButton()->isEnabled());
    QVERIFY(!dialog.runButton()->isEnabled());
    QElapsedTimer timer;
    timer.start();
    dialog.stopButton()->click();
    QVERIFY(done.wait(15000));
    QVERIFY2(timer.elapsed() < 15000, qPrintable(QString::number(timer.elapsed())));
    QVERIFY(!dialog.running());
    QCOMPARE(dialog.status(), QStringLiteral("The study was stopped."));
    QCOMPARE(dialog.model()->rowCount(), 0);
    QVERIFY(dialog.runButton()->isEnabled());
    QVERIFY(!dialog.stopButton()->isEnabled());
  }

  // Closing the dialog while a study runs cancels it and joins its thread before returning (the
  // thread's copy of the cluster is gone); destroying it does the same, leaving nothing behind.
  void closingCancelsAndJoins() {
    auto c = cluster();
    const std::weak_ptr<const Cluster> weak = c;
    {
      SharingStudyDialog dialog(c);
      QSignalSpy done(&dialog, &SharingStudyDialog::studyDone);
      dialog.show();
      startLongStudy(dialog);
      QCOMPARE(c.use_count(), 3);  // here, the dialog and its worker
      QElapsedTimer timer;
      timer.start();
      QVERIFY(dialog.close());
      QVERIFY2(timer.elapsed() < 15000, qPrintable(QString::number(timer.elapsed())));
      QCOMPARE(c.use_count(), 2);  // the worker is done
      QVERIFY(!dialog.isVisible());
      QVERIFY(done.wait(5000));
      QCOMPARE(dialog.status(), QStringLiteral("The study was stopped."));
    }
    auto* dialog = new SharingStudyDialog(c);
    startLongStudy(*dialog);
    QElapsedTimer timer;
    timer.start();
    delete dialog;
    QVERIFY2(timer.elapsed() < 15000, qPrintable(QString::number(timer.elapsed())));
    c.reset();
    QVERIFY(weak.expired());            // no thread still holds it
    QCoreApplication::processEvents();  // the dropped result, if queued, goes nowhere
  }

  // Under a German catalogue the recommendation is German, sentence by sentence from the study's
  // templates (each one translated), while the study keeps the CLI's English paragraph.
  void recommendationInTheConsolesLanguage() {
    QTranslator german;
    QVERIFY2(german.load(QStringLiteral(TESSERA_TEST_QM_DIR "/tessera_de.qm")),
             TESSERA_TEST_QM_DIR "/tessera_de.qm");
    QCoreApplication::installTranslator(&german);
    SharingStudyDialog dialog(cluster());
    QSignalSpy done(&dialog, &SharingStudyDialog::studyDone);
    dialog.setWorkload(60, 4, 4);
    dialog.run();
    const bool finished = done.wait(60000);
    QCoreApplication::removeTranslator(&german);
    QVERIFY(finished);
    const SharingStudy& s = dialog.model()->study();
    QVERIFY(s.recommendationSentences.size() > 2);
    QStringList sentences;
    for (const Text& sentence : s.recommendationSentences) {
      const char* pattern = sentence.patternText().data();
      QVERIFY2(german.translate(kEngineTextContext, pattern) != QString(), pattern);
      QCoreApplication::installTranslator(&german);
      sentences << displayText(sentence);
      QCoreApplication::removeTranslator(&german);
    }
    QCOMPARE(dialog.recommendation(), sentences.join(QLatin1Char(' ')));
    QVERIFY2(dialog.recommendation().contains(QStringLiteral("Empfehlung")) ||
                 dialog.recommendation().contains(QStringLiteral("GPUs hinzu")),
             qPrintable(dialog.recommendation()));
    QVERIFY(!dialog.recommendation().contains(QStringLiteral("Recommendation")));
    QVERIFY(s.recommendation.find("wait targets") != std::string::npos);  // the CLI's English
    QCOMPARE(s.recommendation, sharingRecommendation(s));
  }

  // Every column shows its own field: the values differ, so a column reading another field fails.
  void columnsShowTheirFigures() {
    SharingStudyModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    SharingStudy s;
    s.targets = {{WorkloadClass::Inference, 300}, {WorkloadClass::Interactive, 900}};
    ModeFigures f;
    f.mode = StudyMode::Mps;
    f.gpus = 64;
    f.sharedGpus = 11;
    f.gpusNeeded = 24;
    f.allocation = 0.5;
    f.busy = 0.25;
    f.strandedGpus = 3.5;
    f.grantedBeyondNeed = 7.3;
    f.coLocatedJobs = 13;
    f.smallJobs = 17;
    f.waitByClass[WorkloadClass::Interactive].p95 = 600;
    ModeFigures whole = f;
    whole.mode = StudyMode::Whole;
    whole.gpusNeeded.reset();
    s.modes = {f, whole};
    model.setStudy(s);
    auto cell = [&](int row, int column) { return model.index(row, column).data().toString(); };
    QCOMPARE(cell(0, SharingStudyModel::Mode), QStringLiteral("mps"));
    QCOMPARE(cell(0, SharingStudyModel::Shared), QStringLiteral("11"));
    QCOMPARE(cell(0, SharingStudyModel::Needed), QStringLiteral("24"));
    QCOMPARE(cell(1, SharingStudyModel::Needed), QStringLiteral(">64"));
    QCOMPARE(cell(0, SharingStudyModel::Allocated), QStringLiteral("50.0"));
    QCOMPARE(cell(0, SharingStudyModel::Busy), QStringLiteral("25.0"));
    QCOMPARE(cell(0, SharingStudyModel::Stranded), QStringLiteral("3.5"));
    QCOMPARE(cell(0, SharingStudyModel::BeyondNeed), QStringLiteral("7.3"));
    QCOMPARE(cell(0, SharingStudyModel::CoLocated), QStringLiteral("13"));
    QCOMPARE(cell(0, SharingStudyModel::FirstWait), QStringLiteral("-"));  // no inference jobs
    QCOMPARE(cell(0, SharingStudyModel::FirstWait + 1), QStringLiteral("10.0"));
  }

  void skippedModeShowsItsReason() {
    SharingStudyModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    SharingStudy s;
    ModeFigures f;
    f.mode = StudyMode::Mig;
    f.skipped = "cluster 'x' has no MIG-capable GPU";
    s.modes = {f};
    model.setStudy(s);
    QCOMPARE(model.index(0, SharingStudyModel::Needed).data().toString(),
             QStringLiteral("skipped"));
    QCOMPARE(model.index(0, SharingStudyModel::Mode).data(Qt::ToolTipRole).toString(),
             QStringLiteral("cluster 'x' has no MIG-capable GPU"));
  }
};

QTEST_MAIN(TstSharingStudyDialog)
#include "tst_sharing_study_dialog.moc"
