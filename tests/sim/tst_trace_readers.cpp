// Trace readers: each format's mapping on hand-written rows (tests/data/traces), malformed rows
// in both error modes, missing and empty files, missing header columns, format detection, the
// time origin and limit options, the openb node list as a cluster, and the real openb trace files
// (shared/traces/openb) checked against totals computed here independently.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "sim/openb_cluster.h"
#include "sim/trace.h"

using namespace tessera;

namespace {

std::string data(const char* name) {
  return std::string(TESSERA_TEST_DATA) + "/traces/" + name;
}

std::string openb(const char* name) {
  return std::string(TESSERA_OPENB_DIR) + "/" + name;
}

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

Trace read(const std::string& path, TraceFormat format, TraceReadOptions opts = {}) {
  auto t = readTrace(path, format, opts);
  if (!t) qFatal("%s", t.error().str().c_str());
  return std::move(*t);
}

TraceReadOptions keepGoing() {
  TraceReadOptions o;
  o.stopOnError = false;
  return o;
}

const TraceJob& byName(const Trace& t, const std::string& name) {
  for (const auto& j : t.jobs)
    if (j.job.name == name) return j;
  qFatal("no job named %s", name.c_str());
}

std::vector<int> problemLines(const Trace& t) {
  std::vector<int> lines;
  for (const auto& p : t.problems) lines.push_back(p.line);
  return lines;
}

bool sortedBySubmit(const Trace& t) {
  return std::is_sorted(t.jobs.begin(), t.jobs.end(), [](const TraceJob& a, const TraceJob& b) {
    return a.job.submitTime != b.job.submitTime ? a.job.submitTime < b.job.submitTime
                                                : a.job.id < b.job.id;
  });
}

// A deliberately separate, naive reading of a CSV file with no quoted fields: header -> values.
std::vector<std::map<std::string, std::string>> naiveCsv(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  std::stringstream hs(line);
  for (std::string col; std::getline(hs, col, ',');) header.push_back(col);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::map<std::string, std::string> row;
    size_t start = 0;
    for (const auto& col : header) {
      const size_t end = line.find(',', start);
      row[col] = line.substr(start, end == std::string::npos ? std::string::npos : end - start);
      start = end == std::string::npos ? line.size() : end + 1;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

class TstTraceReaders : public QObject {
  Q_OBJECT

 private slots:
  void namesRoundTrip();
  void openbMapping();
  void openbWithoutTimeColumns();
  void openbMalformedStops();
  void openbMalformedKeepsGoing();
  void openbMissingColumn();
  void heliosMapping();
  void heliosMalformed();
  void phillyMapping();
  void phillyMalformed();
  void swfMapping();
  void swfProcessorsPerGpu();
  void swfMalformed();
  void jobListYaml();
  void jobListJsonMatchesYaml();
  void jobListErrors();
  void missingFile_data();
  void missingFile();
  void emptyFile_data();
  void emptyFile();
  void detectFormat();
  void timeOriginAndLimit();
  void openbNodesAsCluster();
  void openbNodesMalformed();
  void realOpenbDefaultPods();
  void realOpenbPodListsAllRead();
  void realOpenbNodeLists();
};

void TstTraceReaders::namesRoundTrip() {
  for (auto p : {UsageProfile::ComputeBound, UsageProfile::InputBound, UsageProfile::Inference,
                 UsageProfile::IdleNotebook})
    QCOMPARE(parseUsageProfile(usageProfileName(p)), std::optional<UsageProfile>(p));
  QCOMPARE(std::string(usageProfileName(UsageProfile::IdleNotebook)), std::string("idle-notebook"));
  QVERIFY(!parseUsageProfile("busy"));
  for (auto f : {TraceFormat::Openb, TraceFormat::Helios, TraceFormat::Philly, TraceFormat::Swf,
                 TraceFormat::JobList})
    QCOMPARE(parseTraceFormat(traceFormatName(f)), std::optional<TraceFormat>(f));
  QCOMPARE(std::string(traceFormatName(TraceFormat::JobList)), std::string("jobs"));
  QCOMPARE(parseTraceFormat("SWF"), std::optional<TraceFormat>(TraceFormat::Swf));
  QVERIFY(!parseTraceFormat("csv"));
  QCOMPARE(q(TraceProblem{"a.csv", 3, "bad"}.str()), QString("a.csv:3: bad"));
  QCOMPARE(q(TraceProblem{"a.csv", 0, "bad"}.str()), QString("a.csv: bad"));
}

void TstTraceReaders::openbMapping() {
  const Trace t = read(data("openb-pods-small.csv"), TraceFormat::Openb);
  QCOMPARE(t.source, data("openb-pods-small.csv"));
  QCOMPARE(t.jobs.size(), size_t{5});
  QVERIFY(t.problems.empty());
  QVERIFY(t.priorityClasses.empty());  // the defaults
  // Ordered by submit time; ids are file order; times relative to the earliest creation (50).
  std::vector<std::pair<std::string, JobId>> order;
  for (const auto& j : t.jobs) order.emplace_back(j.job.name, j.job.id);
  const std::vector<std::pair<std::string, JobId>> expected = {{"pod-cpu", 3},
                                                               {"pod-whole", 1},
                                                               {"pod-share", 2},
                                                               {"pod-pending", 4},
                                                               {"pod-guaranteed", 5}};
  QVERIFY(order == expected);

  const TraceJob& whole = byName(t, "pod-whole");
  QCOMPARE(whole.job.submitTime, Seconds{50});
  QCOMPARE(whole.runtime, Seconds{5000 - 150});  // deletion - scheduled
  QCOMPARE(whole.job.perTask.kind, GpuRequest::Kind::Whole);
  QCOMPARE(whole.job.perTask.gpus, 2);
  QCOMPARE(whole.job.tasks, 1);
  QCOMPARE(whole.job.cpusPerTask, 12);
  QCOMPARE(whole.job.memoryMiBPerTask, int64_t{16384});
  QCOMPARE(q(whole.job.team), QString("ls"));
  QCOMPARE(q(whole.job.priorityClass), QString("serving"));
  QCOMPARE(whole.job.priority, 1000);
  QVERIFY(!whole.job.preemptible);
  QCOMPARE(whole.job.workloadClass, WorkloadClass::Inference);
  QCOMPARE(whole.usage, UsageProfile::ComputeBound);
  QVERIFY(!whole.failsAtEnd);
  QVERIFY(!whole.job.estimatedRuntime);
  QVERIFY(whole.job.model.models.empty());

  const TraceJob& share = byName(t, "pod-share");
  QCOMPARE(share.job.perTask.kind, GpuRequest::Kind::Fraction);
  QCOMPARE(share.job.perTask.milli, 460);
  QCOMPARE(share.usage, UsageProfile::Inference);
  QCOMPARE(share.runtime, Seconds{700});
  QCOMPARE(q(share.job.team), QString("be"));
  QCOMPARE(q(share.job.priorityClass), QString("spot"));
  QCOMPARE(share.job.priority, 100);
  QVERIFY(share.job.preemptible);
  QCOMPARE(share.job.workloadClass, WorkloadClass::Batch);
  QVERIFY(share.job.model.models == (std::vector<std::string>{"V100-SXM2-16GB", "V100-SXM2-32GB"}));

  const TraceJob& cpu = byName(t, "pod-cpu");
  QCOMPARE(cpu.job.submitTime, Seconds{0});
  QCOMPARE(cpu.job.perTask.kind, GpuRequest::Kind::None);
  QCOMPARE(cpu.job.cpusPerTask, 2);  // 1500 milli rounds up
  QCOMPARE(cpu.runtime, Seconds{390});
  QVERIFY(cpu.failsAtEnd);  // pod_phase Failed
  QCOMPARE(q(cpu.job.priorityClass), QString("experiment"));

  const TraceJob& pending = byName(t, "pod-pending");  // never scheduled: deletion - creation
  QCOMPARE(pending.runtime, Seconds{125});
  QCOMPARE(pending.job.cpusPerTask, 12);

  const TraceJob& guaranteed = byName(t, "pod-guaranteed");
  QCOMPARE(guaranteed.job.perTask.gpus, 8);
  QCOMPARE(q(guaranteed.job.priorityClass), QString("production-training"));
  QVERIFY(guaranteed.job.model.models == std::vector<std::string>{"T4"});
  QCOMPARE(guaranteed.job.submitTime, Seconds{350});

  std::vector<std::string> teams;
  for (const auto& team : t.teams) teams.push_back(team.name);
  QVERIFY(teams == (std::vector<std::string>{"be", "burstable", "guaranteed", "ls"}));
  for (const auto& team : t.teams) QVERIFY(team.quotas.empty() && team.parent.empty());
}

void TstTraceReaders::openbWithoutTimeColumns() {
  const Trace t = read(data("openb-pods-multigpu-small.csv"), TraceFormat::Openb);
  QCOMPARE(t.jobs.size(), size_t{2});
  for (const auto& j : t.jobs) {
    QCOMPARE(j.job.submitTime, Seconds{0});
    QCOMPARE(j.runtime, Seconds{0});  // unknown
    QCOMPARE(q(j.job.team), QString("openb"));
  }
  QCOMPARE(t.jobs[0].job.perTask.gpus, 4);
  QCOMPARE(t.jobs[1].job.perTask.milli, 250);
}

void TstTraceReaders::openbMalformedStops() {
  const std::string path = data("openb-pods-malformed.csv");
  auto t = readOpenbPods(path);
  QVERIFY(!t);
  const Error& e = t.error();
  QCOMPARE(q(e.where.file), q(path));
  QCOMPARE(e.where.line, 3);
  QCOMPARE(e.where.column, 9);  // "bad-cpu,abc": the field starts at character 9
  QCOMPARE(q(e.where.field), QString("cpu_milli"));
  QVERIFY2(e.str().find(path + ":3:9: cpu_milli: ") == 0, e.str().c_str());
  QVERIFY2(e.message.find("'abc'") != std::string::npos, e.message.c_str());
}

void TstTraceReaders::openbMalformedKeepsGoing() {
  const std::string path = data("openb-pods-malformed.csv");
  const Trace t = read(path, TraceFormat::Openb, keepGoing());
  QCOMPARE(t.jobs.size(), size_t{2});
  QCOMPARE(q(t.jobs[0].job.name), QString("good-1"));
  QCOMPARE(q(t.jobs[1].job.name), QString("good-2"));
  QVERIFY(problemLines(t) == (std::vector<int>{3, 4, 5, 6, 7, 8}));
  const std::vector<std::string> columns = {"cpu_milli", "gpu_milli",     "qos",
                                            "gpu_spec",  "deletion_time", ""};
  for (size_t i = 0; i < t.problems.size(); ++i) {
    QCOMPARE(q(t.problems[i].file), q(path));
    if (!columns[i].empty())
      QVERIFY2(t.problems[i].message.find(columns[i] + ": ") == 0, t.problems[i].str().c_str());
  }
  QVERIFY2(t.problems[5].message.find("expected 11 fields") != std::string::npos,
           t.problems[5].message.c_str());
  QVERIFY2(t.problems[3].message.find("H900") != std::string::npos, t.problems[3].message.c_str());
  QVERIFY(t.problems[0].str().find(path + ":3: cpu_milli: ") == 0);
}

void TstTraceReaders::openbMissingColumn() {
  for (bool stop : {true, false}) {
    TraceReadOptions o;
    o.stopOnError = stop;
    auto t = readOpenbPods(data("openb-pods-missing-column.csv"), o);
    QVERIFY(!t);  // a header problem is never a row problem
    QCOMPARE(t.error().where.line, 1);
    QVERIFY2(t.error().message.find("memory_mib, num_gpu") != std::string::npos,
             t.error().message.c_str());
  }
}

void TstTraceReaders::heliosMapping() {
  const Trace t = read(data("helios-small.csv"), TraceFormat::Helios);
  QCOMPARE(t.jobs.size(), size_t{5});
  // RUNNING job 1005 is skipped (runtime unknown) and recorded, without being an error.
  QCOMPARE(t.problems.size(), size_t{1});
  QCOMPARE(t.problems[0].line, 6);
  QVERIFY2(t.problems[0].message.find("skipped: job 1005 is RUNNING") == 0,
           t.problems[0].message.c_str());
  std::vector<JobId> ids;
  for (const auto& j : t.jobs) ids.push_back(j.job.id);
  QVERIFY(ids == (std::vector<JobId>{2, 1, 3, 4, 5}));

  const TraceJob& gang = byName(t, "alice/1001");
  QCOMPARE(gang.job.submitTime, Seconds{10});  // origin: 1002's submit
  QCOMPARE(gang.runtime, Seconds{7200});
  QCOMPARE(gang.job.tasks, 2);
  QCOMPARE(gang.job.perTask.kind, GpuRequest::Kind::Whole);
  QCOMPARE(gang.job.perTask.gpus, 8);
  QCOMPARE(gang.job.cpusPerTask, 32);
  QCOMPARE(q(gang.job.team), QString("vc-a"));
  QCOMPARE(q(gang.job.priorityClass), QString("production-training"));
  QCOMPARE(gang.job.priority, 800);
  QCOMPARE(gang.job.workloadClass, WorkloadClass::Training);
  QVERIFY(!gang.failsAtEnd);

  const TraceJob& failed = byName(t, "bob/1002");
  QCOMPARE(failed.job.submitTime, Seconds{0});
  QCOMPARE(failed.runtime, Seconds{600});
  QVERIFY(failed.failsAtEnd);
  QCOMPARE(failed.job.cpusPerTask, 6);

  const TraceJob& cpu = byName(t, "carol/1003");
  QCOMPARE(cpu.job.perTask.kind, GpuRequest::Kind::None);
  QCOMPARE(cpu.job.workloadClass, WorkloadClass::Batch);
  QCOMPARE(cpu.runtime, Seconds{86400});
  QVERIFY(cpu.failsAtEnd);  // TIMEOUT

  const TraceJob& cancelled = byName(t, "dave/1004");  // never started
  QCOMPARE(cancelled.runtime, Seconds{0});
  QCOMPARE(cancelled.job.submitTime, Seconds{360});
  QCOMPARE(cancelled.job.tasks, 1);  // node_num 0
  QCOMPARE(cancelled.job.perTask.gpus, 8);
  QVERIFY(!cancelled.failsAtEnd);

  const TraceJob& epoch = byName(t, "frank/1006");  // integer epoch seconds
  QCOMPARE(epoch.job.submitTime, Seconds{600});
  QCOMPARE(epoch.runtime, Seconds{100});
  QVERIFY(epoch.failsAtEnd);  // NODE_FAIL

  std::vector<std::string> teams;
  for (const auto& team : t.teams) teams.push_back(team.name);
  QVERIFY(teams == (std::vector<std::string>{"vc-a", "vc-b", "vc-c"}));
}

void TstTraceReaders::heliosMalformed() {
  const std::string path = data("helios-malformed.csv");
  auto stop = readHeliosLog(path);
  QVERIFY(!stop);
  QCOMPARE(stop.error().where.line, 3);
  QCOMPARE(q(stop.error().where.field), QString("submit_time"));
  QVERIFY2(stop.error().str().find(path + ":3:") == 0, stop.error().str().c_str());
  QVERIFY(stop.error().message.find("2020-13-01") != std::string::npos);

  const Trace t = read(path, TraceFormat::Helios, keepGoing());
  QCOMPARE(t.jobs.size(), size_t{2});
  QVERIFY(problemLines(t) == (std::vector<int>{3, 4, 5, 6}));
  QVERIFY(t.problems[1].message.find("state: unknown state 'WEIRD'") == 0);
  QVERIFY(t.problems[2].message.find("end_time: ") == 0);
  QVERIFY(t.problems[3].message.find("gpu_num: ") == 0);
  QCOMPARE(t.jobs[1].job.submitTime, Seconds{120});
}

void TstTraceReaders::phillyMapping() {
  const Trace t = read(data("philly-small.json"), TraceFormat::Philly);
  QCOMPARE(t.jobs.size(), size_t{3});
  QVERIFY(problemLines(t) == (std::vector<int>{26, 27}));  // skipped jobs, by their first line
  QVERIFY(t.problems[0].message.find("application_3 has no attempt") != std::string::npos);
  QVERIFY(t.problems[1].message.find("application_4 was still running") != std::string::npos);

  const TraceJob& first = t.jobs[0];
  QCOMPARE(q(first.job.name), QString("ce2f4c/application_1"));
  QCOMPARE(q(first.job.team), QString("ee9e8c"));
  QCOMPARE(first.job.submitTime, Seconds{0});
  QCOMPARE(first.job.tasks, 2);  // the first attempt's machines
  QCOMPARE(first.job.perTask.gpus, 8);
  QCOMPARE(first.runtime, Seconds{74 + 3600});  // the attempts' durations added up
  QCOMPARE(first.job.workloadClass, WorkloadClass::Training);
  QVERIFY(!first.failsAtEnd);

  const TraceJob& failed = t.jobs[1];
  QCOMPARE(q(failed.job.name), QString("u2/application_2"));
  QCOMPARE(failed.job.submitTime, Seconds{441});
  QCOMPARE(failed.runtime, Seconds{600});
  QVERIFY(failed.failsAtEnd);

  const TraceJob& killed = t.jobs[2];  // first attempt ran nowhere and has no start time
  QCOMPARE(killed.job.id, JobId{3});
  QCOMPARE(killed.job.tasks, 2);
  QCOMPARE(killed.job.perTask.gpus, 3);  // 4 + 2 GPUs on 2 machines
  QCOMPARE(killed.runtime, Seconds{1800});
  QCOMPARE(killed.job.submitTime, Seconds{2001});
  QVERIFY(!killed.failsAtEnd);
}

void TstTraceReaders::phillyMalformed() {
  const std::string path = data("philly-malformed.json");
  auto stop = readPhillyLog(path);
  QVERIFY(!stop);
  QCOMPARE(stop.error().where.line, 4);
  QCOMPARE(q(stop.error().where.field), QString("[1]"));
  QVERIFY2(stop.error().message.find("malformed JSON") == 0, stop.error().message.c_str());

  const Trace t = read(path, TraceFormat::Philly, keepGoing());
  QCOMPARE(t.jobs.size(), size_t{2});
  QCOMPARE(q(t.jobs[0].job.name), QString("u1/good_1"));
  QCOMPARE(q(t.jobs[1].job.name), QString("good_2"));  // no user
  QVERIFY(problemLines(t) == (std::vector<int>{4, 6, 7}));
  QVERIFY2(t.problems[1].message.find("[2].status: expected Pass, Killed or Failed") == 0,
           t.problems[1].message.c_str());
  QVERIFY2(t.problems[2].message.find("[3].attempts[0].end_time: is before start_time") == 0,
           t.problems[2].message.c_str());

  // Structural damage to the array itself is always an error.
  const QString dir = QDir::tempPath() + "/tst_trace_readers";
  QDir().mkpath(dir);
  const std::string truncated = (dir + "/truncated.json").toStdString();
  std::ofstream(truncated) << "[\n  {\"jobid\": \"a\",\n   \"attempts\": [\n";
  auto e = readPhillyLog(truncated, keepGoing());
  QVERIFY(!e);
  QCOMPARE(e.error().where.line, 2);
  const std::string object = (dir + "/object.json").toStdString();
  std::ofstream(object) << "{\"jobs\": []}\n";
  QVERIFY(!readPhillyLog(object, keepGoing()));
}

void TstTraceReaders::swfMapping() {
  const Trace t = read(data("swf-small.swf"), TraceFormat::Swf);
  QCOMPARE(t.jobs.size(), size_t{3});
  // Jobs 3 (run time -1) and 4 (no processors) are valid SWF with nothing to replay: skipped.
  QVERIFY(problemLines(t) == (std::vector<int>{8, 9}));
  QVERIFY(t.problems[0].message.find("skipped: job 3: run time unknown") == 0);

  const TraceJob& one = t.jobs[0];
  QCOMPARE(q(one.job.name), QString("job-1"));
  QCOMPARE(one.job.tasks, 1);
  QCOMPARE(one.job.perTask.kind, GpuRequest::Kind::Whole);
  QCOMPARE(one.job.perTask.gpus, 4);
  QCOMPARE(one.runtime, Seconds{3600});
  QCOMPARE(one.job.estimatedRuntime, std::optional<Seconds>(7200));
  QCOMPARE(q(one.job.team), QString("group-7"));
  QCOMPARE(one.job.workloadClass, WorkloadClass::Batch);
  QVERIFY(!one.failsAtEnd);

  const TraceJob& two = t.jobs[1];
  QCOMPARE(two.job.submitTime, Seconds{60});
  QCOMPARE(two.job.tasks, 2);  // 12 GPUs in tasks of at most 8
  QCOMPARE(two.job.perTask.gpus, 6);
  QCOMPARE(q(two.job.team), QString("user-5"));
  QVERIFY(two.failsAtEnd);  // status 0

  const TraceJob& five = t.jobs[2];
  QCOMPARE(q(five.job.name), QString("job-5"));
  QCOMPARE(five.job.tasks, 2);  // 9 requested processors: 2 x 5
  QCOMPARE(five.job.perTask.gpus, 5);
  QVERIFY(!five.job.estimatedRuntime);
  QCOMPARE(q(five.job.team), QString("unknown"));
  QCOMPARE(five.job.id, JobId{3});
}

void TstTraceReaders::swfProcessorsPerGpu() {
  TraceReadOptions o;
  o.swfProcessorsPerGpu = 4;
  o.gpusPerNode = 2;
  const Trace t = read(data("swf-small.swf"), TraceFormat::Swf, o);
  QCOMPARE(t.jobs[0].job.tasks, 1);  // 4 processors: 1 GPU
  QCOMPARE(t.jobs[0].job.perTask.gpus, 1);
  QCOMPARE(t.jobs[1].job.tasks, 2);  // 12: 3 GPUs, at most 2 a task: 2 x 2
  QCOMPARE(t.jobs[1].job.perTask.gpus, 2);
  o.swfProcessorsPerGpu = 0;
  QVERIFY(!readSwf(data("swf-small.swf"), o));
}

void TstTraceReaders::swfMalformed() {
  const std::string path = data("swf-malformed.swf");
  auto stop = readSwf(path);
  QVERIFY(!stop);
  QCOMPARE(stop.error().where.line, 3);
  QVERIFY(stop.error().message.find("expected 18 fields, found 17") == 0);

  const Trace t = read(path, TraceFormat::Swf, keepGoing());
  QCOMPARE(t.jobs.size(), size_t{2});
  QVERIFY(problemLines(t) == (std::vector<int>{3, 4}));
  QVERIFY2(t.problems[1].message.find("field 2 (submit time): ") == 0,
           t.problems[1].message.c_str());
}

void TstTraceReaders::jobListYaml() {
  const Trace t = read(data("jobs-small.yaml"), TraceFormat::JobList);
  QCOMPARE(t.jobs.size(), size_t{3});
  QVERIFY(t.problems.empty());
  QCOMPARE(t.priorityClasses.size(), size_t{4});  // the defaults, as the file gives none
  QCOMPARE(t.teams.size(), size_t{2});
  QCOMPARE(q(t.teams[1].parent), QString("research"));

  const TraceJob& train = t.jobs[0];
  QCOMPARE(train.job.id, JobId{10});
  QCOMPARE(train.job.submitTime, Seconds{0});  // 1h, the earliest
  QCOMPARE(train.runtime, Seconds{3 * 3600});
  QCOMPARE(train.job.estimatedRuntime, std::optional<Seconds>(4 * 3600));
  QCOMPARE(train.usage, UsageProfile::InputBound);
  QCOMPARE(train.job.tasks, 2);
  QCOMPARE(train.job.perTask.gpus, 8);
  QVERIFY(!train.failsAtEnd);

  const TraceJob& notebook = t.jobs[1];
  QCOMPARE(notebook.job.id, JobId{12});
  QCOMPARE(notebook.job.submitTime, Seconds{1800});
  QCOMPARE(notebook.runtime, Seconds{86400});
  QVERIFY(!notebook.job.estimatedRuntime);
  QCOMPARE(notebook.usage, UsageProfile::IdleNotebook);  // from class interactive

  const TraceJob& serve = t.jobs[2];
  QCOMPARE(serve.job.id, JobId{11});
  QCOMPARE(serve.runtime, Seconds{1800});  // the estimate
  QCOMPARE(serve.usage, UsageProfile::Inference);
  QVERIFY(serve.failsAtEnd);
  QCOMPARE(serve.job.perTask.kind, GpuRequest::Kind::Fraction);
  QCOMPARE(serve.job.perTask.milli, 250);
  QCOMPARE(serve.job.priority, 500);
}

void TstTraceReaders::jobListJsonMatchesYaml() {
  const Trace y = read(data("jobs-small.yaml"), TraceFormat::JobList);
  const Trace j = read(data("jobs-small.json"), TraceFormat::JobList);
  QCOMPARE(j.jobs.size(), y.jobs.size());
  for (size_t i = 0; i < y.jobs.size(); ++i) {
    QCOMPARE(j.jobs[i].job.id, y.jobs[i].job.id);
    QCOMPARE(j.jobs[i].job.submitTime, y.jobs[i].job.submitTime);
    QCOMPARE(j.jobs[i].runtime, y.jobs[i].runtime);
    QCOMPARE(j.jobs[i].usage, y.jobs[i].usage);
    QCOMPARE(j.jobs[i].failsAtEnd, y.jobs[i].failsAtEnd);
    QCOMPARE(j.jobs[i].job.perTask.gpus, y.jobs[i].job.perTask.gpus);
  }
}

void TstTraceReaders::jobListErrors() {
  for (bool stop : {true, false}) {  // a document is validated whole in both modes
    TraceReadOptions o;
    o.stopOnError = stop;
    auto usage = readJobList(data("jobs-bad-usage.yaml"), o);
    QVERIFY(!usage);
    QCOMPARE(usage.error().where.line, 10);
    QCOMPARE(usage.error().where.column, 12);
    QCOMPARE(q(usage.error().where.field), QString("jobs[1].usage"));
    QVERIFY(usage.error().message.find("'gpu-heavy'") != std::string::npos);

    auto runtime = readJobList(data("jobs-no-runtime.yaml"), o);
    QVERIFY(!runtime);
    QCOMPARE(runtime.error().where.line, 5);
    QCOMPARE(q(runtime.error().where.field), QString("jobs[1]"));
    QVERIFY(runtime.error().message.find("needs actual_runtime or runtime") != std::string::npos);

    // Everything else is the workload loader's own message, at the right line.
    auto typo = readJobList(data("jobs-workload-error.yaml"), o);
    QVERIFY(!typo);
    QCOMPARE(typo.error().where.line, 9);
    QVERIFY2(typo.error().str().find("runtim") != std::string::npos, typo.error().str().c_str());
  }
}

void TstTraceReaders::missingFile_data() {
  QTest::addColumn<int>("format");
  for (auto f : {TraceFormat::Openb, TraceFormat::Helios, TraceFormat::Philly, TraceFormat::Swf,
                 TraceFormat::JobList})
    QTest::newRow(traceFormatName(f)) << static_cast<int>(f);
}

void TstTraceReaders::missingFile() {
  QFETCH(int, format);
  const std::string path = data("no-such-trace.csv");
  auto t = readTrace(path, static_cast<TraceFormat>(format), keepGoing());
  QVERIFY(!t);
  QVERIFY2(t.error().str().find(path) == 0, t.error().str().c_str());
  QVERIFY(t.error().message.find("no such file") != std::string::npos);
  QVERIFY(!readTrace(TESSERA_TEST_DATA, static_cast<TraceFormat>(format)));  // a directory
}

void TstTraceReaders::emptyFile_data() {
  missingFile_data();
}

void TstTraceReaders::emptyFile() {
  QFETCH(int, format);
  for (const char* name : {"empty.csv", "blank.csv"}) {
    auto t = readTrace(data(name), static_cast<TraceFormat>(format), keepGoing());
    QVERIFY(!t);
    QVERIFY2(t.error().message.find("empty") != std::string::npos, t.error().str().c_str());
  }
}

void TstTraceReaders::detectFormat() {
  auto is = [](const std::string& path, std::optional<TraceFormat> f) {
    return detectTraceFormat(path) == f;
  };
  QVERIFY(is(data("openb-pods-small.csv"), TraceFormat::Openb));
  QVERIFY(is(data("openb-pods-multigpu-small.csv"), TraceFormat::Openb));
  QVERIFY(is(data("helios-small.csv"), TraceFormat::Helios));
  QVERIFY(is(data("philly-small.json"), TraceFormat::Philly));
  QVERIFY(is(data("swf-small.swf"), TraceFormat::Swf));
  QVERIFY(is(data("jobs-small.yaml"), TraceFormat::JobList));
  QVERIFY(is(data("jobs-small.json"), TraceFormat::JobList));
  QVERIFY(is(openb("openb_pod_list_default.csv"), TraceFormat::Openb));
  QVERIFY(is(openb("openb_node_list_gpu_node.csv"), std::nullopt));  // nodes, not a trace
  QVERIFY(is(data("empty.csv"), std::nullopt));
  QVERIFY(is(data("no-such-trace"), std::nullopt));

  // Content decides when the name does not: SWF without .swf, a job list with a comment first.
  const QString dir = QDir::tempPath() + "/tst_trace_readers";
  QDir().mkpath(dir);
  const std::string swf = (dir + "/workload.txt").toStdString();
  std::ofstream(swf) << "; Version: 2.2\n1 0 0 1 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n";
  QVERIFY(is(swf, TraceFormat::Swf));
  const std::string list = (dir + "/list.txt").toStdString();
  std::ofstream(list) << "# jobs\n\njobs:\n  - {id: 1}\n";
  QVERIFY(is(list, TraceFormat::JobList));
  const std::string philly = (dir + "/cluster_job_log").toStdString();
  std::ofstream(philly) << "[{\"jobid\": \"a\"}]\n";
  QVERIFY(is(philly, TraceFormat::Philly));
}

void TstTraceReaders::timeOriginAndLimit() {
  TraceReadOptions o;
  o.timeOrigin = 0;  // the file's own clock
  const Trace raw = read(data("openb-pods-small.csv"), TraceFormat::Openb, o);
  QCOMPARE(byName(raw, "pod-cpu").job.submitTime, Seconds{50});
  QCOMPARE(byName(raw, "pod-guaranteed").job.submitTime, Seconds{400});

  o.timeOrigin = 150;  // a window: earlier arrivals are left out, and the trace says so
  const Trace window = read(data("openb-pods-small.csv"), TraceFormat::Openb, o);
  QCOMPARE(window.jobs.size(), size_t{3});
  QCOMPARE(byName(window, "pod-share").job.submitTime, Seconds{50});
  QCOMPARE(window.problems.size(), size_t{1});
  QVERIFY2(window.problems[0].message.find("2 job(s) submitted before the time origin 150") == 0,
           window.problems[0].message.c_str());

  TraceReadOptions l;
  l.limit = 2;  // the first two in file order
  const Trace limited = read(data("openb-pods-small.csv"), TraceFormat::Openb, l);
  QCOMPARE(limited.jobs.size(), size_t{2});
  QCOMPARE(q(limited.jobs[0].job.name), QString("pod-whole"));
  QCOMPARE(limited.jobs[0].job.submitTime, Seconds{0});
  QCOMPARE(q(limited.jobs[1].job.name), QString("pod-share"));
  for (TraceFormat f :
       {TraceFormat::Helios, TraceFormat::Philly, TraceFormat::Swf, TraceFormat::JobList}) {
    const char* file = f == TraceFormat::Helios   ? "helios-small.csv"
                       : f == TraceFormat::Philly ? "philly-small.json"
                       : f == TraceFormat::Swf    ? "swf-small.swf"
                                                  : "jobs-small.yaml";
    QCOMPARE(read(data(file), f, l).jobs.size(), size_t{2});
    QVERIFY(sortedBySubmit(read(data(file), f)));
  }
}

void TstTraceReaders::openbNodesAsCluster() {
  OpenbClusterInfo info;
  auto c = readOpenbNodes(data("openb-nodes-small.csv"), {}, &info);
  QVERIFY2(c, c ? "" : c.error().str().c_str());
  const Cluster& cluster = **c;
  QCOMPARE(cluster.nodes().size(), size_t{4});
  QCOMPARE(cluster.gpus().size(), size_t{21});
  QCOMPARE(info.nodes, 4);
  QCOMPARE(info.gpus, 21);
  QCOMPARE(info.cpuOnlyNodesSkipped, 1);
  QCOMPARE(q(cluster.name), QString("openb-nodes-small"));
  const Node& c3 = cluster.nodes()[2];
  QCOMPARE(q(c3.name), QString("node-c"));
  QCOMPARE(q(c3.gpuModel().id), QString("V100-SXM2-16GB"));
  QCOMPARE(c3.hw->cpus, 32);
  QCOMPARE(c3.hw->memoryMiB, int64_t{131072});
  QCOMPARE(q(cluster.nodes()[0].gpuModel().id), QString("G2"));
  QCOMPARE(cluster.nodes()[0].hw.get(), cluster.nodes()[1].hw.get());  // one shared template

  auto raw = readOpenbNodeList(data("openb-nodes-small.csv"));
  QVERIFY(raw);
  QCOMPARE(raw->size(), size_t{5});  // CPU-only rows included
  QCOMPARE(q((*raw)[3].name), QString("node-cpu"));
  QCOMPARE((*raw)[3].gpus, 0);
  QVERIFY((*raw)[3].model.empty());
  QCOMPARE((*raw)[4].cpuMilli, int64_t{8000});
  QCOMPARE((*raw)[4].memoryMiB, int64_t{61440});
  QCOMPARE(q((*raw)[4].model), QString("P100"));
  QCOMPARE((*raw)[4].line, 6);

  const std::string yaml = openbClusterSpecYaml(*raw, "x");
  QVERIFY(yaml.find("node-cpu") == std::string::npos);
}

void TstTraceReaders::openbNodesMalformed() {
  const std::string path = data("openb-nodes-malformed.csv");
  auto stop = readOpenbNodes(path);
  QVERIFY(!stop);
  QCOMPARE(stop.error().where.line, 3);
  QCOMPARE(q(stop.error().where.field), QString("model"));
  QVERIFY(stop.error().message.find("H900") != std::string::npos);

  TraceReadOptions o = keepGoing();
  OpenbClusterInfo info;
  auto c = readOpenbNodes(path, o, &info);
  QVERIFY(c);
  QCOMPARE((*c)->nodes().size(), size_t{2});
  std::vector<int> lines;
  for (const auto& p : info.problems) lines.push_back(p.line);
  QVERIFY(lines == (std::vector<int>{3, 4, 5, 6}));
  QVERIFY(info.problems[2].message.find("duplicate node name 'node-a' (first on line 2)") !=
          std::string::npos);

  std::vector<TraceProblem> problems;
  o.limit = 1;
  auto one = readOpenbNodeList(path, o, &problems);
  QVERIFY(one);
  QCOMPARE(one->size(), size_t{1});
}

void TstTraceReaders::realOpenbDefaultPods() {
  const std::string path = openb("openb_pod_list_default.csv");
  const auto rows = naiveCsv(path);
  QCOMPARE(rows.size(), size_t{8152});  // SOURCE.md
  int64_t wholeGpus = 0, shareMilli = 0, cpuMilli = 0, failed = 0, unscheduled = 0;
  int shares = 0, cpuOnly = 0;
  for (const auto& r : rows) {
    const int n = std::stoi(r.at("num_gpu"));
    const int milli = std::stoi(r.at("gpu_milli"));
    if (n == 0)
      ++cpuOnly;
    else if (milli < 1000)
      ++shares, shareMilli += milli;
    else
      wholeGpus += n;
    cpuMilli += (std::stoll(r.at("cpu_milli")) + 999) / 1000;
    failed += r.at("pod_phase") == "Failed";
    unscheduled += r.at("scheduled_time").empty();
  }
  QCOMPARE(unscheduled, int64_t{897});  // SOURCE.md

  const Trace t = read(path, TraceFormat::Openb);
  QCOMPARE(t.jobs.size(), size_t{8152});
  QVERIFY(t.problems.empty());
  QVERIFY(sortedBySubmit(t));
  int64_t gotWhole = 0, gotMilli = 0, gotCpus = 0, gotFailed = 0;
  int gotShares = 0, gotCpuOnly = 0;
  for (const auto& j : t.jobs) {
    switch (j.job.perTask.kind) {
      case GpuRequest::Kind::None:
        ++gotCpuOnly;
        break;
      case GpuRequest::Kind::Fraction:
        ++gotShares;
        gotMilli += j.job.perTask.milli;
        break;
      case GpuRequest::Kind::Whole:
        gotWhole += j.job.perTask.gpus * j.job.tasks;
        break;
      case GpuRequest::Kind::Mig:
        QFAIL("openb has no MIG requests");
    }
    gotCpus += j.job.cpusPerTask;
    gotFailed += j.failsAtEnd;
    QVERIFY(j.runtime >= 0);
  }
  QCOMPARE(gotWhole, wholeGpus);
  QCOMPARE(gotShares, shares);
  QCOMPARE(gotMilli, shareMilli);
  QCOMPARE(gotCpuOnly, cpuOnly);
  QCOMPARE(gotCpus, cpuMilli);
  QCOMPARE(gotFailed, failed);
  // "default": CPU-only tasks are 13.3 % of all tasks (SOURCE.md).
  QVERIFY(std::abs(100.0 * cpuOnly / 8152 - 13.3) < 0.05);
}

void TstTraceReaders::realOpenbPodListsAllRead() {
  // Every pod list the repository carries reads without a single problem, with SOURCE.md's row
  // count (cpu0 is left out: research-use terms only, resources/traces/openb/SOURCE.md).
  const std::map<std::string, size_t> rows = {
      {"openb_pod_list_cpu037.csv", 7336},
      {"openb_pod_list_cpu050.csv", 7439},      {"openb_pod_list_cpu072.csv", 7608},
      {"openb_pod_list_cpu100.csv", 7853},      {"openb_pod_list_cpu200.csv", 8832},
      {"openb_pod_list_cpu235.csv", 9240},      {"openb_pod_list_cpu300.csv", 10094},
      {"openb_pod_list_gpushare20.csv", 8152},  {"openb_pod_list_gpushare40.csv", 8152},
      {"openb_pod_list_gpushare60.csv", 8152},  {"openb_pod_list_gpushare80.csv", 8152},
      {"openb_pod_list_gpushare100.csv", 8152},
  };
  for (const auto& [name, count] : rows) {
    const Trace t = read(openb(name.c_str()), TraceFormat::Openb);
    QVERIFY2(t.jobs.size() == count, name.c_str());
    QVERIFY2(t.problems.empty(), name.c_str());
  }
}

void TstTraceReaders::realOpenbNodeLists() {
  const std::string gpuPath = openb("openb_node_list_gpu_node.csv");
  int64_t gpus = 0;
  for (const auto& r : naiveCsv(gpuPath)) gpus += std::stoi(r.at("gpu"));
  QCOMPARE(gpus, int64_t{6212});  // SOURCE.md

  OpenbClusterInfo info;
  auto c = readOpenbNodes(gpuPath, {}, &info);
  QVERIFY2(c, c ? "" : c.error().str().c_str());
  QCOMPARE((*c)->nodes().size(), size_t{1213});
  QCOMPARE((*c)->gpus().size(), size_t{6212});
  QCOMPARE(info.cpuOnlyNodesSkipped, 0);
  QVERIFY(info.problems.empty());
  std::map<std::string, int> byModel;
  for (const auto& n : (*c)->nodes()) byModel[n.gpuModel().id] += n.gpuCount();
  QCOMPARE(byModel["G2"], 549 * 8);

  OpenbClusterInfo all;
  auto whole = readOpenbNodes(openb("openb_node_list_all_node.csv"), {}, &all);
  QVERIFY(whole);
  QCOMPARE(all.nodes, 1213);
  QCOMPARE(all.gpus, 6212);
  QCOMPARE(all.cpuOnlyNodesSkipped, 310);  // SOURCE.md: 1523 nodes, 310 CPU-only
  auto raw = readOpenbNodeList(openb("openb_node_list_all_node.csv"));
  QVERIFY(raw);
  QCOMPARE(raw->size(), size_t{1523});
}

QTEST_APPLESS_MAIN(TstTraceReaders)
#include "tst_trace_readers.moc"
