// The "Export report…" dialog: the fields that make a ReportRequest, the runner's progress and
// result brought back to the GUI thread by generation, the preview and the writers.
#include "report_export_dialog.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QDateTimeEdit>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QTextBrowser>
#include <QTextDocument>
#include <QTimeZone>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "field_error.h"
#include "report/report_csv.h"
#include "report/report_json.h"
#include "report/report_time.h"
#include "report_document.h"

namespace tessera::widgets {

// What the worker threads may touch: whether the dialog still exists and which request it
// still wants. Cancel sets `wanted` to 0, a new request to its own generation.
struct ReportExportDialog::Shared {
  std::atomic<bool> alive{true};
  std::atomic<uint64_t> wanted{0};
};

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

constexpr int kProgressSteps = 1000;
const char* const kNaiveTimeFormat = "yyyy-MM-ddTHH:mm:ss";

// Hands `f` to the GUI thread; it runs only while the dialog exists. Callable from any thread.
template <typename Self, typename Shared, typename F>
void post(const std::shared_ptr<Shared>& shared, const QPointer<Self>& self, F&& f) {
  if (!shared->alive) return;
  QMetaObject::invokeMethod(
      QCoreApplication::instance(),
      [shared, self, f = std::forward<F>(f)]() mutable {
        if (shared->alive && self) f(*self);
      },
      Qt::QueuedConnection);
}

// The zone as QTimeZone, to show an instant as the local date and time the edits display.
// (report_time.cpp parses zones the same way but keeps its helper private; reading the edits
// back goes through its parseReportTime, so both directions agree on what a zone means.)
QTimeZone qtZone(const QString& zone) {
  static const QRegularExpression offset(R"(^([+-])(\d{1,2})(?::?(\d{2}))?$)");
  if (zone.isEmpty() || zone == QLatin1String("UTC") || zone == QLatin1String("Z"))
    return QTimeZone::utc();
  if (const auto m = offset.match(zone); m.hasMatch()) {
    const int sign = m.captured(1) == QLatin1String("-") ? -1 : 1;
    return QTimeZone(sign * (m.captured(2).toInt() * 3600 + m.captured(3).toInt() * 60));
  }
  QTimeZone tz(zone.toUtf8());
  return tz.isValid() ? tz : QTimeZone::utc();
}

const char* formatKey(ReportExportDialog::Format f) {
  switch (f) {
    case ReportExportDialog::Format::Pdf:
      return "pdf";
    case ReportExportDialog::Format::Html:
      return "html";
    case ReportExportDialog::Format::Csv:
      return "csv";
    case ReportExportDialog::Format::Json:
      break;
  }
  return "json";
}

// `path` with the extension of `f` (a CSV export is a directory: no extension).
QString withFormat(QString path, ReportExportDialog::Format f) {
  if (path.isEmpty()) return path;
  const QString suffix = QFileInfo(path).suffix().toLower();
  static const QStringList known = {"pdf", "html", "htm", "json", "csv"};
  if (known.contains(suffix)) path.chop(suffix.size() + 1);
  if (f == ReportExportDialog::Format::Csv) return path;
  return path + '.' + QLatin1String(formatKey(f));
}

QString defaultOutput() {
  QString dir = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
  if (dir.isEmpty()) dir = QDir::homePath();
  return QDir(dir).filePath(QStringLiteral("tessera-report.pdf"));
}

Seconds presetSpan(ReportExportDialog::Range r) {
  switch (r) {
    case ReportExportDialog::Range::Last24Hours:
      return 24 * 3600;
    case ReportExportDialog::Range::Last7Days:
      return 7 * 24 * 3600;
    case ReportExportDialog::Range::Last30Days:
      return 30 * 24 * 3600;
    case ReportExportDialog::Range::WholeHistory:
    case ReportExportDialog::Range::Custom:
      break;
  }
  return 0;
}

QDoubleSpinBox* hoursEdit() {
  auto* e = new QDoubleSpinBox;
  e->setRange(0, 1e7);
  e->setDecimals(2);
  e->setSuffix(ReportExportDialog::tr(" h"));
  return e;
}

QDateTimeEdit* dateTimeEdit() {
  auto* e = new QDateTimeEdit;
  // Naive date and time in the chosen zone: kept in UTC so the system's own daylight-saving
  // gaps never adjust what the user typed.
  e->setTimeSpec(Qt::UTC);
  e->setDisplayFormat(QStringLiteral("yyyy-MM-dd HH:mm"));
  e->setCalendarPopup(true);
  return e;
}

}  // namespace

ReportExportDialog::ReportExportDialog(ReportRunner runner, QWidget* parent)
    : QDialog(parent), runner_(std::move(runner)), shared_(std::make_shared<Shared>()) {
  setObjectName(QStringLiteral("reportExportDialog"));
  setWindowTitle(tr("Export report"));
  buildUi();
  connectEdits();
  applyPreset();
  setBusy(false);
  resize(1100, 720);
}

ReportExportDialog::~ReportExportDialog() {
  // Workers still running see their progress callback refuse and their result dropped.
  shared_->alive = false;
  shared_->wanted = 0;
}

// ---------------------------------------------------------------------------------------------
// Layout

void ReportExportDialog::buildUi() {
  auto* form = new QFormLayout;
  form->addRow(tr("Range"), buildRangeRow());
  zone_ = new QComboBox;
  zone_->setEditable(true);
  zone_->addItem(QStringLiteral("UTC"));
  const QString system = QString::fromUtf8(QTimeZone::systemTimeZoneId());
  if (!system.isEmpty() && system != QLatin1String("UTC")) zone_->addItem(system);
  for (const char* z : {"Europe/Berlin", "Europe/London", "America/New_York", "America/Los_Angeles",
                        "Asia/Shanghai", "Asia/Tokyo"})
    if (zone_->findText(QLatin1String(z)) < 0) zone_->addItem(QLatin1String(z));
  zone_->setToolTip(tr("UTC, an IANA name such as Europe/Berlin, or an offset such as +02:00"));
  form->addRow(tr("Time zone"), zone_);
  groupBy_ = new QComboBox;
  for (const auto& [group, label] :
       std::vector<std::pair<ReportGroup, QString>>{{ReportGroup::Team, tr("Team")},
                                                    {ReportGroup::Department, tr("Department")},
                                                    {ReportGroup::Queue, tr("Queue")},
                                                    {ReportGroup::Pool, tr("Pool")},
                                                    {ReportGroup::GpuModel, tr("GPU model")},
                                                    {ReportGroup::Node, tr("Node")},
                                                    {ReportGroup::Job, tr("Job")}})
    groupBy_->addItem(label, static_cast<int>(group));
  form->addRow(tr("Group by"), groupBy_);
  teams_ = new QLineEdit;
  teams_->setPlaceholderText(tr("all teams (or a comma-separated list)"));
  form->addRow(tr("Teams"), teams_);
  idleThreshold_ = new QDoubleSpinBox;
  idleThreshold_->setRange(0, 100);
  idleThreshold_->setDecimals(1);
  idleThreshold_->setSuffix(tr(" %"));
  idleThreshold_->setValue(5);
  idleThreshold_->setToolTip(tr("A GPU below this utilization counts as idle"));
  form->addRow(tr("Idle below"), idleThreshold_);
  idleMinutes_ = new QSpinBox;
  idleMinutes_->setRange(0, 7 * 24 * 60);
  idleMinutes_->setSuffix(tr(" min"));
  idleMinutes_->setValue(30);
  idleMinutes_->setToolTip(tr("Shorter idle stretches are not counted as idle"));
  form->addRow(tr("Idle for at least"), idleMinutes_);
  form->addRow(tr("Price table"), buildPriceRow());
  format_ = new QComboBox;
  format_->addItem(tr("PDF document"), static_cast<int>(Format::Pdf));
  format_->addItem(tr("HTML page"), static_cast<int>(Format::Html));
  format_->addItem(tr("CSV files (a directory)"), static_cast<int>(Format::Csv));
  format_->addItem(tr("JSON"), static_cast<int>(Format::Json));
  form->addRow(tr("Format"), format_);
  form->addRow(tr("Save to"), buildOutputRow());

  auto* left = new QWidget;
  auto* leftLayout = new QVBoxLayout(left);
  leftLayout->setContentsMargins(0, 0, 0, 0);
  leftLayout->addLayout(form);
  leftLayout->addStretch(1);
  preview_ = new QTextBrowser;
  preview_->setObjectName(QStringLiteral("reportPreview"));
  preview_->setPlaceholderText(tr("Preview computes the report and shows it here."));
  auto* splitter = new QSplitter;
  splitter->addWidget(left);
  splitter->addWidget(preview_);
  splitter->setStretchFactor(1, 1);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(splitter, 1);
  layout->addWidget(buildButtons());
}

QWidget* ReportExportDialog::buildRangeRow() {
  preset_ = new QComboBox;
  preset_->addItem(tr("Last 24 hours"), static_cast<int>(Range::Last24Hours));
  preset_->addItem(tr("Last 7 days"), static_cast<int>(Range::Last7Days));
  preset_->addItem(tr("Last 30 days"), static_cast<int>(Range::Last30Days));
  preset_->addItem(tr("Whole history"), static_cast<int>(Range::WholeHistory));
  preset_->addItem(tr("Custom"), static_cast<int>(Range::Custom));
  fromEdit_ = dateTimeEdit();
  toEdit_ = dateTimeEdit();
  fromHours_ = hoursEdit();
  toHours_ = hoursEdit();
  // Wall-clock sessions edit dates; a simulation's clock starts at 0, so its range is edited as
  // hours since the simulation began.
  auto page = [](QWidget* from, QWidget* to) {
    auto* w = new QWidget;
    auto* l = new QHBoxLayout(w);
    l->setContentsMargins(0, 0, 0, 0);
    l->addWidget(new QLabel(tr("from")));
    l->addWidget(from, 1);
    l->addWidget(new QLabel(tr("to")));
    l->addWidget(to, 1);
    return w;
  };
  rangeStack_ = new QStackedWidget;
  rangeStack_->addWidget(page(fromEdit_, toEdit_));
  rangeStack_->addWidget(page(fromHours_, toHours_));
  rangeHint_ = new QLabel;
  rangeHint_->setWordWrap(true);
  auto* w = new QWidget;
  auto* l = new QVBoxLayout(w);
  l->setContentsMargins(0, 0, 0, 0);
  l->addWidget(preset_);
  l->addWidget(rangeStack_);
  l->addWidget(rangeHint_);
  return w;
}

QWidget* ReportExportDialog::buildPriceRow() {
  prices_ = new QLineEdit;
  prices_->setPlaceholderText(tr("none: no cost figures"));
  auto* browse = new QPushButton(tr("Browse…"));
  connect(browse, &QPushButton::clicked, this, &ReportExportDialog::browsePrices);
  priceError_ = fieldErrorLabel("priceError");
  auto* w = new QWidget;
  auto* grid = new QGridLayout(w);
  grid->setContentsMargins(0, 0, 0, 0);
  grid->addWidget(prices_, 0, 0);
  grid->addWidget(browse, 0, 1);
  grid->addWidget(priceError_, 1, 0, 1, 2);
  return w;
}

QWidget* ReportExportDialog::buildOutputRow() {
  output_ = new QLineEdit(defaultOutput());
  auto* browse = new QPushButton(tr("Browse…"));
  connect(browse, &QPushButton::clicked, this, &ReportExportDialog::browseOutput);
  auto* w = new QWidget;
  auto* l = new QHBoxLayout(w);
  l->setContentsMargins(0, 0, 0, 0);
  l->addWidget(output_, 1);
  l->addWidget(browse);
  return w;
}

QWidget* ReportExportDialog::buildButtons() {
  progress_ = new QProgressBar;
  progress_->setRange(0, kProgressSteps);
  progress_->setFormat(QStringLiteral("%p%"));
  progress_->setMinimumWidth(220);
  message_ = new QLabel;
  message_->setObjectName(QStringLiteral("reportMessage"));
  message_->setWordWrap(true);
  message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  previewButton_ = new QPushButton(tr("Preview"));
  exportButton_ = new QPushButton(tr("Export"));
  exportButton_->setDefault(true);
  cancelButton_ = new QPushButton(tr("Cancel"));
  cancelButton_->setToolTip(tr("Stop computing the report"));
  auto* box = new QDialogButtonBox(QDialogButtonBox::Close);
  box->addButton(previewButton_, QDialogButtonBox::ActionRole);
  box->addButton(exportButton_, QDialogButtonBox::ActionRole);
  connect(previewButton_, &QPushButton::clicked, this, &ReportExportDialog::startPreview);
  connect(exportButton_, &QPushButton::clicked, this, &ReportExportDialog::startExport);
  connect(cancelButton_, &QPushButton::clicked, this, &ReportExportDialog::cancelRequest);
  connect(box, &QDialogButtonBox::rejected, this, &QDialog::reject);
  // Closing the dialog (Close, Esc, the window's X) abandons what it was computing.
  connect(this, &QDialog::finished, this, &ReportExportDialog::cancelRequest);
  auto* w = new QWidget;
  auto* l = new QVBoxLayout(w);
  l->setContentsMargins(0, 0, 0, 0);
  auto* status = new QHBoxLayout;
  status->addWidget(message_, 1);
  status->addWidget(progress_);
  status->addWidget(cancelButton_);
  l->addLayout(status);
  l->addWidget(box);
  return w;
}

void ReportExportDialog::connectEdits() {
  connect(preset_, &QComboBox::currentIndexChanged, this, [this] {
    applyPreset();
    invalidate();
  });
  // An edited bound makes the range Custom; a preset filling the edits does not.
  auto edited = [this] {
    if (settingRange_) return;
    settingRange_ = true;
    preset_->setCurrentIndex(preset_->findData(static_cast<int>(Range::Custom)));
    settingRange_ = false;
    updateRangeHint();
    invalidate();
  };
  connect(fromEdit_, &QDateTimeEdit::dateTimeChanged, this, edited);
  connect(toEdit_, &QDateTimeEdit::dateTimeChanged, this, edited);
  connect(fromHours_, &QDoubleSpinBox::valueChanged, this, edited);
  connect(toHours_, &QDoubleSpinBox::valueChanged, this, edited);
  connect(zone_, &QComboBox::currentTextChanged, this, [this] {
    // A preset keeps its instants and shows them in the new zone; a custom range keeps what
    // was typed, now read in the new zone.
    if (range() != Range::Custom) applyPreset();
    updateRangeHint();
    invalidate();
  });
  connect(groupBy_, &QComboBox::currentIndexChanged, this, &ReportExportDialog::invalidate);
  connect(teams_, &QLineEdit::textChanged, this, &ReportExportDialog::invalidate);
  connect(idleThreshold_, &QDoubleSpinBox::valueChanged, this, &ReportExportDialog::invalidate);
  connect(idleMinutes_, &QSpinBox::valueChanged, this, &ReportExportDialog::invalidate);
  connect(prices_, &QLineEdit::textChanged, this, &ReportExportDialog::invalidate);
  connect(prices_, &QLineEdit::editingFinished, this, &ReportExportDialog::checkPrices);
  connect(format_, &QComboBox::currentIndexChanged, this,
          [this] { output_->setText(withFormat(output_->text(), format())); });
}

// ---------------------------------------------------------------------------------------------
// Fields

void ReportExportDialog::setClock(Seconds newest, bool wallClock) {
  newest_ = newest;
  wallClock_ = wallClock;
  rangeStack_->setCurrentIndex(wallClock ? 0 : 1);
  zone_->setEnabled(wallClock);
  zone_->setToolTip(wallClock
                        ? tr("UTC, an IANA name such as Europe/Berlin, or an offset such as +02:00")
                        : tr("Simulated time has no time zone"));
  if (range() != Range::Custom) applyPreset();
  updateRangeHint();
}

void ReportExportDialog::setKnownTeams(const QStringList& teams) {
  teams_->setToolTip(teams.isEmpty() ? QString() : tr("Known teams: %1").arg(teams.join(", ")));
}

void ReportExportDialog::setRunner(ReportRunner runner) {
  cancelRequest();
  runner_ = std::move(runner);
  invalidate();
}

void ReportExportDialog::setRange(Range r) {
  preset_->setCurrentIndex(preset_->findData(static_cast<int>(r)));
}

void ReportExportDialog::setCustomRange(Seconds from, Seconds to) {
  setRange(Range::Custom);
  settingRange_ = true;
  showRange(from, to);
  settingRange_ = false;
  updateRangeHint();
  invalidate();
}

void ReportExportDialog::setTimeZone(const QString& zone) {
  zone_->setCurrentText(zone);
}

void ReportExportDialog::setGroupBy(ReportGroup group) {
  groupBy_->setCurrentIndex(groupBy_->findData(static_cast<int>(group)));
}

void ReportExportDialog::setTeams(const QString& commaSeparated) {
  teams_->setText(commaSeparated);
}

void ReportExportDialog::setPriceFile(const QString& path) {
  prices_->setText(path);
  checkPrices();
}

void ReportExportDialog::setFormat(Format f) {
  format_->setCurrentIndex(format_->findData(static_cast<int>(f)));
}

void ReportExportDialog::setOutputPath(const QString& path) {
  output_->setText(path);
}

ReportExportDialog::Range ReportExportDialog::range() const {
  return static_cast<Range>(preset_->currentData().toInt());
}

ReportExportDialog::Format ReportExportDialog::format() const {
  return static_cast<Format>(format_->currentData().toInt());
}

QString ReportExportDialog::outputPath() const {
  return output_->text().trimmed();
}

QString ReportExportDialog::zone() const {
  const QString z = zone_->currentText().trimmed();
  return z.isEmpty() ? QStringLiteral("UTC") : z;
}

QString ReportExportDialog::message() const {
  return message_->text();
}

// A preset's bounds: back from the session's newest time (the wall clock when a live session
// has not said yet). None for the whole history (the source's own first and last) and Custom.
std::optional<std::pair<Seconds, Seconds>> ReportExportDialog::presetRange() const {
  const Seconds span = presetSpan(range());
  if (span == 0) return std::nullopt;
  Seconds to = newest_;
  if (wallClock_ && to <= 0) to = QDateTime::currentSecsSinceEpoch();
  Seconds from = to - span;
  if (!wallClock_) from = std::max<Seconds>(0, from);  // a simulation starts at 0
  return std::pair{from, to};
}

std::variant<std::pair<Seconds, Seconds>, QString> ReportExportDialog::customRange() const {
  if (!wallClock_)
    return std::pair{static_cast<Seconds>(std::llround(fromHours_->value() * 3600)),
                     static_cast<Seconds>(std::llround(toHours_->value() * 3600))};
  const std::string z = zone().toStdString();
  auto read = [&](const QDateTimeEdit* e) {
    return parseReportTime(e->dateTime().toString(QLatin1String(kNaiveTimeFormat)).toStdString(), z,
                           newest_);
  };
  const auto from = read(fromEdit_);
  if (!from) return qs(from.error().str());
  const auto to = read(toEdit_);
  if (!to) return qs(to.error().str());
  return std::pair{*from, *to};
}

// Shows `from`..`to` in the edits of the clock's kind (the caller guards with settingRange_).
void ReportExportDialog::showRange(Seconds from, Seconds to) {
  if (!wallClock_) {
    fromHours_->setValue(static_cast<double>(from) / 3600);
    toHours_->setValue(static_cast<double>(to) / 3600);
    return;
  }
  const QTimeZone tz = qtZone(zone());
  auto naive = [&tz](Seconds t) {
    const QDateTime local = QDateTime::fromSecsSinceEpoch(t, tz);
    return QDateTime(local.date(), local.time(), Qt::UTC);
  };
  fromEdit_->setDateTime(naive(from));
  toEdit_->setDateTime(naive(to));
}

void ReportExportDialog::applyPreset() {
  if (const auto r = presetRange()) {
    settingRange_ = true;
    showRange(r->first, r->second);
    settingRange_ = false;
  }
  // Bounds do not apply to the whole history: the edits would only mislead.
  rangeStack_->setEnabled(range() != Range::WholeHistory);
  updateRangeHint();
}

void ReportExportDialog::updateRangeHint() {
  if (range() == Range::WholeHistory) {
    rangeHint_->setText(tr("Everything the session has recorded."));
    return;
  }
  const auto r = range() == Range::Custom
                     ? customRange()
                     : std::variant<std::pair<Seconds, Seconds>, QString>(*presetRange());
  if (const auto* error = std::get_if<QString>(&r)) {
    rangeHint_->setText(*error);
    return;
  }
  const auto [from, to] = std::get<std::pair<Seconds, Seconds>>(r);
  const std::string z = zone().toStdString();
  const QString text = tr("%1 – %2").arg(qs(formatReportTime(from, wallClock_, z)),
                                         qs(formatReportTime(to, wallClock_, z)));
  rangeHint_->setText(wallClock_ ? text : tr("%1 (simulated time)").arg(text));
}

std::variant<ReportRequest, QString> ReportExportDialog::request() const {
  ReportRequest r;
  r.timeZone = zone().toStdString();
  if (wallClock_)
    if (const Status z = checkTimeZone(r.timeZone); !z) return qs(z.error().str());
  if (range() == Range::Custom) {
    const auto custom = customRange();
    if (const auto* error = std::get_if<QString>(&custom)) return *error;
    std::tie(r.from, r.to) = std::get<std::pair<Seconds, Seconds>>(custom);
  } else if (const auto preset = presetRange(); preset && preset->second > preset->first) {
    std::tie(r.from, r.to) = *preset;
  }  // else: a simulation that has not told its clock yet; the source knows its own range
  if (r.from && r.to && *r.from >= *r.to)
    return tr("The range ends before it starts: give a “to” later than “from”.");
  r.groupBy = static_cast<ReportGroup>(groupBy_->currentData().toInt());
  r.idleThreshold = idleThreshold_->value() / 100;
  r.idleMinDuration = static_cast<Seconds>(idleMinutes_->value()) * 60;
  for (const QString& t : teams_->text().split(',', Qt::SkipEmptyParts))
    if (!t.trimmed().isEmpty()) r.teams.push_back(t.trimmed().toStdString());
  if (const QString file = prices_->text().trimmed(); !file.isEmpty()) {
    auto table = loadPriceTableFile(file.toStdString());
    if (!table) return tr("Price table: %1").arg(qs(table.error().str()));
    r.prices = std::move(*table);
  }
  return r;
}

// The price table's parse error (with file:line) right under its field, as soon as it is known.
void ReportExportDialog::checkPrices() {
  const QString file = prices_->text().trimmed();
  const auto table =
      file.isEmpty() ? Expected<PriceTable>(PriceTable{}) : loadPriceTableFile(file.toStdString());
  showFieldError(priceError_, table ? QString() : qs(table.error().str()));
}

void ReportExportDialog::browsePrices() {
  const QString file = QFileDialog::getOpenFileName(
      this, tr("Price table"), prices_->text(), tr("Price tables (*.yaml *.yml);;All files (*)"));
  if (!file.isEmpty()) setPriceFile(file);
}

void ReportExportDialog::browseOutput() {
  QString path;
  switch (format()) {
    case Format::Csv:
      path = QFileDialog::getExistingDirectory(this, tr("Directory for the CSV files"),
                                               output_->text());
      break;
    case Format::Pdf:
      path = QFileDialog::getSaveFileName(this, tr("Export report"), output_->text(),
                                          tr("PDF documents (*.pdf)"));
      break;
    case Format::Html:
      path = QFileDialog::getSaveFileName(this, tr("Export report"), output_->text(),
                                          tr("HTML pages (*.html *.htm)"));
      break;
    case Format::Json:
      path = QFileDialog::getSaveFileName(this, tr("Export report"), output_->text(),
                                          tr("JSON files (*.json)"));
      break;
  }
  if (!path.isEmpty()) output_->setText(path);
}

// What the report would cover changed: Export computes a new one instead of writing the preview.
void ReportExportDialog::invalidate() {
  report_.reset();
}

QVariantMap ReportExportDialog::settings() const {
  QVariantMap s;
  s[QStringLiteral("range")] = static_cast<int>(range());
  if (range() == Range::Custom) {
    const auto custom = customRange();
    if (const auto* r = std::get_if<std::pair<Seconds, Seconds>>(&custom)) {
      s[QStringLiteral("from")] = static_cast<qlonglong>(r->first);
      s[QStringLiteral("to")] = static_cast<qlonglong>(r->second);
    }
  }
  s[QStringLiteral("timeZone")] = zone();
  s[QStringLiteral("groupBy")] =
      QLatin1String(reportGroupName(static_cast<ReportGroup>(groupBy_->currentData().toInt())));
  s[QStringLiteral("teams")] = teams_->text();
  s[QStringLiteral("idleThresholdPercent")] = idleThreshold_->value();
  s[QStringLiteral("idleMinutes")] = idleMinutes_->value();
  s[QStringLiteral("prices")] = prices_->text();
  s[QStringLiteral("format")] = QLatin1String(formatKey(format()));
  s[QStringLiteral("output")] = output_->text();
  return s;
}

void ReportExportDialog::setSettings(const QVariantMap& s) {
  auto has = [&s](const char* key) { return s.contains(QLatin1String(key)); };
  auto get = [&s](const char* key) { return s.value(QLatin1String(key)); };
  if (has("timeZone")) setTimeZone(get("timeZone").toString());
  if (has("groupBy"))
    if (const auto g = parseReportGroup(get("groupBy").toString().toStdString())) setGroupBy(*g);
  if (has("teams")) setTeams(get("teams").toString());
  if (has("idleThresholdPercent")) idleThreshold_->setValue(get("idleThresholdPercent").toDouble());
  if (has("idleMinutes")) idleMinutes_->setValue(get("idleMinutes").toInt());
  if (has("prices")) setPriceFile(get("prices").toString());
  for (const Format f : {Format::Pdf, Format::Html, Format::Csv, Format::Json})
    if (get("format").toString() == QLatin1String(formatKey(f))) setFormat(f);
  if (has("output") && !get("output").toString().isEmpty()) setOutputPath(get("output").toString());
  const int r = get("range").toInt();
  if (has("from") && has("to") && r == static_cast<int>(Range::Custom))
    setCustomRange(get("from").toLongLong(), get("to").toLongLong());
  else if (has("range") && r >= 0 && r < static_cast<int>(Range::Custom))
    setRange(static_cast<Range>(r));
}

// ---------------------------------------------------------------------------------------------
// Running

void ReportExportDialog::startPreview() {
  start(Purpose::Preview);
}

void ReportExportDialog::startExport() {
  if (outputPath().isEmpty()) {
    showMessage(tr("Choose where to save the report."), true);
    return;
  }
  if (report_) {  // the preview shows what would be computed again
    cancelRequest();
    writeReport();
    return;
  }
  start(Purpose::Export);
}

void ReportExportDialog::cancelRequest() {
  if (!running_) return;
  shared_->wanted = 0;
  running_ = 0;
  setBusy(false);
  showMessage(tr("Cancelled."), false);
}

void ReportExportDialog::start(Purpose purpose) {
  checkPrices();
  auto req = request();
  if (const auto* error = std::get_if<QString>(&req)) {
    showMessage(*error, true);
    emit failed(*error);
    return;
  }
  if (!runner_) {
    showMessage(tr("No session to compute the report from."), true);
    return;
  }
  // A newer request supersedes the running one: its progress callback now returns false.
  const uint64_t gen = ++nextGeneration_;
  shared_->wanted = gen;
  running_ = gen;
  setBusy(true);
  showMessage(tr("Computing the report…"), false);
  const QPointer<ReportExportDialog> self(this);
  auto lastPermille = std::make_shared<std::atomic<int>>(-1);
  ReportProgressCallback progress = [shared = shared_, self, gen, lastPermille](double done) {
    if (!shared->alive || shared->wanted != gen) return false;
    const int permille =
        std::clamp(static_cast<int>(std::lround(done * kProgressSteps)), 0, kProgressSteps);
    // Only a visible change costs a trip to the GUI thread.
    if (lastPermille->exchange(permille) != permille)
      post(shared, self, [gen, permille](ReportExportDialog& d) { d.progressed(gen, permille); });
    return true;
  };
  ReportDoneCallback done = [shared = shared_, self, gen,
                             purpose](std::variant<Report, std::string> result) {
    post(shared, self, [gen, purpose, result = std::move(result)](ReportExportDialog& d) mutable {
      d.completed(gen, purpose, std::move(result));
    });
  };
  runner_(std::get<ReportRequest>(std::move(req)), std::move(progress), std::move(done));
}

void ReportExportDialog::progressed(uint64_t generation, int permille) {
  if (generation != running_) return;
  progress_->setRange(0, kProgressSteps);  // the runner reports: no longer a busy bar
  progress_->setValue(permille);
}

void ReportExportDialog::completed(uint64_t generation, Purpose purpose,
                                   std::variant<Report, std::string> result) {
  if (generation != running_) return;  // cancelled or superseded
  running_ = 0;
  setBusy(false);
  if (const auto* error = std::get_if<std::string>(&result)) {
    showMessage(qs(*error), true);
    emit failed(qs(*error));
    return;
  }
  showReport(std::get<Report>(std::move(result)));
  if (purpose == Purpose::Export) {
    writeReport();
    return;
  }
  showMessage(tr("Preview ready; Export writes this report."), false);
  emit previewShown();
}

void ReportExportDialog::showReport(Report report) {
  auto document = reportTextDocument(report);
  document->setParent(preview_);
  preview_->setDocument(document.get());
  delete document_;
  document_ = document.release();
  report_ = std::move(report);
}

// The report in the chosen format; PDF and HTML render here because Qt's text layout and charts
// need the GUI thread (report_document.h).
void ReportExportDialog::writeReport() {
  const QString path = outputPath();
  const std::string p = path.toStdString();
  Status written = okStatus();
  switch (format()) {
    case Format::Pdf:
      written = writeReportPdf(*report_, p);
      break;
    case Format::Html:
      written = writeReportHtml(*report_, p);
      break;
    case Format::Csv:
      written = writeReportCsv(*report_, p);
      break;
    case Format::Json:
      written = writeReportJsonFile(*report_, p);
      break;
  }
  if (!written) {
    showMessage(tr("Cannot write the report: %1").arg(qs(written.error().str())), true);
    emit failed(message());
    return;
  }
  showMessage(tr("Wrote %1").arg(QDir::toNativeSeparators(path)), false);
  emit exported(path);
}

void ReportExportDialog::setBusy(bool busy) {
  // Cancel sits beside the bar, apart from Close: it stops the computation, not the dialog.
  progress_->setVisible(busy);
  cancelButton_->setVisible(busy);
  cancelButton_->setEnabled(busy);
  if (busy) {
    progress_->setRange(0, 0);  // a busy bar until the runner says how far it is
    progress_->setValue(0);
  }
}

void ReportExportDialog::showMessage(const QString& text, bool error) {
  message_->setText(text);
  message_->setStyleSheet(error ? QStringLiteral("color: #c0392b;") : QString());
}

}  // namespace tessera::widgets
