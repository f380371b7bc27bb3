// Cluster spec YAML (clusterspec/cluster_spec.cpp): a refusal names what was wrong; an accepted
// spec written back by writeClusterSpec loads again to the same written text.
#include "clusterspec/cluster_spec.h"
#include "clusterspec/cluster_spec_writer.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  // A base directory that does not exist, so that paths inside the spec read nothing.
  const ClusterSpecOptions options{nullptr, "/nonexistent-fuzz-dir"};
  fuzz::checkRoundTrip(
      fuzz::text(data, size),
      [&](std::string_view text, const std::string& file) {
        return loadClusterSpec(text, file, options);
      },
      [](const auto& cluster) { return writeClusterSpec(*cluster); });
  return 0;
}
