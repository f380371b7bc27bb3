#pragma once
// One of the console's queue tables (pending or running): a tree view over a JobGroupProxy over
// the caller's job filter, so the same view shows the jobs flat or grouped under one row per
// team ("Group by team", a checkable action the console puts in the header and context menus).
// Team rows span the whole width and start expanded; a team the operator collapsed stays
// collapsed through refreshes. Switching the grouping keeps the current job selected.
#include <QSet>
#include <QString>
#include <QTreeView>

#include "core/ids.h"

class QAction;

namespace tessera::widgets {

class JobGroupProxy;

class JobQueueView : public QTreeView {
  Q_OBJECT
 public:
  // `jobs`: a flat job model (JobTableModel or a JobFilterProxy over one); not owned.
  explicit JobQueueView(QAbstractItemModel* jobs, QWidget* parent = nullptr);

  [[nodiscard]] JobGroupProxy* groups() const { return groups_; }
  // Checkable "Group by team"; toggling it regroups the view.
  [[nodiscard]] QAction* groupByTeamAction() const { return groupAction_; }
  void setGroupByTeam(bool on);
  [[nodiscard]] bool groupByTeam() const;
  // Restores the toggle from QSettings under `key` and saves it there whenever it changes.
  void setSettingsKey(const QString& key);
  // The job of the current row; kNoJob on a team row or when none.
  [[nodiscard]] JobId currentJob() const;
  // Makes `job`'s row current and selected (expanding its team); false when it is not shown.
  bool selectJob(JobId job);

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  void decorateGroups(int first, int last);
  void updateSummaryColumn();
  void applyGrouping(bool on);

  JobGroupProxy* groups_;
  QAction* groupAction_;
  QString settingsKey_;
  QSet<QString> collapsedTeams_;  // kept while their rows come and go
};

}  // namespace tessera::widgets
