#pragma once
// "Group by team" for the queue tables: JobGroupProxy turns a flat job model (a JobTableModel,
// usually through a JobFilterProxy) into a two-level tree - one row per team, its jobs below -
// or, with grouping off, passes the rows through flat. The flat models and their golden tests
// stay as they are; sorting and filtering happen below this proxy, so they work inside groups
// (a group lists its jobs in the source's order, whatever the sort).
//
// The source is refreshed about every second, so the proxy follows it in place: after every
// source change it compares its groups with the source (jobs are matched by JobIdRole) and emits
// the smallest set of inserts, removes and layout changes. Views keep selection, expansion and
// scroll position; only switching the grouping resets the model.
//
// Team rows are neither selectable nor draggable and carry no JobIdRole, so job actions and
// drags only ever see job rows. Drops are mapped to the source: onto a job, between jobs of a
// team (ahead of the job below), after a team's last job (ahead of the job that follows it in
// the source), between teams (ahead of the next team's first job).
#include <QAbstractProxyModel>
#include <QHash>
#include <QString>

#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "core/ids.h"

namespace tessera::widgets {

class JobGroupProxy : public QAbstractProxyModel {
  Q_OBJECT
 public:
  // True on team rows, false on job rows.
  static constexpr int GroupRole = Qt::UserRole + 20;

  explicit JobGroupProxy(QObject* parent = nullptr);
  ~JobGroupProxy() override;

  // The source must give JobTableModel's JobIdRole and TeamRole on column 0 and the GPU demand
  // as SortRole of the Request column (JobTableModel does, and so do proxies over it).
  void setSourceModel(QAbstractItemModel* source) override;
  // Off: the source's rows as they are. On: one row per team, sorted by name. Resets the model.
  void setGroupByTeam(bool on);
  [[nodiscard]] bool groupByTeam() const { return grouped_; }
  // GPUs each team holds (the snapshot's TeamView::gpusInUse), shown on the team rows; a team
  // without an entry shows no "held" figure.
  void setTeamGpusHeld(QHash<QString, double> held);

  [[nodiscard]] bool isGroup(const QModelIndex& index) const;
  [[nodiscard]] QString teamOf(const QModelIndex& groupIndex) const;
  [[nodiscard]] QModelIndex groupIndex(const QString& team) const;  // invalid when none
  [[nodiscard]] QModelIndex indexOfJob(JobId job, int column = 0) const;
  // The team row's summary: "nlp — 3 jobs · 24 GPUs requested · 64 held".
  [[nodiscard]] QString groupSummary(int groupRow) const;
  // The column whose cell shows the summary on team rows (default 0). A view that spans team
  // rows draws only their first visible column, so it names that one when columns are moved
  // or hidden.
  void setSummaryColumn(int column);
  [[nodiscard]] int summaryColumn() const { return summaryColumn_; }

  QModelIndex mapToSource(const QModelIndex& proxyIndex) const override;
  QModelIndex mapFromSource(const QModelIndex& sourceIndex) const override;

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  bool hasChildren(const QModelIndex& parent = {}) const override;
  QModelIndex sibling(int row, int column, const QModelIndex& index) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QMap<int, QVariant> itemData(const QModelIndex& index) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;

  QMimeData* mimeData(const QModelIndexList& indexes) const override;
  bool canDropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
                       const QModelIndex& parent) const override;
  bool dropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
                    const QModelIndex& parent) override;

 private:
  // A team's jobs in the source's order; in flat mode the one group `flat_` holds every row.
  struct Group {
    QString team;
    std::vector<JobId> jobs;
    int row = 0;                              // position among the team rows
    mutable std::optional<double> requested;  // GPU demand of its jobs, computed on demand
  };
  // Where a source row is shown.
  struct Slot {
    Group* group = nullptr;
    int row = -1;
  };
  // Where a drop lands in the source's coordinates.
  struct SourceDrop {
    int row = -1;
    int column = -1;
    QModelIndex parent;
  };
  using Desired = std::vector<std::pair<QString, std::vector<JobId>>>;  // by team name

  void connectSource(QAbstractItemModel* source);
  void rebuild();
  void sync();
  [[nodiscard]] Desired readSource();
  void removeStale();
  void removeGroups(const Desired& desired);
  void insertGroups(const Desired& desired);
  void reorder();
  void insertJobs(Group& g, const std::vector<JobId>& desired);
  void renumberGroups();
  void indexSlots();
  void onDataChanged(const QModelIndex& topLeft, const QModelIndex& bottomRight,
                     const QList<int>& roles);
  void emitGroupsChanged();

  [[nodiscard]] std::vector<Group*> targets();
  [[nodiscard]] const Group* childGroup(const QModelIndex& parent) const;  // rows under `parent`
  [[nodiscard]] Group* groupAt(const QModelIndex& index) const;            // the group of a job row
  [[nodiscard]] QModelIndex parentIndex(const Group& g) const;
  [[nodiscard]] int sourceRow(JobId job) const;  // -1 when the source no longer has it
  [[nodiscard]] QString sourceTeam(int sourceRow) const;
  [[nodiscard]] QVariant groupData(const Group& g, int column, int role) const;
  [[nodiscard]] double requestedOf(const Group& g) const;
  [[nodiscard]] std::optional<SourceDrop> sourceDrop(int row, int column,
                                                     const QModelIndex& parent) const;

  bool grouped_ = false;
  std::vector<std::unique_ptr<Group>> groups_;  // grouped: one per team, by name
  Group flat_;                                  // flat: every row
  std::unordered_map<JobId, int> sourceRows_;   // job -> its row in the source now
  std::vector<Slot> slots_;                     // source row -> where it is shown
  QHash<QString, double> held_;
  int summaryColumn_ = 0;
  std::vector<QMetaObject::Connection> connections_;
};

}  // namespace tessera::widgets
