#include "cluster_tree_model.h"

namespace tessera::widgets {

ClusterTreeModel::ClusterTreeModel(QObject* parent) : QAbstractItemModel(parent) {}

void ClusterTreeModel::setCluster(std::shared_ptr<const Cluster> cluster) {
  beginResetModel();
  cluster_ = std::move(cluster);
  build();
  endResetModel();
}

int ClusterTreeModel::addItem(Kind kind, quint32 id, int parent) {
  const int self = static_cast<int>(items_.size());
  auto& siblings = parent < 0 ? topLevel_ : items_[static_cast<size_t>(parent)].children;
  items_.push_back({kind, id, parent, static_cast<int>(siblings.size()), {}});
  // `siblings` may point into items_, which push_back can move: look it up again.
  (parent < 0 ? topLevel_ : items_[static_cast<size_t>(parent)].children).push_back(self);
  return self;
}

void ClusterTreeModel::build() {
  items_.clear();
  topLevel_.clear();
  if (!cluster_) return;
  auto addLeaf = [&](const FabricSwitch& leaf, int parent) {
    const int li = addItem(Kind::Leaf, static_cast<quint32>(leaf.id), parent);
    for (NodeId n : leaf.nodes) {
      const int ni = addItem(Kind::Node, n, li);
      const Node& node = cluster_->node(n);
      for (int g = 0; g < node.gpuCount(); ++g)
        addItem(Kind::Gpu, node.firstGpu + static_cast<GpuId>(g), ni);
    }
  };
  for (const auto& sw : cluster_->switches()) {
    if (sw.tier != SwitchTier::Spine) continue;
    const int si = addItem(Kind::Spine, static_cast<quint32>(sw.id), -1);
    for (SwitchId leaf : sw.children) addLeaf(cluster_->switches()[static_cast<size_t>(leaf)], si);
  }
  for (const auto& sw : cluster_->switches())
    if (sw.tier == SwitchTier::Leaf && sw.parent == kNone) addLeaf(sw, -1);
}

QModelIndex ClusterTreeModel::index(int row, int column, const QModelIndex& parent) const {
  if (row < 0 || column < 0 || column >= ColumnCount) return {};
  const auto& rows = parent.isValid() ? items_[parent.internalId()].children : topLevel_;
  if (row >= static_cast<int>(rows.size())) return {};
  return createIndex(row, column, static_cast<quintptr>(rows[static_cast<size_t>(row)]));
}

QModelIndex ClusterTreeModel::parent(const QModelIndex& child) const {
  if (!child.isValid()) return {};
  const int p = items_[child.internalId()].parent;
  if (p < 0) return {};
  return createIndex(items_[static_cast<size_t>(p)].row, 0, static_cast<quintptr>(p));
}

int ClusterTreeModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() && parent.column() != 0) return 0;
  return static_cast<int>(
      (parent.isValid() ? items_[parent.internalId()].children : topLevel_).size());
}

int ClusterTreeModel::columnCount(const QModelIndex&) const {
  return ColumnCount;
}

QVariant ClusterTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Name:
      return tr("Name");
    case Model:
      return tr("GPU model");
    case Gpus:
      return tr("GPUs");
    case State:
      return tr("State");
    case Pool:
      return tr("Pool");
    case Detail:
      return tr("Detail");
    default:
      return {};
  }
}

namespace {

int gpusUnder(const Cluster& c, const FabricSwitch& sw) {
  int n = 0;
  for (NodeId id : sw.nodes) n += c.node(id).gpuCount();
  for (SwitchId leaf : sw.children) n += gpusUnder(c, c.switches()[static_cast<size_t>(leaf)]);
  return n;
}

QString sharingText(const Cluster& c, const Gpu& g) {
  switch (g.sharing.mode) {
    case SharingMode::Exclusive:
      return ClusterTreeModel::tr("exclusive");
    case SharingMode::TimeSliced:
      return ClusterTreeModel::tr("time-sliced x%1").arg(g.sharing.replicas);
    case SharingMode::Mig: {
      const QString layout =
          QString::fromStdString(formatMigLayout(c.modelOf(g.id), g.sharing.mig));
      return g.sharing.runsMps() ? ClusterTreeModel::tr("MIG %1, MPS in the instances").arg(layout)
                                 : ClusterTreeModel::tr("MIG %1").arg(layout);
    }
    case SharingMode::Mps:
      return g.sharing.mps.nodeSharing == MpsNodeSharing::One
                 ? ClusterTreeModel::tr("MPS, thread budget %1%, one GPU per node at a time")
                       .arg(g.sharing.mps.threadBudget)
                 : ClusterTreeModel::tr("MPS, thread budget %1%").arg(g.sharing.mps.threadBudget);
  }
  return {};
}

}  // namespace

QVariant ClusterTreeModel::display(const Item& item, int column) const {
  const Cluster& c = *cluster_;
  switch (item.kind) {
    case Kind::Spine:
    case Kind::Leaf: {
      const FabricSwitch& sw = c.switches()[item.id];
      if (column == Name) return QString::fromStdString(sw.name);
      if (column == Gpus) return gpusUnder(c, sw);
      if (column == Detail) {
        const auto n = item.kind == Kind::Spine ? sw.children.size() : sw.nodes.size();
        if (item.kind == Kind::Spine)
          return n == 1 ? tr("spine, 1 leaf") : tr("spine, %1 leafs").arg(n);
        return n == 1 ? tr("leaf, 1 node") : tr("leaf, %1 nodes").arg(n);
      }
      return {};
    }
    case Kind::Node: {
      const Node& n = c.node(item.id);
      if (column == Name) return QString::fromStdString(n.name);
      if (column == Model) return QString::fromStdString(n.gpuModel().id);
      if (column == Gpus) return n.gpuCount();
      if (column == State) return QString::fromLatin1(nodeStateName(n.state));
      if (column == Pool) return QString::fromStdString(n.pool);
      if (column == Detail)
        return tr("template %1").arg(QString::fromStdString(n.hw->templateName));
      return {};
    }
    case Kind::Gpu: {
      const Gpu& g = c.gpu(item.id);
      if (column == Name) return QStringLiteral("GPU%1").arg(g.index);
      if (column == Model) return QString::fromStdString(c.modelOf(g.id).id);
      if (column == Detail) return sharingText(c, g);
      if (column == State && g.nvlinkDomain != kNone)
        return QString::fromStdString(c.nvlinkDomains()[static_cast<size_t>(g.nvlinkDomain)].name);
      return {};
    }
  }
  return {};
}

QVariant ClusterTreeModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !cluster_) return {};
  const Item& item = items_[index.internalId()];
  if (role == Qt::DisplayRole) return display(item, index.column());
  if (role == KindRole) return static_cast<int>(item.kind);
  if (role == IdRole) return item.id;
  return {};
}

}  // namespace tessera::widgets
