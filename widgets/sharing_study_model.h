#pragma once
// The sharing study (sim/sharing_study.h) as a table: one row per mode, one column per figure,
// the wait p95 of each targeted workload class last. Adapts the value; computes nothing.
#include <QAbstractTableModel>

#include "sim/sharing_study.h"

namespace tessera::widgets {

class SharingStudyModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Mode, Shared, Needed, Allocated, Busy, Stranded, BeyondNeed, CoLocated, FirstWait };
  explicit SharingStudyModel(QObject* parent = nullptr);
  void setStudy(SharingStudy study);
  [[nodiscard]] const SharingStudy& study() const { return study_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  [[nodiscard]] QVariant figure(const ModeFigures& f, int column) const;
  SharingStudy study_;
};

}  // namespace tessera::widgets
