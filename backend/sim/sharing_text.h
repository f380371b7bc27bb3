#pragma once
// The sharing study's recommendation sentences (sharingRecommendationSentences,
// sim/sharing_study.h) as templates the console translates, like core/engine_text.h's:
// app/CMakeLists.txt has lupdate read this file too, TESSERA_TEXT taken for QT_TR_NOOP, so they
// land under "tessera::text" with the engine's. %1..%9 are filled with mode names (never
// translated), numbers and lists. The CLI prints their English: changing a template's English
// changes its paragraph (the golden output of tests/sim/tst_sharing_study.cpp) and orphans the
// template's translations.
#include "core/engine_text.h"

namespace tessera {
namespace text {

// ---- GPUs needed for the wait targets
inline constexpr const char* kStudyNoModeRan = TESSERA_TEXT("No mode could run on this cluster.");
inline constexpr const char* kStudyNoneMeetsUnsearched =
    TESSERA_TEXT("No mode meets the wait targets on all %1 GPUs.");
// "mig meets ... all 16 GPUs (...)": one mode, then several.
inline constexpr const char* kStudyMeetsUnsearched = TESSERA_TEXT(
    "%1 meets the wait targets on all %2 GPUs (the fewest GPUs needed were not searched for).");
inline constexpr const char* kStudyMeetUnsearched = TESSERA_TEXT(
    "%1 meet the wait targets on all %2 GPUs (the fewest GPUs needed were not searched for).");
inline constexpr const char* kStudyNoneMeets =
    TESSERA_TEXT("No mode meets the wait targets even on all %1 GPUs.");
// "mig meets the wait targets with the fewest GPUs: 8 of 32."
inline constexpr const char* kStudyFewest =
    TESSERA_TEXT("%1 meets the wait targets with the fewest GPUs: %2 of %3.");
inline constexpr const char* kStudyTieFewest =
    TESSERA_TEXT("%1 tie for the wait targets with the fewest GPUs: %2 of %3.");
inline constexpr const char* kStudyNeeds = TESSERA_TEXT("%1 needs %2.");  // "whole needs 12."
inline constexpr const char* kStudyMisses = TESSERA_TEXT("%1 misses them even on all %2.");

// ---- utilization and isolation; %2 is a percentage ("61.3 %"), %4 a number of GPUs ("2.5")
inline constexpr const char* kStudyUtilization = TESSERA_TEXT(
    "On the whole cluster the GPUs are busiest under %1 (%2 of capacity), and the least capacity "
    "is stranded under %3 (%4 GPUs on average).");
// %1: the kStudyCoLocated clauses, "time-slicing 40 of 300 jobs; mps 22 of 300 jobs".
inline constexpr const char* kStudyIsolation = TESSERA_TEXT(
    "Time-slicing and MPS put jobs on one GPU without fault isolation (one job's fault or memory "
    "overrun can end the others): %1 shared a GPU with another job.");
inline constexpr const char* kStudyCoLocated = TESSERA_TEXT("%1 %2 of %3 jobs");
inline constexpr const char* kStudyIsolating =
    TESSERA_TEXT("MIG and whole GPUs isolate every job.");

// ---- the verdict; %4 of the last two is a percentage
inline constexpr const char* kStudySearchToCompare =
    TESSERA_TEXT("Search for the GPUs needed (without --no-search) to compare the modes' cost.");
inline constexpr const char* kStudyAddGpus =
    TESSERA_TEXT("Add GPUs, or relax the targets, before choosing a mode.");
inline constexpr const char* kStudyIsolatingWins =
    TESSERA_TEXT("Recommendation: %1: no mode needs fewer GPUs, and it isolates every job.");
inline constexpr const char* kStudyNoIsolating = TESSERA_TEXT(
    "Recommendation: %1, if the jobs sharing a GPU may share its faults; no isolating mode meets "
    "the targets on this cluster.");
// "Recommendation: mig: it needs 2 GPUs more than mps (8.3 %) and isolates every job."
inline constexpr const char* kStudyIsolationCheap =
    TESSERA_TEXT("Recommendation: %1: it needs %2 GPUs more than %3 (%4) and isolates every job.");
// "Recommendation: mps saves 6 GPUs against mig (25.0 %: of the 24 mig needs), if ...;
// otherwise mig."
inline constexpr const char* kStudySaves = TESSERA_TEXT(
    "Recommendation: %1 saves %2 GPUs against %3 (%4), if the jobs sharing a GPU may share its "
    "faults; otherwise %3.");

}  // namespace text
}  // namespace tessera
