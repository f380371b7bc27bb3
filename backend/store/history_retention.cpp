#include "store/history_retention.h"

#include "store/database.h"

namespace tessera {

namespace {

Expected<int64_t> deleteRows(Database& db, const char* sql, Seconds cut) {
  TESSERA_TRY(q, db.prepare(sql));
  TESSERA_CHECK(q.bind(1, static_cast<int64_t>(cut)).run());
  return db.changes();
}

// Events are numbered in time order, so the old ones are those below the first kept number;
// the events of a job still active stay (its history is what an explanation shows).
constexpr const char* kDeleteEvents = R"sql(
  DELETE FROM events
  WHERE seq < coalesce((SELECT seq FROM events WHERE time >= ?1 ORDER BY seq LIMIT 1),
                       (SELECT max(seq) + 1 FROM events))
    AND (job IS NULL OR job NOT IN (SELECT id FROM jobs WHERE end_time IS NULL)))sql";

constexpr const char* kDeleteJobs = "DELETE FROM jobs WHERE end_time IS NOT NULL AND end_time < ?1";

}  // namespace

Expected<PrunedHistory> pruneHistoryInTransaction(Database& db, Seconds now,
                                                  const HistoryRetention& retention) {
  PrunedHistory out;
  if (retention.jobs > 0) {
    TESSERA_TRY(n, deleteRows(db, kDeleteJobs, now - retention.jobs));
    out.jobs = n;
  }
  if (retention.events > 0) {
    TESSERA_TRY(n, deleteRows(db, kDeleteEvents, now - retention.events));
    out.events = n;
  }
  return out;
}

}  // namespace tessera
