// Core helpers: error locations, Expected, string and CPU-list parsing, translatable texts, the
// huge-page allocator.
#include <QtTest>
#include <fstream>
#include <functional>
#include <sstream>

#include "core/engine_text.h"
#include "core/error.h"
#include "core/expected.h"
#include "core/huge_pages.h"
#include "core/strings.h"
#include "core/text.h"

using namespace tessera;

namespace {

// Whether the mapping holding `address` carries MADV_HUGEPAGE ("hg" among its VmFlags).
bool advisedHuge(uintptr_t address) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t from = 0, to = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> from >> dash >> to && dash == '-') {
      inside = from <= address && address < to;
      continue;
    }
    if (inside && line.starts_with("VmFlags:")) return line.find(" hg") != std::string::npos;
  }
  return false;
}

}  // namespace

class TstCore : public QObject {
  Q_OBJECT

 private slots:
  // Large arrays start on a 2 MiB boundary with the kernel's huge-page advice on their mapping
  // ("hg" in the VmFlags of /proc/self/smaps); small ones are ordinary allocations.
  void hugePageAllocatorAdvisesLargeArrays() {
    std::vector<char, HugePageAllocator<char>> big(size_t{5} << 20, 'x');
    const auto address = reinterpret_cast<uintptr_t>(big.data());
    QCOMPARE(address % (size_t{2} << 20), uintptr_t{0});
    QVERIFY2(advisedHuge(address), "the array's mapping has no huge-page advice");
    std::vector<char, HugePageAllocator<char>> small(4096, 'y');
    QCOMPARE(small.back(), 'y');
    big.resize(size_t{9} << 20, 'z');  // grows into a new advised array; the contents move
    QCOMPARE(big.front(), 'x');
    QCOMPARE(big.back(), 'z');
    QVERIFY(advisedHuge(reinterpret_cast<uintptr_t>(big.data())));
  }

  void errorLocationText() {
    QCOMPARE(QString::fromStdString(Error{"bad", {"a.yaml", 3, 7, "nodes[0].name"}}.str()),
             QString("a.yaml:3:7: nodes[0].name: bad"));
    QCOMPARE(QString::fromStdString(Error{"bad", {"a.yaml", 3, 0, ""}}.str()),
             QString("a.yaml:3: bad"));
    QCOMPARE(QString::fromStdString(Error{"bad", {"", 0, 0, "gpus"}}.str()), QString("gpus: bad"));
    QCOMPARE(QString::fromStdString(Error{"bad", {}}.str()), QString("bad"));
  }

  // A Text's English fills its template's %N with its arguments' English, nested, in one pass.
  void textRendersEnglish() {
    const Text t =
        phrase(text::kNoNodeHosts,
               phrase(text::kClauses, phrase(text::kNodesFit, 0, 62),
                      listText({phrase(text::kNodesRejected, 40, phrase(text::kRejectGpus)),
                                phrase(text::kNodesRejected, 22, phrase(text::kRejectPool))})));
    QCOMPARE(QString::fromStdString(t.english()),
             QString("no node can host a task: 0/62 nodes fit; 40 not enough free GPUs, "
                     "22 pool mismatch"));
    QVERIFY(!t.isLiteral());
    QCOMPARE(QString::fromStdString(std::string(t.patternText())), QString(text::kNoNodeHosts));
    QCOMPARE(t.args().size(), size_t{1});
    // A literal is never a template: its %1 stays, and an argument's %2 is not expanded again.
    QCOMPARE(QString::fromStdString(literal("50%1 done").english()), QString("50%1 done"));
    QCOMPARE(QString::fromStdString(phrase("%1 then %2", "a%2", "b").english()),
             QString("a%2 then b"));
    // A placeholder with no argument stays as written; %0, %x and a trailing % are plain text.
    QCOMPARE(QString::fromStdString(phrase("%1 and %3 at %0 %x 5%", "x").english()),
             QString("x and %3 at %0 %x 5%"));
    // The same template may use an argument twice (kGangWithin names the level twice).
    QCOMPARE(QString::fromStdString(phrase(text::kGangWithin, 4, phrase(text::kTasksOfGpus, 8),
                                           phrase(text::kLevelNvlink), 2)
                                        .english()),
             QString("the gang needs 4 tasks of 8 GPUs within one NVLink domain (required); the "
                     "roomiest NVLink domain has room for 2"));
  }

  void textListsAndEquality() {
    QCOMPARE(QString::fromStdString(listText({literal(4), literal(7), literal(9)}, true).english()),
             QString("4, 7 and 9"));
    QCOMPARE(QString::fromStdString(listText({literal(4)}).english()), QString("4"));
    // A long list nests log2(n) deep, so a client can read it back (rpc::kMaxTextDepth).
    std::vector<Text> many;
    std::string expected;
    for (int i = 0; i < 1000; ++i) {
      many.push_back(literal(i));
      expected += (i ? (i == 999 ? " and " : ", ") : "") + std::to_string(i);
    }
    const Text longList = listText(std::move(many), true);
    QCOMPARE(QString::fromStdString(longList.english()), QString::fromStdString(expected));
    std::function<int(const Text&)> depth = [&](const Text& t) {
      int d = 0;
      for (const Text& a : t.args()) d = std::max(d, depth(a));
      return d + 1;
    };
    QVERIFY2(depth(longList) <= 12, qPrintable(QString::number(depth(longList))));
    // Clauses too: a 200-node gang's placement, one clause per node, stays readable remotely.
    std::vector<Text> clauses;
    std::string joined;
    for (int i = 0; i < 200; ++i) {
      clauses.push_back(phrase(text::kGpuOfNode, "n" + std::to_string(i), "0,1"));
      joined += (i ? "; n" : "n") + std::to_string(i) + " GPU 0,1";
    }
    const Text placement = clauseList(std::move(clauses));
    QCOMPARE(QString::fromStdString(placement.english()), QString::fromStdString(joined));
    QVERIFY2(depth(placement) <= 12, qPrintable(QString::number(depth(placement))));
    QVERIFY(clauseList({}).empty());
    QVERIFY(listText({}).empty());
    QVERIFY(Text().empty());
    QVERIFY(Text().isLiteral());
    QCOMPARE(phrase(text::kNoJob, 5), phrase(text::kNoJob, 5));
    QVERIFY(!(phrase(text::kNoJob, 5) == phrase(text::kNoJob, 6)));
    QVERIFY(!(phrase(text::kHeld) == literal(text::kHeld)));  // same words, one translatable
    const Text a = phrase(text::kNoJob, 5), copy = a;         // shared, not deep-copied
    QCOMPARE(copy, a);
  }

  void errorOfText() {
    const Error e = Error::of(phrase(text::kNotPending, 7), {"", 0, 0, "job"});
    QCOMPARE(QString::fromStdString(e.str()), QString("job: job 7 is not pending"));
    QCOMPARE(QString::fromStdString(std::string(e.text.patternText())), QString(text::kNotPending));
    QVERIFY((Error{"plain", {}}.text.empty()));
  }

  void expectedHoldsValueOrError() {
    Expected<int> v = 4;
    QVERIFY(v.ok());
    QCOMPARE(*v, 4);
    Expected<int> e = Error{"nope", {}};
    QVERIFY(!e.ok());
    QCOMPARE(QString::fromStdString(e.error().message), QString("nope"));
  }

  void parseIntRejectsJunk() {
    QCOMPARE(parseInt(" 42 ").value_or(-1), 42);
    QVERIFY(!parseInt("4x"));
    QVERIFY(!parseInt(""));
    QVERIFY(!parseInt("1.5"));
    QCOMPARE(parseInt("-3").value_or(0), -3);
  }

  void cpuLists() {
    auto cpus = parseCpuList("0-3,8,10-11");
    QVERIFY(cpus);
    QCOMPARE(cpus->size(), size_t{7});
    QCOMPARE(cpus->back(), 11);
    QVERIFY(parseCpuList("")->empty());
    QVERIFY(!parseCpuList("3-1"));
    QVERIFY(!parseCpuList("a-b"));
    QVERIFY(!parseCpuList("1,,2"));
  }

  void splitAndJoin() {
    const auto parts = split("a,b,,c", ',');
    QCOMPARE(parts.size(), size_t{4});
    QVERIFY(parts[2].empty());
    QCOMPARE(QString::fromStdString(join({"x", "y"}, ", ")), QString("x, y"));
    QCOMPARE(QString::fromStdString(toLower("H100-SXM")), QString("h100-sxm"));
  }
};

QTEST_APPLESS_MAIN(TstCore)
#include "tst_core.moc"
