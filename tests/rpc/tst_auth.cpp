// Bearer-token authentication: the token file (good files and every kind of error, each located
// by file:line and field), token lookup, roles, hashing, token generation, the "authorization"
// header and the per-identity rate limiter.
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <fstream>
#include <set>
#include <thread>

#include "rpc/auth.h"

using namespace tessera;

namespace {

const std::string kAliceToken = "tsr_alice-secret";
const std::string kBobToken = "tsr_bob-secret";
const std::string kCarolToken = "tsr_carol-secret";

std::string entry(const std::string& name, const std::string& role, const std::string& hash) {
  return "  - name: " + name + "\n    role: " + role + "\n    sha256: " + hash + "\n";
}

std::string goodFile() {
  return "# who may talk to tesserad\ntokens:\n" +
         entry("alice", "operator", sha256Hex(kAliceToken)) +
         entry("bob", "viewer", sha256Hex(kBobToken)) +
         entry("carol@example.com", "admin", sha256Hex(kCarolToken));
}

std::string errorText(const Expected<TokenBook>& book) {
  return book.ok() ? std::string("(no error)") : book.error().str();
}

}  // namespace

class TstAuth : public QObject {
  Q_OBJECT

 private slots:
  void parsesAGoodFile() {
    auto book = TokenBook::parse(goodFile(), "tokens.yaml");
    QVERIFY2(book.ok(), errorText(book).c_str());
    QCOMPARE(book->size(), size_t{3});
    QCOMPARE(*book->authenticate(kAliceToken), (Identity{"alice", Role::Operator}));
    QCOMPARE(*book->authenticate(kBobToken), (Identity{"bob", Role::Viewer}));
    QCOMPARE(*book->authenticate(kCarolToken), (Identity{"carol@example.com", Role::Admin}));
  }

  void loadsAFileAndSaysWhyOneCannotBeRead() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("tokens.yaml").toStdString();
    std::ofstream(path) << goodFile();
    auto book = TokenBook::load(path);
    QVERIFY2(book.ok(), errorText(book).c_str());
    QCOMPARE(book->authenticate(kBobToken)->name, std::string("bob"));

    auto missing = TokenBook::load(dir.filePath("absent.yaml").toStdString());
    QVERIFY(!missing.ok());
    QVERIFY2(missing.error().str().find("absent.yaml: cannot read token file: No such file") !=
                 std::string::npos,
             errorText(missing).c_str());
    auto directory = TokenBook::load(dir.path().toStdString());
    QVERIFY(!directory.ok());
    QVERIFY2(directory.error().message.find("not a regular file") != std::string::npos,
             errorText(directory).c_str());
    QCOMPARE(directory.error().where.file, dir.path().toStdString());
  }

  void refusesBrokenFiles_data() {
    QTest::addColumn<QString>("yaml");
    QTest::addColumn<QString>("where");  // expected start of Error::str(): file:line[:col]: field
    QTest::addColumn<QString>("message");
    const std::string a = sha256Hex(kAliceToken);
    const std::string b = sha256Hex(kBobToken);
    const auto row = [](const char* tag, const std::string& yaml, const char* where,
                        const char* message) {
      QTest::newRow(tag) << QString::fromStdString(yaml) << where << message;
    };
    row("duplicate name", "tokens:\n" + entry("alice", "admin", a) + entry("alice", "viewer", b),
        "t.yaml:5:11: tokens[1].name", "duplicate name 'alice' (also at line 2)");
    row("bad role", "tokens:\n" + entry("alice", "root", a), "t.yaml:3:11: tokens[0].role",
        "unknown role 'root' (allowed: viewer, operator, admin, agent)");
    row("short hash", "tokens:\n" + entry("alice", "admin", "abc123"),
        "t.yaml:4:13: tokens[0].sha256", "malformed hash");
    row("uppercase hash",
        "tokens:\n" + entry("alice", "admin", QByteArray::fromStdString(a).toUpper().toStdString()),
        "t.yaml:4:13: tokens[0].sha256", "got other characters");
    row("clear token", "tokens:\n" + entry("alice", "admin", kAliceToken),
        "t.yaml:4:13: tokens[0].sha256", "malformed hash");
    row("empty token's hash", "tokens:\n" + entry("alice", "admin", sha256Hex("")),
        "t.yaml:4:13: tokens[0].sha256", "hash of the empty token");
    row("duplicate hash", "tokens:\n" + entry("alice", "admin", a) + entry("bob", "viewer", a),
        "t.yaml:7:13: tokens[1].sha256", "two identities would share one token (also at line 4)");
    row("empty list", "# nobody yet\ntokens: []\n", "t.yaml:2:9: tokens", "token list is empty");
    row("null list", "tokens:\n", "t.yaml:1:1: tokens", "token list is empty");
    row("no list", "users: []\n", "t.yaml:1:1: users", "unknown field 'users'");
    row("empty file", "", "t.yaml", "expected a map with the key 'tokens'");
    row("missing field", "tokens:\n  - name: alice\n    role: admin\n", "t.yaml:2:5: tokens[0]",
        "missing required field 'sha256'");
    row("token in clear", "tokens:\n  - name: alice\n    role: admin\n    token: x\n",
        "t.yaml:4:5: tokens[0].token", "never stored in clear");
    row("duplicate key", "tokens:\n" + entry("alice", "admin", a) + "    role: viewer\n",
        "t.yaml:5:5: tokens[0].role", "duplicate key 'role'");
    row("bad name", "tokens:\n" + entry("\"al ice\"", "admin", a), "t.yaml:2:11: tokens[0].name",
        "invalid name 'al ice'");
    row("entry not a map", "tokens:\n  - alice\n", "t.yaml:2:5: tokens[0]",
        "expected an entry with name, role and sha256");
    row("syntax", "tokens:\n  - name: [alice\n", "t.yaml:3:", "YAML syntax error");
  }

  void refusesBrokenFiles() {
    QFETCH(QString, yaml);
    QFETCH(QString, where);
    QFETCH(QString, message);
    auto book = TokenBook::parse(yaml.toStdString(), "t.yaml");
    QVERIFY(!book.ok());
    const QString text = QString::fromStdString(book.error().str());
    QVERIFY2(text.startsWith(where), qPrintable(text));
    QVERIFY2(text.contains(message), qPrintable(text));
    QCOMPARE(book.error().where.file, std::string("t.yaml"));
  }

  void authenticatesOnlyTheExactToken() {
    auto book = TokenBook::parse(goodFile(), "tokens.yaml");
    QVERIFY(book.ok());
    QVERIFY(book->authenticate(kAliceToken).has_value());
    QVERIFY(!book->authenticate("tsr_wrong").has_value());
    QVERIFY(!book->authenticate("").has_value());
    QVERIFY(!book->authenticate(kAliceToken + "x").has_value());
    QVERIFY(!book->authenticate(kAliceToken.substr(0, kAliceToken.size() - 1)).has_value());
    QVERIFY(!book->authenticate(sha256Hex(kAliceToken)).has_value());  // the hash is no token
    QVERIFY(!TokenBook().authenticate(kAliceToken).has_value());
    QCOMPARE(TokenBook().size(), size_t{0});
  }

  void rolesAreOrdered() {
    QVERIFY(Role::Viewer < Role::Operator && Role::Operator < Role::Admin);
    QVERIFY(permits(Role::Admin, Role::Operator));
    QVERIFY(permits(Role::Admin, Role::Viewer));
    QVERIFY(permits(Role::Operator, Role::Operator));
    QVERIFY(!permits(Role::Operator, Role::Admin));
    QVERIFY(!permits(Role::Viewer, Role::Operator));
    // An agent may push telemetry and nothing else; operators and admins may push too.
    QVERIFY(permits(Role::Agent, Role::Agent));
    for (Role r : {Role::Viewer, Role::Operator, Role::Admin}) {
      QVERIFY(!permits(Role::Agent, r));
      QCOMPARE(permits(r, Role::Agent), r != Role::Viewer);
    }
    for (Role r : {Role::Viewer, Role::Operator, Role::Admin, Role::Agent})
      QCOMPARE(parseRole(roleName(r)), std::optional<Role>(r));
    QCOMPARE(std::string(roleName(Role::Operator)), std::string("operator"));
    QCOMPARE(parseRole("Admin"), std::optional<Role>(Role::Admin));
    QVERIFY(!parseRole("root").has_value());
    QVERIFY(!parseRole("").has_value());
  }

  void hashesWithSha256() {
    QCOMPARE(sha256Hex("abc"),
             std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    QCOMPARE(sha256Hex(""),
             std::string("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
  }

  void generatesDistinctWellFormedTokens() {
    std::set<std::string> seen;
    for (int i = 0; i < 200; ++i) {
      auto token = generateToken();
      QVERIFY2(token.ok(), token.ok() ? "" : token.error().str().c_str());
      QCOMPARE(token->size(), size_t{47});  // "tsr_" + 43 base64url characters for 32 bytes
      QVERIFY(token->starts_with("tsr_"));
      for (char c : token->substr(4))
        QVERIFY2(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_',
                 token->c_str());
      QCOMPARE(bearerToken("Bearer " + *token), std::optional<std::string_view>(*token));
      seen.insert(*token);
    }
    QCOMPARE(seen.size(), size_t{200});
    // A generated token works once its hash is in the file.
    const std::string token = *seen.begin();
    auto book = TokenBook::parse("tokens:\n" + entry("ci", "viewer", sha256Hex(token)), "t.yaml");
    QVERIFY(book.ok());
    QCOMPARE(book->authenticate(token)->name, std::string("ci"));
  }

  void parsesTheAuthorizationHeader_data() {
    QTest::addColumn<QString>("header");
    QTest::addColumn<QString>("token");  // null: malformed
    QTest::newRow("plain") << "Bearer abc"
                           << "abc";
    QTest::newRow("lowercase scheme") << "bearer abc"
                                      << "abc";
    QTest::newRow("shouting scheme") << "BEARER abc"
                                     << "abc";
    QTest::newRow("several spaces") << "Bearer    tsr_a-b.c~d+e/f"
                                    << "tsr_a-b.c~d+e/f";
    QTest::newRow("padding") << "Bearer YWJj=="
                             << "YWJj==";
    QTest::newRow("surrounding blanks") << " \tBearer abc \t"
                                        << "abc";
    QTest::newRow("no token") << "Bearer" << QString();
    QTest::newRow("only spaces") << "Bearer    " << QString();
    QTest::newRow("no space") << "Bearerabc" << QString();
    QTest::newRow("tab separator") << "Bearer\tabc" << QString();
    QTest::newRow("other scheme") << "Basic YWxhZGRpbjpvcGVuc2VzYW1l" << QString();
    QTest::newRow("two tokens") << "Bearer abc def" << QString();
    QTest::newRow("only padding") << "Bearer ==" << QString();
    QTest::newRow("padding inside") << "Bearer ab=c" << QString();
    QTest::newRow("bad character") << "Bearer ab\"c" << QString();
    QTest::newRow("empty") << "" << QString();
  }

  void parsesTheAuthorizationHeader() {
    QFETCH(QString, header);
    QFETCH(QString, token);
    const std::string h = header.toStdString();
    const auto got = bearerToken(h);
    if (token.isNull()) {
      QVERIFY2(!got.has_value(), std::string(got.value_or("")).c_str());
    } else {
      QVERIFY(got.has_value());
      QCOMPARE(std::string(*got), token.toStdString());
    }
  }

  void rateLimiterAllowsABurstThenRefills() {
    RateLimiter limiter(2.0, 3.0);  // 2 per second, bursts of 3
    QVERIFY(limiter.allow("alice", 100.0));
    QVERIFY(limiter.allow("alice", 100.0));
    QVERIFY(limiter.allow("alice", 100.0));
    QVERIFY(!limiter.allow("alice", 100.0));
    QVERIFY(!limiter.allow("alice", 100.2));  // 0.4 of a request refilled: not enough
    QVERIFY(limiter.allow("alice", 100.5));   // one refilled
    QVERIFY(!limiter.allow("alice", 100.5));
    QVERIFY(!limiter.allow("alice", 90.0));  // a clock running backwards refills nothing
    // A long pause refills up to the burst, not beyond.
    for (int i = 0; i < 3; ++i) QVERIFY(limiter.allow("alice", 1000.0));
    QVERIFY(!limiter.allow("alice", 1000.0));
  }

  void rateLimiterIsPerIdentity() {
    RateLimiter limiter(1.0, 1.0);
    QVERIFY(limiter.allow("alice", 0.0));
    QVERIFY(!limiter.allow("alice", 0.0));
    QVERIFY(limiter.allow("bob", 0.0));  // alice's exhaustion does not touch bob
    QVERIFY(!limiter.allow("bob", 0.0));
    // Forgetting idle callers (thousands of them) must not reset one that is still limited.
    for (int i = 0; i < 10000; ++i) QVERIFY(limiter.allow("caller-" + std::to_string(i), 0.5));
    QVERIFY(!limiter.allow("alice", 0.5));
    QVERIFY(limiter.allow("alice", 1.0));
  }

  void rateLimiterClampsNonsenseAndUsesTheClock() {
    RateLimiter never(0.0, 0.0);  // burst raised to 1, no refill
    QVERIFY(never.allow("x"));
    QVERIFY(!never.allow("x"));
    QVERIFY(!never.allow("x", 1e12));
  }

  void rateLimiterIsThreadSafe() {
    RateLimiter limiter(0.0, 100.0);
    std::atomic<int> allowed{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&] {
        for (int i = 0; i < 1000; ++i)
          if (limiter.allow("shared", 5.0)) ++allowed;
      });
    for (auto& t : threads) t.join();
    QCOMPARE(allowed.load(), 100);
  }
};

QTEST_GUILESS_MAIN(TstAuth)
#include "tst_auth.moc"
