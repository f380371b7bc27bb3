#include "node_links_model.h"

#include <QColor>

namespace tessera::widgets {

NodeLinksModel::NodeLinksModel(QObject* parent) : QAbstractTableModel(parent) {}

void NodeLinksModel::setNode(std::shared_ptr<const NodeHardware> hw) {
  beginResetModel();
  hw_ = std::move(hw);
  endResetModel();
}

int NodeLinksModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !hw_ ? 0 : hw_->gpuCount;
}

int NodeLinksModel::columnCount(const QModelIndex& parent) const {
  return rowCount(parent);
}

QVariant NodeLinksModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !hw_) return {};
  const GpuLink& link = hw_->link(index.row(), index.column());
  if (role == Qt::DisplayRole) return QString::fromStdString(link.str());
  if (role == Qt::TextAlignmentRole) return int(Qt::AlignCenter);
  if (role == Qt::BackgroundRole) {
    // Better paths are greener: the operator reads placement quality at a glance.
    static const QColor colors[] = {QColor(0xe0, 0xe0, 0xe0), QColor(0x6a, 0xbf, 0x69),
                                    QColor(0xa6, 0xd9, 0x6a), QColor(0xd9, 0xef, 0x8b),
                                    QColor(0xfe, 0xe0, 0x8b), QColor(0xfd, 0xae, 0x61),
                                    QColor(0xf4, 0x6d, 0x43)};
    return colors[static_cast<int>(link.kind)];
  }
  if (role == Qt::ForegroundRole) return QColor(Qt::black);
  return {};
}

QVariant NodeLinksModel::headerData(int section, Qt::Orientation, int role) const {
  if (role != Qt::DisplayRole || !hw_) return {};
  return QStringLiteral("GPU%1").arg(section);
}

}  // namespace tessera::widgets
