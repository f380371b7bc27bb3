#include "terminal.h"

#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>
#include <csignal>
#include <cstdlib>
#include <cstring>

#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>
#include <ncursesw/term.h>

#include "controller.h"

namespace tessera::tui {

std::vector<Run> changedRuns(const Screen* before, const Screen& after) {
  std::vector<Run> runs;
  const bool all =
      !before || before->width() != after.width() || before->height() != after.height();
  for (int y = 0; y < after.height(); ++y) {
    if (all) {
      runs.push_back({0, y, after.width()});
      continue;
    }
    int x = 0;
    while (x < after.width()) {
      if (before->at(x, y) == after.at(x, y)) {
        ++x;
        continue;
      }
      int start = x;
      if (after.at(start, y).width == 0 && start > 0) --start;  // the wide character's first half
      while (x < after.width() && !(before->at(x, y) == after.at(x, y))) ++x;
      if (x < after.width() && after.at(x, y).width == 0) ++x;  // and its second half
      if (!runs.empty() && runs.back().y == y && runs.back().x + runs.back().length >= start)
        runs.back().length = x - runs.back().x;
      else
        runs.push_back({start, y, x - start});
    }
  }
  return runs;
}

namespace {

// What the crash handler needs, prepared while it is still safe to allocate.
struct CrashRestore {
  bool armed = false;
  int fd = STDOUT_FILENO;
  termios saved{};
  char reset[256] = {};
  size_t resetLength = 0;
};
CrashRestore gCrash;

void onCrash(int sig) {
  if (gCrash.armed) {
    (void)!::write(gCrash.fd, gCrash.reset, gCrash.resetLength);
    ::tcsetattr(gCrash.fd, TCSANOW, &gCrash.saved);
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void armCrashRestore(int fd) {
  gCrash.fd = fd;
  if (::tcgetattr(fd, &gCrash.saved) != 0) return;  // not a terminal: nothing to restore
  std::string reset;
  for (const char* cap : {"rmcup", "sgr0", "cnorm"}) {
    const char* s = tigetstr(cap);
    if (s && s != reinterpret_cast<char*>(-1)) reset += s;
  }
  gCrash.resetLength = std::min(reset.size(), sizeof gCrash.reset);
  std::memcpy(gCrash.reset, reset.data(), gCrash.resetLength);
  gCrash.armed = true;
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(sig, onCrash);
}

char32_t mapKey(int status, wint_t ch) {
  if (status == KEY_CODE_YES) {
    switch (ch) {
      case KEY_UP:
        return kKeyUp;
      case KEY_DOWN:
        return kKeyDown;
      case KEY_LEFT:
        return kKeyLeft;
      case KEY_RIGHT:
        return kKeyRight;
      case KEY_PPAGE:
        return kKeyPageUp;
      case KEY_NPAGE:
        return kKeyPageDown;
      case KEY_HOME:
        return kKeyHome;
      case KEY_END:
        return kKeyEnd;
      case KEY_ENTER:
        return kKeyEnter;
      case KEY_BACKSPACE:
        return kKeyBackspace;
      default:
        return 0;  // KEY_RESIZE and the rest: nothing for the controller
    }
  }
  switch (ch) {
    case L'\n':
    case L'\r':
      return kKeyEnter;
    case 27:
      return kKeyEscape;
    case 127:
    case 8:
      return kKeyBackspace;
    case L'\t':
      return kKeyTab;
    default:
      return static_cast<char32_t>(ch);
  }
}

attr_t attributesOf(const RoleStyle& st) {
  attr_t a = A_NORMAL;
  if (st.bold) a |= A_BOLD;
  if (st.reverse) a |= A_REVERSE;
  if (st.underline) a |= A_UNDERLINE;
  if (st.dim) a |= A_DIM;
  return a;
}

}  // namespace

struct Terminal::Impl {
  SCREEN* screen = nullptr;
  FILE* out = nullptr;
  std::array<attr_t, kRoleCount> attrs{};
  std::array<short, kRoleCount> pairs{};
  bool restored = false;
};

Terminal::Terminal(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

std::unique_ptr<Terminal> Terminal::open(const Options& options, std::string& error) {
  auto impl = std::make_unique<Impl>();
  impl->out = options.out;
  const std::string term =
      options.term.empty() ? (std::getenv("TERM") ? std::getenv("TERM") : "") : options.term;
  impl->screen = newterm(term.empty() ? nullptr : term.c_str(), impl->out, options.in);
  if (!impl->screen) {
    error = "unknown terminal type '" + term + "' (set TERM)";
    return nullptr;
  }
  set_term(impl->screen);
  cbreak();  // Ctrl+C still raises SIGINT: the program quits through its normal path
  noecho();
  nonl();
  keypad(stdscr, TRUE);
  nodelay(stdscr, TRUE);
  set_escdelay(25);
  curs_set(0);
  std::unique_ptr<Terminal> t(new Terminal(std::move(impl)));
  const char* noColor = std::getenv("NO_COLOR");
  const char* colorterm = std::getenv("COLORTERM");
  t->mode_ = options.color.value_or(
      detectColorMode(noColor != nullptr, has_colors() ? COLORS : 0, colorterm ? colorterm : ""));
  t->setupColors();
  if (options.handleSignals) armCrashRestore(fileno(options.out));
  return t;
}

void Terminal::setupColors() {
  if (mode_ != ColorMode::Mono && has_colors()) {
    start_color();
    use_default_colors();
  } else {
    mode_ = ColorMode::Mono;
  }
  const auto color = [this](const std::optional<Rgb>& c) -> int {
    if (!c) return -1;  // the terminal's default
    switch (mode_) {
      case ColorMode::TrueColor:
        return (c->r << 16) | (c->g << 8) | c->b;
      case ColorMode::Color256:
        return to256(*c);
      default:
        return to8(*c);
    }
  };
  for (int r = 0; r < kRoleCount; ++r) {
    const RoleStyle st = roleStyle(static_cast<Role>(r), mode_);
    impl_->attrs[static_cast<size_t>(r)] = attributesOf(st);
    if (mode_ == ColorMode::Mono) continue;
    init_extended_pair(r + 1, color(st.fg), color(st.bg));
    impl_->pairs[static_cast<size_t>(r)] = static_cast<short>(r + 1);
  }
}

Terminal::~Terminal() {
  restore();
}

void Terminal::restore() {
  if (!impl_ || impl_->restored) return;
  impl_->restored = true;
  gCrash.armed = false;
  endwin();
  std::fflush(impl_->out);
  delscreen(impl_->screen);
}

int Terminal::width() const {
  return COLS;
}

int Terminal::height() const {
  return LINES;
}

void Terminal::updateSize() {
  winsize ws{};
  if (::ioctl(fileno(impl_->out), TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
    resize(ws.ws_col, ws.ws_row);
}

void Terminal::resize(int width, int height) {
  resizeterm(height, width);
  last_.reset();
  clearok(curscr, TRUE);
}

void Terminal::draw(const Screen& screen) {
  for (const Run& run : changedRuns(last_.get(), screen)) {
    wmove(stdscr, run.y, run.x);
    for (int x = run.x; x < run.x + run.length; ++x) {
      const Cell& c = screen.at(x, run.y);
      if (c.width == 0) continue;  // drawn with the wide character before it
      const auto role = static_cast<size_t>(c.role);
      const wchar_t text[2] = {static_cast<wchar_t>(c.ch), L'\0'};
      cchar_t cc;
      const int pair = impl_->pairs[role];
      setcchar(&cc, text, impl_->attrs[role], static_cast<short>(pair), &pair);
      mvwadd_wch(stdscr, run.y, x, &cc);
    }
  }
  wnoutrefresh(stdscr);
  doupdate();
  std::fflush(impl_->out);
  last_ = std::make_unique<Screen>(screen);
}

std::optional<char32_t> Terminal::readKey() {
  // KEY_RESIZE (after resizeterm) and keys the console has no use for are skipped.
  for (;;) {
    wint_t ch = 0;
    const int status = wget_wch(stdscr, &ch);
    if (status == ERR) return std::nullopt;
    if (const char32_t key = mapKey(status, ch)) return key;
  }
}

}  // namespace tessera::tui
