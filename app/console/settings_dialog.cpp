// The Settings dialog and the UI language rule (see settings_dialog.h).
#include "console/settings_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QSettings>

namespace tessera::console {

namespace {

const QString kLanguageKey = QStringLiteral("ui/language");
const char* const kLanguageEnv = "TESSERA_LANG";

}  // namespace

QString languageOverride() {
  const QString env = qEnvironmentVariable(kLanguageEnv).trimmed();
  if (!env.isEmpty()) return env;
  return QSettings().value(kLanguageKey).toString().trimmed();
}

QLocale uiLocale() {
  // "en" (or a language without a translation) loads nothing: the English source strings show.
  const QString choice = languageOverride();
  return choice.isEmpty() ? QLocale::system() : QLocale(choice);
}

std::vector<std::pair<QString, QString>> SettingsDialog::languages() {
  // Each language in its own words: the reader may not understand the current one.
  return {{QString(), tr("System default")},
          {QStringLiteral("en"), QStringLiteral("English")},
          {QStringLiteral("de"), QStringLiteral("Deutsch")},
          {QStringLiteral("zh_CN"), QString::fromUtf8("简体中文")}};
}

SettingsDialog::SettingsDialog(QWidget* parent)
    : QDialog(parent), language_(new QComboBox), note_(new QLabel) {
  setWindowTitle(tr("Settings"));
  setObjectName(QStringLiteral("settingsDialog"));
  language_->setObjectName(QStringLiteral("language"));
  for (const auto& [code, name] : languages()) language_->addItem(name, code);
  setLanguage(QSettings().value(kLanguageKey).toString().trimmed());
  note_->setObjectName(QStringLiteral("languageNote"));
  note_->setWordWrap(true);
  QString note = tr("The language changes when Tessera is started again.");
  if (const QString env = qEnvironmentVariable(kLanguageEnv).trimmed(); !env.isEmpty())
    note += QLatin1Char('\n') +
            tr("TESSERA_LANG=%1 is set in the environment and wins over this setting.").arg(env);
  note_->setText(note);
  auto* form = new QFormLayout(this);
  form->addRow(tr("Language"), language_);
  form->addRow(note_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  connect(buttons, &QDialogButtonBox::accepted, this, &SettingsDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &SettingsDialog::reject);
  form->addRow(buttons);
}

QString SettingsDialog::language() const {
  return language_->currentData().toString();
}

void SettingsDialog::setLanguage(const QString& code) {
  int i = language_->findData(code);
  if (i < 0) {
    // A code set by hand (another language, a typo): shown as it is, and kept unless changed.
    language_->addItem(code, code);
    i = language_->count() - 1;
  }
  language_->setCurrentIndex(i);
}

void SettingsDialog::accept() {
  QSettings s;
  if (language().isEmpty())
    s.remove(kLanguageKey);
  else
    s.setValue(kLanguageKey, language());
  QDialog::accept();
}

}  // namespace tessera::console
