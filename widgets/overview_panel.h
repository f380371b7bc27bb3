#pragma once
// The Overview panel (OverviewModel in a tree, every section open) and the queue filter its
// pending reasons drive: activating a reason asks the console to show the pending jobs of that
// kind, activating an idle allocation to inspect its job.
#include <QTreeView>

#include "job_table_model.h"

namespace tessera::widgets {

class OverviewModel;

class OverviewPanel : public QTreeView {
  Q_OBJECT
 public:
  explicit OverviewPanel(OverviewModel* model, QWidget* parent = nullptr);

 protected:
  void resizeEvent(QResizeEvent* event) override;

 signals:
  void reasonActivated(const QString& kind, const QString& label);
  void jobActivated(tessera::JobId job);

 private:
  void onActivated(const QModelIndex& index);
};

// A queue filter that also keeps only the jobs whose pending reason is of one kind
// (OverviewModel::reasonKind); an empty kind keeps every job. The source is a JobTableModel.
class ReasonFilterProxy : public JobFilterProxy {
  Q_OBJECT
 public:
  using JobFilterProxy::JobFilterProxy;
  void setReasonKind(const QString& kind);
  [[nodiscard]] QString reasonKind() const { return kind_; }

 protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

 private:
  QString kind_;
};

}  // namespace tessera::widgets
