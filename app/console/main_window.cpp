#include "console/main_window.h"

#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <QTreeView>
#include <QVBoxLayout>

#include "cluster_tree_model.h"
#include "clusterspec/cluster_summary.h"
#include "node_links_model.h"

namespace tessera::console {

MainWindow::MainWindow(std::shared_ptr<const Cluster> cluster, QWidget* parent)
    : QMainWindow(parent),
      cluster_(std::move(cluster)),
      treeModel_(new widgets::ClusterTreeModel(this)),
      linksModel_(new widgets::NodeLinksModel(this)),
      tree_(new QTreeView),
      summary_(new QPlainTextEdit),
      links_(new QTableView) {
  setWindowTitle(tr("Tessera — %1").arg(QString::fromStdString(cluster_->name)));
  treeModel_->setCluster(cluster_);
  tree_->setModel(treeModel_);
  tree_->setUniformRowHeights(true);
  tree_->expandToDepth(1);
  tree_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);

  summary_->setReadOnly(true);
  summary_->setFont(QFont(QStringLiteral("DejaVu Sans Mono")));
  summary_->setPlainText(QString::fromStdString(formatSummary(summarize(*cluster_))));
  links_->setModel(linksModel_);
  links_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);

  auto* right = new QWidget;
  auto* layout = new QVBoxLayout(right);
  layout->addWidget(new QLabel(tr("Cluster summary")));
  layout->addWidget(summary_, 3);
  layout->addWidget(new QLabel(tr("GPU links of the selected node")));
  layout->addWidget(links_, 2);

  auto* splitter = new QSplitter;
  splitter->addWidget(tree_);
  splitter->addWidget(right);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
  setCentralWidget(splitter);

  connect(tree_->selectionModel(), &QItemSelectionModel::currentChanged, this,
          [this](const QModelIndex& current) { showSelection(current); });
  selectFirstNode();
  const auto s = summarize(*cluster_);
  statusBar()->showMessage(
      tr("%1 nodes, %2 GPUs, %3 MIG instances").arg(s.nodes).arg(s.gpus).arg(s.migInstances));
  resize(1280, 800);
}

// Opens on a node so the link panel shows a real matrix from the first frame.
void MainWindow::selectFirstNode() {
  using Kind = widgets::ClusterTreeModel::Kind;
  QModelIndex at = treeModel_->index(0, 0);
  while (at.isValid() &&
         static_cast<Kind>(at.data(widgets::ClusterTreeModel::KindRole).toInt()) != Kind::Node)
    at = treeModel_->index(0, 0, at);
  if (at.isValid()) tree_->setCurrentIndex(at);
}

void MainWindow::showSelection(const QModelIndex& index) {
  using Kind = widgets::ClusterTreeModel::Kind;
  const auto kind = static_cast<Kind>(index.data(widgets::ClusterTreeModel::KindRole).toInt());
  const auto id = index.data(widgets::ClusterTreeModel::IdRole).toUInt();
  if (kind == Kind::Node)
    linksModel_->setNode(cluster_->node(id).hw);
  else if (kind == Kind::Gpu)
    linksModel_->setNode(cluster_->node(cluster_->gpu(id).node).hw);
}

}  // namespace tessera::console
