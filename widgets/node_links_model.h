#pragma once
// Table model of one node's GPU link matrix, as `nvidia-smi topo -m` prints it.
#include <QAbstractTableModel>

#include <memory>

#include "topology/cluster.h"

namespace tessera::widgets {

class NodeLinksModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  explicit NodeLinksModel(QObject* parent = nullptr);
  // Shows `hw`'s matrix; nullptr clears the table.
  void setNode(std::shared_ptr<const NodeHardware> hw);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  std::shared_ptr<const NodeHardware> hw_;
};

}  // namespace tessera::widgets
