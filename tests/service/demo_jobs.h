#pragma once
// Demo jobs with a known fate, shared by the service, RPC, widget tests and benchmarks.
#include <QtGlobal>

#include "workload/workload_spec.h"

namespace tessera::test {

// A demo job that could run on the demo cluster (one leaf of DGX H100s) but never will: 64 H100
// GPUs for team ads, whose H100 ceiling is 32 guaranteed + 16 borrowed, so it stays pending with
// that reason. Tests that need a job to wait use it; a job that could never run anywhere is
// refused at submit.
inline Job demoJobThatWaits() {
  auto w = demoWorkload();
  if (!w) qFatal("demo workload: %s", w.error().str().c_str());
  Job j = w->jobs[0];  // llm-pretrain-70b: gangs of 8 H100s within a leaf
  j.id = kNoJob;
  j.team = "ads";
  j.tasks = 8;
  return j;
}

}  // namespace tessera::test
