#include "service/event_hub.h"

namespace tessera {

EventHub::EventHub(size_t memoryCapacity, uint64_t lastSeq, StoreReader fromStore)
    : capacity_(std::max<size_t>(memoryCapacity, 1)),
      lastSeq_(lastSeq),
      fromStore_(std::move(fromStore)),
      waker_([this] { wakeLoop(); }) {}

EventHub::~EventHub() {
  stop();
}

void EventHub::stop() {
  {
    std::lock_guard lock(subMutex_);
    stopping_ = true;
  }
  wakeCv_.notify_all();
  if (waker_.joinable()) waker_.join();
}

void EventHub::setEncoder(Encoder encoder) {
  std::lock_guard lock(mutex_);
  encoder_ = std::move(encoder);
  recentEncoded_.clear();
  for (const Event& e : recent_) recentEncoded_.push_back(encoder_(e));
}

void EventHub::publish(const std::vector<Event>& events) {
  if (events.empty()) return;
  // Encoded outside the lock: readers are not held up by it.
  std::vector<std::string> encoded;
  Encoder encoder;
  {
    std::lock_guard lock(mutex_);
    encoder = encoder_;
  }
  if (encoder) {
    encoded.reserve(events.size());
    for (const Event& e : events) encoded.push_back(encoder(e));
  }
  {
    std::lock_guard lock(mutex_);
    for (const Event& e : events) recent_.push_back(e);
    if (encoder_ && encoded.size() == events.size())
      for (auto& bytes : encoded) recentEncoded_.push_back(std::move(bytes));
    else
      recentEncoded_.clear();
    while (recent_.size() > capacity_) recent_.pop_front();
    while (recentEncoded_.size() > recent_.size()) recentEncoded_.pop_front();
    lastSeq_ = events.back().seq;
  }
  {
    std::lock_guard lock(subMutex_);
    ++publishes_;
  }
  wakeCv_.notify_all();
}

uint64_t EventHub::lastSeq() const {
  std::lock_guard lock(mutex_);
  return lastSeq_;
}

Expected<std::vector<Event>> EventHub::read(uint64_t after, size_t limit) const {
  {
    std::lock_guard lock(mutex_);
    if (after >= lastSeq_) return std::vector<Event>{};
    if (!recent_.empty() && after + 1 >= recent_.front().seq) {
      const size_t first = static_cast<size_t>(after + 1 - recent_.front().seq);
      const size_t n = std::min(limit, recent_.size() - first);
      const auto begin = recent_.begin() + static_cast<std::ptrdiff_t>(first);
      return std::vector<Event>(begin, begin + static_cast<std::ptrdiff_t>(n));
    }
  }
  // Older than memory holds: the database has every committed event.
  std::lock_guard lock(storeMutex_);
  return fromStore_(after, limit);
}

Expected<EventHub::Encoded> EventHub::readEncoded(uint64_t after, size_t limit) const {
  Encoded out;
  {
    std::lock_guard lock(mutex_);
    if (after >= lastSeq_) {
      out.lastSeq = after;
      return out;
    }
    // recentEncoded_ covers the newest recentEncoded_.size() events of recent_.
    const size_t covered = recentEncoded_.size();
    if (covered > 0 && covered <= recent_.size()) {
      const uint64_t firstCovered = recent_[recent_.size() - covered].seq;
      if (after + 1 >= firstCovered) {
        const size_t first = static_cast<size_t>(after + 1 - firstCovered);
        const size_t n = std::min(limit, covered - first);
        for (size_t i = first; i < first + n; ++i) out.bytes += recentEncoded_[i];
        out.count = n;
        out.lastSeq = after + n;
        return out;
      }
    }
  }
  // Older than the encodings reach: read and encode here (a watcher catching up).
  TESSERA_TRY(events, read(after, limit));
  Encoder encoder;
  {
    std::lock_guard lock(mutex_);
    encoder = encoder_;
  }
  if (!encoder) return Error{"the event hub has no encoder", {}};
  for (const Event& e : events) out.bytes += encoder(e);
  out.count = events.size();
  out.lastSeq = events.empty() ? after : events.back().seq;
  return out;
}

uint64_t EventHub::subscribe(std::function<void()> wake) {
  std::lock_guard lock(subMutex_);
  const uint64_t id = nextSubscriber_++;
  subscribers_.emplace(id, std::move(wake));
  return id;
}

void EventHub::unsubscribe(uint64_t id) {
  std::lock_guard lock(subMutex_);
  subscribers_.erase(id);
}

void EventHub::wakeLoop() {
  uint64_t seen = 0;
  std::unique_lock lock(subMutex_);
  while (true) {
    wakeCv_.wait(lock, [&] { return stopping_ || publishes_ != seen; });
    if (stopping_) return;
    seen = publishes_;
    // Called under the lock so an unsubscribed watcher is never woken after unsubscribe()
    // returned; wakes only schedule work, they do not block.
    for (auto& [id, wake] : subscribers_) wake();
  }
}

}  // namespace tessera
