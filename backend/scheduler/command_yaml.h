#pragma once
// Operator commands (command.h) as YAML: one map with a single key naming the command, the form
// scenario files, exported scenarios and scripted operator actions use:
//
//   {hold: 12}   {release: 12}   {cancel: 3}   {preempt: 9}   {undrain: n1}
//   {delete_reservation: mw1}
//   {set_priority: {job: 3, class: serving}}
//   {move: {job: 3, to: top}}        # top | bottom | before (with before: JOB)
//   {pin: {job: 3, gpus: ["n1/0"], nodes: [n2]}}
//   {repartition: {gpu: "a100-1/0", layout: "3g.40gb,4x1g.10gb", force: false}}
//   {drain: {node: n1, reason: psu}}
//   {set_quota: {team: vision, key: H100, guaranteed: 8, borrow: 4, lend: 2}}
//   {create_reservation: {id: mw1, nodes: [n1], from: 1h, until: 3h, team: vision}}
//   {submit: {id: 7, team: vision, priority: serving, gpus: 2, ...}}   # a job as in a workload
//
// Every error names file:line:column and the field, like the other Tessera readers.
#include <string>

#include <yaml-cpp/yaml.h>

#include "scheduler/command.h"
#include "topology/yaml_reader.h"
#include "workload/workload_spec.h"

namespace tessera {

// Reads a command. A submitted job's team and priority class are resolved against `tenants`
// (its teams and priority classes); without tenants the default priority classes are used and
// the job's team is taken as given (the engine checks it when the command runs).
Expected<Command> commandFromYaml(const YamlField& f);
Expected<Command> commandFromYaml(const YamlField& f, const Workload* tenants);

// The command as a one-line YAML flow map that commandFromYaml reads back to the same value.
std::string commandToYaml(const Command& c);
YAML::Node commandToYamlNode(const Command& c);

// One job in the form of a workload file's `jobs:` entry, resolved against `tenants`.
Expected<Job> jobFromYaml(const YamlField& f, const Workload& tenants);
// The job as a `jobs:` entry (block style); jobFromYaml reads it back to the same job.
YAML::Node jobToYamlNode(const Job& job);

// A workload document (`version`, `priority_classes`, `teams` with weights and quotas) without
// jobs: the tenants part of scenario exports, and the context a submitted job is read in.
YAML::Node tenantsToYaml(const std::vector<PriorityClass>& classes, const std::vector<Team>& teams);

// A duration field ("90", "90s", "15m", "2h", "1h30m", "1d"), with a located error.
Expected<Seconds> durationOf(const YamlField& f);

// Seconds as the shortest duration text ("0", "90s", "1h30m", "1d2h").
std::string formatDuration(Seconds s);

}  // namespace tessera
