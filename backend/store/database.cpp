#include "store/database.h"

#include <sqlite3.h>

#include <filesystem>

#include "store/hold_owner_migration.h"

namespace tessera {
namespace {

// PRAGMA application_id: marks a file as Tessera's, so a foreign SQLite file is refused instead
// of being "migrated" into ours.
constexpr int kApplicationId = 0x54455353;  // "TESS"

// Migration N brings a database from version N-1 to N: its SQL, then (when a change needs more
// than SQL, such as rewriting stored JSON) its code, in the same transaction. Append; never edit
// a released one.
struct Migration {
  Migration(const char* s, Status (*c)(Database&) = nullptr) : sql(s), code(c) {}  // NOLINT
  const char* sql;
  Status (*code)(Database&);
};

const std::vector<Migration>& migrations() {
  static const std::vector<Migration> m{
      // 1: the event/audit log, jobs with their spec and state, and a key/value for the rest.
      R"sql(
      CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE events(
        seq INTEGER PRIMARY KEY,
        time INTEGER NOT NULL,
        kind TEXT NOT NULL,
        job INTEGER,
        from_state TEXT,
        to_state TEXT,
        reason TEXT NOT NULL,
        actor TEXT NOT NULL,
        by_job INTEGER);
      CREATE TABLE jobs(
        id INTEGER PRIMARY KEY,
        spec TEXT NOT NULL,
        state TEXT NOT NULL,
        submit_time INTEGER NOT NULL,
        updated INTEGER NOT NULL);
      CREATE INDEX jobs_state ON jobs(state);
      )sql",
      // 2: jobs become the engine's materialized state (spec, state, where it runs, counters);
      // metric time series at three resolutions. Version 1's jobs table was never written.
      R"sql(
      DROP TABLE jobs;
      CREATE TABLE jobs(
        id INTEGER PRIMARY KEY,
        team TEXT NOT NULL,
        class TEXT NOT NULL,
        state TEXT NOT NULL,
        submit_time INTEGER NOT NULL,
        start_time INTEGER,
        end_time INTEGER,
        spec TEXT NOT NULL,
        run TEXT,
        preemptions INTEGER NOT NULL DEFAULT 0,
        gpu_hours_lost REAL NOT NULL DEFAULT 0,
        reason TEXT NOT NULL DEFAULT '',
        actual_runtime INTEGER);
      CREATE INDEX jobs_state ON jobs(state, id);
      CREATE INDEX jobs_team ON jobs(team, id);
      CREATE INDEX events_job ON events(job, seq);
      CREATE TABLE metric_raw(
        series TEXT NOT NULL, time INTEGER NOT NULL, value REAL NOT NULL,
        PRIMARY KEY(series, time)) WITHOUT ROWID;
      CREATE TABLE metric_minute(
        series TEXT NOT NULL, time INTEGER NOT NULL, count INTEGER NOT NULL,
        sum REAL NOT NULL, min REAL NOT NULL, max REAL NOT NULL,
        PRIMARY KEY(series, time)) WITHOUT ROWID;
      CREATE TABLE metric_hour(
        series TEXT NOT NULL, time INTEGER NOT NULL, count INTEGER NOT NULL,
        sum REAL NOT NULL, min REAL NOT NULL, max REAL NOT NULL,
        PRIMARY KEY(series, time)) WITHOUT ROWID;
      )sql",
      // 3: the usage ledger - one row per node of every job run, with its telemetry - that
      // reports are computed from (docs/store.md#usage-ledger).
      R"sql(
      CREATE TABLE usage(
        job INTEGER NOT NULL,
        start INTEGER NOT NULL,
        part INTEGER NOT NULL,
        run INTEGER NOT NULL,
        end INTEGER,
        end_reason TEXT NOT NULL DEFAULT '',
        team TEXT NOT NULL,
        class TEXT NOT NULL,
        workload TEXT NOT NULL,
        kind TEXT NOT NULL,
        profile TEXT NOT NULL DEFAULT '',
        node TEXT NOT NULL,
        model TEXT NOT NULL,
        pool TEXT NOT NULL,
        gpus REAL NOT NULL,
        units INTEGER NOT NULL,
        mig_slices INTEGER NOT NULL DEFAULT 0,
        gpu_hours_lost REAL NOT NULL DEFAULT 0,
        samples BLOB,
        PRIMARY KEY(job, start, part));
      CREATE INDEX usage_start ON usage(start);
      CREATE INDEX usage_open ON usage(end) WHERE end IS NULL;
      )sql",
      // 4: reasons as sentences the console translates (JSON, store/job_codec.h); NULL where the
      // English reason is all there is (a literal, or a row written before version 4).
      R"sql(
      ALTER TABLE events ADD COLUMN reason_text TEXT;
      ALTER TABLE jobs ADD COLUMN reason_text TEXT;
      )sql",
      // 5: finished jobs found by when they ended, for the history retention (history_retention.h).
      R"sql(
      CREATE INDEX IF NOT EXISTS jobs_ended ON jobs(end_time) WHERE end_time IS NOT NULL;
      )sql",
      // 6: GPU holds the node inventory put before it had an owner of its own ("gpu-fault") get
      // it ("inventory"), so that a healthy report lifts them and telemetry does not
      // (store/hold_owner_migration.h).
      {"", &migrateInventoryHolds}};
  return m;
}

}  // namespace

Database::Database(Database&& o) noexcept
    : db_(std::exchange(o.db_, nullptr)), path_(std::move(o.path_)), version_(o.version_) {}

Database& Database::operator=(Database&& o) noexcept {
  if (this != &o) {
    if (db_) sqlite3_close_v2(db_);
    db_ = std::exchange(o.db_, nullptr);
    path_ = std::move(o.path_);
    version_ = o.version_;
  }
  return *this;
}

Database::~Database() {
  if (db_) sqlite3_close_v2(db_);
}

Error Database::error(const std::string& what) const {
  return Error{what + ": " + (db_ ? sqlite3_errmsg(db_) : "out of memory"), {path_, 0, 0, ""}};
}

Expected<Database> Database::open(const std::string& path) {
  const auto dir = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!dir.empty() && !std::filesystem::is_directory(dir, ec))
    return Error{"the database's directory does not exist", {path, 0, 0, ""}};
  sqlite3* raw = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &raw,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  Database db(raw, path);
  if (rc != SQLITE_OK) return db.error("cannot open the database (is its directory writable?)");
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, 5000);
  // The first reads tell a corrupt or non-SQLite file, or another program's database, from ours.
  TESSERA_TRY(id, db.readInt("PRAGMA application_id"));
  TESSERA_TRY(tables, db.readInt("SELECT count(*) FROM sqlite_master"));
  if (tables > 0 && id != kApplicationId)
    return Error{"not a Tessera database: it is an SQLite file of another application",
                 {path, 0, 0, ""}};
  if (auto wal = db.exec("PRAGMA journal_mode=WAL"); !wal)
    return Error{
        "cannot use write-ahead logging (is the directory writable?): " + wal.error().message,
        {path, 0, 0, ""}};
  TESSERA_CHECK(db.exec("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON"));
  TESSERA_CHECK(db.migrate());
  return db;
}

Expected<Database> Database::openReadOnly(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return Error{"no such database file", {path, 0, 0, ""}};
  sqlite3* raw = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
  Database db(raw, path);
  if (rc != SQLITE_OK) return db.error("cannot open the database");
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, 5000);
  TESSERA_TRY(id, db.readInt("PRAGMA application_id"));
  if (id != kApplicationId)
    return Error{"not a Tessera database (another application's SQLite file, or empty)",
                 {path, 0, 0, ""}};
  TESSERA_TRY(v, db.readInt("PRAGMA user_version"));
  db.version_ = static_cast<int>(v);
  if (db.version_ > kStoreSchemaVersion)
    return Error{"the database has schema version " + std::to_string(db.version_) +
                     ", newer than this program understands (" +
                     std::to_string(kStoreSchemaVersion) + ")",
                 {path, 0, 0, ""}};
  return db;
}

// One integer from a query; any failure here means the file is not a database we can read.
Expected<int64_t> Database::readInt(const std::string& sql) {
  auto q = prepare(sql);
  Expected<bool> row = q ? q->step() : Expected<bool>(q.error());
  // A WAL database whose directory cannot be written (no -wal or -shm file can be created
  // beside it) already fails its first read, as "read-only": the directory is at fault, not
  // the file.
  if (!row && (sqlite3_errcode(db_) & 0xff) == SQLITE_READONLY)
    return Error{
        "cannot write beside the database (is its directory writable? WAL needs its "
        "-wal and -shm files): " +
            row.error().message,
        {path_, 0, 0, ""}};
  if (!row)
    return Error{"not a Tessera database (not SQLite, or corrupt): " + row.error().message,
                 {path_, 0, 0, ""}};
  return *row ? q->int64At(0) : 0;
}

Status Database::migrate() {
  TESSERA_TRY(v, readInt("PRAGMA user_version"));
  version_ = static_cast<int>(v);
  if (version_ > kStoreSchemaVersion)
    return Error{"the database has schema version " + std::to_string(version_) +
                     ", newer than this tesserad understands (" +
                     std::to_string(kStoreSchemaVersion) + "); run a newer tesserad",
                 {path_, 0, 0, ""}};
  const auto& steps = migrations();
  while (version_ < kStoreSchemaVersion) {
    const int next = version_ + 1;
    const Status migrated = transaction([&](Database& db) -> Status {
      const Migration& step = steps[static_cast<size_t>(next - 1)];
      TESSERA_CHECK(db.exec(step.sql));
      if (step.code) TESSERA_CHECK(step.code(db));
      TESSERA_CHECK(db.exec("PRAGMA application_id=" + std::to_string(kApplicationId)));
      return db.exec("PRAGMA user_version=" + std::to_string(next));
    });
    if (!migrated)
      return Error{"migration to schema version " + std::to_string(next) +
                       " failed: " + migrated.error().message,
                   {path_, 0, 0, ""}};
    version_ = next;
  }
  return okStatus();
}

Status Database::exec(const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) == SQLITE_OK) return okStatus();
  Error e{std::string(message ? message : sqlite3_errmsg(db_)), {path_, 0, 0, ""}};
  sqlite3_free(message);
  return e;
}

Status Database::transaction(const std::function<Status(Database&)>& work) {
  TESSERA_CHECK(exec("BEGIN IMMEDIATE"));
  Status s = work(*this);
  if (s) s = exec("COMMIT");
  if (!s) {
    (void)exec("ROLLBACK");  // after a failed COMMIT too: nothing half-written stays
    return s;
  }
  return okStatus();
}

Expected<Statement> Database::prepare(const std::string& sql) {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr) != SQLITE_OK) {
    sqlite3_finalize(s);
    return error("cannot prepare '" + sql + "'");
  }
  return Statement(db_, s, sql);
}

int64_t Database::lastInsertId() const {
  return sqlite3_last_insert_rowid(db_);
}

int64_t Database::changes() const {
  return sqlite3_changes64(db_);
}

Status Database::backupTo(const std::string& target, const std::function<bool()>& progress) {
  // A read of the schema opens the transaction's snapshot; every step then reads that one.
  TESSERA_CHECK(exec("BEGIN"));
  if (auto first = readInt("SELECT count(*) FROM sqlite_master"); !first) {
    (void)exec("ROLLBACK");
    return first.error();
  }
  sqlite3* out = nullptr;
  if (sqlite3_open(target.c_str(), &out) != SQLITE_OK) {
    Error e{"cannot create the backup: " + std::string(sqlite3_errmsg(out)), {target, 0, 0, ""}};
    sqlite3_close(out);
    (void)exec("ROLLBACK");
    return e;
  }
  sqlite3_backup* b = sqlite3_backup_init(out, "main", db_, "main");
  int rc = b ? SQLITE_OK : SQLITE_ERROR;
  bool abandoned = false;
  while (b && (rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED)) {
    rc = sqlite3_backup_step(b, kBackupPages);
    if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) sqlite3_sleep(5);
    if (progress && !progress()) {
      abandoned = true;
      break;
    }
  }
  if (b) sqlite3_backup_finish(b);
  const std::string why = abandoned ? "abandoned" : sqlite3_errmsg(out);
  sqlite3_close(out);
  (void)exec("ROLLBACK");
  if (rc != SQLITE_DONE) return Error{"backup failed: " + why, {target, 0, 0, ""}};
  return okStatus();
}

// ---- statements

Statement::Statement(Statement&& o) noexcept
    : db_(o.db_), s_(std::exchange(o.s_, nullptr)), sql_(std::move(o.sql_)) {}

Statement& Statement::operator=(Statement&& o) noexcept {
  if (this != &o) {
    sqlite3_finalize(s_);
    db_ = o.db_;
    s_ = std::exchange(o.s_, nullptr);
    sql_ = std::move(o.sql_);
  }
  return *this;
}

Statement::~Statement() {
  sqlite3_finalize(s_);
}

Statement& Statement::bind(int index, int64_t value) {
  sqlite3_bind_int64(s_, index, value);
  return *this;
}
Statement& Statement::bind(int index, double value) {
  sqlite3_bind_double(s_, index, value);
  return *this;
}
Statement& Statement::bind(int index, const std::string& value) {
  sqlite3_bind_text(s_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
  return *this;
}
Statement& Statement::bindNull(int index) {
  sqlite3_bind_null(s_, index);
  return *this;
}

Statement& Statement::bindBlob(int index, const void* data, size_t bytes) {
  sqlite3_bind_blob64(s_, index, data, bytes, SQLITE_TRANSIENT);
  return *this;
}

Expected<bool> Statement::step() {
  const int rc = sqlite3_step(s_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return Error{sqlite3_errmsg(db_) + std::string(" (in '") + sql_ + "')", {}};
}

Status Statement::run() {
  for (;;) {
    TESSERA_TRY(row, step());
    if (!row) return okStatus();
  }
}

Status Statement::reset() {
  sqlite3_reset(s_);
  sqlite3_clear_bindings(s_);
  return okStatus();
}

int64_t Statement::int64At(int column) const {
  return sqlite3_column_int64(s_, column);
}
double Statement::doubleAt(int column) const {
  return sqlite3_column_double(s_, column);
}
std::string Statement::textAt(int column) const {
  const auto* t = sqlite3_column_text(s_, column);
  return t ? std::string(reinterpret_cast<const char*>(t),
                         static_cast<size_t>(sqlite3_column_bytes(s_, column)))
           : std::string();
}
bool Statement::isNull(int column) const {
  return sqlite3_column_type(s_, column) == SQLITE_NULL;
}

std::pair<const unsigned char*, size_t> Statement::blobAt(int column) const {
  const auto* data = static_cast<const unsigned char*>(sqlite3_column_blob(s_, column));
  return {data, static_cast<size_t>(sqlite3_column_bytes(s_, column))};
}

}  // namespace tessera
