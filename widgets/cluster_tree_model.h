#pragma once
// Item model of the cluster hierarchy: spine -> leaf -> node -> GPU. Adapts the engine's Cluster
// value (shared, read-only) for Qt views; holds no engine objects of its own.
#include <QAbstractItemModel>

#include <memory>
#include <vector>

#include "topology/cluster.h"

namespace tessera::widgets {

class ClusterTreeModel : public QAbstractItemModel {
  Q_OBJECT
 public:
  enum Column { Name, Model, Gpus, State, Pool, Detail, ColumnCount };
  enum class Kind : quint8 { Spine, Leaf, Node, Gpu };
  // Data role returning the item's Kind as int, and one returning the node/GPU/switch id.
  static constexpr int KindRole = Qt::UserRole + 1;
  static constexpr int IdRole = Qt::UserRole + 2;

  explicit ClusterTreeModel(QObject* parent = nullptr);
  void setCluster(std::shared_ptr<const Cluster> cluster);
  [[nodiscard]] const Cluster* cluster() const { return cluster_.get(); }

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  struct Item {
    Kind kind;
    quint32 id;  // switch id, node id or GPU id
    int parent;  // index into items_, -1 for top level
    int row;     // row under its parent
    std::vector<int> children;
  };
  void build();
  int addItem(Kind kind, quint32 id, int parent);
  QVariant display(const Item& item, int column) const;

  std::shared_ptr<const Cluster> cluster_;
  std::vector<Item> items_;
  std::vector<int> topLevel_;
};

}  // namespace tessera::widgets
