#pragma once
// Helpers shared by the fuzz targets: the input as text, and invariants checked beyond "no crash"
// (a violated one aborts, which libFuzzer and the replay test both report as a failure).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include <unistd.h>

#include "core/error.h"

namespace tessera::fuzz {

inline std::string_view text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// For the readers that take a path: the input written to /tmp/tessera-fuzz-<pid>.<extension>
// (one file per process, rewritten for each input and removed at exit), and that path.
inline const std::string& writeInput(const uint8_t* data, size_t size, const char* extension) {
  struct TempFile {
    std::string path;
    ~TempFile() { std::remove(path.c_str()); }
  };
  static const TempFile file{"/tmp/tessera-fuzz-" + std::to_string(getpid()) + "." + extension};
  const std::string& path = file.path;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

[[noreturn]] inline void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz invariant violated: %s\n%s\n", what, detail.c_str());
  std::abort();
}

inline void require(bool ok, const char* what, const std::string& detail = {}) {
  if (!ok) fail(what, detail);
}

// A refused input must say what was wrong; `located` also demands where (line or field).
inline void checkError(const Error& e, bool located = true) {
  require(!e.message.empty(), "an error without a message", e.str());
  if (located)
    require(e.where.line > 0 || !e.where.field.empty(), "an error without a location", e.str());
}

// A refusal with a message, or an accepted value that, written back by `write`, loads again and
// writes the same text. `load(text, fileName)` returns an Expected.
template <class Load, class Write>
void checkRoundTrip(std::string_view input, Load load, Write write) {
  auto value = load(input, "fuzz.input");
  if (!value) {
    checkError(value.error(), false);
    return;
  }
  const std::string written = write(*value);
  auto again = load(written, "written");
  if (!again) fail("the written form does not load", again.error().str() + "\n" + written);
  require(write(*again) == written, "the written form does not round-trip", written);
}

}  // namespace tessera::fuzz
