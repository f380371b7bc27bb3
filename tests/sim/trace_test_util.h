#pragma once
// A trace for the simulator tests: the given jobs, teams "vision" and "nlp".
#include <vector>

#include "sim/simulator.h"

namespace tessera::test {

inline Trace traceOf(std::vector<TraceJob> jobs) {
  Trace t;
  t.source = "test";
  t.teams = {Team{"vision", "", 1, {}}, Team{"nlp", "", 1, {}}};
  t.jobs = std::move(jobs);
  return t;
}

}  // namespace tessera::test
