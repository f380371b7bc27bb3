// OverviewPanel and ReasonFilterProxy (see overview_panel.h).
#include "overview_panel.h"

#include <QHeaderView>
#include <QResizeEvent>

#include "overview_model.h"

namespace tessera::widgets {

OverviewPanel::OverviewPanel(OverviewModel* model, QWidget* parent) : QTreeView(parent) {
  setObjectName(QStringLiteral("overview"));
  setModel(model);
  // A narrow dock wraps the longer labels and reasons rather than eliding them to "…".
  setWordWrap(true);
  setTextElideMode(Qt::ElideNone);
  setAllColumnsShowFocus(true);
  header()->setSectionResizeMode(OverviewModel::LabelColumn, QHeaderView::Interactive);
  header()->setStretchLastSection(true);
  // The model resets with every snapshot: the sections open again each time.
  connect(model, &QAbstractItemModel::modelReset, this, &QTreeView::expandAll);
  expandAll();
  connect(this, &QTreeView::activated, this, &OverviewPanel::onActivated);
}

// The label takes three fifths, the figure the rest.
void OverviewPanel::resizeEvent(QResizeEvent* event) {
  QTreeView::resizeEvent(event);
  setColumnWidth(OverviewModel::LabelColumn, viewport()->width() * 3 / 5);
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
