// The shipped UI translations (translations/tessera_*.ts) are complete: every message of every
// language is finished, keeps the source's placeholders, rich-text tags and shortcut markers, all
// languages translate the same strings, and those are the strings the console's sources mark with
// tr() (checked by running lupdate into a scratch file). The compiled .qm files, when the build
// has produced them, must give those same translations through QTranslator.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <QTranslator>
#include <QXmlStreamReader>

#include <algorithm>

namespace {

const QString kTranslationsDir = QStringLiteral(TESSERA_SOURCE_DIR "/translations");
// Languages the console ships (translations/tessera_<code>.ts); English is the source text.
const QStringList kShipped = {QStringLiteral("de"), QStringLiteral("zh_CN")};

struct Message {
  QString context;
  QString source;
  QString comment;  // disambiguation: part of the message's identity
  bool numerus = false;
  QString type;              // translation's type attribute: "", unfinished, vanished, obsolete
  QStringList translations;  // one, or the numerus forms
  QString key() const {
    return context + QLatin1Char('\x1f') + source + QLatin1Char('\x1f') + comment;
  }
  QString where() const {
    return QStringLiteral("[%1] \"%2\"%3")
        .arg(context, source, comment.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(comment));
  }
};

struct TsFile {
  QString language;  // the TS element's language attribute
  QList<Message> messages;
};

bool readTs(const QString& path, TsFile& out, QString& error) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    error = f.errorString();
    return false;
  }
  QXmlStreamReader xml(&f);
  QString context;
  Message current;
  bool inMessage = false;
  while (!xml.atEnd()) {
    xml.readNext();
    const auto name = xml.name();
    if (xml.isEndElement() && name == QLatin1String("message")) {
      out.messages.append(current);
      inMessage = false;
    }
    if (!xml.isStartElement()) continue;
    if (name == QLatin1String("TS")) {
      out.language = xml.attributes().value(QLatin1String("language")).toString();
    } else if (name == QLatin1String("name") && !inMessage) {
      context = xml.readElementText();
    } else if (name == QLatin1String("message")) {
      current = Message{};
      inMessage = true;
      current.context = context;
      current.numerus = xml.attributes().value(QLatin1String("numerus")) == QLatin1String("yes");
    } else if (inMessage && name == QLatin1String("source")) {
      current.source = xml.readElementText();
    } else if (inMessage && name == QLatin1String("comment")) {
      current.comment = xml.readElementText();
    } else if (inMessage && name == QLatin1String("translation")) {
      current.type = xml.attributes().value(QLatin1String("type")).toString();
      if (!current.numerus) current.translations << xml.readElementText();
    } else if (inMessage && name == QLatin1String("numerusform")) {
      current.translations << xml.readElementText();
    }
  }
  if (xml.hasError()) {
    error = QStringLiteral("line %1: %2").arg(xml.lineNumber()).arg(xml.errorString());
    return false;
  }
  return true;
}

QString tsPath(const QString& code) {
  return kTranslationsDir + QStringLiteral("/tessera_%1.ts").arg(code);
}

// %1..%99, %L1 and %n, each once: a translation may repeat or reorder them, not drop or add one.
QStringList placeholders(const QString& text) {
  static const QRegularExpression re(QStringLiteral("%L?([0-9]{1,2}|n)"));
  QSet<QString> found;
  for (auto it = re.globalMatch(text); it.hasNext();) found.insert(it.next().captured(1));
  QStringList list(found.begin(), found.end());
  list.sort();
  return list;
}

// The HTML tags, in order of appearance, lowercased (attributes included).
QStringList tags(const QString& text) {
  static const QRegularExpression re(QStringLiteral("<[^<>]+>"));
  QStringList list;
  for (auto it = re.globalMatch(text); it.hasNext();) list << it.next().captured(0).toLower();
  return list;
}

// Whether plain text marks a keyboard mnemonic (&x; "&&" is a literal ampersand).
bool hasMnemonic(const QString& text) {
  if (text.contains(QLatin1Char('<'))) return false;  // rich text: '&' starts entities
  QString t = text;
  t.remove(QStringLiteral("&&"));
  static const QRegularExpression re(QStringLiteral("&\\S"));
  return re.match(t).hasMatch();
}

// What is wrong with one message of a shipped language; empty when it is fine.
QStringList problemsOf(const Message& m) {
  QStringList out;
  if (m.type == QLatin1String("unfinished")) out << QStringLiteral("unfinished");
  if (m.type == QLatin1String("vanished") || m.type == QLatin1String("obsolete"))
    out << QStringLiteral("%1 (run update_translations)").arg(m.type);
  if (m.translations.isEmpty()) out << QStringLiteral("no translation");
  for (const QString& t : m.translations) {
    if (t.trimmed().isEmpty()) {
      out << QStringLiteral("empty translation");
      continue;
    }
    QStringList want = placeholders(m.source);
    // %n is optional in a numerus form (e.g. the singular "one file"), never extra elsewhere.
    QStringList got = placeholders(t);
    if (m.numerus) {
      want.removeAll(QStringLiteral("n"));
      got.removeAll(QStringLiteral("n"));
    }
    if (want != got)
      out << QStringLiteral("placeholders {%1} in \"%2\", source has {%3}")
                 .arg(got.join(QLatin1Char(',')), t, want.join(QLatin1Char(',')));
    // The engine's templates are filled by fillPattern (core/text.h), which knows %1..%9 only.
    static const QRegularExpression engineOnly(QStringLiteral("%(L[0-9]|[0-9]{2})"));
    if (m.context == QLatin1String("tessera::text") && t.contains(engineOnly))
      out << QStringLiteral("a localized or two-digit placeholder in an engine template: \"") + t +
                 QLatin1Char('"');
    if (tags(t) != tags(m.source)) out << QStringLiteral("HTML tags differ in \"%1\"").arg(t);
    if (hasMnemonic(t) != hasMnemonic(m.source))
      out << QStringLiteral("shortcut marker (&) differs in \"%1\"").arg(t);
  }
  return out;
}

QSet<QString> keysOf(const TsFile& ts) {
  QSet<QString> keys;
  for (const Message& m : ts.messages) keys.insert(m.key());
  return keys;
}

QString describeKeys(const QSet<QString>& keys) {
  QStringList list;
  for (const QString& k : keys) {
    const QStringList parts = k.split(QLatin1Char('\x1f'));
    list << QStringLiteral("[%1] \"%2\"").arg(parts.value(0), parts.value(1));
  }
  list.sort();
  return list.join(QLatin1Char('\n'));
}

}  // namespace

class TstTranslations : public QObject {
  Q_OBJECT

 private slots:
  // Every shipped language is there, with a language attribute that matches its file name.
  void shippedLanguagesExist() {
    for (const QString& code : kShipped) {
      TsFile ts;
      QString error;
      QVERIFY2(readTs(tsPath(code), ts, error),
               qPrintable(tsPath(code) + QStringLiteral(": ") + error));
      QVERIFY2(!ts.messages.isEmpty(),
               qPrintable(tsPath(code) + QStringLiteral(" has no messages")));
      QVERIFY2(ts.language == code || ts.language.startsWith(code + QLatin1Char('_')),
               qPrintable(QStringLiteral("%1: language=\"%2\"").arg(tsPath(code), ts.language)));
    }
    // No unlisted language sits in translations/ (it would be embedded but never tested).
    const QStringList files = QDir(kTranslationsDir).entryList({QStringLiteral("tessera_*.ts")});
    QStringList expected;
    for (const QString& code : kShipped) expected << QStringLiteral("tessera_%1.ts").arg(code);
    QStringList sortedFiles = files;
    sortedFiles.sort();
    expected.sort();
    QCOMPARE(sortedFiles, expected);
  }

  void complete_data() {
    QTest::addColumn<QString>("code");
    for (const QString& code : kShipped) QTest::newRow(qPrintable(code)) << code;
  }

  // No message unfinished, empty, obsolete, or with placeholders, tags or shortcut markers that
  // differ from the source.
  void complete() {
    QFETCH(QString, code);
    TsFile ts;
    QString error;
    QVERIFY2(readTs(tsPath(code), ts, error), qPrintable(error));
    QStringList report;
    for (const Message& m : ts.messages)
      for (const QString& p : problemsOf(m)) report << m.where() + QStringLiteral(": ") + p;
    QVERIFY2(report.isEmpty(), qPrintable(QStringLiteral("%1 problem(s) in tessera_%2.ts:\n%3")
                                              .arg(report.size())
                                              .arg(code, report.join(QLatin1Char('\n')))));
  }

  // All languages translate the same set of source strings.
  void sameSourcesInEveryLanguage() {
    TsFile first;
    QString error;
    QVERIFY2(readTs(tsPath(kShipped.first()), first, error), qPrintable(error));
    const QSet<QString> reference = keysOf(first);
    QCOMPARE(reference.size(), first.messages.size());  // no duplicate message
    for (const QString& code : kShipped.mid(1)) {
      TsFile other;
      QVERIFY2(readTs(tsPath(code), other, error), qPrintable(error));
      const QSet<QString> keys = keysOf(other);
      QVERIFY2(keys == reference,
               qPrintable(QStringLiteral("only in %1:\n%2\nonly in %3:\n%4")
                              .arg(kShipped.first(), describeKeys(reference - keys), code,
                                   describeKeys(keys - reference))));
    }
  }

  // The .ts files hold exactly the strings the sources mark for translation: lupdate is run over
  // the sources that app/CMakeLists.txt gives qt_add_translations (console, widgets, tui, main.cpp,
  // and the engine's and the sharing study's sentence templates with TESSERA_TEXT read as
  // QT_TR_NOOP) into a scratch file, and its messages are compared with the shipped ones. A
  // failure means `cmake --build <dir> --target update_translations` and translating the new
  // entries.
  void upToDateWithSources() {
    const QString lupdate = QStringLiteral(TESSERA_LUPDATE);
    // A check that did not run must not pass: lupdate comes with the bootstrap's Qt tools.
    if (!QFileInfo(lupdate).isExecutable()) QFAIL("lupdate not found (qt6-l10n-tools)");
    const QString src = QStringLiteral(TESSERA_SOURCE_DIR);
    const QStringList patterns = {QStringLiteral("*.cpp"), QStringLiteral("*.h")};
    QStringList args;
    for (const QString& dir :
         {QStringLiteral("/app/console"), QStringLiteral("/widgets"), QStringLiteral("/tui")})
      for (const QFileInfo& f : QDir(src + dir).entryInfoList(patterns, QDir::Files, QDir::Name))
        args << f.absoluteFilePath();
    args << src + QStringLiteral("/app/main.cpp")
         << src + QStringLiteral("/backend/core/engine_text.h")
         << src + QStringLiteral("/backend/sim/sharing_text.h");
    for (const QString& dir :
         {QStringLiteral("/app"), QStringLiteral("/widgets"), QStringLiteral("/backend")})
      args << QStringLiteral("-I") + src + dir;
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString probe = tmp.filePath(QStringLiteral("probe.ts"));
    args << QStringLiteral("-tr-function-alias") << QStringLiteral("QT_TR_NOOP+=TESSERA_TEXT")
         << QStringLiteral("-no-obsolete") << QStringLiteral("-locations") << QStringLiteral("none")
         << QStringLiteral("-silent") << QStringLiteral("-ts") << probe;
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(lupdate, args);
    QVERIFY2(p.waitForFinished(120000), "lupdate did not finish");
    QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0,
             qPrintable(QString::fromLocal8Bit(p.readAll())));
    TsFile fresh;
    QString error;
    QVERIFY2(readTs(probe, fresh, error), qPrintable(error));
    QVERIFY(!fresh.messages.isEmpty());
    const QSet<QString> inSources = keysOf(fresh);
    for (const QString& code : kShipped) {
      TsFile ts;
      QVERIFY2(readTs(tsPath(code), ts, error), qPrintable(error));
      const QSet<QString> shipped = keysOf(ts);
      QVERIFY2(shipped == inSources,
               qPrintable(QStringLiteral("tessera_%1.ts is out of date (run update_translations)."
                                         "\nIn the sources, missing from the file:\n%2"
                                         "\nIn the file, gone from the sources:\n%3")
                              .arg(code, describeKeys(inSources - shipped),
                                   describeKeys(shipped - inSources))));
    }
  }

  void compiled_data() { complete_data(); }

  // The compiled catalogue gives every message its .ts translation. The .qm files are embedded in
  // the tessera executable's resources, which this test does not link; it reads the copies the
  // build leaves next to it (TESSERA_QM_DIR) and fails when they are missing or older than the
  // .ts (build `tessera` first).
  void compiled() {
    QFETCH(QString, code);
    const QString qm = QStringLiteral(TESSERA_QM_DIR "/tessera_%1.qm").arg(code);
    const QFileInfo qmInfo(qm);
    if (!qmInfo.exists()) QFAIL(qPrintable(qm + QStringLiteral(" not built: build tessera first")));
    if (qmInfo.lastModified() < QFileInfo(tsPath(code)).lastModified())
      QFAIL(qPrintable(qm + QStringLiteral(" is older than its .ts: build tessera first")));
    QTranslator translator;
    QVERIFY2(translator.load(qm), qPrintable(qm));
    TsFile ts;
    QString error;
    QVERIFY2(readTs(tsPath(code), ts, error), qPrintable(error));
    QStringList wrong;
    for (const Message& m : ts.messages) {
      if (m.numerus || m.translations.isEmpty()) continue;  // numerus: needs an n, checked above
      const QString got =
          translator.translate(m.context.toUtf8().constData(), m.source.toUtf8().constData(),
                               m.comment.isEmpty() ? nullptr : m.comment.toUtf8().constData());
      // lrelease drops translations identical to the source; QTranslator then gives "".
      const QString& want = m.translations.first();
      if (got != want && !(got.isEmpty() && want == m.source))
        wrong << QStringLiteral("%1: \"%2\", .ts has \"%3\"").arg(m.where(), got, want);
    }
    QVERIFY2(wrong.isEmpty(), qPrintable(wrong.join(QLatin1Char('\n'))));
  }
};

QTEST_GUILESS_MAIN(TstTranslations)
#include "tst_translations.moc"
