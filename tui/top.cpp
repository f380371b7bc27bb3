#include "top.h"

#include <QCoreApplication>
#include <QLocale>
#include <QTranslator>

#include <fcntl.h>
#include <langinfo.h>
#include <poll.h>
#include <unistd.h>
#include <chrono>
#include <clocale>
#include <csignal>
#include <ostream>

#include "controller.h"
#include "feed.h"
#include "render.h"
#include "session/embedded_session.h"
#include "terminal.h"

namespace tessera::tui {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kMinRefresh = std::chrono::seconds(2);    // pushed changes: at most this often
constexpr auto kIdleRefresh = std::chrono::seconds(10);  // no push: telemetry still moves

// The self-pipe: signal handlers and the change watcher write one byte saying what happened.
int gWake[2] = {-1, -1};
void wake(char what) {
  (void)!::write(gWake[1], &what, 1);
}
void onResize(int) {
  wake('w');
}
void onQuit(int) {
  wake('q');
}

void installSignals() {
  struct sigaction sa {};
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = onResize;  // no SA_RESTART: poll() wakes up
  sigaction(SIGWINCH, &sa, nullptr);
  sa.sa_handler = onQuit;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
}

// The UI language: TESSERA_LANG, else the system locale (as the desktop console, without its
// settings file); the catalogues are the desktop's, embedded in the tessera executable.
void installTranslator(QTranslator& t) {
  const QString choice = qEnvironmentVariable("TESSERA_LANG").trimmed();
  const QLocale ui = choice.isEmpty() ? QLocale::system() : QLocale(choice);
  if (t.load(ui, QStringLiteral("tessera"), QStringLiteral("_"), QStringLiteral(":/i18n")))
    QCoreApplication::installTranslator(&t);
}

struct Session {
  std::unique_ptr<Feed> feed;
  std::string source;
  bool viewer = false;
  session::EmbeddedSession embedded;  // keeps the demo's database alive
};

const GpuCatalog& catalogOf(const TopOptions& o) {
  return o.catalog ? *o.catalog : GpuCatalog::builtin();
}

std::optional<Session> openSession(const TopOptions& o, std::ostream& err) {
  Session s;
  if (o.demo) {
    session::EmbeddedOptions e;
    e.cluster = o.demoCluster;
    e.catalog = o.catalog;
    if (o.demoWorkload) e.workload = *o.demoWorkload;
    auto opened = session::openEmbeddedSession(e);
    if (!opened) {
      err << "tessera top: " << opened.error().str() << "\n";
      return std::nullopt;
    }
    s.embedded = *opened;
    s.feed = std::make_unique<Feed>(s.embedded.backend, nullptr, catalogOf(o));
    s.source = "demo";
    return s;
  }
  auto remote = rpc::RemoteSession::connect(o.remote);
  if (!remote) {
    err << "tessera top: " << remote.error().str() << "\n";
    return std::nullopt;
  }
  // Fail now, before the terminal is taken, on a wrong address or token.
  auto who = (*remote)->whoAmI();
  if (const auto* e = std::get_if<ApiError>(&who)) {
    err << "tessera top: " << o.remote.address << ": " << e->message << "\n";
    return std::nullopt;
  }
  s.viewer = std::get<rpc::ServerIdentity>(who).role == "viewer";
  s.feed = std::make_unique<Feed>(nullptr, std::shared_ptr<rpc::RemoteSession>(std::move(*remote)),
                                  catalogOf(o));
  s.source = o.remote.address;
  return s;
}

class Loop {
 public:
  Loop(Feed& feed, Terminal& term, State& state) : feed_(feed), term_(term), s_(state) {}

  void run() {
    refresh();
    draw();
    while (!quit_) {
      waitForInput();
      drainWakeups();
      while (auto key = term_.readKey()) handleKey(*key);
      const auto since = Clock::now() - lastRefresh_;
      if ((changed_ && since >= kMinRefresh) || since >= kIdleRefresh) refresh();
      draw();
    }
  }

 private:
  void waitForInput() {
    const auto due = lastRefresh_ + (changed_ ? kMinRefresh : kIdleRefresh);
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(due - Clock::now()).count();
    pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {gWake[0], POLLIN, 0}};
    ::poll(fds, 2, static_cast<int>(std::clamp<long long>(ms, 0, 10000)));
  }

  void drainWakeups() {
    char buf[64];
    ssize_t n;
    while ((n = ::read(gWake[0], buf, sizeof buf)) > 0)
      for (ssize_t i = 0; i < n; ++i) {
        if (buf[i] == 'q') quit_ = true;
        if (buf[i] == 'c') changed_ = true;
        if (buf[i] == 'w') term_.updateSize(), dirty_ = true;
      }
  }

  void handleKey(char32_t key) {
    dirty_ = true;
    s_.ui.width = term_.width();
    for (const Request& r : onKey(s_, key)) {
      switch (r.kind) {
        case Request::Kind::Quit:
          quit_ = true;
          break;
        case Request::Kind::Refresh:
          refresh();
          break;
        case Request::Kind::Explain:
          refresh();
          break;
        case Request::Kind::DryRun:
          showDryRun(s_, r.command, feed_.act(r.command, true));
          break;
        case Request::Kind::Apply:
          showApplied(s_, r.command, feed_.act(r.command, false));
          refresh();
          break;
      }
    }
  }

  void refresh() {
    const JobId explain = s_.ui.view() == View::JobDetail ? s_.ui.detailJob : kNoJob;
    replaceData(s_, feed_.fetch(s_.data, explain));
    lastRefresh_ = Clock::now();
    changed_ = false;
    dirty_ = true;
  }

  void draw() {
    if (!dirty_) return;
    term_.draw(render(s_, term_.width(), term_.height()));
    dirty_ = false;
  }

  Feed& feed_;
  Terminal& term_;
  State& s_;
  bool quit_ = false;
  bool changed_ = false;
  bool dirty_ = true;
  Clock::time_point lastRefresh_{};
};

}  // namespace

int runTop(const TopOptions& options, std::ostream& err) {
  std::setlocale(LC_ALL, "");
  int argc = 1;
  char name[] = "tessera";
  char* argv[] = {name, nullptr};
  std::unique_ptr<QCoreApplication> app;
  if (!QCoreApplication::instance()) app = std::make_unique<QCoreApplication>(argc, argv);
  QTranslator translator;
  installTranslator(translator);

  auto session = openSession(options, err);
  if (!session) return 3;
  State state;
  state.data.source = session->source;
  state.ui.readonly = options.readonly || session->viewer;
  state.ui.stack = {options.startView};
  const char* term = std::getenv("TERM");
  state.glyphs = options.unicode.value_or(wantUnicode(nl_langinfo(CODESET), term ? term : ""))
                     ? &unicodeGlyphs()
                     : &asciiGlyphs();

  if (::pipe2(gWake, O_NONBLOCK | O_CLOEXEC) != 0) {
    err << "tessera top: cannot create a pipe\n";
    return 2;
  }
  installSignals();
  std::string error;
  Terminal::Options to;
  to.color = options.color;
  auto terminal = Terminal::open(to, error);
  if (!terminal) {
    err << "tessera top: " << error << "\n";
    return 2;
  }
  session->feed->watch([] { wake('c'); });
  Loop(*session->feed, *terminal, state).run();
  terminal->restore();
  return 0;
}

}  // namespace tessera::tui
