#pragma once
// The console's main window (until the console issue lands: the cluster tree, the cluster
// summary and the link matrix of the selected node, all from the embedded cluster model).
#include <QMainWindow>

#include <memory>

#include "topology/cluster.h"

class QPlainTextEdit;
class QTableView;
class QTreeView;

namespace tessera::widgets {
class ClusterTreeModel;
class NodeLinksModel;
}  // namespace tessera::widgets

namespace tessera::console {

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(std::shared_ptr<const Cluster> cluster, QWidget* parent = nullptr);

 private:
  void showSelection(const QModelIndex& index);
  void selectFirstNode();

  std::shared_ptr<const Cluster> cluster_;
  widgets::ClusterTreeModel* treeModel_;
  widgets::NodeLinksModel* linksModel_;
  QTreeView* tree_;
  QPlainTextEdit* summary_;
  QTableView* links_;
};

}  // namespace tessera::console
