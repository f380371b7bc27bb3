#pragma once
// Every sentence template the engine builds a Text from (core/text.h), in one place so that
// lupdate finds them all under one context: app/CMakeLists.txt makes lupdate read TESSERA_TEXT as
// QT_TR_NOOP, which files these under "tessera::text", and the console translates a Text's
// pattern in that context. %1..%9 are the arguments in the order the engine passes them;
// translators may reorder them. Changing a template's English orphans its translations (the
// console then shows the new English), so change wording here deliberately.
#define TESSERA_TEXT(x) x

namespace tessera {
namespace text {

// ---- lists and joins
inline constexpr const char* kPair = TESSERA_TEXT("%1, %2");          // items of a list
inline constexpr const char* kLastPair = TESSERA_TEXT("%1 and %2");   // its last two
inline constexpr const char* kClauses = TESSERA_TEXT("%1; %2");       // two clauses
inline constexpr const char* kNodesRejected = TESSERA_TEXT("%1 %2");  // "40 node not up"
inline constexpr const char* kJob = TESSERA_TEXT("job %1");
inline constexpr const char* kJobs = TESSERA_TEXT("jobs %1");
inline constexpr const char* kAndMore = TESSERA_TEXT("%1 and %2 more");  // "4, 7, 9 and 12 more"
inline constexpr const char* kGpuOfNode = TESSERA_TEXT("%1 GPU %2");     // "pod-a-02 GPU 3 4"

// ---- topology levels, in sentences
inline constexpr const char* kLevelGpu = TESSERA_TEXT("GPU");
inline constexpr const char* kLevelNode = TESSERA_TEXT("node");
inline constexpr const char* kLevelNvlink = TESSERA_TEXT("NVLink domain");
inline constexpr const char* kLevelLeaf = TESSERA_TEXT("leaf switch");
inline constexpr const char* kLevelSpine = TESSERA_TEXT("spine");
inline constexpr const char* kLevelCluster = TESSERA_TEXT("cluster");
inline constexpr const char* kOnOneNode = TESSERA_TEXT("on one node");
inline constexpr const char* kNvlinkConnected = TESSERA_TEXT("NVLink-connected");
inline constexpr const char* kUnderOneLeaf = TESSERA_TEXT("under one leaf switch");
inline constexpr const char* kUnderOneSpine = TESSERA_TEXT("under one spine");
inline constexpr const char* kInTheCluster = TESSERA_TEXT("in the cluster");

// ---- job states
inline constexpr const char* kStatePending = TESSERA_TEXT("pending");
inline constexpr const char* kStateAdmitted = TESSERA_TEXT("admitted");
inline constexpr const char* kStateRunning = TESSERA_TEXT("running");
inline constexpr const char* kStateCompleted = TESSERA_TEXT("completed");
inline constexpr const char* kStateFailed = TESSERA_TEXT("failed");
inline constexpr const char* kStateCancelled = TESSERA_TEXT("cancelled");
inline constexpr const char* kStatePreempted = TESSERA_TEXT("preempted");

// ---- why a node cannot host a task (NodeReject)
inline constexpr const char* kRejectNodeNotUp = TESSERA_TEXT("node not up");
inline constexpr const char* kRejectPool = TESSERA_TEXT("pool mismatch");
inline constexpr const char* kRejectModel = TESSERA_TEXT("GPU model not allowed");
inline constexpr const char* kRejectMemory = TESSERA_TEXT("GPU memory too small");
inline constexpr const char* kRejectGpus = TESSERA_TEXT("not enough free GPUs");
inline constexpr const char* kRejectNoMigGpu = TESSERA_TEXT("no MIG GPU with the profile");
inline constexpr const char* kRejectNoMigSlot = TESSERA_TEXT("no free MIG slot for the profile");
inline constexpr const char* kRejectShare = TESSERA_TEXT("no GPU share left");
inline constexpr const char* kRejectNoMpsGpu = TESSERA_TEXT("no GPU runs MPS");
inline constexpr const char* kRejectMps = TESSERA_TEXT("no MPS server with room");
inline constexpr const char* kRejectCpu = TESSERA_TEXT("not enough free CPUs");
inline constexpr const char* kRejectHostMemory = TESSERA_TEXT("not enough free memory");
inline constexpr const char* kRejectReserved = TESSERA_TEXT("GPUs reserved");
inline constexpr const char* kRejectNotPinned = TESSERA_TEXT("not among the pinned GPUs");
inline constexpr const char* kNodesFit = TESSERA_TEXT("%1/%2 nodes fit");

// ---- why a job is pending
inline constexpr const char* kWaitingForCycle =
    TESSERA_TEXT("waiting for the next scheduling cycle");
inline constexpr const char* kHeld = TESSERA_TEXT("held by an operator");
inline constexpr const char* kTeamCeiling =
    TESSERA_TEXT("team %1 may hold at most %2 GPUs (guaranteed + borrow); the job needs %3");
inline constexpr const char* kPinnedGpuMissing = TESSERA_TEXT("pinned GPU %1 does not exist");
inline constexpr const char* kQuotaUses =
    TESSERA_TEXT("team %1 uses %2 of its %3 guaranteed %4 GPUs");
inline constexpr const char* kQuotaBorrowLimit =
    TESSERA_TEXT("%1 and may borrow %2; the job needs %3");
inline constexpr const char* kQuotaLendersShort =
    TESSERA_TEXT("%1; the job needs %2 and other teams lend only %3 idle %4 GPUs now");
inline constexpr const char* kQuotaNone = TESSERA_TEXT("team %1 has no quota for %2 GPUs");
inline constexpr const char* kNoGpuRequested = TESSERA_TEXT("the job requests no GPU");
inline constexpr const char* kNoNodeHosts = TESSERA_TEXT("no node can host a task: %1");
inline constexpr const char* kTasksOfGpus = TESSERA_TEXT("tasks of %1 GPUs");
inline constexpr const char* kTasksOfMig = TESSERA_TEXT("tasks of one %1 instance");
inline constexpr const char* kTasksOfMilli = TESSERA_TEXT("tasks of %1 milli-GPU");
inline constexpr const char* kTasksOfMps = TESSERA_TEXT("MPS tasks of %1 % active threads");

// ---- why an MPS server refuses a client (%1 = the GPU, "pod-a-02/3" or "pod-a-02/3 3g.40gb@4")
inline constexpr const char* kMpsOtherTeam =
    TESSERA_TEXT("GPU %1 runs MPS clients of team %2; team %3 may not share it");
inline constexpr const char* kMpsOtherUser =
    TESSERA_TEXT("GPU %1 runs MPS clients of user %2; user %3 may not share it");
inline constexpr const char* kMpsUnknownUser =
    TESSERA_TEXT("GPU %1 shares MPS by user, and the job names no user");
inline constexpr const char* kMpsClientLimit =
    TESSERA_TEXT("GPU %1 has all %2 MPS clients its architecture allows");
inline constexpr const char* kMpsThreadsLeft =
    TESSERA_TEXT("GPU %1 has %2 % of its MPS active threads left; the task asks %3 %");
inline constexpr const char* kMpsMemoryLeft = TESSERA_TEXT(
    "the MPS memory limit does not fit: GPU %1 has %2 MiB unpinned; the task pins %3 MiB");
inline constexpr const char* kMpsNotRunning = TESSERA_TEXT("GPU %1 does not run MPS");
inline constexpr const char* kMpsNodeNotUp = TESSERA_TEXT("GPU %1 is on a node that is not up");
inline constexpr const char* kMpsAlreadyThere =
    TESSERA_TEXT("the job already has a client on GPU %1");
// %1 = the node, %2 = its GPUs serving MPS ("0" or "0, 2"), %3 = why none of them takes the
// client (a refusal above), or kMpsOneGpuRoom when one would.
inline constexpr const char* kMpsOneGpu = TESSERA_TEXT(
    "node %1 serves MPS on GPU %2 only (one GPU per node at a time, Slurm's one_sharing); %3");
inline constexpr const char* kMpsOneGpuRoom = TESSERA_TEXT("the client may join GPU %1");
inline constexpr const char* kMpsNoGpu =
    TESSERA_TEXT("no GPU runs MPS in the job's pool and models");
inline constexpr const char* kTasks = TESSERA_TEXT("tasks");
inline constexpr const char* kGangRoom =
    TESSERA_TEXT("the gang needs %1 %2; the cluster has room for %3 (%4)");
inline constexpr const char* kGangWithin =
    TESSERA_TEXT("the gang needs %1 %2 within one %3 (required); the roomiest %3 has room for %4");
inline constexpr const char* kUnitNotTaken =
    TESSERA_TEXT("internal: a unit with room could not be taken");
inline constexpr const char* kPreemptPlanFailed =
    TESSERA_TEXT("internal: the preemption plan did not hold (%1)");
inline constexpr const char* kRequeuedAfterPreemption =
    TESSERA_TEXT("requeued after preemption by job %1");

}  // namespace text
}  // namespace tessera

namespace tessera {
namespace text {

// ---- durations
inline constexpr const char* kSeconds = TESSERA_TEXT("%1 s");
inline constexpr const char* kMinutes = TESSERA_TEXT("%1 min");
inline constexpr const char* kHoursMinutes = TESSERA_TEXT("%1 h %2 min");

// ---- why pending, and what would change it (explain)
inline constexpr const char* kFitsNow =
    TESSERA_TEXT("fits now; it starts in the next scheduling cycle");
inline constexpr const char* kReservedOther =
    TESSERA_TEXT("the GPUs it fits on are reserved (maintenance or team reservation)");
inline constexpr const char* kReservedFor =
    TESSERA_TEXT("the GPUs it fits on are reserved for higher %1 (backfill reservations)");
inline constexpr const char* kFragmentationReason = TESSERA_TEXT("fragmentation: %1");
inline constexpr const char* kFragmentation =
    TESSERA_TEXT("%1 GPUs free, but the largest %2 free block is %3 (the job needs %4)");
inline constexpr const char* kCfRelaxTopology =
    TESSERA_TEXT("would start now if the topology constraint were relaxed to %1");
inline constexpr const char* kCfRepartition = TESSERA_TEXT(
    "would start now if GPU %1 were repartitioned from %2 to %3 (%4 MIG changes, busy instances "
    "kept)");
inline constexpr const char* kEmptyLayout = TESSERA_TEXT("empty");
inline constexpr const char* kCfQuota =
    TESSERA_TEXT("would start now if the guarantee of %1 on %2 were +%3 GPUs");
inline constexpr const char* kCfPreempt =
    TESSERA_TEXT("would start now by preempting %1 (%2 GPU-hours of work lost)");
inline constexpr const char* kCfRelease =
    TESSERA_TEXT("would be considered in the next cycle once released");
inline constexpr const char* kCfJobEnds = TESSERA_TEXT("would start when %1 ends (~%2)");
inline constexpr const char* kCfJobsEnd = TESSERA_TEXT("would start when %1 end (~%2)");
inline constexpr const char* kRunningSince = TESSERA_TEXT("running since %1 on %2");
inline constexpr const char* kLabelled = TESSERA_TEXT("%1: %2");  // "failed: node lost"

}  // namespace text
}  // namespace tessera

namespace tessera {
namespace text {

// ---- operator actions, as the audit log and the console's activity name them
inline constexpr const char* kDoSubmit = TESSERA_TEXT("submit job %1");
inline constexpr const char* kDoCancel = TESSERA_TEXT("cancel job %1");
inline constexpr const char* kDoHold = TESSERA_TEXT("hold job %1");
inline constexpr const char* kDoRelease = TESSERA_TEXT("release job %1");
inline constexpr const char* kDoPriority = TESSERA_TEXT("set priority of job %1 to %2");
inline constexpr const char* kDoMoveTop = TESSERA_TEXT("move job %1 to the top");
inline constexpr const char* kDoMoveBottom = TESSERA_TEXT("move job %1 to the bottom");
inline constexpr const char* kDoMoveBefore = TESSERA_TEXT("move job %1 before job %2");
inline constexpr const char* kDoPin = TESSERA_TEXT("pin job %1 to gpus [%2] nodes [%3]");
inline constexpr const char* kDoPreempt = TESSERA_TEXT("preempt job %1");
inline constexpr const char* kDoRepartition = TESSERA_TEXT("repartition %1 to %2");
inline constexpr const char* kDoRepartitionForce = TESSERA_TEXT("repartition %1 to %2 (force)");
inline constexpr const char* kDoDrain = TESSERA_TEXT("drain node %1");
inline constexpr const char* kDoUndrain = TESSERA_TEXT("undrain node %1");
inline constexpr const char* kDoQuota = TESSERA_TEXT("set quota of team %1 on %2");
inline constexpr const char* kDoCreateReservation = TESSERA_TEXT("create reservation %1 on [%2]");
inline constexpr const char* kDoDeleteReservation = TESSERA_TEXT("delete reservation %1");

// ---- what an action did
inline constexpr const char* kDidSubmit = TESSERA_TEXT("submitted job %1");
inline constexpr const char* kDidCancel = TESSERA_TEXT("job %1 cancelled");
inline constexpr const char* kDidHold = TESSERA_TEXT("job %1 held");
inline constexpr const char* kDidRelease = TESSERA_TEXT("job %1 released");
inline constexpr const char* kDidPriority = TESSERA_TEXT("job %1 now %2");
inline constexpr const char* kDidMoveTop = TESSERA_TEXT("job %1 moved to the top of its priority");
inline constexpr const char* kDidMoveBottom =
    TESSERA_TEXT("job %1 moved to the bottom of its priority");
inline constexpr const char* kDidMoveBefore = TESSERA_TEXT("job %1 moved ahead of job %2");
inline constexpr const char* kDidPin = TESSERA_TEXT("job %1 pinned to %2 GPU(s)");
inline constexpr const char* kDidUnpin = TESSERA_TEXT("job %1 unpinned");
inline constexpr const char* kDidPreempt = TESSERA_TEXT("job %1 preempted");
inline constexpr const char* kDidRepartition = TESSERA_TEXT("GPU %1 repartitioned to %2");
inline constexpr const char* kDidStayDrained = TESSERA_TEXT("node %1 stays drained (%2)");
inline constexpr const char* kDidDrain = TESSERA_TEXT("node %1 drained");
inline constexpr const char* kDidDrainWhy = TESSERA_TEXT("node %1 drained (%2)");
inline constexpr const char* kDidUndrain = TESSERA_TEXT("node %1 back in service");
inline constexpr const char* kLaunchBoth =
    TESSERA_TEXT("give a command or a batch script, not both");
inline constexpr const char* kNegativeTimeLimit = TESSERA_TEXT("the time limit cannot be negative");
inline constexpr const char* kMpsThreadsRange =
    TESSERA_TEXT("an MPS active-thread percentage is 1 to 100, not %1");
inline constexpr const char* kMpsMemoryNeeded = TESSERA_TEXT(
    "an MPS request needs a pinned device memory limit: MPS does not isolate GPU memory");
inline constexpr const char* kDidUndrainStillOut =
    TESSERA_TEXT("node %1 undrained, but still out: %2");
inline constexpr const char* kDidQuota =
    TESSERA_TEXT("quota of team %1 on %2 set to %3 guaranteed, %4 borrow");
inline constexpr const char* kDidCreateReservation = TESSERA_TEXT("reservation %1 created");
inline constexpr const char* kDidDeleteReservation = TESSERA_TEXT("reservation %1 deleted");
inline constexpr const char* kDryRun = TESSERA_TEXT("dry run: %1; %2");
inline constexpr const char* kImpactStart = TESSERA_TEXT("%1 job(s) would start");
inline constexpr const char* kImpactStartList = TESSERA_TEXT("%1 job(s) would start (%2)");
inline constexpr const char* kImpactPreempted = TESSERA_TEXT("%1 preempted");
inline constexpr const char* kImpactPreemptedList = TESSERA_TEXT("%1 preempted (%2)");
inline constexpr const char* kImpactStopped = TESSERA_TEXT("%1 stopped (%2)");
inline constexpr const char* kImpactLost = TESSERA_TEXT("%1 GPU-hours lost");
inline constexpr const char* kWarning = TESSERA_TEXT("warning: %1");
inline constexpr const char* kConflictNoEstimate = TESSERA_TEXT(
    "job %1 on %2 has no runtime estimate and may still run when reservation %3 starts at t=%4");
inline constexpr const char* kConflictUntil =
    TESSERA_TEXT("job %1 on %2 is expected to run until t=%3 when reservation %4 starts at t=%5");

// ---- why an action was refused
inline constexpr const char* kNoJob = TESSERA_TEXT("no job %1");
inline constexpr const char* kNoNode = TESSERA_TEXT("no node %1");
inline constexpr const char* kUnknownGpu = TESSERA_TEXT("unknown GPU '%1' (expected node/index)");
inline constexpr const char* kUnknownNode = TESSERA_TEXT("unknown node '%1'");
inline constexpr const char* kNotPending = TESSERA_TEXT("job %1 is not pending");
inline constexpr const char* kNotAPendingJob = TESSERA_TEXT("job %1 is not a pending job");
inline constexpr const char* kNotMig = TESSERA_TEXT("GPU %1 is not in MIG mode");
inline constexpr const char* kAlreadyDrained = TESSERA_TEXT("node %1 is already drained");
inline constexpr const char* kNotDrained = TESSERA_TEXT("node %1 is not drained");
inline constexpr const char* kBadQuotaKey =
    TESSERA_TEXT("quota key '%1' is neither a GPU model of this cluster, 'pool:NAME' nor '*'");
inline constexpr const char* kReservationNeedsNode =
    TESSERA_TEXT("a reservation needs at least one node");
inline constexpr const char* kAlreadyEnded = TESSERA_TEXT("job %1 is already %2");
inline constexpr const char* kOnlyPendingHold =
    TESSERA_TEXT("job %1 is %2; only pending jobs can be held or released");
inline constexpr const char* kAlreadyHeld = TESSERA_TEXT("job %1 is already held");
inline constexpr const char* kNotHeld = TESSERA_TEXT("job %1 is not held");
inline constexpr const char* kHasEnded = TESSERA_TEXT("job %1 has ended");
inline constexpr const char* kUnknownClass =
    TESSERA_TEXT("unknown priority class '%1' (known: %2)");
inline constexpr const char* kOnlyPendingPin =
    TESSERA_TEXT("job %1 is %2; only pending jobs can be pinned");
inline constexpr const char* kPinTooFew = TESSERA_TEXT("job %1 needs %2 GPUs; the pin names %3");
inline constexpr const char* kNotRunning = TESSERA_TEXT("job %1 is %2, not running");
inline constexpr const char* kNodeStillRuns = TESSERA_TEXT("node %1 still runs job %2");
inline constexpr const char* kJobExists = TESSERA_TEXT("job %1 already exists");
inline constexpr const char* kNoTask = TESSERA_TEXT("a job needs at least one task");
inline constexpr const char* kRequestsNoGpu =
    TESSERA_TEXT("job %1 requests no GPU (give gpus, mig or fraction)");
inline constexpr const char* kUnknownTeam = TESSERA_TEXT("unknown team '%1'");
inline constexpr const char* kPinUnknownGpu = TESSERA_TEXT("pin names unknown GPU '%1'");
inline constexpr const char* kPinUnknownNode = TESSERA_TEXT("pin names unknown node '%1'");
inline constexpr const char* kReservationNeedsId = TESSERA_TEXT("a reservation needs an id");
inline constexpr const char* kReservationExists = TESSERA_TEXT("reservation '%1' already exists");
inline constexpr const char* kReservationEndsFirst =
    TESSERA_TEXT("a reservation must end after it starts");
inline constexpr const char* kNoReservation = TESSERA_TEXT("no reservation '%1'");
inline constexpr const char* kQuotaNegative = TESSERA_TEXT("guaranteed and borrow must be >= 0");
inline constexpr const char* kLendTooMuch = TESSERA_TEXT("cannot lend more than the guaranteed %1");
inline constexpr const char* kRemovesBusy = TESSERA_TEXT(
    "the new layout removes busy instances of job(s) %1 (keep them at the same start, or force "
    "to preempt them)");
inline constexpr const char* kQuotaBelowUse = TESSERA_TEXT(
    "team %1 would use %2 %3 GPUs under the new quota, above guaranteed + borrow %4 (preempt or "
    "wait first)");

}  // namespace text
}  // namespace tessera

namespace tessera {
namespace text {

// ---- MIG layout checks (mig_validate)
inline constexpr const char* kMigValid = TESSERA_TEXT("valid");
inline constexpr const char* kMigNotPlaced = TESSERA_TEXT("not placed");
inline constexpr const char* kMigCheckStart = TESSERA_TEXT("check 1 (allowed start)");
inline constexpr const char* kMigCheckOverlap = TESSERA_TEXT("check 2 (memory overlap)");
inline constexpr const char* kMigCheckCount = TESSERA_TEXT("check 3 (instance count)");
inline constexpr const char* kMigCheckEngines = TESSERA_TEXT("check 4 (engines)");
inline constexpr const char* kMigCheckSlices = TESSERA_TEXT("check 5 (compute slices)");
inline constexpr const char* kMigCheckCi = TESSERA_TEXT("compute instances");
inline constexpr const char* kMigFailed = TESSERA_TEXT("%1 failed: %2");
inline constexpr const char* kMigNeedsStart =
    TESSERA_TEXT("every instance of the new layout needs a start");
inline constexpr const char* kMigSliceBusy = TESSERA_TEXT("the instance at slice %1 is busy");
inline constexpr const char* kMigNoStart =
    TESSERA_TEXT("instance %1 has no start slice (write it as %2@START)");
inline constexpr const char* kMigBadStart =
    TESSERA_TEXT("%1 cannot start at memory slice %2; %3 may start only at {%4} on %5");
inline constexpr const char* kMigSlice = TESSERA_TEXT("slice %1");
inline constexpr const char* kMigSlices = TESSERA_TEXT("slices %1-%2");
inline constexpr const char* kMigOverlap = TESSERA_TEXT("%1 (%2) overlaps %3 (%4)");
inline constexpr const char* kMigCountOne =
    TESSERA_TEXT("more than 1 instance of %1 on one %2 (%3 is instance #2)");
inline constexpr const char* kMigCountMany =
    TESSERA_TEXT("more than %1 instances of %2 on one %3 (%4 is instance #%5)");
inline constexpr const char* kMigEngines = TESSERA_TEXT("adding %1 needs %2 %3 but a %4 has %5");
inline constexpr const char* kMigOneMe = TESSERA_TEXT("%1 (at most one +me instance per GPU)");
inline constexpr const char* kMigCopyEngines = TESSERA_TEXT("copy engines (CE)");
inline constexpr const char* kMigDecoders = TESSERA_TEXT("video decoders (NVDEC)");
inline constexpr const char* kMigEncoders = TESSERA_TEXT("video encoders (NVENC)");
inline constexpr const char* kMigJpeg = TESSERA_TEXT("JPEG decoders (NVJPG)");
inline constexpr const char* kMigOfa = TESSERA_TEXT("optical-flow accelerators (OFA)");
inline constexpr const char* kMigEnginesAny = TESSERA_TEXT("engines");
inline constexpr const char* kMigComputeSlices =
    TESSERA_TEXT("adding %1 exceeds the GPU's %2 compute slices");
inline constexpr const char* kMigCiNoTable = TESSERA_TEXT(
    "the compute instances of %1 do not fit: the GPU catalog has no compute_instances table for "
    "%2, so a GPU instance holds one compute instance spanning all its %3 compute slices");
inline constexpr const char* kMigCiTable = TESSERA_TEXT(
    "the compute instances of %1 do not fit a %2-slice GPU instance (allowed CI sizes and "
    "counts: mig.compute_instances of %3 in the GPU catalog)");

// ---- MIG layout syntax (parseMigLayout)
inline constexpr const char* kMigItem = TESSERA_TEXT("in MIG layout item '%1': %2");
inline constexpr const char* kMigCiShape =
    TESSERA_TEXT("compute instance '%1' must look like '2c'");
inline constexpr const char* kMigCiRange =
    TESSERA_TEXT("compute instance '%1' must have 1..%2 compute slices");
inline constexpr const char* kMigTooManyCi = TESSERA_TEXT("too many compute instances");
inline constexpr const char* kMigNotCapable = TESSERA_TEXT("GPU model '%1' is not MIG capable");
inline constexpr const char* kMigEmptyItem = TESSERA_TEXT("empty item in MIG layout '%1'");
inline constexpr const char* kMigRepeat = TESSERA_TEXT("repeat count must be 1..%1");
inline constexpr const char* kMigMissingParen = TESSERA_TEXT("missing ')' after compute instances");
inline constexpr const char* kMigStartRange = TESSERA_TEXT("start must be a memory slice 0..%1");
inline constexpr const char* kMigRepeatStart =
    TESSERA_TEXT("a repeated item cannot have a fixed start");
inline constexpr const char* kMigUnknownProfile =
    TESSERA_TEXT("unknown profile '%1' for %2 (profiles: %3)");
inline constexpr const char* kMigNoCi = TESSERA_TEXT("'()' lists no compute instances");
inline constexpr const char* kMigTooMany = TESSERA_TEXT("MIG layout has more than %1 instances");

// ---- MIG repartition planning (planMigRepartition)
inline constexpr const char* kMigBusyDropped = TESSERA_TEXT(
    "busy instance %1 is not in the target; a repartition may not destroy running work (drain it "
    "first, or add it to the target)");
inline constexpr const char* kMigCurrentInvalid = TESSERA_TEXT("current layout is invalid: %1");
inline constexpr const char* kMigImpossible =
    TESSERA_TEXT("target is impossible on any layout: %1");
inline constexpr const char* kMigOverMax =
    TESSERA_TEXT("%1 x %2 exceeds its maximum of %3 per GPU");
inline constexpr const char* kMigNeedsMemory =
    TESSERA_TEXT("the target needs %1 memory slices; a %2 has %3");
inline constexpr const char* kMigNeedsCompute =
    TESSERA_TEXT("the target needs %1 compute slices; a %2 has %3");
inline constexpr const char* kMigNeedsEngines = TESSERA_TEXT(
    "the target needs more engines than a %1 has (CE %2/%3, DEC %4/%5, JPEG %6/%7, OFA %8/%9; "
    "e.g. two +me instances)");
inline constexpr const char* kMigGaveUp = TESSERA_TEXT(
    "the layout search gave up after %1 attempts; give explicit starts (PROFILE@START) for some "
    "instances");
inline constexpr const char* kMigStartFailed = TESSERA_TEXT(
    "check 1 (allowed start) failed: %1 cannot start at slice %2; %3 may start only at {%4}");
inline constexpr const char* kMigBlockedBy = TESSERA_TEXT("@%1 blocked by %2");
inline constexpr const char* kMigLimits = TESSERA_TEXT("count/engine limits");
inline constexpr const char* kMigBusyMark = TESSERA_TEXT("%1 (busy)");
inline constexpr const char* kMigNothing = TESSERA_TEXT("nothing");
inline constexpr const char* kMigFitsNowhere =
    TESSERA_TEXT("no valid layout holds the target: after placing %1, %2 fits nowhere (%3)");

}  // namespace text
}  // namespace tessera

namespace tessera {
namespace text {

// ---- why a node is out, when a fault or the simulator took it out (an operator's own drain
// reason is kept as written)
inline constexpr const char* kOutNodeFailure = TESSERA_TEXT("node failure");
inline constexpr const char* kOutXid = TESSERA_TEXT("Xid %1 on GPU %2");
inline constexpr const char* kOutMigRepartition = TESSERA_TEXT("MIG repartition of GPU %1");

// ---- a job's history (the event log)
inline constexpr const char* kHistoryLine = TESSERA_TEXT("t=%1 %2: %3");  // time, kind, reason
inline constexpr const char* kEvSubmitted = TESSERA_TEXT("submitted");
inline constexpr const char* kEvAdmitted = TESSERA_TEXT("admitted");
inline constexpr const char* kEvStarted = TESSERA_TEXT("started");
inline constexpr const char* kEvCompleted = TESSERA_TEXT("completed");
inline constexpr const char* kEvFailed = TESSERA_TEXT("failed");
inline constexpr const char* kEvCancelled = TESSERA_TEXT("cancelled");
inline constexpr const char* kEvPreempted = TESSERA_TEXT("preempted");
inline constexpr const char* kEvRequeued = TESSERA_TEXT("requeued");
inline constexpr const char* kEvHeld = TESSERA_TEXT("held");
inline constexpr const char* kEvReleased = TESSERA_TEXT("released");
inline constexpr const char* kEvCommand = TESSERA_TEXT("command");
inline constexpr const char* kSubmittedHeld = TESSERA_TEXT("submitted on hold");
inline constexpr const char* kAdmittedWhy = TESSERA_TEXT("admitted: %1");
inline constexpr const char* kPlaced = TESSERA_TEXT("placed");
inline constexpr const char* kBackfilled =
    TESSERA_TEXT("backfilled: ends before the reservations of higher jobs or avoids their GPUs");
inline constexpr const char* kAfterPreempting =
    TESSERA_TEXT("after preempting %1; was blocked: %2");
inline constexpr const char* kRestored =
    TESSERA_TEXT("restored from a snapshot (running since t=%1)");
inline constexpr const char* kStartedOn = TESSERA_TEXT("started on %1 (spans one %2)");
inline constexpr const char* kPreemptedSinceCheckpoint = TESSERA_TEXT(
    "preempted by job %1 (%2, team %3): %4; work lost %5 min since its last checkpoint (%6 "
    "GPU-hours)");
inline constexpr const char* kPreemptedSinceStart = TESSERA_TEXT(
    "preempted by job %1 (%2, team %3): %4; work lost %5 min since its start (%6 GPU-hours)");
inline constexpr const char* kReclaimed =
    TESSERA_TEXT("its team is borrowing GPUs that team %1 is guaranteed");
inline constexpr const char* kHigherPriority = TESSERA_TEXT("higher priority (%1 > %2)");
inline constexpr const char* kByOperator = TESSERA_TEXT("preempted by operator %1");
inline constexpr const char* kRepartitionedAway =
    TESSERA_TEXT("its MIG instance was repartitioned away");
inline constexpr const char* kNodeFailed = TESSERA_TEXT("node %1 failed");
inline constexpr const char* kGpuFaultXid = TESSERA_TEXT("GPU %1 fault (Xid %2)");
inline constexpr const char* kBeingRepartitioned = TESSERA_TEXT("GPU %1 is being repartitioned");
inline constexpr const char* kGpuFault = TESSERA_TEXT("GPU %1 fault (Xid %2, %3)");
inline constexpr const char* kRequeuedKept = TESSERA_TEXT("requeued with %1 min of work kept");
inline constexpr const char* kFinished = TESSERA_TEXT("finished");
inline constexpr const char* kFinishedSimulated = TESSERA_TEXT("finished (simulated)");
inline constexpr const char* kTimeLimit = TESSERA_TEXT("time limit reached");
inline constexpr const char* kFailedAsInTrace = TESSERA_TEXT("the job failed (as in the trace)");
inline constexpr const char* kCancelledBy = TESSERA_TEXT("cancelled by %1");
inline constexpr const char* kHeldBy = TESSERA_TEXT("held by %1");
inline constexpr const char* kReleasedBy = TESSERA_TEXT("released by %1");
inline constexpr const char* kAuditApplied = TESSERA_TEXT("%1: applied: %2");
inline constexpr const char* kAuditRefused = TESSERA_TEXT("%1: refused: %2");
inline constexpr const char* kAuditDryRun = TESSERA_TEXT("dry run: %1: %2");

// ---- refused at submit: the request can never run here, or a field breaks the limits
inline constexpr const char* kTextNotUtf8 = TESSERA_TEXT("not valid UTF-8");
inline constexpr const char* kTextControl = TESSERA_TEXT("contains a control character");
inline constexpr const char* kTextTooLong = TESSERA_TEXT("%1 characters long; at most %2 allowed");
inline constexpr const char* kTooManyItems = TESSERA_TEXT("%1 items; at most %2 allowed");
inline constexpr const char* kNoSuchModel =
    TESSERA_TEXT("none of the job's GPU models (%1) is in this cluster (it has %2)");
inline constexpr const char* kNoSuchProfile =
    TESSERA_TEXT("no MIG GPU the job may use offers profile %1 (their profiles: %2)");
inline constexpr const char* kNoMigGpuAllowed =
    TESSERA_TEXT("the job asks for MIG profile %1, but no GPU it may use is in MIG mode");
inline constexpr const char* kNoSuchPool =
    TESSERA_TEXT("no pool %1 in this cluster (its pools: %2)");
inline constexpr const char* kNeverFits =
    TESSERA_TEXT("can never run on this cluster, even empty with every node up: %1");

}  // namespace text
}  // namespace tessera
