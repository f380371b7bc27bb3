// A tesserad database grown to a benchmark's size: synthetic audit records appended to the event
// log (a restart's cost must not grow with the history, and the benchmarks show it on one).
#pragma once

#include <ctime>
#include <string>
#include <vector>

#include "core/engine_text.h"
#include "store/database.h"
#include "store/event_store.h"

namespace tessera::bench {

inline Expected<int64_t> countEvents(Database& db) {
  TESSERA_TRY(q, db.prepare("SELECT count(*) FROM events"));
  TESSERA_TRY(row, q.step());
  if (!row) return Error{"cannot count the events", {}};
  return q.int64At(0);
}

// Synthetic audit records after the last stored event until the log holds `target` rows.
inline Status appendEvents(const std::string& path, size_t target) {
  TESSERA_TRY(db, Database::open(path));
  EventStore store(db);
  TESSERA_TRY(last, store.lastSeq());
  uint64_t seq = last;
  const auto now = static_cast<Seconds>(std::time(nullptr));
  TESSERA_TRY(stored, countEvents(db));
  for (auto rows = static_cast<size_t>(stored); rows < target;) {
    std::vector<Event> chunk;
    for (size_t i = 0; i < 20000 && rows < target; ++i, ++rows) {
      Event e;
      e.seq = ++seq;
      e.time = now;
      e.kind = EventKind::Command;
      e.actor = "bench-operator";
      // A sentence as the engine writes one, so the rows carry their reason_text JSON too.
      const auto job = static_cast<JobId>(seq % 150000 + 1);
      e.reason =
          phrase(text::kAuditApplied, phrase(text::kDoHold, job), phrase(text::kDidHold, job));
      chunk.push_back(std::move(e));
    }
    TESSERA_CHECK(store.append(chunk));
  }
  return okStatus();
}

}  // namespace tessera::bench
