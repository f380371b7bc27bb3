#pragma once
// Fan-out of committed events to any number of watchers without letting one slow watcher hold
// up the engine or another watcher. The engine thread publishes each committed batch; the hub
// keeps the most recent events in memory and reads older ones from the database on demand, so
// a watcher that fell behind (or reconnects with an old sequence number) catches up at its own
// pace. Wake-ups run on the hub's own thread, never on the engine's.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "core/expected.h"
#include "scheduler/events.h"

namespace tessera {

class EventHub {
 public:
  using StoreReader = std::function<Expected<std::vector<Event>>(uint64_t after, size_t limit)>;
  // `lastSeq`: the last event already stored when the hub starts.
  EventHub(size_t memoryCapacity, uint64_t lastSeq, StoreReader fromStore);
  ~EventHub();
  EventHub(const EventHub&) = delete;
  EventHub& operator=(const EventHub&) = delete;

  // Committed events, with dense sequence numbers following lastSeq().
  void publish(const std::vector<Event>& events);
  [[nodiscard]] uint64_t lastSeq() const;
  // Events with seq > after, in order, at most `limit` (from memory when it still holds them).
  [[nodiscard]] Expected<std::vector<Event>> read(uint64_t after, size_t limit) const;

  // The wire form of events, made once per event at publish instead of once per watcher: the
  // transport sets it before the first publish (the hub itself knows no wire format).
  using Encoder = std::function<std::string(const Event&)>;
  void setEncoder(Encoder encoder);
  struct Encoded {
    std::string bytes;  // the encodings of the events, concatenated
    uint64_t lastSeq = 0;
    size_t count = 0;
  };
  // As read(), in wire form: from the encodings made at publish while memory holds them.
  [[nodiscard]] Expected<Encoded> readEncoded(uint64_t after, size_t limit) const;

  // `wake` runs on the hub's thread after every publish until unsubscribed; it must not block.
  uint64_t subscribe(std::function<void()> wake);
  void unsubscribe(uint64_t id);
  // Stops the wake-up thread (also done by the destructor).
  void stop();

 private:
  void wakeLoop();

  mutable std::mutex mutex_;
  std::deque<Event> recent_;
  std::deque<std::string> recentEncoded_;  // parallel to recent_ when an encoder is set
  Encoder encoder_;
  size_t capacity_;
  uint64_t lastSeq_;
  StoreReader fromStore_;
  mutable std::mutex storeMutex_;  // the store reader's connection is not shared across threads

  std::mutex subMutex_;
  std::condition_variable wakeCv_;
  std::map<uint64_t, std::function<void()>> subscribers_;
  uint64_t nextSubscriber_ = 1;
  uint64_t publishes_ = 0;
  bool stopping_ = false;
  std::thread waker_;
};

}  // namespace tessera
