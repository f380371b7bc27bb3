// `scontrol show ... -o`, `scontrol show config`, `scontrol show topology` and the squeue glance
// lines (slurm/scontrol_text.cpp, squeue_text.cpp): the same bytes through each. No crash, and a
// refusal says what was wrong.
#include "fuzz_support.h"
#include "slurm/scontrol_text.h"
#include "slurm/squeue_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  const std::string_view text = fuzz::text(data, size);
  if (auto records = slurm::parseScontrolRecords(text); !records)
    fuzz::checkError(records.error(), false);
  (void)slurm::parseShowConfig(text);
  if (auto switches = slurm::parseShowTopology(text); !switches)
    fuzz::checkError(switches.error(), false);
  if (auto glances = slurm::parseJobGlances(text); !glances)
    fuzz::checkError(glances.error(), false);
  return 0;
}
