// Slurm's JSON (`squeue --json`, `sinfo --json`; slurm/slurm_json.cpp): the same bytes read as
// both documents, and the Gres strings of `scontrol` through parseGresList/parseGresUsed. No
// crash, and a refusal says what was wrong.
#include "fuzz_support.h"
#include "slurm/slurm_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  const std::string_view text = fuzz::text(data, size);
  if (auto jobs = slurm::parseSqueueJson(text); !jobs) fuzz::checkError(jobs.error(), false);
  if (auto nodes = slurm::parseSinfoJson(text); !nodes) fuzz::checkError(nodes.error(), false);
  if (size < 4096) {
    if (auto gres = slurm::parseGresList(text); !gres) fuzz::checkError(gres.error(), false);
    if (auto used = slurm::parseGresUsed(text); !used) fuzz::checkError(used.error(), false);
  }
  return 0;
}
