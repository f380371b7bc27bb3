// The console's "Sharing study…" dialog, offscreen: the study runs on a worker thread while the
// GUI keeps processing events, and its result fills the table (an item model checked by
// QAbstractItemModelTester), the bar chart and the recommendation; the main window's action opens
// it. The figures themselves are tested in tests/sim/tst_sharing_study.cpp.
#include <QAbstractItemModelTester>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QSignalSpy>
#include <QtTest>

#include "clusterspec/cluster_spec.h"
#include "sharing_study_dialog.h"
#include "sharing_study_model.h"

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
