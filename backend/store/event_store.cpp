#include "store/event_store.h"

#include <string>

#include "store/job_codec.h"

namespace tessera {
namespace {

template <typename Enum, size_t N>
Enum parseName(const std::string& text, const char* (*name)(Enum), Enum fallback) {
  for (size_t i = 0; i < N; ++i)
    if (text == name(static_cast<Enum>(i))) return static_cast<Enum>(i);
  return fallback;
}

constexpr const char* kSelectEvents =
    "SELECT seq, time, kind, job, from_state, to_state, reason, actor, by_job, reason_text "
    "FROM events ";

constexpr size_t kEventKinds = static_cast<size_t>(EventKind::Command) + 1;
constexpr size_t kJobStates = static_cast<size_t>(JobState::Preempted) + 1;

}  // namespace

Status EventStore::appendInTransaction(const std::vector<Event>& events) {
  if (events.empty()) return okStatus();
  TESSERA_TRY(insert,
              db_.prepare("INSERT INTO events(seq, time, kind, job, from_state, to_state, reason, "
                          "actor, by_job, reason_text) VALUES(?,?,?,?,?,?,?,?,?,?)"));
  for (const Event& e : events) {
    insert.bind(1, static_cast<int64_t>(e.seq))
        .bind(2, static_cast<int64_t>(e.time))
        .bind(3, std::string(eventKindName(e.kind)))
        .bind(4, static_cast<int64_t>(e.job))
        .bind(5, std::string(jobStateName(e.from)))
        .bind(6, std::string(jobStateName(e.to)))
        .bind(7, e.reason.english())
        .bind(8, e.actor)
        .bind(9, static_cast<int64_t>(e.by));
    if (e.reason.isLiteral())
      insert.bindNull(10);
    else
      insert.bind(10, textToJson(e.reason).dump());
    if (auto s = insert.run(); !s)
      return Error{"event " + std::to_string(e.seq) + " not stored: " + s.error().message, {}};
    TESSERA_CHECK(insert.reset());
  }
  return okStatus();
}

Status EventStore::append(const std::vector<Event>& events) {
  if (events.empty()) return okStatus();
  return db_.transaction([&](Database&) { return appendInTransaction(events); });
}

Expected<std::vector<Event>> EventStore::after(uint64_t after, size_t limit) const {
  TESSERA_TRY(q, db_.prepare(std::string(kSelectEvents) + "WHERE seq > ? ORDER BY seq LIMIT ?"));
  q.bind(1, static_cast<int64_t>(after)).bind(2, static_cast<int64_t>(limit));
  return readEvents(q);
}

Expected<std::vector<Event>> EventStore::forJob(JobId job, size_t limit) const {
  TESSERA_TRY(q, db_.prepare(std::string(kSelectEvents) + "WHERE job = ? ORDER BY seq LIMIT ?"));
  q.bind(1, static_cast<int64_t>(job)).bind(2, static_cast<int64_t>(limit));
  return readEvents(q);
}

Expected<std::vector<Event>> EventStore::readEvents(Statement& q) {
  std::vector<Event> out;
  for (;;) {
    TESSERA_TRY(row, q.step());
    if (!row) break;
    Event e;
    e.seq = static_cast<uint64_t>(q.int64At(0));
    e.time = q.int64At(1);
    e.kind = parseName<EventKind, kEventKinds>(q.textAt(2), eventKindName, EventKind::Command);
    e.job = static_cast<JobId>(q.int64At(3));
    e.from = parseName<JobState, kJobStates>(q.textAt(4), jobStateName, JobState::Pending);
    e.to = parseName<JobState, kJobStates>(q.textAt(5), jobStateName, JobState::Pending);
    e.reason = storedReason(q, 6, 9);
    e.actor = q.textAt(7);
    e.by = static_cast<JobId>(q.int64At(8));
    out.push_back(std::move(e));
  }
  return out;
}

Expected<uint64_t> EventStore::lastSeq() const {
  TESSERA_TRY(q, db_.prepare("SELECT coalesce(max(seq), 0) FROM events"));
  TESSERA_TRY(row, q.step());
  return row ? static_cast<uint64_t>(q.int64At(0)) : 0;
}

}  // namespace tessera
