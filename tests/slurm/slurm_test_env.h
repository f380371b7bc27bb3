#pragma once
// What the Slurm fixture tests read from their environment (set by ctest from the fixture).
#include <QtGlobal>

#include <cstdlib>
#include <string>

namespace tessera::test {

// The variable's value; a test run outside ctest (no fixture) stops with what is missing.
inline std::string fixtureEnv(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) qFatal("%s is not set: run this test through ctest (its Slurm fixture)", name);
  return v;
}

}  // namespace tessera::test
