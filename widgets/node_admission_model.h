#pragma once
// The console's "Nodes awaiting admission" table, from the node inventories tesserad keeps
// (ListNodeInventory): every node that announced itself and is not in the cluster model yet,
// and every node whose last report carries warnings (catalog mismatches, a model or MIG mode the
// cluster model disagrees with), in service/node_attention.h's order. A pending row says how to
// admit it (`tessera ctl node admit NODE`, an admin's command); the tooltip lists every warning.
// Reset whole at each refresh: a handful of rows.
#include <QAbstractTableModel>
#include <QString>

#include <vector>

#include "service/node_report.h"

namespace tessera::widgets {

class NodeAdmissionModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { NodeColumn, StatusColumn, HostColumn, GpusColumn, WarningsColumn, ColumnCount };
  enum Role {
    AdmissionRole = Qt::UserRole + 1,  // the node's Admission, as int
    AdmitCommandRole,                  // the command that admits it; empty unless pending
  };

  explicit NodeAdmissionModel(QObject* parent = nullptr);

  void setInventory(const std::vector<NodeInventoryView>& nodes);
  // Nodes that wait for an operator (not in the model, not admitted).
  [[nodiscard]] int awaitingAdmission() const;
  [[nodiscard]] const NodeInventoryView& nodeAt(int row) const {
    return rows_.at(static_cast<size_t>(row));
  }

  [[nodiscard]] static QString admissionText(Admission a);
  [[nodiscard]] static QString admitCommand(const std::string& node);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  [[nodiscard]] QString toolTip(const NodeInventoryView& n) const;
  std::vector<NodeInventoryView> rows_;
};

}  // namespace tessera::widgets
