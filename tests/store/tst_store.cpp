// The backend's SQLite state: schema creation and migration, refusing newer, foreign and corrupt
// files and unwritable directories with clear errors (as root too), transactions that leave
// nothing behind when they fail and are fsynced before they return, the append-only event log
// (order, no rewrites, reopen), and online backup.
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <grp.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/engine_text.h"
#include "store/database.h"
#include "store/event_store.h"
#include "store/job_codec.h"
#include "sync_counting_vfs.h"

using namespace tessera;
using tessera::test::SyncCountingVfs;

namespace {

Event logEvent(uint64_t seq, EventKind kind, JobId job, const char* reason) {
  Event e;
  e.seq = seq;
  e.time = static_cast<Seconds>(seq * 10);
  e.kind = kind;
  e.job = job;
  e.from = JobState::Pending;
  e.to = JobState::Running;
  e.reason = literal(reason);
  e.actor = "scheduler";
  return e;
}

// Sets a raw PRAGMA on a database file, as another program (or a newer tesserad) would.
void pragma(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  QCOMPARE(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  QCOMPARE(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
}

// One pragma's value as text, on an open database.
std::string pragmaValue(Database& db, const std::string& name) {
  auto q = db.prepare("PRAGMA " + name);
  if (!q || !*q->step()) return "<no value>";
  return q->textAt(0);
}

// Database::open(path)'s error ("opened" when it succeeds), from a child process without root's
// power to write anywhere: root ignores permission bits, so as root the child first becomes
// nobody (65534), whom a read-only directory refuses as it refuses any user. Failing to drop
// root is reported as the answer, so the caller's check fails rather than passing vacuously.
std::string openAsUnprivileged(const std::string& path) {
  int pipeFds[2];
  if (pipe(pipeFds) != 0) return std::string("pipe: ") + std::strerror(errno);
  const pid_t pid = fork();
  if (pid < 0) return std::string("fork: ") + std::strerror(errno);
  if (pid == 0) {
    close(pipeFds[0]);
    std::string answer;
    constexpr uid_t kNobody = 65534;
    if (geteuid() == 0 &&
        (setgroups(0, nullptr) != 0 || setgid(kNobody) != 0 || setuid(kNobody) != 0)) {
      answer = std::string("cannot drop root: ") + std::strerror(errno);
    } else {
      auto db = Database::open(path);
      answer = db.ok() ? "opened" : db.error().str();
    }
    (void)!write(pipeFds[1], answer.data(), answer.size());
    _exit(0);
  }
  close(pipeFds[1]);
  std::string answer;
  char buf[512];
  for (ssize_t n; (n = read(pipeFds[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    answer.append(buf, static_cast<size_t>(n));
  }
  close(pipeFds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return answer;
}

// A directory everyone may enter and read but no one (save root) may write.
void makeReadOnly(const QTemporaryDir& dir) {
  namespace fs = std::filesystem;
  fs::permissions(dir.path().toStdString(), fs::perms::owner_read | fs::perms::owner_exec |
                                                fs::perms::group_read | fs::perms::group_exec |
                                                fs::perms::others_read | fs::perms::others_exec);
}

void makeWritable(const QTemporaryDir& dir) {
  std::filesystem::permissions(dir.path().toStdString(), std::filesystem::perms::owner_all);
}

}  // namespace

class TstStore : public QObject {
  Q_OBJECT

 private slots:
  // Every database this process opens goes through the fsync-counting VFS.
  void initTestCase() { SyncCountingVfs::install(); }

  void createsTheSchemaAndReopens() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("t.db").toStdString();
    {
      auto db = Database::open(path);
      QVERIFY2(db.ok(), db.ok() ? "" : db.error().str().c_str());
      QCOMPARE(db->schemaVersion(), kStoreSchemaVersion);
      EventStore log(*db);
      QVERIFY(log.append({logEvent(1, EventKind::Submitted, 7, "submitted"),
                          logEvent(2, EventKind::Started, 7, "started on n1 GPUs 0,1")})
                  .ok());
    }
    auto again = Database::open(path);
    QVERIFY(again.ok());
    EventStore log(*again);
    QCOMPARE(*log.lastSeq(), uint64_t{2});
    auto events = log.after(0, 100);
    QVERIFY(events.ok());
    QCOMPARE(events->size(), size_t{2});
    QCOMPARE((*events)[1].kind, EventKind::Started);
    QCOMPARE((*events)[1].reason.english(), std::string("started on n1 GPUs 0,1"));
    QCOMPARE((*events)[1].to, JobState::Running);
    QCOMPARE(log.after(1, 100)->size(), size_t{1});
  }

  // A batch with a sequence number already stored fails whole: nothing of it is kept.
  void theLogNeverRewritesAndBatchesAreAtomic() {
    QTemporaryDir dir;
    auto db = Database::open(dir.filePath("t.db").toStdString());
    QVERIFY(db.ok());
    EventStore log(*db);
    QVERIFY(log.append({logEvent(1, EventKind::Submitted, 1, "a")}).ok());
    const Status dup = log.append({logEvent(2, EventKind::Submitted, 2, "b"),
                                   logEvent(1, EventKind::Cancelled, 1, "rewrite")});
    QVERIFY(!dup.ok());
    QVERIFY(dup.error().message.find("event 1 not stored") != std::string::npos);
    QCOMPARE(*log.lastSeq(), uint64_t{1});  // event 2 of the failed batch is not there
    QCOMPARE(log.after(0, 10)->front().reason.english(), std::string("a"));
  }

  // A reason the engine built as a sentence comes back as the same sentence (the console
  // translates it after a restart too); a literal comes back as the English it was.
  void reasonsComeBackAsSentences() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("t.db").toStdString();
    Event preempted = logEvent(1, EventKind::Preempted, 4, "");
    preempted.reason = phrase(text::kPreemptedSinceStart, 9, "serving", "llm",
                              phrase(text::kHigherPriority, 1000, 100), 6, "0.8");
    const Event plain = logEvent(2, EventKind::Failed, 4, "out of memory");
    {
      auto db = Database::open(path);
      QVERIFY(db.ok());
      QVERIFY(EventStore(*db).append({preempted, plain}).ok());
    }
    auto db = Database::open(path);
    QVERIFY(db.ok());
    auto events = EventStore(*db).forJob(4, 10);
    QVERIFY2(events.ok(), events.ok() ? "" : events.error().str().c_str());
    QCOMPARE(events->size(), size_t{2});
    QVERIFY((*events)[0].reason == preempted.reason);
    QCOMPARE((*events)[0].reason.args()[3].patternText(), std::string_view(text::kHigherPriority));
    QCOMPARE((*events)[0].reason.english(), preempted.reason.english());
    QVERIFY((*events)[1].reason.isLiteral());
    QCOMPARE((*events)[1].reason.english(), std::string("out of memory"));
    // The English column stays what other readers (sqlite3, reports) see.
    auto q = db->prepare("SELECT reason, reason_text IS NULL FROM events ORDER BY seq");
    QVERIFY(q.ok() && *q->step());
    QCOMPARE(q->textAt(0), preempted.reason.english());
    QCOMPARE(q->int64At(1), int64_t{0});
    QVERIFY(*q->step());
    QCOMPARE(q->int64At(1), int64_t{1});
  }

  // A version 3 database (English reasons only) is migrated: its events read as literals.
  void migratesAVersion3Database() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("t.db").toStdString();
    {
      auto db = Database::open(path);
      QVERIFY(db.ok());
      QVERIFY(EventStore(*db).append({logEvent(1, EventKind::Submitted, 7, "submitted")}).ok());
    }
    pragma(path,
           "ALTER TABLE events DROP COLUMN reason_text; "
           "ALTER TABLE jobs DROP COLUMN reason_text; DROP INDEX jobs_ended; "
           "PRAGMA user_version=3");
    auto db = Database::open(path);
    QVERIFY2(db.ok(), db.ok() ? "" : db.error().str().c_str());
    QCOMPARE(db->schemaVersion(), kStoreSchemaVersion);
    // Version 5's index, which the history retention deletes by, is there again.
    auto index = db->prepare("SELECT count(*) FROM sqlite_master WHERE name = 'jobs_ended'");
    QVERIFY(index.ok() && *index->step());
    QCOMPARE(index->int64At(0), int64_t{1});
    auto events = EventStore(*db).after(0, 10);
    QVERIFY(events.ok());
    QCOMPARE(events->size(), size_t{1});
    QVERIFY(events->front().reason.isLiteral());
    QCOMPARE(events->front().reason.english(), std::string("submitted"));
    QVERIFY(db->prepare("SELECT reason_text FROM jobs").ok());
  }

  // A reason_text edited by hand (or written by a buggy build) costs the translation, not the
  // row: the event reads as its English reason, which is the record.
  void aCorruptReasonTextReadsAsTheEnglish() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("t.db").toStdString();
    {
      auto db = Database::open(path);
      QVERIFY(db.ok());
      Event e = logEvent(5, EventKind::Held, 2, "");
      e.reason = phrase(text::kHeldBy, "alice");
      QVERIFY(EventStore(*db).append({e}).ok());
    }
    pragma(path, "UPDATE events SET reason_text='{\"t\": \"held by %1\", \"a\": [7]}'");
    auto db = Database::open(path);
    QVERIFY(db.ok());
    auto events = EventStore(*db).after(0, 10);
    QVERIFY(events.ok());
    QVERIFY(events->front().reason.isLiteral());
    QCOMPARE(events->front().reason.english(), std::string("held by alice"));
  }

  // The decoder says what is wrong and where.
  void theReasonDecoderNamesTheProblem() {
    const std::pair<const char*, const char*> cases[] = {
        {"not json", "reason_text: not valid JSON"},
        {R"({"t": "held by %1", "a": [7]})", "reason_text.a[0]: expected a string or"},
        {R"({"t": "held by %1", "a": "alice"})", "reason_text.a: expected an array"},
        {"[1]", "reason_text: expected a string or"}};
    for (const auto& [stored, expected] : cases) {
      auto t = parseReasonText(stored);
      QVERIFY(!t.ok());
      QVERIFY2(t.error().message.starts_with(expected), t.error().message.c_str());
    }
    std::string deep = "\"x\"";
    for (int i = 0; i < 40; ++i) deep = R"({"t": "%1", "a": [)" + deep + "]}";
    auto t = parseReasonText(deep);
    QVERIFY(!t.ok());
    QVERIFY(t.error().message.find("nested too deep") != std::string::npos);
    auto ok = parseReasonText(R"({"t": "held by %1", "a": ["alice"]})");
    QVERIFY(ok.ok());
    QVERIFY(*ok == phrase(text::kHeldBy, "alice"));
  }

  void refusesADatabaseFromANewerBinary() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("t.db").toStdString();
    QVERIFY(Database::open(path).ok());
    pragma(path, "PRAGMA user_version=" + std::to_string(kStoreSchemaVersion + 1));
    auto db = Database::open(path);
    QVERIFY(!db.ok());
    QVERIFY2(db.error().message.find("newer than this tesserad") != std::string::npos,
             db.error().str().c_str());
    QCOMPARE(db.error().where.file, path);
  }

  void refusesForeignAndCorruptFiles() {
    QTemporaryDir dir;
    const std::string foreign = dir.filePath("other.db").toStdString();
    pragma(foreign, "CREATE TABLE photos(id INTEGER)");
    auto a = Database::open(foreign);
    QVERIFY(!a.ok());
    QVERIFY2(a.error().message.find("another application") != std::string::npos,
             a.error().str().c_str());
    const QString junk = dir.filePath("junk.db");
    QFile f(junk);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QByteArray(4096, 'x'));
    f.close();
    auto b = Database::open(junk.toStdString());
    QVERIFY(!b.ok());
    QVERIFY2(b.error().message.find("not a Tessera database") != std::string::npos,
             b.error().str().c_str());
    QCOMPARE(QFile(junk).size(), qint64{4096});  // left exactly as it was
  }

  void refusesAMissingDirectory() {
    auto missing = Database::open("/nonexistent-dir/t.db");
    QVERIFY(!missing.ok());
    QVERIFY(missing.error().message.find("directory does not exist") != std::string::npos);
    // A regular file where the directory should be is no directory either.
    QTemporaryDir dir;
    const QString file = dir.filePath("not-a-dir");
    QVERIFY(QFile(file).open(QIODevice::WriteOnly));
    auto underFile = Database::open((file + "/t.db").toStdString());
    QVERIFY(!underFile.ok());
    QVERIFY2(underFile.error().message.find("directory does not exist") != std::string::npos,
             underFile.error().str().c_str());
  }

  // New databases cannot be created in a directory the user may not write; run by a child
  // that is not root (root ignores permission bits), so it holds when the tests run as root.
  void refusesAReadOnlyDirectoryForANewDatabase() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("t.db").toStdString();
    makeReadOnly(dir);
    const std::string answer = openAsUnprivileged(path);
    makeWritable(dir);
    QVERIFY2(
        answer.find("cannot open the database (is its directory writable?)") != std::string::npos,
        answer.c_str());
    QVERIFY2(answer.starts_with(path), answer.c_str());  // the error names the file
    QVERIFY(!QFile::exists(QString::fromStdString(path)));
  }

  // An existing database whose directory became read-only: WAL cannot create its -wal and
  // -shm files beside it, and the error says so rather than calling the file foreign.
  void refusesAReadOnlyDirectoryForAnExistingDatabase() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("t.db").toStdString();
    {
      auto db = Database::open(path);
      QVERIFY(db.ok());
      QVERIFY(EventStore(*db).append({logEvent(1, EventKind::Submitted, 7, "kept")}).ok());
    }
    // The file itself stays writable for everyone: only the directory is in the way.
    std::filesystem::permissions(path, std::filesystem::perms::all);
    makeReadOnly(dir);
    const std::string answer = openAsUnprivileged(path);
    makeWritable(dir);
    QVERIFY2(answer.find("cannot write beside the database (is its directory writable?") !=
                 std::string::npos,
             answer.c_str());
    // Nothing was lost: it opens again once the directory is writable.
    auto db = Database::open(path);
    QVERIFY2(db.ok(), db.ok() ? "" : db.error().str().c_str());
    QCOMPARE(*EventStore(*db).lastSeq(), uint64_t{1});
  }

  void aFailedTransactionLeavesNothingBehind() {
    QTemporaryDir dir;
    auto db = Database::open(dir.filePath("t.db").toStdString());
    QVERIFY(db.ok());
    const Status s = db->transaction([](Database& d) -> Status {
      TESSERA_CHECK(d.exec("INSERT INTO meta VALUES('a', '1')"));
      return Error{"the caller changed its mind", {}};
    });
    QVERIFY(!s.ok());
    auto q = db->prepare("SELECT count(*) FROM meta");
    QVERIFY(q.ok() && *q->step());
    QCOMPARE(q->int64At(0), int64_t{0});
  }

  // Commit is the durability point: the WAL holds the transaction and is fsynced before
  // transaction() returns. A kill -9 keeps the page cache, so crash tests pass with
  // synchronous=OFF or NORMAL (NORMAL syncs the WAL only at checkpoints); counting syncs does not.
  void aCommitIsSyncedBeforeItReturns() {
    QTemporaryDir dir;
    auto db = Database::open(dir.filePath("t.db").toStdString());
    QVERIFY(db.ok());
    QCOMPARE(pragmaValue(*db, "journal_mode"), std::string("wal"));
    QCOMPARE(pragmaValue(*db, "synchronous"), std::string("2"));  // FULL
    for (int i = 0; i < 3; ++i) {
      const uint64_t before = SyncCountingVfs::walSyncs();
      const Status s = db->transaction([&](Database& d) {
        return d.exec("INSERT INTO meta VALUES('key" + std::to_string(i) + "', 'value')");
      });
      QVERIFY(s.ok());
      QVERIFY2(SyncCountingVfs::walSyncs() > before, "the commit returned before an fsync");
    }
    // The event log's group commit is one such transaction.
    const uint64_t before = SyncCountingVfs::walSyncs();
    QVERIFY(EventStore(*db).append({logEvent(1, EventKind::Submitted, 3, "x")}).ok());
    QVERIFY(SyncCountingVfs::walSyncs() > before);
    // A read commits nothing and needs no fsync: the counter tells syncs apart from other I/O.
    const uint64_t afterWrites = SyncCountingVfs::walSyncs();
    QCOMPARE(*EventStore(*db).lastSeq(), uint64_t{1});
    QCOMPARE(SyncCountingVfs::walSyncs(), afterWrites);
  }

  void backsUpWhileOpen() {
    QTemporaryDir dir;
    auto db = Database::open(dir.filePath("live.db").toStdString());
    QVERIFY(db.ok());
    EventStore log(*db);
    QVERIFY(log.append({logEvent(1, EventKind::Submitted, 3, "x")}).ok());
    const std::string copy = dir.filePath("copy.db").toStdString();
    QVERIFY(db->backupTo(copy).ok());
    auto reopened = Database::open(copy);
    QVERIFY(reopened.ok());
    QCOMPARE(*EventStore(*reopened).lastSeq(), uint64_t{1});
    QVERIFY(!db->backupTo("/nonexistent-dir/copy.db").ok());
  }
};

QTEST_APPLESS_MAIN(TstStore)
#include "tst_store.moc"
