#pragma once
// The headless backend's durable state: one SQLite database in WAL mode with a versioned schema.
// Opening applies the migrations this binary knows (each in one transaction) and refuses a
// database written by a newer binary, a file that is not a Tessera database, or a directory it
// cannot write, with an error that says which. Writes go through transactions that commit whole
// or leave nothing behind. The C API is wrapped here, and only here.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/expected.h"

struct sqlite3;
struct sqlite3_stmt;

namespace tessera {

// The schema version this binary writes; migrations bring older databases up to it.
inline constexpr int kStoreSchemaVersion = 6;

class Statement;

class Database {
 public:
  // Opens (creating when missing) the database at `path` and migrates it.
  static Expected<Database> open(const std::string& path);
  // Opens an existing database for reading only, without migrating it (schemaVersion() says
  // what it has): reports read a live backend's file beside it, or a copy.
  static Expected<Database> openReadOnly(const std::string& path);
  Database(Database&&) noexcept;
  Database& operator=(Database&&) noexcept;
  ~Database();

  [[nodiscard]] int schemaVersion() const { return version_; }
  [[nodiscard]] const std::string& path() const { return path_; }

  // Runs `work` in one IMMEDIATE transaction: committed when it succeeds, rolled back (leaving
  // the database as it was) when it fails. Commit is the durability point: acknowledge after it.
  Status transaction(const std::function<Status(Database&)>& work);
  Status exec(const std::string& sql);
  Expected<Statement> prepare(const std::string& sql);
  [[nodiscard]] int64_t lastInsertId() const;
  // Rows the last INSERT, UPDATE or DELETE changed.
  [[nodiscard]] int64_t changes() const;

  // A consistent copy of the live database at `target` (SQLite's online backup API), read in
  // one read transaction of this connection: in WAL mode the copy is the database as of its
  // start while other connections go on writing (without the transaction, a write between two
  // steps would restart the copy). Copies kBackupPages pages per step; after each (the last
  // too), `progress` (when given) may return false to abandon the copy.
  static constexpr int kBackupPages = 256;
  Status backupTo(const std::string& target, const std::function<bool()>& progress = {});

 private:
  Database(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  Status migrate();
  Expected<int64_t> readInt(const std::string& sql);
  Error error(const std::string& what) const;

  sqlite3* db_ = nullptr;
  std::string path_;
  int version_ = 0;
};

// A prepared statement: bind by 1-based index, step, read columns. Errors name the SQL.
class Statement {
 public:
  Statement(Statement&&) noexcept;
  Statement& operator=(Statement&&) noexcept;
  ~Statement();
  Statement& bind(int index, int64_t value);
  Statement& bind(int index, double value);
  Statement& bind(int index, const std::string& value);
  Statement& bindNull(int index);
  Statement& bindBlob(int index, const void* data, size_t bytes);
  // true: a row is ready; false: done. Errors (constraint, I/O, full disk) are returned.
  Expected<bool> step();
  Status run();  // step to the end (an INSERT/UPDATE/DELETE)
  Status reset();
  [[nodiscard]] int64_t int64At(int column) const;
  [[nodiscard]] double doubleAt(int column) const;
  [[nodiscard]] std::string textAt(int column) const;
  [[nodiscard]] bool isNull(int column) const;
  // The column's bytes (valid until the next step or reset).
  [[nodiscard]] std::pair<const unsigned char*, size_t> blobAt(int column) const;

 private:
  friend class Database;
  Statement(sqlite3* db, sqlite3_stmt* s, std::string sql) : db_(db), s_(s), sql_(std::move(sql)) {}
  sqlite3* db_ = nullptr;
  sqlite3_stmt* s_ = nullptr;
  std::string sql_;
};

}  // namespace tessera
