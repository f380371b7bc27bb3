#include "sharing_study_model.h"

namespace tessera::widgets {

SharingStudyModel::SharingStudyModel(QObject* parent) : QAbstractTableModel(parent) {}

void SharingStudyModel::setStudy(SharingStudy study) {
  beginResetModel();
  study_ = std::move(study);
  endResetModel();
}

int SharingStudyModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(study_.modes.size());
}

int SharingStudyModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : FirstWait + static_cast<int>(study_.targets.size());
}

QVariant SharingStudyModel::figure(const ModeFigures& f, int column) const {
  switch (column) {
    case Mode:
      return QString::fromUtf8(sharingStudyModeName(f.mode));
    case Shared:
      return f.sharedGpus;
    case Needed:
      return f.gpusNeeded ? QVariant(*f.gpusNeeded) : QVariant(QStringLiteral(">%1").arg(f.gpus));
    case Allocated:
      return QString::number(100 * f.allocation, 'f', 1);
    case Busy:
      return QString::number(100 * f.busy, 'f', 1);
    case Stranded:
      return QString::number(f.strandedGpus, 'f', 1);
    case BeyondNeed:
      return QString::number(f.grantedBeyondNeed, 'f', 1);
    case CoLocated:
      return static_cast<qulonglong>(f.coLocatedJobs);
    default:
      break;
  }
  const auto& target = study_.targets[static_cast<size_t>(column - FirstWait)];
  const auto w = f.waitByClass.find(target.workloadClass);
  if (w == f.waitByClass.end()) return QStringLiteral("-");
  return QString::number(w->second.p95 / 60, 'f', 1);
}

QVariant SharingStudyModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
  const ModeFigures& f = study_.modes[static_cast<size_t>(index.row())];
  if (role == Qt::TextAlignmentRole)
    return index.column() == Mode ? QVariant() : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ToolTipRole && !f.skipped.empty()) return QString::fromStdString(f.skipped);
  if (role != Qt::DisplayRole) return {};
  if (!f.skipped.empty()) return index.column() == Mode ? figure(f, Mode) : tr("skipped");
  return figure(f, index.column());
}

QVariant SharingStudyModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Mode:
      return tr("Mode");
    case Shared:
      return tr("Shared GPUs");
    case Needed:
      return tr("GPUs needed");
    case Allocated:
      return tr("Allocated %");
    case Busy:
      return tr("Busy %");
    case Stranded:
      return tr("Stranded GPUs");
    case BeyondNeed:
      return tr("GPU-h beyond need");
    case CoLocated:
      return tr("Co-located jobs");
    default:
      break;
  }
  if (section < FirstWait || section >= columnCount()) return {};
  const auto& target = study_.targets[static_cast<size_t>(section - FirstWait)];
  return tr("Wait p95 %1 (min)").arg(QString::fromUtf8(workloadClassName(target.workloadClass)));
}

}  // namespace tessera::widgets
