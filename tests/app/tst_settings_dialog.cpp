// The Settings dialog and the UI language rule: the dialog writes ui/language (or removes it for
// the system default), uiLocale() follows it, TESSERA_LANG still wins, and the main window opens
// the dialog from "Settings…" (Ctrl+,).
#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QListWidget>
#include <QSettings>
#include <QStandardPaths>
#include <QtTest>

#include "clusterspec/cluster_spec.h"
#include "console/main_window.h"
#include "console/settings_dialog.h"
#include "workload/workload_spec.h"

using namespace tessera;
using console::SettingsDialog;

namespace {

const QString kKey = QStringLiteral("ui/language");

QStringList itemTexts(const QComboBox* box) {
  QStringList texts;
  for (int i = 0; i < box->count(); ++i) texts << box->itemText(i);
  return texts;
}

void choose(SettingsDialog& d, const QString& code) {
  const int i = d.languageBox()->findData(code);
  QVERIFY(i >= 0);
  d.languageBox()->setCurrentIndex(i);
}

}  // namespace

class TstSettingsDialog : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    qunsetenv("TESSERA_LANG");
  }

  void cleanup() {
    qunsetenv("TESSERA_LANG");
    QSettings().remove(kKey);
  }

  void writesTheLanguage() {
    SettingsDialog d;
    QCOMPARE(itemTexts(d.languageBox()),
             (QStringList{"System default", "English", "Deutsch", QString::fromUtf8("简体中文")}));
    QCOMPARE(d.language(), QString());  // nothing saved: the system's
    QCOMPARE(console::languageOverride(), QString());
    QCOMPARE(console::uiLocale(), QLocale::system());
    choose(d, QStringLiteral("de"));
    d.accept();
    QCOMPARE(d.result(), int(QDialog::Accepted));
    QCOMPARE(QSettings().value(kKey).toString(), QStringLiteral("de"));
    QCOMPARE(console::languageOverride(), QStringLiteral("de"));
    QCOMPARE(console::uiLocale().language(), QLocale::German);

    SettingsDialog again;  // shows what is saved
    QCOMPARE(again.language(), QStringLiteral("de"));
    choose(again, QStringLiteral("zh_CN"));
    again.accept();
    QCOMPARE(console::uiLocale().language(), QLocale::Chinese);
    QCOMPARE(console::uiLocale().territory(), QLocale::China);

    // Back to the system default: the key goes away.
    SettingsDialog system;
    choose(system, QString());
    system.accept();
    QVERIFY(!QSettings().contains(kKey));
    QCOMPARE(console::uiLocale(), QLocale::system());
  }

  void cancelWritesNothing() {
    QSettings().setValue(kKey, QStringLiteral("en"));
    SettingsDialog d;
    QCOMPARE(d.language(), QStringLiteral("en"));
    choose(d, QStringLiteral("de"));
    d.reject();
    QCOMPARE(QSettings().value(kKey).toString(), QStringLiteral("en"));
    QCOMPARE(console::uiLocale().language(), QLocale::English);
  }

  void environmentWins() {
    QSettings().setValue(kKey, QStringLiteral("de"));
    qputenv("TESSERA_LANG", " zh_CN ");
    QCOMPARE(console::languageOverride(), QStringLiteral("zh_CN"));
    QCOMPARE(console::uiLocale().language(), QLocale::Chinese);
    SettingsDialog d;  // still edits the setting, and says what wins
    QCOMPARE(d.language(), QStringLiteral("de"));
    auto* note = d.findChild<QLabel*>(QStringLiteral("languageNote"));
    QVERIFY(note);
    QVERIFY2(note->text().contains(QStringLiteral("TESSERA_LANG=zh_CN")), qPrintable(note->text()));
    choose(d, QStringLiteral("en"));
    d.accept();
    QCOMPARE(QSettings().value(kKey).toString(), QStringLiteral("en"));
    QCOMPARE(console::uiLocale().language(), QLocale::Chinese);
    qunsetenv("TESSERA_LANG");
    QCOMPARE(console::uiLocale().language(), QLocale::English);
  }

  void keepsAnUnlistedCode() {
    QSettings().setValue(kKey, QStringLiteral("fr"));
    SettingsDialog d;
    QCOMPARE(d.language(), QStringLiteral("fr"));
    QCOMPARE(d.languageBox()->currentText(), QStringLiteral("fr"));
    d.accept();
    QCOMPARE(QSettings().value(kKey).toString(), QStringLiteral("fr"));
  }

  void mainWindowOpensIt() {
    console::EmbeddedOptions demo;
    demo.cluster = demoCluster();
    demo.workload = *demoWorkload();
    console::MainWindow window(std::move(demo));
    window.show();
    QAction* action = window.settingsAction();
    QVERIFY(action);
    QCOMPARE(action->text(), QStringLiteral("Settings…"));
    QCOMPARE(action->shortcut(), QKeySequence(QStringLiteral("Ctrl+,")));
    action->trigger();
    auto* dialog = window.findChild<SettingsDialog*>();
    QVERIFY(dialog);
    QTRY_VERIFY(dialog->isVisible());
    action->trigger();  // raised, not a second one
    QCOMPARE(window.findChildren<SettingsDialog*>().size(), 1);
    choose(*dialog, QStringLiteral("de"));
    dialog->accept();
    QCOMPARE(QSettings().value(kKey).toString(), QStringLiteral("de"));
    const auto* log = window.activity();
    QVERIFY(log->count() > 0);
    QVERIFY(log->item(log->count() - 1)->text().contains(QStringLiteral("Settings saved")));
  }
};

QTEST_MAIN(TstSettingsDialog)
#include "tst_settings_dialog.moc"
