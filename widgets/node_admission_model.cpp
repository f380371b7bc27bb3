#include "node_admission_model.h"

#include <algorithm>

#include "service/node_attention.h"

namespace tessera::widgets {
namespace {

QString joined(const std::vector<std::string>& lines, const QString& separator) {
  QStringList out;
  for (const auto& l : lines) out << QString::fromStdString(l);
  return out.join(separator);
}

}  // namespace

NodeAdmissionModel::NodeAdmissionModel(QObject* parent) : QAbstractTableModel(parent) {}

void NodeAdmissionModel::setInventory(const std::vector<NodeInventoryView>& nodes) {
  beginResetModel();
  rows_ = nodesForOperator(nodes);
  endResetModel();
}

int NodeAdmissionModel::awaitingAdmission() const {
  return static_cast<int>(std::count_if(
      rows_.begin(), rows_.end(), [](const auto& n) { return n.admission == Admission::Pending; }));
}

QString NodeAdmissionModel::admissionText(Admission a) {
  switch (a) {
    case Admission::Pending:
      return tr("awaiting admission");
    case Admission::Admitted:
      return tr("admitted, joins at its next report");
    case Admission::Known:
      return tr("in the cluster model");
  }
  return {};
}

QString NodeAdmissionModel::admitCommand(const std::string& node) {
  return QStringLiteral("tessera ctl node admit %1").arg(QString::fromStdString(node));
}

int NodeAdmissionModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int NodeAdmissionModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QString NodeAdmissionModel::toolTip(const NodeInventoryView& n) const {
  QString tip =
      QStringLiteral("<b>%1</b>: %2")
          .arg(QString::fromStdString(n.node).toHtmlEscaped(), admissionText(n.admission));
  if (n.admission == Admission::Pending)
    tip += QStringLiteral("<br>") +
           tr("Admit it (admin token): %1").arg(admitCommand(n.node).toHtmlEscaped());
  if (!n.warnings.empty())
    tip += QStringLiteral("<br>") + tr("Warnings:") + QStringLiteral("<br>") +
           joined(n.warnings, QStringLiteral("\n")).toHtmlEscaped().replace('\n', "<br>");
  return tip;
}

QVariant NodeAdmissionModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const NodeInventoryView& n = rows_[static_cast<size_t>(index.row())];
  if (role == AdmissionRole) return static_cast<int>(n.admission);
  if (role == AdmitCommandRole)
    return n.admission == Admission::Pending ? admitCommand(n.node) : QString();
  if (role == Qt::ToolTipRole) return toolTip(n);
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case NodeColumn:
      return QString::fromStdString(n.node);
    case StatusColumn:
      return admissionText(n.admission);
    case HostColumn:
      return QString::fromStdString(n.hostname);
    case GpusColumn:
      return n.gpus;
    case WarningsColumn:
      return joined(n.warnings, QStringLiteral("; "));
    default:
      return {};
  }
}

QVariant NodeAdmissionModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case NodeColumn:
      return tr("Node");
    case StatusColumn:
      return tr("Status");
    case HostColumn:
      return tr("Host");
    case GpusColumn:
      return tr("GPUs");
    case WarningsColumn:
      return tr("Warnings");
    default:
      return {};
  }
}

}  // namespace tessera::widgets
