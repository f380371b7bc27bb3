#pragma once
// The terminal writer: ncursesw on the given streams. draw() compares the new screen with the
// last one drawn and rewrites only the cells that changed (ncurses then sends the least it can
// for those). The terminal is restored by restore(), the destructor, and, for crash signals,
// by a signal handler that writes the saved reset sequence and terminal modes (the only things
// safe to do there) before the signal's default action.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "colors.h"
#include "screen.h"

namespace tessera::tui {

// A stretch of cells in one row that differs between two screens.
struct Run {
  int x = 0;
  int y = 0;
  int length = 0;
  friend bool operator==(const Run&, const Run&) = default;
};
// What must be rewritten to turn `before` into `after`: every row when there is no `before`
// or its size differs (after a resize), else the changed stretches (a wide character's cells
// always together).
std::vector<Run> changedRuns(const Screen* before, const Screen& after);

class Terminal {
 public:
  struct Options {
    FILE* in = stdin;
    FILE* out = stdout;
    std::string term;                // empty: $TERM
    std::optional<ColorMode> color;  // empty: detected (NO_COLOR, COLORS, COLORTERM)
    bool handleSignals = true;       // crash signals restore the terminal (the program, not tests)
  };
  // Takes over the terminal (alternate screen, no echo, keypad); fails for an unknown $TERM.
  static std::unique_ptr<Terminal> open(const Options& options, std::string& error);
  ~Terminal();
  Terminal(const Terminal&) = delete;
  Terminal& operator=(const Terminal&) = delete;

  [[nodiscard]] int width() const;
  [[nodiscard]] int height() const;
  [[nodiscard]] ColorMode colorMode() const { return mode_; }
  // Asks the kernel for the window's size and adopts it (after SIGWINCH); the next draw
  // rewrites everything.
  void updateSize();
  // Adopts a size (tests and benchmarks, whose output is a pipe with no window).
  void resize(int width, int height);
  void draw(const Screen& screen);
  // The next key (Unicode or one of controller.h's Key values), nullopt when none is waiting.
  std::optional<char32_t> readKey();
  // Gives the terminal back (idempotent).
  void restore();

 private:
  struct Impl;
  explicit Terminal(std::unique_ptr<Impl> impl);
  void setupColors();
  std::unique_ptr<Impl> impl_;
  ColorMode mode_ = ColorMode::Mono;
  std::unique_ptr<Screen> last_;
};

}  // namespace tessera::tui
