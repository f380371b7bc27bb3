// gRPC request -> command conversion (rpc/convert.cpp): the bytes as a tessera.v1.ActRequest
// (what tesserad's Act receives) through commandFromProto. A refusal names the field; an accepted
// command converts back (commandToProto) to a request that gives the same command again.
#include "fuzz_support.h"
#include "rpc/convert.h"
#include "scheduler/command_yaml.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  if (size > 1 << 16) return 0;
  rpc::v1::ActRequest request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) return 0;
  auto command = rpc::commandFromProto(request);
  if (!command) {
    fuzz::checkError(command.error(), false);
    return 0;
  }
  (void)rpc::requiredRole(*command);
  const std::string yaml = commandToYaml(*command);
  auto again = rpc::commandFromProto(rpc::commandToProto(*command, request.dry_run()));
  if (!again)
    fuzz::fail("a converted command does not convert back", again.error().str() + "\n" + yaml);
  fuzz::require(commandToYaml(*again) == yaml, "the command does not round-trip", yaml);
  return 0;
}
