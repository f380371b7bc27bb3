#pragma once
// The console's Settings dialog (Settings…, Ctrl+,) and the language rule it edits.
//
// The console's UI language follows the system locale (LANG, LC_ALL, LC_MESSAGES) unless an
// override names one: the environment variable TESSERA_LANG wins, else the setting ui/language
// (QSettings of organization "Tessera", application "tessera", e.g. ~/.config/Tessera/tessera.conf:
// [ui] language=de), which this dialog writes. Values: de, zh_CN, or en for the built-in English;
// shipped translations are translations/tessera_*.ts, embedded under :/i18n. The translators are
// installed once at startup, so a new choice applies at the next start (the dialog says so).
// Needs the organization and application names set (QSettings).
#include <QDialog>
#include <QLocale>
#include <QString>

#include <utility>
#include <vector>

class QComboBox;
class QLabel;

namespace tessera::console {

// The override in force: TESSERA_LANG, else ui/language (trimmed); empty = follow the system.
[[nodiscard]] QString languageOverride();
// The UI locale: the override's, else the system's.
[[nodiscard]] QLocale uiLocale();

class SettingsDialog : public QDialog {
  Q_OBJECT
 public:
  // The languages offered: code (as ui/language holds it; empty = system default) and the name
  // shown, in its own language.
  [[nodiscard]] static std::vector<std::pair<QString, QString>> languages();

  // Shows the saved settings.
  explicit SettingsDialog(QWidget* parent = nullptr);

  [[nodiscard]] QComboBox* languageBox() const { return language_; }
  [[nodiscard]] QString language() const;  // the chosen code; empty = system default
  void setLanguage(const QString& code);

  // Saves the choices, then closes.
  void accept() override;

 private:
  QComboBox* language_;
  QLabel* note_;
};

}  // namespace tessera::console
