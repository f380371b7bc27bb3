// The terminal writer (ncursesw) writing into a pipe: the first frame sends the whole screen, a
// second identical frame sends nothing, one changed cell sends a few bytes holding that
// character, a resize redraws everything, colour modes send their escape sequences (none in
// monochrome), and restore() leaves the alternate screen.
#include <QtTest>

#include <fcntl.h>
#include <unistd.h>
#include <clocale>

#include "tui/controller.h"
#include "tui/terminal.h"

using namespace tessera::tui;

namespace {

// A pipe standing in for the terminal: ncurses writes into it, the test reads what arrived.
struct FakeTty {
  int outFd[2] = {-1, -1};
  int inFd[2] = {-1, -1};
  FILE* out = nullptr;
  FILE* in = nullptr;
  FakeTty() {
    if (::pipe2(outFd, O_NONBLOCK) != 0 || ::pipe2(inFd, O_NONBLOCK) != 0) qFatal("pipe");
    ::fcntl(outFd[0], F_SETPIPE_SZ, 1 << 20);
    out = ::fdopen(outFd[1], "w");
    in = ::fdopen(inFd[0], "r");
  }
  ~FakeTty() {
    std::fclose(out);
    std::fclose(in);
    ::close(outFd[0]);
    ::close(inFd[1]);
  }
  std::string take() {
    std::string got;
    char buf[65536];
    ssize_t n;
    while ((n = ::read(outFd[0], buf, sizeof buf)) > 0) got.append(buf, static_cast<size_t>(n));
    return got;
  }
  std::unique_ptr<Terminal> open(ColorMode mode, const char* term = "xterm-256color") {
    Terminal::Options o;
    o.in = in;
    o.out = out;
    o.term = term;
    o.color = mode;
    o.handleSignals = false;
    std::string error;
    auto t = Terminal::open(o, error);
    if (!t) qFatal("%s", error.c_str());
    t->resize(40, 10);
    return t;
  }
};

Screen sample(const char* text, Role role = Role::Normal) {
  Screen s(40, 10);
  s.put(0, 0, "Tessera top", Role::Title);
  s.put(2, 3, text, role);
  return s;
}

}  // namespace

class TstTuiTerminal : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { std::setlocale(LC_ALL, "C.UTF-8"); }

  void onlyChangedCellsAreWritten() {
    FakeTty tty;
    auto t = tty.open(ColorMode::Color256);
    t->draw(sample("hello 队列"));
    const std::string first = tty.take();
    QVERIFY(first.find("Tessera top") != std::string::npos);
    QVERIFY(first.find("hello") != std::string::npos);
    QVERIFY(first.find("队列") != std::string::npos);
    t->draw(sample("hello 队列"));
    QCOMPARE(tty.take(), std::string());
    t->draw(sample("hallo 队列"));
    const std::string delta = tty.take();
    QVERIFY2(delta.size() < 40, delta.c_str());
    QVERIFY(delta.find('a') != std::string::npos);
    QVERIFY(delta.find("Tessera") == std::string::npos);
  }

  void resizeRedrawsEverything() {
    FakeTty tty;
    auto t = tty.open(ColorMode::Color256);
    t->draw(sample("x"));
    tty.take();
    t->resize(40, 10);
    t->draw(sample("x"));
    QVERIFY(tty.take().find("Tessera top") != std::string::npos);
  }

  void colourModes() {
    {
      FakeTty tty;
      auto t = tty.open(ColorMode::Color256);
      t->draw(sample("bad", Role::Bad));
      QVERIFY(tty.take().find("38;5;") != std::string::npos);  // 256-colour foreground
    }
    {
      FakeTty tty;
      auto t = tty.open(ColorMode::Color8);
      t->draw(sample("bad", Role::Bad));
      const std::string got = tty.take();
      QVERIFY(got.find("38;5;") == std::string::npos);
      QVERIFY(got.find("\x1b[31m") != std::string::npos || got.find("\x1b[3") != std::string::npos);
    }
    {
      FakeTty tty;
      auto t = tty.open(ColorMode::Mono);
      t->draw(sample("bad", Role::Bad));
      const std::string got = tty.take();
      QVERIFY(got.find("\x1b[3") == std::string::npos);  // no foreground colour at all
      QVERIFY(got.find("bad") != std::string::npos);
    }
    {
      FakeTty tty;
      // xterm-direct is in ncurses-term (installer/bootstrap-debian12.sh).
      if (!QFile::exists("/usr/share/terminfo/x/xterm-direct") &&
          !QFile::exists("/lib/terminfo/x/xterm-direct"))
        QFAIL("no xterm-direct terminfo: install ncurses-term (installer/bootstrap-debian12.sh)");
      auto t = tty.open(ColorMode::TrueColor, "xterm-direct");
      QCOMPARE(t->colorMode(), ColorMode::TrueColor);
      t->draw(sample("bad", Role::Bad));
      const std::string got = tty.take();
      QVERIFY2(
          got.find("240:80:80") != std::string::npos || got.find("240;80;80") != std::string::npos,
          qPrintable(QByteArray::fromStdString(got).toPercentEncoding()));
    }
  }

  void restoreLeavesTheAlternateScreen() {
    FakeTty tty;
    auto t = tty.open(ColorMode::Mono);
    t->draw(sample("x"));
    tty.take();
    t->restore();
    QVERIFY(tty.take().find("\x1b[?1049l") != std::string::npos);  // rmcup of xterm
    t->restore();                                                  // idempotent
  }

  void keysAreMapped() {
    FakeTty tty;
    auto t = tty.open(ColorMode::Mono);
    const char keys[] = "q\x1bOA\r";  // xterm's Up in keypad mode (kcuu1)
    QCOMPARE(::write(tty.inFd[1], keys, 5), ssize_t{5});
    QCOMPARE(t->readKey().value_or(0), U'q');
    QCOMPARE(t->readKey().value_or(0), char32_t{kKeyUp});
    QCOMPARE(t->readKey().value_or(0), char32_t{kKeyEnter});
    QVERIFY(!t->readKey());
  }
};

QTEST_GUILESS_MAIN(TstTuiTerminal)
#include "tst_tui_terminal.moc"
