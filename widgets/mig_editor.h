#pragma once
// The repartition editor for one MIG GPU: the GPU's memory-slice positions with its instances,
// a palette of the model's profiles to drag onto a position, and Dry run / Apply buttons that
// hand the composed layout to the console (which sends the repartition command).
//
// Every edit is checked by the MIG engine: the resulting layout is parsed and validated
// (mig_validate) and an edit that breaks a check is refused with the validator's own reason.
// Busy instances are pinned: they cannot be removed or moved, matching the planner's and the
// engine's rule that a repartition keeps busy instances unless it preempts.
#include <QString>
#include <QStringList>
#include <QWidget>

#include <vector>

#include "service/session.h"
#include "topology/gpu_catalog.h"
#include "topology/mig_layout.h"

class QBoxLayout;
class QLabel;
class QListWidget;
class QPlainTextEdit;
class QPushButton;

namespace tessera::widgets {

class MigSlotStrip;

class MigEditor : public QWidget {
  Q_OBJECT
 public:
  // Drag payload: a profile name (UTF-8). A drag that moves an existing instance also carries
  // kMoveFromMime with the instance's start slice.
  static constexpr const char* kProfileMime = "application/x-tessera-mig-profile";
  static constexpr const char* kMoveFromMime = "application/x-tessera-mig-move-from";
  // Slot-strip geometry (pixels): all models the same width, a slice is 1/N of it. The strip
  // is kStripWidth wide where the editor has the room and narrows to kMinStripWidth in a narrow
  // dock, so the slots stay in view rather than behind a horizontal scroll bar.
  static constexpr int kStripWidth = 512;
  static constexpr int kMinStripWidth = 256;
  static constexpr int kHeaderHeight = 16;
  static constexpr int kBarHeight = 52;
  static constexpr int kMargin = 4;

  explicit MigEditor(QWidget* parent = nullptr);
  ~MigEditor() override;

  // The catalog GPU models are looked up in (default: the built-in one); must outlive the editor.
  void setCatalog(const GpuCatalog* catalog);
  // Loads a GPU ("node/index" in `gpuName`): its current layout, busy instances pinned. False,
  // with a refusal, when the model is unknown or not MIG capable or the layout does not parse.
  bool setGpu(const GpuView& gpu, const QString& gpuName);
  // Pre-fills a proposed layout (e.g. an explanation's counterfactual). Starts may be omitted:
  // the repartition planner places the instances, keeping the busy ones where they are. False,
  // with the parser's or planner's reason, when it cannot be placed; the layout is then unchanged.
  bool setInitialLayout(const QString& layout);
  // Back to the GPU's current layout.
  void resetLayout();

  [[nodiscard]] QString gpuName() const { return gpuName_; }
  [[nodiscard]] const GpuModel* model() const { return model_; }
  [[nodiscard]] const MigLayout& layout() const { return layout_; }
  [[nodiscard]] const MigLayout& currentLayout() const { return current_; }
  // The composed layout in the layout syntax (docs/mig-layout-syntax.md), instances in start
  // order, without busy marks: the target a repartition command takes.
  [[nodiscard]] QString layoutText() const;
  // The GPU's layout as loaded, busy instances marked `*`.
  [[nodiscard]] QString currentLayoutText() const;
  [[nodiscard]] bool modified() const;
  // The reason of the last refused edit; empty after a successful one.
  [[nodiscard]] QString refusal() const;
  [[nodiscard]] QString impactText() const;
  [[nodiscard]] QStringList profileNames() const;

  // Adds an instance of `profile` at memory slice `start` (what a drop does). Validated; a
  // refused edit emits refused() and shows the reason.
  bool dropProfile(const QString& profile, int start);
  // Adds an instance where it leaves the least fragmentation (palette double-click).
  bool addProfile(const QString& profile);
  // Moves the idle instance covering slice `fromSlice` to start at `toStart`.
  bool moveInstance(int fromSlice, int toStart);
  // Removes the idle instance covering `slice` (context menu, Delete key).
  bool removeInstanceAt(int slice);
  // The instance covering `slice` becomes the selection the Delete key acts on (-1: none).
  void selectSlice(int slice);
  [[nodiscard]] int selectedSlice() const { return selectedSlice_; }
  // The instance covering `slice` in the composed layout, or nullptr.
  [[nodiscard]] const MigInstance* instanceAt(int slice) const;

  // The dry-run result the console got for the composed layout.
  void showImpact(const QString& text);

  // The drop target, and where memory slice `slice` is drawn in it (for drops and tests).
  [[nodiscard]] QWidget* slotArea() const;
  [[nodiscard]] QRect slotRect(int slice) const;
  [[nodiscard]] int slotAt(QPoint slotAreaPos) const;
  [[nodiscard]] QListWidget* profilePalette() const { return palette_; }
  [[nodiscard]] QPushButton* dryRunButton() const { return dryRun_; }
  [[nodiscard]] QPushButton* applyButton() const { return apply_; }

 protected:
  void resizeEvent(QResizeEvent* event) override;

 signals:
  void refused(QString reason);
  void layoutChanged(QString layout);
  void dryRunRequested(QString gpu, QString layout);
  void applyRequested(QString gpu, QString layout);

 private:
  friend class MigSlotStrip;
  void buildUi();
  void fillPalette();
  void updateState();
  bool refuse(const QString& reason);
  // Parses and validates `text` (the whole proposed layout) and makes it the composed layout.
  bool commitText(const std::string& text);
  bool commit(MigLayout next);
  [[nodiscard]] std::string composedText(bool withBusy) const;
  [[nodiscard]] const GpuView::Occupant* occupantOf(const MigInstance& inst) const;
  [[nodiscard]] QString instanceLabel(const MigInstance& inst) const;
  [[nodiscard]] QString pinnedReason(const MigInstance& inst) const;
  [[nodiscard]] int memorySlices() const;
  // The palette beside the strip where the editor is wide enough for both, else below it.
  void placePalette();

  const GpuCatalog* catalog_;
  const GpuModel* model_ = nullptr;
  QString gpuName_;
  std::vector<GpuView::Occupant> occupants_;
  MigLayout current_;  // as loaded, busy marked
  MigLayout layout_;   // being composed, in start order, busy marked
  int selectedSlice_ = -1;
  QString refusal_;

  QLabel* title_ = nullptr;
  QBoxLayout* stripAndPalette_ = nullptr;
  MigSlotStrip* strip_ = nullptr;
  QListWidget* palette_ = nullptr;
  QLabel* refusalLabel_ = nullptr;
  QLabel* layoutLabel_ = nullptr;
  QPlainTextEdit* impact_ = nullptr;
  QPushButton* reset_ = nullptr;
  QPushButton* dryRun_ = nullptr;
  QPushButton* apply_ = nullptr;
};

}  // namespace tessera::widgets
