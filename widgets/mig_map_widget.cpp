// The MIG map and the fleet summary: slice states, suggested repartitions and fleet counts from
// the MIG engine (mig_capacity, mig_plan), and the widget that draws them.
#include "mig_map_widget.h"

#include <QEvent>
#include <QHeaderView>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QScrollArea>
#include <QTableView>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <bit>
#include <map>
#include <set>

#include "engine_text.h"
#include "mig/mig_capacity.h"

namespace tessera::widgets {

namespace {

// Enumeration bound for the suggested repartition: real GPUs have at most a few thousand layouts
// (2319 on 8 slices); the bound keeps a user catalog with very many slices from hanging the UI.
constexpr uint64_t kMaxEnumerationSteps = 2'000'000;

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

const MigProfile& profileOf(const MigGeometry& g, int p) {
  return g.profiles[static_cast<size_t>(p)];
}

bool samePlacement(const MigInstance& a, const MigInstance& b) {
  return a.profile == b.profile && a.start == b.start;
}

bool holdsPlacement(const MigLayout& l, const MigInstance& inst) {
  return std::any_of(l.begin(), l.end(),
                     [&](const MigInstance& i) { return samePlacement(i, inst); });
}

bool isBusyIn(const MigLayout& current, const MigInstance& inst) {
  return std::any_of(current.begin(), current.end(),
                     [&](const MigInstance& i) { return i.busy && samePlacement(i, inst); });
}

MigGpu readGpu(const NodeView& node, const GpuView& view, const GpuModel& model) {
  MigGpu gpu;
  gpu.name = qs(node.name) + QLatin1Char('/') + QString::number(view.index);
  gpu.model = &model;
  gpu.occupants = view.occupants;
  auto layout = parseMigLayout(model, view.migLayout);
  if (layout)
    gpu.layout = *layout;
  else
    gpu.problem = displayText(layout.error().sentence());
  gpu.layout.sortByStart();
  return gpu;
}

// How well a candidate layout serves the demand; compared lexicographically, larger is better.
struct CandidateScore {
  int covered = -1;   // memory slices in use: demand that can be served instead of stranded
  int kept = -1;      // current idle instances left where they are: fewer repartition steps
  int distinct = -1;  // distinct demanded profiles present: serve the mix, not one profile
  auto operator<=>(const CandidateScore&) const = default;
};

// Scores `l` as a repartition of `current`, or nullopt when it drops or moves a busy instance or
// adds a profile nobody asked for.
std::optional<CandidateScore> scoreCandidate(const MigGeometry& g, const MigLayout& current,
                                             const MigLayout& l, const std::vector<int>& demand) {
  for (const MigInstance& i : current)
    if (i.busy && !holdsPlacement(l, i)) return std::nullopt;
  CandidateScore s;
  std::set<int> profiles;
  for (const MigInstance& i : l) {
    if (isBusyIn(current, i)) continue;
    if (std::find(demand.begin(), demand.end(), i.profile) == demand.end()) return std::nullopt;
    profiles.insert(i.profile);
  }
  s.covered = std::popcount(static_cast<unsigned>(l.occupiedMask(g)));
  s.kept = static_cast<int>(std::count_if(current.begin(), current.end(), [&](const auto& i) {
    return !i.busy && holdsPlacement(l, i);
  }));
  s.distinct = static_cast<int>(profiles.size());
  return s;
}

// The instance set the suggestion asks the planner for: busy instances as they are, the
// others by profile only so the planner chooses their starts.
MigLayout desiredSet(const MigLayout& current, const MigLayout& best) {
  MigLayout desired;
  for (const MigInstance& i : current)
    if (i.busy) desired.add(i);
  for (MigInstance i : best) {
    if (isBusyIn(current, i)) continue;
    i.start = -1;
    desired.add(i);
  }
  return desired;
}

int idleInstances(const MigLayout& l, int p) {
  return static_cast<int>(std::count_if(
      l.begin(), l.end(), [p](const MigInstance& i) { return i.profile == p && !i.busy; }));
}

struct ModelRows {
  const GpuModel* model = nullptr;
  std::vector<MigFleetRow> rows;  // one per profile of the model
};

ModelRows& rowsFor(std::vector<ModelRows>& groups, const GpuModel& model) {
  for (ModelRows& m : groups)
    if (m.model == &model) return m;
  ModelRows m{&model, {}};
  for (const MigProfile& p : model.mig->profiles) {
    MigFleetRow r;
    r.model = qs(model.id);
    r.profile = qs(p.name);
    m.rows.push_back(r);
  }
  groups.push_back(std::move(m));
  return groups.back();
}

// What `layout` offers one profile: idle instances and instances that can still be created.
struct Offer {
  int idle = 0;
  int addable = 0;
};

std::vector<Offer> offers(const MigGeometry& g, const MigLayout& layout) {
  const MigUsage usage = MigUsage::of(g, layout);
  std::vector<Offer> out;
  for (int p = 0; p < static_cast<int>(g.profiles.size()); ++p)
    out.push_back({idleInstances(layout, p), migMaxAdditional(g, usage, p)});
  return out;
}

}  // namespace

std::vector<MigGpu> migGpusOf(const ClusterSnapshot& snapshot, const GpuCatalog& catalog) {
  std::vector<MigGpu> gpus;
  for (const NodeView& node : snapshot.nodes)
    for (const GpuView& view : node.gpus) {
      if (view.sharing != "mig") continue;
      const GpuModel* model = catalog.find(view.model);
      if (model && model->mig) gpus.push_back(readGpu(node, view, *model));
    }
  return gpus;
}

const GpuView::Occupant* migOccupantOf(const MigGpu& gpu, const MigInstance& inst) {
  if (!inst.placed() || !gpu.model) return nullptr;
  const std::string& name = profileOf(*gpu.model->mig, inst.profile).name;
  for (const auto& o : gpu.occupants)
    if (o.migStart == inst.start && (o.migProfile.empty() || o.migProfile == name)) return &o;
  return nullptr;
}

Expected<MigPlan> migSuggestedRepartition(const GpuModel& model, const MigLayout& current,
                                          const std::vector<int>& demand) {
  const MigGeometry& g = *model.mig;
  std::optional<CandidateScore> bestScore;
  MigLayout best;
  bool complete = true;
  forEachMigLayoutBounded(g, false, kMaxEnumerationSteps, complete, [&](const MigLayout& l) {
    const auto score = scoreCandidate(g, current, l, demand);
    if (score && (!bestScore || *score > *bestScore)) {
      bestScore = score;
      best = l;
    }
  });
  // The busy instances alone always qualify, so only an invalid current layout gets here.
  if (!bestScore) return Error{"no valid layout keeps the busy instances of this GPU", {}};
  auto plan = planMigRepartition(model, current, desiredSet(current, best));
  if (!plan) return plan;
  for (MigInstance& i : plan->target) i.busy = isBusyIn(current, i);
  return plan;
}

std::vector<MigFleetRow> migFleetRows(const std::vector<MigGpu>& gpus,
                                      const std::vector<std::string>& demand) {
  std::vector<ModelRows> groups;
  // Many GPUs share a layout; the suggestion depends only on model, layout and demand.
  std::map<std::string, MigLayout> suggested;
  for (const MigGpu& gpu : gpus) {
    if (!gpu.model || !gpu.problem.isEmpty()) continue;
    const MigGeometry& g = *gpu.model->mig;
    auto& rows = rowsFor(groups, *gpu.model).rows;
    const std::string key = gpu.model->id + ':' + formatMigLayout(*gpu.model, gpu.layout, true);
    auto it = suggested.find(key);
    if (it == suggested.end()) {
      auto plan = migSuggestedRepartition(*gpu.model, gpu.layout, migDemandProfiles(g, demand));
      // No plan (a hostile user catalog): the GPU counts as it is now.
      it = suggested.emplace(key, plan ? plan->target : gpu.layout).first;
    }
    const auto now = offers(g, gpu.layout);
    const auto after = offers(g, it->second);
    for (size_t p = 0; p < rows.size(); ++p) {
      ++rows[p].gpus;
      rows[p].idleNow += now[p].idle;
      rows[p].addableNow += now[p].addable;
      rows[p].afterRepartition += after[p].idle + after[p].addable;
    }
  }
  std::vector<MigFleetRow> out;
  for (ModelRows& m : groups)
    for (MigFleetRow& r : m.rows) out.push_back(std::move(r));
  return out;
}

// ---------------------------------------------------------------------------------------------
// MigFleetSummary

MigFleetSummary::MigFleetSummary(QObject* parent) : QAbstractTableModel(parent) {}

void MigFleetSummary::setRows(std::vector<MigFleetRow> rows) {
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
}

int MigFleetSummary::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int MigFleetSummary::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant MigFleetSummary::display(const MigFleetRow& row, int column) const {
  switch (column) {
    case Model:
      return row.model;
    case Profile:
      return row.profile;
    case IdleNow:
      return row.idleNow;
    case AddableNow:
      return row.addableNow;
    case Available:
      return row.idleNow + row.addableNow;
    case AfterRepartition:
      return row.afterRepartition;
    default:
      return {};
  }
}

QVariant MigFleetSummary::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= static_cast<int>(rows_.size())) return {};
  const MigFleetRow& row = rows_[static_cast<size_t>(index.row())];
  if (role == Qt::DisplayRole) return display(row, index.column());
  if (role == Qt::TextAlignmentRole && index.column() >= IdleNow)
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ToolTipRole)
    return tr("%1 on %2 MIG GPU(s) of model %3").arg(row.profile).arg(row.gpus).arg(row.model);
  return {};
}

QVariant MigFleetSummary::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::DisplayRole) {
    switch (section) {
      case Model:
        return tr("GPU model");
      case Profile:
        return tr("Profile");
      case IdleNow:
        return tr("Idle");
      case AddableNow:
        return tr("Can add now");
      case Available:
        return tr("Available now");
      case AfterRepartition:
        return tr("After repartition");
      default:
        return {};
    }
  }
  if (role != Qt::ToolTipRole) return {};
  switch (section) {
    case IdleNow:
      return tr("Existing instances of the profile without work");
    case AddableNow:
      return tr(
          "New instances of the profile that can still be created, summed over GPUs, "
          "without touching any existing instance");
    case Available:
      return tr("Idle plus can add now: jobs of this profile that could start now");
    case AfterRepartition:
      return tr(
          "The same count once every GPU is repartitioned as suggested for the demand "
          "(busy instances kept)");
    default:
      return {};
  }
}

// ---------------------------------------------------------------------------------------------
// The canvas: paints through its owner, which holds the data and the geometry.

class MigMapCanvas : public QWidget {
 public:
  explicit MigMapCanvas(MigMapWidget* owner) : owner_(owner) {
    setFocusPolicy(Qt::ClickFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
  }

 protected:
  void paintEvent(QPaintEvent* e) override {
    QPainter p(this);
    owner_->paintCanvas(p, e->rect());
  }
  void mousePressEvent(QMouseEvent* e) override {
    if (e->button() == Qt::LeftButton) owner_->selectRow(owner_->rowAt(e->position().toPoint()));
  }
  void keyPressEvent(QKeyEvent* e) override {
    // Up/Down walk the GPUs so an operator can step through them with the editor open.
    if (e->key() == Qt::Key_Down || e->key() == Qt::Key_Up) {
      owner_->selectRow(owner_->selected_ + (e->key() == Qt::Key_Down ? 1 : -1));
      return;
    }
    QWidget::keyPressEvent(e);
  }
  bool event(QEvent* e) override {
    if (e->type() != QEvent::ToolTip) return QWidget::event(e);
    auto* help = static_cast<QHelpEvent*>(e);
    const QString text = owner_->toolTipAt(help->pos());
    if (text.isEmpty())
      QToolTip::hideText();
    else
      QToolTip::showText(help->globalPos(), text, this);
    return true;
  }

 private:
  MigMapWidget* owner_;
};

// ---------------------------------------------------------------------------------------------
// MigMapWidget

namespace {

const QColor kBusyFill(47, 109, 181);
const QColor kIdleFill(168, 200, 238);
const QColor kFreeFill(255, 255, 255);
const QColor kStrandedFill(246, 213, 181);
const QColor kStrandedHatch(192, 112, 58);
const QColor kSliceBorder(160, 160, 160);
const QColor kSelectedRow(255, 241, 190);

int canvasWidth() {
  return 2 * MigMapWidget::kMargin + MigMapWidget::kNameWidth + MigMapWidget::kBarWidth +
         MigMapWidget::kNoteWidth;
}

}  // namespace

MigMapWidget::MigMapWidget(QWidget* parent)
    : QWidget(parent),
      catalog_(&GpuCatalog::builtin()),
      canvas_(new MigMapCanvas(this)),
      scroll_(new QScrollArea(this)),
      fleet_(new MigFleetSummary(this)),
      fleetView_(new QTableView(this)) {
  scroll_->setWidget(canvas_);
  scroll_->setWidgetResizable(false);
  fleetView_->setModel(fleet_);
  fleetView_->verticalHeader()->hide();
  fleetView_->horizontalHeader()->setStretchLastSection(true);
  fleetView_->setSelectionBehavior(QAbstractItemView::SelectRows);
  auto* box = new QVBoxLayout(this);
  box->setContentsMargins(0, 0, 0, 0);
  box->addWidget(scroll_, 3);
  box->addWidget(fleetView_, 2);
  rebuild();
}

MigMapWidget::~MigMapWidget() = default;

void MigMapWidget::setSnapshot(const ClusterSnapshot& snapshot) {
  snapshot_ = snapshot;
  rebuild();
}

void MigMapWidget::setDemand(std::vector<std::string> profilesInDemand) {
  demand_ = std::move(profilesInDemand);
  rebuild();
}

void MigMapWidget::setCatalog(const GpuCatalog* catalog) {
  catalog_ = catalog ? catalog : &GpuCatalog::builtin();
  rebuild();
}

void MigMapWidget::rebuild() {
  const QString keep = selectedGpu();
  gpus_ = migGpusOf(snapshot_, *catalog_);
  states_.clear();
  for (const MigGpu& gpu : gpus_) {
    const MigGeometry& g = *gpu.model->mig;
    states_.push_back(migSliceStates(g, gpu.layout, migDemandProfiles(g, demand_)));
  }
  selected_ = rowOf(keep);
  fleet_->setRows(migFleetRows(gpus_, demand_));
  fleetView_->resizeColumnsToContents();
  canvas_->setFixedSize(canvasWidth(), 2 * kMargin + kRowHeight * gpuCount());
  canvas_->update();
}

QStringList MigMapWidget::gpuNames() const {
  QStringList names;
  for (const MigGpu& gpu : gpus_) names << gpu.name;
  return names;
}

const MigGpu* MigMapWidget::gpu(int row) const {
  return row >= 0 && row < gpuCount() ? &gpus_[static_cast<size_t>(row)] : nullptr;
}

int MigMapWidget::rowOf(const QString& gpuName) const {
  for (int r = 0; r < gpuCount(); ++r)
    if (gpus_[static_cast<size_t>(r)].name == gpuName) return r;
  return -1;
}

QString MigMapWidget::selectedGpu() const {
  const MigGpu* g = gpu(selected_);
  return g ? g->name : QString();
}

bool MigMapWidget::selectGpu(const QString& gpuName) {
  const int row = rowOf(gpuName);
  if (row < 0) return false;
  selectRow(row);
  return true;
}

void MigMapWidget::selectRow(int row) {
  if (row < 0 || row >= gpuCount()) return;
  selected_ = row;
  scroll_->ensureVisible(0, rowRect(row).center().y(), 0, kRowHeight);
  canvas_->update();
  emit gpuSelected(gpus_[static_cast<size_t>(row)].name);
}

MigSliceState MigMapWidget::sliceState(int row, int slice) const {
  if (row < 0 || row >= gpuCount()) return MigSliceState::Free;
  const auto& states = states_[static_cast<size_t>(row)];
  if (slice < 0 || slice >= static_cast<int>(states.size())) return MigSliceState::Free;
  return states[static_cast<size_t>(slice)];
}

QRect MigMapWidget::rowRect(int row) const {
  return {0, kMargin + row * kRowHeight, canvasWidth(), kRowHeight};
}

QRect MigMapWidget::sliceRect(int row, int slice) const {
  const MigGpu* g = gpu(row);
  if (!g) return {};
  const int n = g->model->mig->memorySlices;
  const int x0 = kMargin + kNameWidth;
  // Integer edges so neighbouring slices share a border and the bar always ends at kBarWidth.
  const int left = x0 + slice * kBarWidth / n;
  const int right = x0 + (slice + 1) * kBarWidth / n;
  return {left, rowRect(row).top() + 3, right - left, kRowHeight - 6};
}

QRect MigMapWidget::instanceRect(int row, const MigInstance& inst) const {
  const MigGpu* g = gpu(row);
  if (!g || !inst.placed()) return {};
  const int size = profileOf(*g->model->mig, inst.profile).memorySlices;
  return sliceRect(row, inst.start).united(sliceRect(row, inst.start + size - 1));
}

int MigMapWidget::rowAt(QPoint canvasPos) const {
  if (canvasPos.y() < kMargin) return -1;
  const int row = (canvasPos.y() - kMargin) / kRowHeight;
  return row < gpuCount() ? row : -1;
}

int MigMapWidget::sliceAt(int row, QPoint canvasPos) const {
  const MigGpu* g = gpu(row);
  if (!g) return -1;
  for (int s = 0; s < g->model->mig->memorySlices; ++s)
    if (sliceRect(row, s).contains(canvasPos)) return s;
  return -1;
}

const MigInstance* MigMapWidget::instanceAt(int row, int slice) const {
  const MigGpu* g = gpu(row);
  if (!g) return nullptr;
  for (const MigInstance& i : g->layout)
    if (i.placed() && slice >= i.start &&
        slice < i.start + profileOf(*g->model->mig, i.profile).memorySlices)
      return &i;
  return nullptr;
}

QString MigMapWidget::toolTipAt(QPoint canvasPos) const {
  const int row = rowAt(canvasPos);
  const MigGpu* g = gpu(row);
  if (!g) return {};
  const int slice = sliceAt(row, canvasPos);
  if (slice < 0) {
    if (!g->problem.isEmpty()) return tr("%1: layout unreadable: %2").arg(g->name, g->problem);
    return tr("%1 (%2)").arg(g->name, qs(g->model->id));
  }
  if (const MigInstance* inst = instanceAt(row, slice)) return instanceToolTip(*g, *inst);
  return sliceToolTip(row, slice);
}

QString MigMapWidget::instanceToolTip(const MigGpu& gpu, const MigInstance& inst) const {
  const MigGeometry& g = *gpu.model->mig;
  QString text =
      tr("%1 on %2, %3")
          .arg(qs(formatMigInstance(*gpu.model, inst)), gpu.name, qs(describeSlices(g, inst)));
  if (const auto* o = migOccupantOf(gpu, inst)) {
    text += QLatin1Char('\n') + tr("busy: job %1").arg(o->job);
    if (!o->team.empty()) text += QLatin1Char(' ') + tr("(team %1)").arg(qs(o->team));
  } else {
    text += QLatin1Char('\n') + (inst.busy ? tr("busy") : tr("idle"));
  }
  return text;
}

QString MigMapWidget::sliceToolTip(int row, int slice) const {
  const QString& name = gpus_[static_cast<size_t>(row)].name;
  if (sliceState(row, slice) == MigSliceState::Stranded)
    return tr("%1 slice %2: free but stranded: no profile in demand can be placed over it")
        .arg(name)
        .arg(slice);
  return tr("%1 slice %2: free").arg(name).arg(slice);
}

QWidget* MigMapWidget::canvas() const {
  return canvas_;
}

void MigMapWidget::paintCanvas(QPainter& p, const QRect& dirty) const {
  p.fillRect(dirty, palette().color(QPalette::Base));
  for (int row = 0; row < gpuCount(); ++row)
    if (rowRect(row).intersects(dirty)) paintRow(p, row);
}

void MigMapWidget::paintRow(QPainter& p, int row) const {
  const MigGpu& g = gpus_[static_cast<size_t>(row)];
  const QRect r = rowRect(row);
  if (row == selected_) p.fillRect(r, kSelectedRow);
  p.setPen(palette().color(QPalette::Text));
  p.drawText(QRect(kMargin, r.top(), kNameWidth - kMargin, r.height()),
             Qt::AlignVCenter | Qt::AlignLeft, g.name);
  paintSlices(p, row);
  for (const MigInstance& inst : g.layout)
    if (inst.placed()) paintInstance(p, row, inst);
  const auto& states = states_[static_cast<size_t>(row)];
  const auto stranded = std::count(states.begin(), states.end(), MigSliceState::Stranded);
  const QString note = !g.problem.isEmpty() ? tr("unreadable")
                       : stranded           ? tr("%1 stranded").arg(stranded)
                                            : "";
  p.setPen(palette().color(QPalette::Text));
  p.drawText(QRect(kMargin + kNameWidth + kBarWidth + 6, r.top(), kNoteWidth - 6, r.height()),
             Qt::AlignVCenter | Qt::AlignLeft, note);
}

void MigMapWidget::paintSlices(QPainter& p, int row) const {
  const auto& states = states_[static_cast<size_t>(row)];
  for (int s = 0; s < static_cast<int>(states.size()); ++s) {
    const QRect r = sliceRect(row, s);
    const bool stranded = states[static_cast<size_t>(s)] == MigSliceState::Stranded;
    p.fillRect(r, stranded ? kStrandedFill : kFreeFill);
    // Hatching, not only a colour, so stranded slices stand out for colour-blind operators too.
    if (stranded) p.fillRect(r, QBrush(kStrandedHatch, Qt::BDiagPattern));
    p.setPen(kSliceBorder);
    p.setBrush(Qt::NoBrush);
    p.drawRect(r.adjusted(0, 0, -1, -1));
  }
}

void MigMapWidget::paintInstance(QPainter& p, int row, const MigInstance& inst) const {
  const MigGpu& g = gpus_[static_cast<size_t>(row)];
  const QRect r = instanceRect(row, inst).adjusted(1, 1, -1, -1);
  const QColor fill = inst.busy ? kBusyFill : kIdleFill;
  p.setPen(fill.darker(150));
  p.setBrush(fill);
  p.drawRect(r.adjusted(0, 0, -1, -1));
  const auto* o = migOccupantOf(g, inst);
  const QString lines[2] = {qs(profileOf(*g.model->mig, inst.profile).name),
                            o           ? tr("job %1").arg(o->job)
                            : inst.busy ? tr("busy")
                                        : tr("idle")};
  p.save();  // the small label font must not leak into the next row's GPU name
  QFont f = p.font();
  f.setPixelSize(10);
  p.setFont(f);
  p.setPen(inst.busy ? QColor(Qt::white) : QColor(20, 30, 50));
  // Inset so the label never covers the instance's corners (tests and the eye read the fill).
  const QRect text = r.adjusted(5, 4, -5, -4);
  const int half = text.height() / 2;
  for (int k = 0; k < 2; ++k)
    p.drawText(QRect(text.left(), text.top() + k * half, text.width(), half), Qt::AlignCenter,
               p.fontMetrics().elidedText(lines[k], Qt::ElideRight, text.width()));
  p.restore();
}

}  // namespace tessera::widgets
