#pragma once
// The console's "Export report…" dialog: what a utilization and chargeback report should cover
// (range, time zone, grouping, teams, idle rule, price table), a preview of the document, and
// the file to write (PDF, HTML, a directory of CSV files, JSON).
//
// The dialog knows nothing of sessions: a ReportRunner computes the report somewhere else (the
// console's embedded demo reads its database on a worker thread and reports progress; a remote
// tesserad answers ClusterSession::report, without progress). Every request carries a
// generation, as the console's other background work does (ARCHITECTURE.md idea 3): a newer
// Preview or Export, Cancel, a new runner or closing the dialog make the older request's
// progress callback return false and its result be dropped, so a slow answer never replaces a
// newer one. Results come back queued to the GUI thread and are used only while the dialog
// exists.
#include <QDialog>
#include <QString>
#include <QStringList>
#include <QVariantMap>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "report/report.h"

class QComboBox;
class QDateTimeEdit;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QStackedWidget;
class QTextBrowser;
class QTextDocument;

namespace tessera::widgets {

// Called with the fraction done (0..1), from any thread; false means the request was cancelled
// or superseded: stop working (the result will be ignored anyway).
using ReportProgressCallback = std::function<bool(double fractionDone)>;
// The report, or an error message for the user. Called once, from any thread.
using ReportDoneCallback = std::function<void(std::variant<Report, std::string>)>;
// Starts computing one report and returns at once (the work runs elsewhere). A runner that
// cannot tell how far it is never calls `progress`; the dialog then shows a busy bar.
using ReportRunner = std::function<void(ReportRequest request, ReportProgressCallback progress,
                                        ReportDoneCallback done)>;

class ReportExportDialog : public QDialog {
  Q_OBJECT
 public:
  // Presets count back from the session's newest time (setClock).
  enum class Range { Last24Hours, Last7Days, Last30Days, WholeHistory, Custom };
  enum class Format { Pdf, Html, Csv, Json };  // Csv: a directory with one file per table

  explicit ReportExportDialog(ReportRunner runner, QWidget* parent = nullptr);
  ~ReportExportDialog() override;

  // Another session's runner; a request still running is cancelled.
  void setRunner(ReportRunner runner);
  // The session's newest engine time: Unix seconds (wall clock) or seconds since a simulation
  // began (simulated: the range is then edited as hours from the start and has no time zone).
  void setClock(Seconds newest, bool wallClock);
  // Team names the session knows, offered as a hint for the teams filter.
  void setKnownTeams(const QStringList& teams);

  // The fields as plain values, for QSettings (the console restores them at the next start).
  [[nodiscard]] QVariantMap settings() const;
  void setSettings(const QVariantMap& settings);

  void setRange(Range range);
  // A custom range in engine seconds (switches the range to Custom).
  void setCustomRange(Seconds from, Seconds to);
  void setTimeZone(const QString& zone);
  void setGroupBy(ReportGroup group);
  void setTeams(const QString& commaSeparated);
  void setPriceFile(const QString& path);
  void setFormat(Format format);
  void setOutputPath(const QString& path);
  [[nodiscard]] Range range() const;
  [[nodiscard]] Format format() const;
  [[nodiscard]] QString outputPath() const;

  // The request the fields describe, or what is wrong with them (an inverted range, an unknown
  // time zone, a price table that does not parse - with its file:line).
  [[nodiscard]] std::variant<ReportRequest, QString> request() const;
  // The last report computed (shown in the preview); none before the first or after an edit
  // that changes what it would cover.
  [[nodiscard]] const std::optional<Report>& report() const { return report_; }
  [[nodiscard]] bool busy() const { return running_ != 0; }
  // The message line: the last error or what was written.
  [[nodiscard]] QString message() const;

  [[nodiscard]] QPushButton* previewButton() const { return previewButton_; }
  [[nodiscard]] QPushButton* exportButton() const { return exportButton_; }
  [[nodiscard]] QPushButton* cancelButton() const { return cancelButton_; }
  [[nodiscard]] QProgressBar* progressBar() const { return progress_; }
  [[nodiscard]] QTextBrowser* preview() const { return preview_; }
  [[nodiscard]] QLabel* priceError() const { return priceError_; }

 public slots:
  // Computes the report and shows it.
  void startPreview();
  // Writes the chosen format: the previewed report when nothing changed since, else a new one.
  void startExport();
  // Stops the running request (its progress callback returns false from now on).
  void cancelRequest();

 signals:
  void previewShown();
  void exported(const QString& path);
  void failed(const QString& message);

 private:
  enum class Purpose { Preview, Export };
  struct Shared;

  void buildUi();
  QWidget* buildRangeRow();
  QWidget* buildPriceRow();
  QWidget* buildOutputRow();
  QWidget* buildButtons();
  void connectEdits();
  void applyPreset();
  void showRange(Seconds from, Seconds to);
  void updateRangeHint();
  [[nodiscard]] std::optional<std::pair<Seconds, Seconds>> presetRange() const;
  [[nodiscard]] std::variant<std::pair<Seconds, Seconds>, QString> customRange() const;
  [[nodiscard]] QString zone() const;
  void checkPrices();
  void browsePrices();
  void browseOutput();
  void invalidate();
  void start(Purpose purpose);
  void progressed(uint64_t generation, int permille);
  void completed(uint64_t generation, Purpose purpose, std::variant<Report, std::string> result);
  void showReport(Report report);
  void writeReport();
  void setBusy(bool busy);
  void showMessage(const QString& text, bool error);

  ReportRunner runner_;
  std::shared_ptr<Shared> shared_;
  uint64_t nextGeneration_ = 0;
  uint64_t running_ = 0;  // the generation being computed; 0 when idle
  Seconds newest_ = 0;
  bool wallClock_ = true;
  bool settingRange_ = false;  // the fields are being set by a preset, not by the user
  std::optional<Report> report_;
  QTextDocument* document_ = nullptr;  // the preview's, owned by the browser

  QComboBox* preset_ = nullptr;
  QStackedWidget* rangeStack_ = nullptr;
  QDateTimeEdit* fromEdit_ = nullptr;
  QDateTimeEdit* toEdit_ = nullptr;
  QDoubleSpinBox* fromHours_ = nullptr;
  QDoubleSpinBox* toHours_ = nullptr;
  QLabel* rangeHint_ = nullptr;
  QComboBox* zone_ = nullptr;
  QComboBox* groupBy_ = nullptr;
  QLineEdit* teams_ = nullptr;
  QDoubleSpinBox* idleThreshold_ = nullptr;
  QSpinBox* idleMinutes_ = nullptr;
  QLineEdit* prices_ = nullptr;
  QLabel* priceError_ = nullptr;
  QComboBox* format_ = nullptr;
  QLineEdit* output_ = nullptr;
  QPushButton* previewButton_ = nullptr;
  QPushButton* exportButton_ = nullptr;
  QPushButton* cancelButton_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* message_ = nullptr;
  QTextBrowser* preview_ = nullptr;
};

}  // namespace tessera::widgets
