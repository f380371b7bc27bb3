// The console's "Nodes" panel: the NodeAdmissionModel under QAbstractItemModelTester lists the
// nodes awaiting admission first, then admitted ones, then nodes of the model whose reports have
// warnings (a node without any is left out), each pending one with its admit command; the panel
// says how many wait and how to admit them.
#include <QAbstractItemModelTester>
#include <QTableView>
#include <QtTest>

#include "node_admission_model.h"
#include "node_admission_panel.h"

using namespace tessera;
using tessera::widgets::NodeAdmissionModel;
using tessera::widgets::NodeAdmissionPanel;

namespace {

NodeInventoryView node(const std::string& name, Admission a,
                       std::vector<std::string> warnings = {}) {
  NodeInventoryView v;
  v.node = name;
  v.hostname = name + ".lab";
  v.admission = a;
  v.gpus = 2;
  v.warnings = std::move(warnings);
  return v;
}

std::vector<NodeInventoryView> inventory() {
  return {node("gpu-a", Admission::Known),
          node("gpu-b", Admission::Known,
               {"gpu-b/0 is A100-SXM4-80GB on the node but H100-SXM5-80GB in the cluster model"}),
          node("new-2", Admission::Pending),
          node("new-1", Admission::Pending, {"MIG profile table differs: 1g.10gb size 9 vs 8"}),
          node("new-3", Admission::Admitted)};
}

QString cell(const NodeAdmissionModel& m, int row, int column, int role = Qt::DisplayRole) {
  return m.data(m.index(row, column), role).toString();
}

}  // namespace

class TstNodeAdmission : public QObject {
  Q_OBJECT

 private slots:
  void listsNodesAwaitingAdmissionAndWarnings() {
    NodeAdmissionModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    m.setInventory(inventory());
    QCOMPARE(m.rowCount(), 4);  // gpu-a: in the model, nothing to say
    QCOMPARE(m.columnCount(), int{NodeAdmissionModel::ColumnCount});
    const QStringList order{cell(m, 0, 0), cell(m, 1, 0), cell(m, 2, 0), cell(m, 3, 0)};
    QCOMPARE(order, (QStringList{"new-1", "new-2", "new-3", "gpu-b"}));
    QCOMPARE(m.awaitingAdmission(), 2);
    QCOMPARE(cell(m, 0, NodeAdmissionModel::StatusColumn), QString("awaiting admission"));
    QCOMPARE(cell(m, 0, NodeAdmissionModel::HostColumn), QString("new-1.lab"));
    QCOMPARE(m.data(m.index(0, NodeAdmissionModel::GpusColumn)).toInt(), 2);
    QCOMPARE(cell(m, 0, NodeAdmissionModel::WarningsColumn),
             QString("MIG profile table differs: 1g.10gb size 9 vs 8"));
    QCOMPARE(cell(m, 0, 0, NodeAdmissionModel::AdmitCommandRole),
             QString("tessera ctl node admit new-1"));
    QVERIFY(cell(m, 0, 0, Qt::ToolTipRole).contains("tessera ctl node admit new-1"));
    QCOMPARE(m.data(m.index(1, 0), NodeAdmissionModel::AdmissionRole).toInt(),
             static_cast<int>(Admission::Pending));
    QCOMPARE(cell(m, 2, NodeAdmissionModel::StatusColumn),
             QString("admitted, joins at its next report"));
    QCOMPARE(cell(m, 2, 0, NodeAdmissionModel::AdmitCommandRole), QString());
    QCOMPARE(cell(m, 3, NodeAdmissionModel::StatusColumn), QString("in the cluster model"));
    QCOMPARE(cell(m, 3, 0, NodeAdmissionModel::AdmitCommandRole), QString());
    QVERIFY(cell(m, 3, 0, Qt::ToolTipRole).contains("but H100-SXM5-80GB in the cluster model"));
    QCOMPARE(m.headerData(NodeAdmissionModel::WarningsColumn, Qt::Horizontal).toString(),
             QString("Warnings"));

    m.setInventory({node("gpu-a", Admission::Known)});  // admitted and joined: nothing left
    QCOMPARE(m.rowCount(), 0);
    QCOMPARE(m.awaitingAdmission(), 0);
  }

  void thePanelSaysHowToAdmit() {
    NodeAdmissionModel m;
    NodeAdmissionPanel panel(&m);
    QCOMPARE(panel.summary(), QString("No node awaits admission."));
    m.setInventory(inventory());
    QVERIFY2(panel.summary().startsWith("2 nodes await admission. Admit one with "
                                        "“tessera ctl node admit NODE”"),
             qPrintable(panel.summary()));
    QVERIFY(panel.summary().contains("warnings"));
    QCOMPARE(panel.view()->model(), static_cast<QAbstractItemModel*>(&m));
  }
};

QTEST_MAIN(TstNodeAdmission)
#include "tst_node_admission.moc"
