#pragma once
// Shared helpers for the MIG tests: catalog models by name and layouts from the layout syntax.
#include <QtTest>

#include "topology/gpu_catalog.h"
#include "topology/mig_layout.h"

namespace tessera::test {

inline const GpuModel& model(const char* name) {
  const GpuModel* m = GpuCatalog::builtin().find(name);
  if (!m) qFatal("model %s missing from the built-in catalog", name);
  return *m;
}

inline MigLayout layout(const GpuModel& m, const char* text) {
  auto l = parseMigLayout(m, text);
  if (!l) qFatal("bad layout in test: %s: %s", text, l.error().str().c_str());
  return *l;
}

}  // namespace tessera::test
