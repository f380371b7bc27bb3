#pragma once
// The append-only event and audit log in the database: every engine event (job transitions with
// their reasons, preemptions, operator commands with who/what/result) by its sequence number.
// A batch is appended in one transaction - the group commit: one fsync for many events - and is
// acknowledged only after it committed.
#include <cstdint>
#include <vector>

#include "scheduler/events.h"
#include "store/database.h"

namespace tessera {

class EventStore {
 public:
  explicit EventStore(Database& db) : db_(db) {}
  // All or nothing; a sequence number already stored is refused (the log never rewrites).
  Status append(const std::vector<Event>& events);
  // The same inside a transaction the caller opened (the backend's group commit).
  Status appendInTransaction(const std::vector<Event>& events);
  // Events with seq > `after`, in order, at most `limit` of them.
  Expected<std::vector<Event>> after(uint64_t after, size_t limit) const;
  // The highest stored sequence number (0 when empty).
  Expected<uint64_t> lastSeq() const;
  // A job's events, oldest first (its history after the engine no longer holds it).
  Expected<std::vector<Event>> forJob(JobId job, size_t limit) const;

 private:
  static Expected<std::vector<Event>> readEvents(Statement& q);
  Database& db_;
};

}  // namespace tessera
