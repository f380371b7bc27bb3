// The event hub: reads from memory while it holds the events and from the store beyond that,
// in order and without gaps; the wire encodings made at publish match encoding on demand (the
// path a watcher catching up from the database takes); wakes reach every subscriber and stop
// at unsubscribe.
#include <QtTest>

#include <atomic>

#include "service/event_hub.h"

using namespace tessera;

namespace {

Event eventNo(uint64_t seq) {
  Event e;
  e.seq = seq;
  e.time = static_cast<Seconds>(seq);
  e.job = seq % 7;
  e.reason = literal("event " + std::to_string(seq));
  return e;
}

// A store that holds events 1..n, as the database would.
struct FakeStore {
  uint64_t n = 0;
  std::atomic<int> reads{0};
  Expected<std::vector<Event>> after(uint64_t a, size_t limit) {
    ++reads;
    std::vector<Event> out;
    for (uint64_t s = a + 1; s <= n && out.size() < limit; ++s) out.push_back(eventNo(s));
    return out;
  }
};

std::string encode(const Event& e) {
  return "[" + std::to_string(e.seq) + ":" + e.reason.english() + "]";
}

}  // namespace

class TstEventHub : public QObject {
  Q_OBJECT

 private slots:
  void readsFromMemoryThenFromTheStore() {
    FakeStore store;
    EventHub hub(10, 0, [&](uint64_t a, size_t l) { return store.after(a, l); });
    std::vector<Event> batch;
    for (uint64_t s = 1; s <= 25; ++s) batch.push_back(eventNo(s));
    store.n = 25;
    hub.publish(batch);
    QCOMPARE(hub.lastSeq(), uint64_t{25});
    auto recent = hub.read(20, 100);
    QVERIFY(recent);
    QCOMPARE(recent->size(), size_t{5});
    QCOMPARE(recent->front().seq, uint64_t{21});
    QCOMPARE(store.reads.load(), 0);  // memory still holds 16..25
    auto old = hub.read(2, 4);
    QVERIFY(old);
    QCOMPARE(old->size(), size_t{4});
    QCOMPARE(old->front().seq, uint64_t{3});
    QCOMPARE(store.reads.load(), 1);
    QVERIFY(hub.read(25, 10)->empty());
  }

  void encodingsMadeAtPublishMatchEncodingOnDemand() {
    FakeStore store;
    EventHub hub(10, 0, [&](uint64_t a, size_t l) { return store.after(a, l); });
    hub.setEncoder(encode);
    std::vector<Event> batch;
    for (uint64_t s = 1; s <= 30; ++s) batch.push_back(eventNo(s));
    store.n = 30;
    hub.publish(batch);
    std::string expected;
    for (uint64_t s = 4; s <= 8; ++s) expected += encode(eventNo(s));
    auto fromStore = hub.readEncoded(3, 5);  // older than memory: encoded on demand
    QVERIFY(fromStore);
    QCOMPARE(fromStore->bytes, expected);
    QCOMPARE(fromStore->lastSeq, uint64_t{8});
    QCOMPARE(fromStore->count, size_t{5});
    const int readsBefore = store.reads.load();
    auto fromMemory = hub.readEncoded(25, 100);
    QVERIFY(fromMemory);
    std::string tail;
    for (uint64_t s = 26; s <= 30; ++s) tail += encode(eventNo(s));
    QCOMPARE(fromMemory->bytes, tail);
    QCOMPARE(fromMemory->lastSeq, uint64_t{30});
    QCOMPARE(store.reads.load(), readsBefore);
    QCOMPARE(hub.readEncoded(30, 10)->count, size_t{0});
  }

  void wakesReachSubscribersUntilTheyLeave() {
    EventHub hub(100, 0, [](uint64_t, size_t) {
      return Expected<std::vector<Event>>(std::vector<Event>{});
    });
    std::atomic<int> a{0}, b{0};
    const uint64_t ia = hub.subscribe([&] { ++a; });
    hub.subscribe([&] { ++b; });
    hub.publish({eventNo(1)});
    QTRY_COMPARE(a.load(), 1);
    QTRY_COMPARE(b.load(), 1);
    hub.unsubscribe(ia);
    hub.publish({eventNo(2)});
    QTRY_COMPARE(b.load(), 2);
    QTest::qWait(50);
    QCOMPARE(a.load(), 1);
  }
};

QTEST_GUILESS_MAIN(TstEventHub)
#include "tst_event_hub.moc"
