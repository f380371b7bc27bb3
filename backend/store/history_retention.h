#pragma once
// How long the database keeps what has ended (tesserad's retention.jobs and retention.events,
// like slurmdbd's PurgeJobAfter and PurgeEventAfter). Nothing an active job needs is deleted:
// its row stays, and so do its events, however old.
#include <cstdint>

#include "core/expected.h"
#include "core/ids.h"

namespace tessera {

class Database;

struct HistoryRetention {
  Seconds jobs = 0;    // finished jobs' rows, by end time; 0 keeps them forever
  Seconds events = 0;  // events of finished jobs and audit lines, by time; 0 keeps them forever
};

struct PrunedHistory {
  int64_t jobs = 0;
  int64_t events = 0;
};

// Deletes what `retention` no longer keeps as of engine time `now`, inside the caller's
// transaction.
Expected<PrunedHistory> pruneHistoryInTransaction(Database& db, Seconds now,
                                                  const HistoryRetention& retention);

}  // namespace tessera
