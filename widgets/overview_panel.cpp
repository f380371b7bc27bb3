// OverviewPanel and ReasonFilterProxy (see overview_panel.h).
#include "overview_panel.h"

#include <QHeaderView>

#include "overview_model.h"

namespace tessera::widgets {

OverviewPanel::OverviewPanel(OverviewModel* model, QWidget* parent) : QTreeView(parent) {
  setObjectName(QStringLiteral("overview"));
  setModel(model);
  setUniformRowHeights(true);
  setAllColumnsShowFocus(true);
  header()->setSectionResizeMode(OverviewModel::LabelColumn, QHeaderView::Stretch);
  header()->setSectionResizeMode(OverviewModel::ValueColumn, QHeaderView::ResizeToContents);
  header()->setStretchLastSection(false);
  // The model resets with every snapshot: the sections open again each time.
  connect(model, &QAbstractItemModel::modelReset, this, &QTreeView::expandAll);
  expandAll();
  connect(this, &QTreeView::activated, this, &OverviewPanel::onActivated);
}

void OverviewPanel::onActivated(const QModelIndex& index) {
  const QModelIndex label = index.siblingAtColumn(OverviewModel::LabelColumn);
  if (const QVariant kind = label.data(OverviewModel::ReasonKindRole); kind.isValid())
    emit reasonActivated(kind.toString(), label.data().toString());
  else if (const QVariant job = label.data(OverviewModel::JobIdRole); job.isValid())
    emit jobActivated(job.toULongLong());
}

void ReasonFilterProxy::setReasonKind(const QString& kind) {
  kind_ = kind;
  invalidateFilter();
}

bool ReasonFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
  if (!JobFilterProxy::filterAcceptsRow(sourceRow, sourceParent)) return false;
  if (kind_.isEmpty()) return true;
  const auto* jobs = qobject_cast<const JobTableModel*>(sourceModel());
  return jobs && OverviewModel::reasonKind(jobs->jobAt(sourceRow).row.reason) == kind_;
}

}  // namespace tessera::widgets
