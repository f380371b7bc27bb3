#pragma once
// The console's MIG map: every MIG GPU of a cluster snapshot as a row of memory slices, with each
// GPU instance drawn at its real start and size (busy or idle, labelled with profile and job),
// free slices, and free slices that are *stranded* for the current demand. Below it, the fleet
// summary: per profile, what can still be placed now and after the suggested repartitions.
//
// The geometry, the stranding rule and the fleet arithmetic are plain functions over engine
// value types (MigGeometry, MigLayout), so they are tested without painting anything; the
// widget only draws their results.
#include <QAbstractTableModel>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <string>
#include <vector>

#include "core/expected.h"
#include "mig/mig_plan.h"
#include "mig/mig_slices.h"
#include "service/session.h"
#include "topology/gpu_catalog.h"
#include "topology/mig_layout.h"

class QPainter;
class QTableView;
class QScrollArea;

namespace tessera::widgets {

// One MIG GPU of a snapshot, its layout parsed once.
struct MigGpu {
  QString name;  // "node/index", the name commands take
  const GpuModel* model = nullptr;
  MigLayout layout;  // busy instances marked
  std::vector<GpuView::Occupant> occupants;
  QString problem;  // why the layout could not be read (then `layout` is empty)
};

// The GPUs of `snapshot` in MIG mode whose model has a MIG geometry in `catalog`, in snapshot
// order.
std::vector<MigGpu> migGpusOf(const ClusterSnapshot& snapshot,
                              const GpuCatalog& catalog = GpuCatalog::builtin());

// The occupant running on the instance `inst` of `gpu`, or nullptr.
const GpuView::Occupant* migOccupantOf(const MigGpu& gpu, const MigInstance& inst);

// The repartition the console suggests for one GPU under a demand. Among the valid layouts that
// keep every busy instance where it is and add only demanded profiles, it takes the one that
// covers the most memory slices, then keeps the most current idle instances, then serves the
// most distinct demanded profiles; mig_plan then places that set (keeping busy instances and
// as many idle ones as it can) and yields the steps.
Expected<MigPlan> migSuggestedRepartition(const GpuModel& model, const MigLayout& current,
                                          const std::vector<int>& demand);

// One row of the fleet summary: a profile of one GPU model present in the fleet.
struct MigFleetRow {
  QString model;
  QString profile;
  int gpus = 0;  // MIG GPUs of this model
  // Idle instances of the profile now: they can take a job of this profile at once.
  int idleNow = 0;
  // Sum over GPUs of migMaxAdditional on the current layouts: new instances of this profile that
  // can still be created without touching any existing instance.
  int addableNow = 0;
  // Instances of this profile available once every GPU is repartitioned as
  // migSuggestedRepartition suggests: idle ones in the suggested layouts plus what can still be
  // added to them. Each row counts its profile alone, as idleNow + addableNow does.
  int afterRepartition = 0;
};

// The fleet summary, rows grouped by model (first appearance) in catalog profile order.
std::vector<MigFleetRow> migFleetRows(const std::vector<MigGpu>& gpus,
                                      const std::vector<std::string>& demand);

// The fleet summary as a table (one row per MigFleetRow).
class MigFleetSummary : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Model, Profile, IdleNow, AddableNow, Available, AfterRepartition, ColumnCount };

  explicit MigFleetSummary(QObject* parent = nullptr);
  void setRows(std::vector<MigFleetRow> rows);
  [[nodiscard]] const std::vector<MigFleetRow>& rows() const { return rows_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  QVariant display(const MigFleetRow& row, int column) const;

  std::vector<MigFleetRow> rows_;
};

class MigMapCanvas;

class MigMapWidget : public QWidget {
  Q_OBJECT
 public:
  // Fixed drawing geometry (pixels), so tests and screenshots are reproducible.
  static constexpr int kRowHeight = 36;
  static constexpr int kNameWidth = 130;
  static constexpr int kBarWidth = 448;  // all GPUs the same width: a slice is 1/N of the GPU
  static constexpr int kNoteWidth = 110;
  static constexpr int kMargin = 4;

  explicit MigMapWidget(QWidget* parent = nullptr);
  ~MigMapWidget() override;

  void setSnapshot(const ClusterSnapshot& snapshot);
  // Profiles requests are arriving for (names; per model, unknown names ignored). Empty = every
  // profile without media extensions.
  void setDemand(std::vector<std::string> profilesInDemand);
  // A user catalog the snapshot's models are looked up in (default: the built-in one); must
  // outlive the widget.
  void setCatalog(const GpuCatalog* catalog);

  [[nodiscard]] int gpuCount() const { return static_cast<int>(gpus_.size()); }
  [[nodiscard]] QStringList gpuNames() const;
  [[nodiscard]] const MigGpu* gpu(int row) const;
  [[nodiscard]] int rowOf(const QString& gpuName) const;
  [[nodiscard]] QString selectedGpu() const;
  // Selects a GPU (row highlighted, scrolled into view) and emits gpuSelected; false if unknown.
  bool selectGpu(const QString& gpuName);

  [[nodiscard]] MigSliceState sliceState(int row, int slice) const;
  // Where a row, a memory slice and an instance are drawn, in canvas() coordinates.
  [[nodiscard]] QRect rowRect(int row) const;
  [[nodiscard]] QRect sliceRect(int row, int slice) const;
  [[nodiscard]] QRect instanceRect(int row, const MigInstance& inst) const;
  // The row / memory slice under a canvas point, or -1.
  [[nodiscard]] int rowAt(QPoint canvasPos) const;
  [[nodiscard]] int sliceAt(int row, QPoint canvasPos) const;
  // The tooltip text for a canvas point (empty when over nothing).
  [[nodiscard]] QString toolTipAt(QPoint canvasPos) const;

  [[nodiscard]] QWidget* canvas() const;
  [[nodiscard]] MigFleetSummary* fleetSummary() const { return fleet_; }
  [[nodiscard]] QTableView* fleetView() const { return fleetView_; }

 signals:
  void gpuSelected(QString gpu);

 private:
  friend class MigMapCanvas;
  void rebuild();
  void selectRow(int row);
  void paintCanvas(QPainter& p, const QRect& dirty) const;
  void paintRow(QPainter& p, int row) const;
  void paintSlices(QPainter& p, int row) const;
  void paintInstance(QPainter& p, int row, const MigInstance& inst) const;
  [[nodiscard]] QString instanceToolTip(const MigGpu& gpu, const MigInstance& inst) const;
  [[nodiscard]] QString sliceToolTip(int row, int slice) const;
  [[nodiscard]] const MigInstance* instanceAt(int row, int slice) const;

  const GpuCatalog* catalog_;
  ClusterSnapshot snapshot_;  // kept so a new catalog or demand can re-read it
  std::vector<std::string> demand_;
  std::vector<MigGpu> gpus_;
  std::vector<std::vector<MigSliceState>> states_;  // per row, per memory slice
  int selected_ = -1;
  MigMapCanvas* canvas_ = nullptr;
  QScrollArea* scroll_ = nullptr;
  MigFleetSummary* fleet_ = nullptr;
  QTableView* fleetView_ = nullptr;
};

}  // namespace tessera::widgets
