// The MIG repartition editor: slot strip (drop target, selection, context menu, moves),
// profile palette (drag source) and the edit operations, each validated by the MIG engine.
#include "mig_editor.h"

#include <QApplication>
#include <QContextMenuEvent>
#include <QDrag>
#include <QDragEnterEvent>
#include <QDragMoveEvent>
#include <QDropEvent>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QMimeData>
#include <QMouseEvent>
#include <QPainter>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

#include "engine_text.h"
#include "mig/mig_capacity.h"
#include "mig/mig_plan.h"
#include "mig/mig_validate.h"

namespace tessera::widgets {

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

const MigProfile& profileOf(const MigGeometry& g, const MigInstance& i) {
  return g.profiles[static_cast<size_t>(i.profile)];
}

bool samePlacement(const MigInstance& a, const MigInstance& b) {
  return a.profile == b.profile && a.start == b.start;
}

// Busy flags of `current` carried over to the same placements in `l` (a planned or parsed layout
// knows nothing of the work running on the GPU).
void markBusy(MigLayout& l, const MigLayout& current) {
  for (MigInstance& i : l) {
    i.busy = false;
    for (const MigInstance& c : current)
      if (c.busy && samePlacement(c, i)) i.busy = true;
  }
}

const QColor kBusyFill(47, 109, 181);
const QColor kIdleFill(168, 200, 238);
const QColor kFreeFill(255, 255, 255);
const QColor kSliceBorder(160, 160, 160);
constexpr int kPaletteWidth = 160;
const QColor kSelection(230, 120, 20);
const QColor kDropOk(90, 180, 90, 110);
const QColor kDropBad(210, 60, 60, 110);

// The palette: a list of the model's profiles whose drags carry kProfileMime.
class MigProfilePalette : public QListWidget {
 public:
  explicit MigProfilePalette(QWidget* parent) : QListWidget(parent) {
    setDragEnabled(true);
    setDragDropMode(QAbstractItemView::DragOnly);
    setSelectionMode(QAbstractItemView::SingleSelection);
  }

 protected:
  QStringList mimeTypes() const override { return {QString::fromLatin1(MigEditor::kProfileMime)}; }
  QMimeData* mimeData(const QList<QListWidgetItem*>& items) const override {
    if (items.isEmpty()) return nullptr;
    auto* mime = new QMimeData;
    mime->setData(QString::fromLatin1(MigEditor::kProfileMime),
                  items.front()->data(Qt::UserRole).toString().toUtf8());
    mime->setText(items.front()->data(Qt::UserRole).toString());
    return mime;
  }
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// The slot strip: draws the composed layout and turns drops, clicks and keys into edits.

class MigSlotStrip : public QWidget {
 public:
  explicit MigSlotStrip(MigEditor* editor) : editor_(editor) {
    setAcceptDrops(true);
    setFocusPolicy(Qt::StrongFocus);
    setFixedHeight(MigEditor::kHeaderHeight + MigEditor::kBarHeight + 2 * MigEditor::kMargin);
    setMinimumWidth(MigEditor::kMinStripWidth + 2 * MigEditor::kMargin);
    setMaximumWidth(MigEditor::kStripWidth + 2 * MigEditor::kMargin);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  }

 protected:
  void paintEvent(QPaintEvent*) override;
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dragMoveEvent(QDragMoveEvent* e) override;
  void dragLeaveEvent(QDragLeaveEvent*) override { clearHover(); }
  void dropEvent(QDropEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  void keyPressEvent(QKeyEvent* e) override;
  void contextMenuEvent(QContextMenuEvent* e) override;

 private:
  void paintSlots(QPainter& p) const;
  void paintInstance(QPainter& p, const MigInstance& inst) const;
  void paintHover(QPainter& p) const;
  void clearHover();
  void startMove(const MigInstance& inst);
  [[nodiscard]] QRect rangeRect(int start, int size) const;

  MigEditor* editor_;
  // The drag being hovered: the range it would cover and whether the engine would accept it.
  int hoverStart_ = -1;
  int hoverSize_ = 0;
  bool hoverOk_ = false;
  QPoint pressPos_;
  bool pressedPinned_ = false;
};

QRect MigSlotStrip::rangeRect(int start, int size) const {
  return editor_->slotRect(start).united(editor_->slotRect(start + size - 1));
}

void MigSlotStrip::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().color(QPalette::Window));
  if (!editor_->model_) return;
  paintSlots(p);
  for (const MigInstance& inst : editor_->layout_)
    if (inst.placed()) paintInstance(p, inst);
  paintHover(p);
}

void MigSlotStrip::paintSlots(QPainter& p) const {
  QFont f = p.font();
  f.setPixelSize(10);
  p.setFont(f);
  for (int s = 0; s < editor_->memorySlices(); ++s) {
    const QRect r = editor_->slotRect(s);
    p.fillRect(r, kFreeFill);
    p.setPen(kSliceBorder);
    p.setBrush(Qt::NoBrush);
    p.drawRect(r.adjusted(0, 0, -1, -1));
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QRect(r.left(), MigEditor::kMargin, r.width(), MigEditor::kHeaderHeight),
               Qt::AlignCenter, QString::number(s));
  }
}

void MigSlotStrip::paintInstance(QPainter& p, const MigInstance& inst) const {
  const MigGeometry& g = *editor_->model_->mig;
  const QRect r = rangeRect(inst.start, profileOf(g, inst).memorySlices).adjusted(1, 1, -1, -1);
  const QColor fill = inst.busy ? kBusyFill : kIdleFill;
  const bool selected = editor_->instanceAt(editor_->selectedSlice_) == &inst;
  p.setPen(QPen(selected ? kSelection : fill.darker(150), selected ? 3 : 1));
  p.setBrush(fill);
  p.drawRect(r.adjusted(0, 0, -1, -1));
  p.setPen(inst.busy ? QColor(Qt::white) : QColor(20, 30, 50));
  const QRect text = r.adjusted(5, 4, -5, -4);
  p.drawText(text, Qt::AlignCenter | Qt::TextWordWrap, editor_->instanceLabel(inst));
}

void MigSlotStrip::paintHover(QPainter& p) const {
  if (hoverStart_ < 0 || hoverSize_ <= 0) return;
  const int end = std::min(hoverStart_ + hoverSize_, editor_->memorySlices());
  p.fillRect(rangeRect(hoverStart_, end - hoverStart_), hoverOk_ ? kDropOk : kDropBad);
}

void MigSlotStrip::clearHover() {
  hoverStart_ = -1;
  hoverSize_ = 0;
  update();
}

void MigSlotStrip::dragEnterEvent(QDragEnterEvent* e) {
  if (e->mimeData()->hasFormat(QString::fromLatin1(MigEditor::kProfileMime)))
    e->acceptProposedAction();
}

void MigSlotStrip::dragMoveEvent(QDragMoveEvent* e) {
  const QMimeData* mime = e->mimeData();
  const QString profile =
      QString::fromUtf8(mime->data(QString::fromLatin1(MigEditor::kProfileMime)));
  const int p = editor_->model_ ? editor_->model_->mig->profileIndex(profile.toStdString()) : -1;
  hoverStart_ = editor_->slotAt(e->position().toPoint());
  hoverSize_ = p >= 0 ? editor_->model_->mig->profiles[static_cast<size_t>(p)].memorySlices : 0;
  // Preview with the same rule as the drop: the resulting layout must validate.
  hoverOk_ = false;
  if (p >= 0 && hoverStart_ >= 0 && !mime->hasFormat(QString::fromLatin1(MigEditor::kMoveFromMime)))
    hoverOk_ = MigUsage::of(*editor_->model_->mig, editor_->layout_)
                   .canAdd(*editor_->model_->mig, p, hoverStart_);
  else if (p >= 0 && hoverStart_ >= 0)
    hoverOk_ = true;  // a move is checked on drop, once the instance has left its old place
  // Accepted even when invalid, so the drop happens and the operator reads why it is refused.
  e->acceptProposedAction();
  update();
}

void MigSlotStrip::dropEvent(QDropEvent* e) {
  clearHover();
  const QMimeData* mime = e->mimeData();
  const QString profile =
      QString::fromUtf8(mime->data(QString::fromLatin1(MigEditor::kProfileMime)));
  const int slot = editor_->slotAt(e->position().toPoint());
  bool ok = false;
  if (mime->hasFormat(QString::fromLatin1(MigEditor::kMoveFromMime)))
    ok = editor_->moveInstance(mime->data(QString::fromLatin1(MigEditor::kMoveFromMime)).toInt(),
                               slot);
  else
    ok = editor_->dropProfile(profile, slot);
  if (ok)
    e->acceptProposedAction();
  else
    e->ignore();
}

void MigSlotStrip::mousePressEvent(QMouseEvent* e) {
  const int slot = editor_->slotAt(e->position().toPoint());
  editor_->selectSlice(slot);
  pressPos_ = e->position().toPoint();
  pressedPinned_ = false;
}

void MigSlotStrip::mouseMoveEvent(QMouseEvent* e) {
  if (!(e->buttons() & Qt::LeftButton) || pressedPinned_) return;
  if ((e->position().toPoint() - pressPos_).manhattanLength() < QApplication::startDragDistance())
    return;
  const MigInstance* inst = editor_->instanceAt(editor_->slotAt(pressPos_));
  if (!inst) return;
  if (inst->busy) {
    pressedPinned_ = true;  // say it once per press, not on every mouse move
    editor_->refuse(editor_->pinnedReason(*inst));
    return;
  }
  startMove(*inst);
}

void MigSlotStrip::startMove(const MigInstance& inst) {
  auto* mime = new QMimeData;
  const QString profile = qs(profileOf(*editor_->model_->mig, inst).name);
  mime->setData(QString::fromLatin1(MigEditor::kProfileMime), profile.toUtf8());
  mime->setData(QString::fromLatin1(MigEditor::kMoveFromMime),
                QByteArray::number(static_cast<int>(inst.start)));
  mime->setText(profile);
  auto* drag = new QDrag(this);
  drag->setMimeData(mime);
  drag->exec(Qt::MoveAction);
}

void MigSlotStrip::keyPressEvent(QKeyEvent* e) {
  if (e->key() == Qt::Key_Delete || e->key() == Qt::Key_Backspace) {
    if (editor_->selectedSlice_ >= 0) editor_->removeInstanceAt(editor_->selectedSlice_);
    return;
  }
  QWidget::keyPressEvent(e);
}

void MigSlotStrip::contextMenuEvent(QContextMenuEvent* e) {
  const int slot = editor_->slotAt(e->pos());
  const MigInstance* inst = editor_->instanceAt(slot);
  if (!inst) return;
  editor_->selectSlice(slot);
  QMenu menu(this);
  const QString what = qs(formatMigInstance(*editor_->model_, *inst));
  QAction* remove = menu.addAction(inst->busy ? MigEditor::tr("%1 is busy (pinned)").arg(what)
                                              : MigEditor::tr("Remove %1").arg(what));
  remove->setEnabled(!inst->busy);
  if (menu.exec(e->globalPos()) == remove) editor_->removeInstanceAt(slot);
}

// ---------------------------------------------------------------------------------------------
// MigEditor

MigEditor::MigEditor(QWidget* parent) : QWidget(parent), catalog_(&GpuCatalog::builtin()) {
  buildUi();
  updateState();
}

MigEditor::~MigEditor() = default;

void MigEditor::buildUi() {
  title_ = new QLabel(this);
  strip_ = new MigSlotStrip(this);
  palette_ = new MigProfilePalette(this);
  palette_->setMaximumWidth(kPaletteWidth);
  palette_->setResizeMode(QListView::Adjust);
  palette_->setToolTip(
      tr("Drag a profile onto a slice position; double-click to add it where "
         "it leaves the least fragmentation"));
  refusalLabel_ = new QLabel(this);
  refusalLabel_->setWordWrap(true);
  refusalLabel_->setStyleSheet(QStringLiteral("color: #b02020;"));
  layoutLabel_ = new QLabel(this);
  layoutLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layoutLabel_->setWordWrap(true);
  impact_ = new QPlainTextEdit(this);
  impact_->setReadOnly(true);
  impact_->setPlaceholderText(tr("Dry-run result"));
  reset_ = new QPushButton(tr("Reset"), this);
  dryRun_ = new QPushButton(tr("Dry run"), this);
  apply_ = new QPushButton(tr("Apply"), this);

  connect(palette_, &QListWidget::itemDoubleClicked, this,
          [this](QListWidgetItem* item) { addProfile(item->data(Qt::UserRole).toString()); });
  connect(reset_, &QPushButton::clicked, this, &MigEditor::resetLayout);
  connect(dryRun_, &QPushButton::clicked, this,
          [this] { emit dryRunRequested(gpuName_, layoutText()); });
  connect(apply_, &QPushButton::clicked, this,
          [this] { emit applyRequested(gpuName_, layoutText()); });

  stripAndPalette_ = new QBoxLayout(QBoxLayout::LeftToRight);
  auto* left = new QVBoxLayout;
  left->addWidget(title_);
  left->addWidget(strip_);
  left->addWidget(layoutLabel_);
  left->addWidget(refusalLabel_);
  left->addStretch(1);
  stripAndPalette_->addLayout(left, 1);
  stripAndPalette_->addWidget(palette_);
  auto* buttons = new QHBoxLayout;
  buttons->addStretch(1);
  buttons->addWidget(reset_);
  buttons->addWidget(dryRun_);
  buttons->addWidget(apply_);
  // The buttons stay below the scrolled part: a dock too low for the whole editor scrolls the
  // strip and the dry-run text, never the Dry run and Apply an operator is about to press.
  auto* body = new QWidget;
  auto* bodyBox = new QVBoxLayout(body);
  bodyBox->setContentsMargins(0, 0, 0, 0);
  bodyBox->addLayout(stripAndPalette_);
  bodyBox->addWidget(impact_);
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(body);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  auto* box = new QVBoxLayout(this);
  box->addWidget(scroll, 1);
  box->addLayout(buttons);
}

void MigEditor::setCatalog(const GpuCatalog* catalog) {
  catalog_ = catalog ? catalog : &GpuCatalog::builtin();
}

bool MigEditor::setGpu(const GpuView& gpu, const QString& gpuName) {
  model_ = nullptr;
  gpuName_ = gpuName;
  occupants_ = gpu.occupants;
  current_.clear();
  layout_.clear();
  selectedSlice_ = -1;
  impact_->clear();
  refusal_.clear();
  const GpuModel* model = catalog_->find(gpu.model);
  QString problem;
  if (!model || !model->mig)
    problem = tr("%1 (%2) is not a MIG-capable GPU model").arg(gpuName, qs(gpu.model));
  else if (gpu.sharing != "mig")
    // The engine refuses to repartition a GPU that is not in MIG mode; say so up front.
    problem = tr("%1 is not in MIG mode").arg(gpuName);
  Expected<MigLayout> parsed = Error{};
  if (problem.isEmpty()) {
    parsed = parseMigLayout(*model, gpu.migLayout);
    if (!parsed)
      problem = tr("the layout of %1 cannot be read: %2")
                    .arg(gpuName, displayText(parsed.error().sentence()));
  }
  if (problem.isEmpty()) {
    model_ = model;
    current_ = *parsed;
    current_.sortByStart();
    layout_ = current_;
  }
  fillPalette();
  updateState();
  if (!problem.isEmpty()) return refuse(problem);
  emit layoutChanged(layoutText());
  return true;
}

bool MigEditor::setInitialLayout(const QString& layout) {
  if (!model_) return refuse(tr("no MIG GPU loaded"));
  auto desired = parseMigLayout(*model_, layout.toStdString());
  if (!desired) return refuse(displayText(desired.error().sentence()));
  // The planner places instances without starts and insists the busy ones stay where they are.
  auto plan = planMigRepartition(*model_, current_, *desired);
  if (!plan) return refuse(displayText(plan.error().sentence()));
  MigLayout next = plan->target;
  markBusy(next, current_);
  return commit(next);
}

void MigEditor::resetLayout() {
  layout_ = current_;
  selectedSlice_ = -1;
  refusal_.clear();
  updateState();
  emit layoutChanged(layoutText());
}

void MigEditor::fillPalette() {
  palette_->clear();
  if (!model_) return;
  const MigGeometry& g = *model_->mig;
  for (const MigProfile& p : g.profiles) {
    auto* item = new QListWidgetItem(qs(p.name), palette_);
    item->setData(Qt::UserRole, qs(p.name));
    item->setToolTip(tr("%1: %2 memory slice(s), %3 compute slice(s), starts {%4}, at most %5 "
                        "per GPU")
                         .arg(qs(p.name))
                         .arg(p.memorySlices)
                         .arg(p.computeSlices)
                         .arg(qs(formatStarts(g, p.startMask)))
                         .arg(p.maxCount));
  }
}

QString MigEditor::layoutText() const {
  return model_ ? qs(composedText(false)) : QString();
}

QString MigEditor::currentLayoutText() const {
  return model_ ? qs(formatMigLayout(*model_, current_, true)) : QString();
}

bool MigEditor::modified() const {
  return model_ && composedText(true) != formatMigLayout(*model_, current_, true);
}

QString MigEditor::refusal() const {
  return refusal_;
}

QString MigEditor::impactText() const {
  return impact_->toPlainText();
}

QStringList MigEditor::profileNames() const {
  QStringList names;
  if (model_)
    for (const MigProfile& p : model_->mig->profiles) names << qs(p.name);
  return names;
}

std::string MigEditor::composedText(bool withBusy) const {
  return formatMigLayout(*model_, layout_, withBusy);
}

int MigEditor::memorySlices() const {
  return model_ ? model_->mig->memorySlices : 0;
}

bool MigEditor::refuse(const QString& reason) {
  refusal_ = reason;
  refusalLabel_->setText(reason);
  emit refused(reason);
  return false;
}

bool MigEditor::dropProfile(const QString& profile, int start) {
  if (!model_) return refuse(tr("no MIG GPU loaded"));
  if (start < 0 || start >= memorySlices())
    return refuse(
        tr("drop %1 on a memory slice position (0-%2)").arg(profile).arg(memorySlices() - 1));
  // The proposed layout goes through the engine's own parser, so an unknown or foreign
  // profile name is refused with the parser's message, as the repartition command would.
  std::string text = composedText(true);
  if (!text.empty()) text += ',';
  text.append(profile.toStdString()).append(1, '@').append(std::to_string(start));
  return commitText(text);
}

bool MigEditor::addProfile(const QString& profile) {
  if (!model_) return refuse(tr("no MIG GPU loaded"));
  const int p = model_->mig->profileIndex(profile.toStdString());
  if (p < 0) return dropProfile(profile, 0);  // the parser names the unknown profile
  const auto where = migBestNewInstance(*model_->mig, layout_, p);
  if (!where)
    return refuse(tr("%1 fits nowhere next to the instances of %2").arg(profile, gpuName_));
  return dropProfile(profile, where->start);
}

bool MigEditor::moveInstance(int fromSlice, int toStart) {
  const MigInstance* inst = instanceAt(fromSlice);
  if (!inst) return refuse(tr("no instance at memory slice %1").arg(fromSlice));
  if (inst->busy) return refuse(pinnedReason(*inst));
  if (toStart < 0 || toStart >= memorySlices())
    return refuse(tr("move it onto a memory slice position (0-%1)").arg(memorySlices() - 1));
  MigLayout next = layout_;
  const int index = static_cast<int>(inst - layout_.begin());
  MigInstance moved = next[index];
  next.removeAt(index);
  moved.start = static_cast<int8_t>(toStart);
  next.add(moved);  // last, so the validator names the moved instance when it breaks a check
  return commit(next);
}

bool MigEditor::removeInstanceAt(int slice) {
  const MigInstance* inst = instanceAt(slice);
  if (!inst) return refuse(tr("no instance at memory slice %1").arg(slice));
  if (inst->busy) return refuse(pinnedReason(*inst));
  MigLayout next = layout_;
  next.removeAt(static_cast<int>(inst - layout_.begin()));
  selectedSlice_ = -1;
  return commit(next);
}

bool MigEditor::commitText(const std::string& text) {
  auto parsed = parseMigLayout(*model_, text);
  if (!parsed) return refuse(displayText(parsed.error().sentence()));
  return commit(*parsed);
}

bool MigEditor::commit(MigLayout next) {
  // Instances are checked in the order written and the new or moved one is last, so the
  // verdict names it and the instance it collides with.
  const MigVerdict verdict = validateMigLayout(*model_->mig, next);
  if (!verdict.ok()) return refuse(displayText(migVerdictText(*model_, next, verdict)));
  next.sortByStart();
  layout_ = next;
  refusal_.clear();
  updateState();
  emit layoutChanged(layoutText());
  return true;
}

void MigEditor::selectSlice(int slice) {
  selectedSlice_ = instanceAt(slice) ? slice : -1;
  strip_->update();
}

const MigInstance* MigEditor::instanceAt(int slice) const {
  if (!model_ || slice < 0) return nullptr;
  for (const MigInstance& i : layout_)
    if (i.placed() && slice >= i.start && slice < i.start + profileOf(*model_->mig, i).memorySlices)
      return &i;
  return nullptr;
}

const GpuView::Occupant* MigEditor::occupantOf(const MigInstance& inst) const {
  const std::string& name = profileOf(*model_->mig, inst).name;
  for (const auto& o : occupants_)
    if (o.migStart == inst.start && (o.migProfile.empty() || o.migProfile == name)) return &o;
  return nullptr;
}

QString MigEditor::instanceLabel(const MigInstance& inst) const {
  const QString name = qs(profileOf(*model_->mig, inst).name);
  if (!inst.busy) return name + QLatin1Char('\n') + tr("idle");
  if (const auto* o = occupantOf(inst)) return name + QLatin1Char('\n') + tr("job %1").arg(o->job);
  return name + QLatin1Char('\n') + tr("busy");
}

QString MigEditor::pinnedReason(const MigInstance& inst) const {
  const QString what = qs(formatMigInstance(*model_, inst));
  if (const auto* o = occupantOf(inst))
    return tr("%1 is busy (job %2) and pinned: drain it before repartitioning")
        .arg(what)
        .arg(o->job);
  return tr("%1 is busy and pinned: drain it before repartitioning").arg(what);
}

void MigEditor::showImpact(const QString& text) {
  impact_->setPlainText(text);
}

QWidget* MigEditor::slotArea() const {
  return strip_;
}

QRect MigEditor::slotRect(int slice) const {
  const int n = memorySlices();
  if (n <= 0 || slice < 0 || slice >= n) return {};
  // Integer edges so neighbouring slots share a border and the last one ends at the strip's end.
  const int width = strip_->width() - 2 * kMargin;
  const int left = kMargin + slice * width / n;
  const int right = kMargin + (slice + 1) * width / n;
  return {left, kMargin + kHeaderHeight, right - left, kBarHeight};
}

void MigEditor::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  placePalette();
}

// Beside the strip the palette is a column of profiles; below it, profiles side by side in rows,
// a few rows high, so the strip keeps the editor's width.
void MigEditor::placePalette() {
  const QLayout* box = QWidget::layout();
  const int besideNeeds = kStripWidth + 2 * kMargin + kPaletteWidth + 4 * box->spacing() +
                          box->contentsMargins().left() + box->contentsMargins().right();
  const bool beside = width() >= besideNeeds;
  if (beside == (stripAndPalette_->direction() == QBoxLayout::LeftToRight)) return;
  stripAndPalette_->setDirection(beside ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom);
  palette_->setFlow(beside ? QListView::TopToBottom : QListView::LeftToRight);
  palette_->setWrapping(!beside);
  palette_->setMaximumWidth(beside ? kPaletteWidth : QWIDGETSIZE_MAX);
  palette_->setMaximumHeight(beside ? QWIDGETSIZE_MAX : 4 * fontMetrics().height() + 16);
}

int MigEditor::slotAt(QPoint slotAreaPos) const {
  for (int s = 0; s < memorySlices(); ++s)
    if (slotRect(s).contains(slotAreaPos)) return s;
  return -1;
}

void MigEditor::updateState() {
  title_->setText(model_ ? tr("%1 (%2)").arg(gpuName_, qs(model_->id)) : tr("No MIG GPU selected"));
  const QString text = layoutText();
  // A space after each comma lets a long layout wrap in a narrow dock; the layout parser trims
  // it, so the copied text still parses (in a shell, quoted as one argument).
  layoutLabel_->setText(
      tr("Layout: %1")
          .arg(text.isEmpty() ? tr("empty")
                              : QString(text).replace(QLatin1Char(','), QStringLiteral(", "))));
  refusalLabel_->setText(refusal_);
  reset_->setEnabled(modified());
  // Nothing to send for an unchanged layout.
  dryRun_->setEnabled(modified());
  apply_->setEnabled(modified());
  strip_->update();
}

}  // namespace tessera::widgets
