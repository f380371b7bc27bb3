#pragma once
// Golden text files for model tests (hotspot's tst_models style): a model's dump is compared
// with tests/data/widgets/<name>, or the file is rewritten when TESSERA_UPDATE_GOLDEN is set
// (then review the diff before committing it).
#include <QFile>
#include <QString>

namespace tessera::test {

inline bool matchesGolden(const QString& name, const QString& actual) {
  const QString path = QStringLiteral(TESSERA_TEST_DATA "/widgets/") + name;
  QFile f(path);
  if (qEnvironmentVariableIsSet("TESSERA_UPDATE_GOLDEN")) {
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
    f.write(actual.toUtf8());
    qInfo("rewrote %s", qPrintable(path));
    return true;
  }
  if (!f.open(QIODevice::ReadOnly)) {
    qWarning("missing golden file %s", qPrintable(path));
    return false;
  }
  const QString expected = QString::fromUtf8(f.readAll());
  if (expected == actual) return true;
  qWarning("%s differs; actual:\n%s", qPrintable(path), qPrintable(actual));
  return false;
}

}  // namespace tessera::test
