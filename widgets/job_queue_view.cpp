// JobQueueView: a queue table that can group its jobs by team (see job_queue_view.h).
#include "job_queue_view.h"

#include <QAction>
#include <QHeaderView>
#include <QSettings>

#include "job_group_proxy.h"
#include "job_table_model.h"

namespace tessera::widgets {

JobQueueView::JobQueueView(QAbstractItemModel* jobs, QWidget* parent)
    : QTreeView(parent),
      groups_(new JobGroupProxy(this)),
      groupAction_(new QAction(tr("Group by team"), this)) {
  groups_->setSourceModel(jobs);
  setModel(groups_);
  setRootIsDecorated(false);
  setUniformRowHeights(true);
  setAllColumnsShowFocus(true);
  setSortingEnabled(true);
  setSelectionBehavior(QAbstractItemView::SelectRows);
  setSelectionMode(QAbstractItemView::SingleSelection);
  setDragEnabled(true);
  setAcceptDrops(true);
  setDropIndicatorShown(true);
  setDragDropMode(QAbstractItemView::DragDrop);
  header()->setSectionsMovable(true);
  header()->setStretchLastSection(true);
  groupAction_->setObjectName(QStringLiteral("groupByTeam"));
  groupAction_->setCheckable(true);
  groupAction_->setToolTip(tr("Show the jobs under one row per team, with its GPUs"));
  connect(groupAction_, &QAction::toggled, this, &JobQueueView::applyGrouping);
  // New team rows span the width and open unless the operator closed that team before.
  connect(groups_, &QAbstractItemModel::rowsInserted, this,
          [this](const QModelIndex& under, int first, int last) {
            if (!under.isValid()) decorateGroups(first, last);
          });
  connect(groups_, &QAbstractItemModel::modelReset, this,
          [this] { decorateGroups(0, groups_->rowCount() - 1); });
  connect(this, &QTreeView::collapsed, this,
          [this](const QModelIndex& i) { collapsedTeams_.insert(groups_->teamOf(i)); });
  connect(this, &QTreeView::expanded, this,
          [this](const QModelIndex& i) { collapsedTeams_.remove(groups_->teamOf(i)); });
}

void JobQueueView::decorateGroups(int first, int last) {
  if (!groups_->groupByTeam()) return;
  for (int r = first; r <= last; ++r) {
    setFirstColumnSpanned(r, {}, true);
    const QModelIndex team = groups_->index(r, 0);
    if (!collapsedTeams_.contains(groups_->teamOf(team))) expand(team);
  }
}

// A spanned team row shows only its first visible column, which moving or hiding columns
// changes (the header signals no hiding): keep the summary there, checked before each paint.
void JobQueueView::paintEvent(QPaintEvent* event) {
  updateSummaryColumn();
  QTreeView::paintEvent(event);
}

void JobQueueView::updateSummaryColumn() {
  for (int v = 0; v < header()->count(); ++v) {
    const int logical = header()->logicalIndex(v);
    if (!header()->isSectionHidden(logical)) {
      groups_->setSummaryColumn(logical);
      return;
    }
  }
}

void JobQueueView::setGroupByTeam(bool on) {
  groupAction_->setChecked(on);  // applyGrouping through toggled
}

bool JobQueueView::groupByTeam() const {
  return groups_->groupByTeam();
}

void JobQueueView::applyGrouping(bool on) {
  if (on == groups_->groupByTeam()) return;
  const JobId current = currentJob();
  groups_->setGroupByTeam(on);
  setRootIsDecorated(on);
  if (current != kNoJob) selectJob(current);
  if (!settingsKey_.isEmpty()) QSettings().setValue(settingsKey_, on);
}

void JobQueueView::setSettingsKey(const QString& key) {
  settingsKey_ = key;
  setGroupByTeam(QSettings().value(key, false).toBool());
}

JobId JobQueueView::currentJob() const {
  return currentIndex().data(JobTableModel::JobIdRole).toULongLong();
}

bool JobQueueView::selectJob(JobId job) {
  const QModelIndex i = groups_->indexOfJob(job);
  if (!i.isValid()) return false;
  if (i.parent().isValid()) expand(i.parent());
  setCurrentIndex(i);  // selects the row too (SelectRows)
  scrollTo(i);
  return true;
}

}  // namespace tessera::widgets
