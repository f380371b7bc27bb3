#pragma once
// The usage ledger in the database (table `usage`, docs/store.md#usage-ledger): one row per node
// of every job run, written by the backend in its group commit (and by `tessera simulate
// --record`), read by reports. A row is keyed by (job, start, part): a run's row is rewritten
// while it is open (new telemetry readings) and once more when it ends.
#include <functional>
#include <vector>

#include "sim/usage_recorder.h"
#include "store/database.h"

namespace tessera {

class UsageStore {
 public:
  explicit UsageStore(Database& db) : db_(db) {}
  // Inserts or replaces the rows, inside a transaction the caller opened.
  Status saveInTransaction(const std::vector<UsageRecord>& rows);
  // The rows of runs still open (a restarted backend carries on with them).
  [[nodiscard]] Expected<std::vector<UsageRecord>> openRuns() const;
  // Rows with start < to and (no end or end >= from), oldest start first (a run that ended at
  // `from` is visited: its end, a preemption say, falls in the range).
  Status forEach(Seconds from, Seconds to,
                 const std::function<Status(const UsageRecord&)>& row) const;
  [[nodiscard]] Expected<size_t> count(Seconds from, Seconds to) const;
  // The earliest start and the latest end (or start) of any row; nullopt when empty.
  [[nodiscard]] Expected<std::optional<std::pair<Seconds, Seconds>>> span() const;

 private:
  Database& db_;
};

// The telemetry readings as stored: 6 bytes each (seconds after the run's start as a signed
// 32-bit little-endian integer, utilization, SM active).
std::vector<unsigned char> encodeUsageSamples(Seconds start, const std::vector<UsageSample>& s);
Expected<std::vector<UsageSample>> decodeUsageSamples(Seconds start, const unsigned char* data,
                                                      size_t bytes);

}  // namespace tessera
