#include "slurm/slurm_json.h"

#include <nlohmann/json.hpp>

#include "core/hostlist.h"

namespace tessera::slurm {

namespace {

using nlohmann::json;

Error pathError(const std::string& path, const std::string& message) {
  return Error{message, SourceLocation{{}, 0, 0, path}};
}

std::string typeName(const json& v) {
  return v.type_name();
}

// Reads the fields of one JSON object; the first field of the wrong type is remembered as the
// error (with its path) and every later read returns a default, so a record reads as a flat list
// of assignments with one check at the end.
class Fields {
 public:
  Fields(const json& object, std::string path) : object_(object), path_(std::move(path)) {}

  std::string str(const char* key) {
    const json* v = find(key);
    if (v == nullptr) return {};
    if (v->is_string()) return v->get<std::string>();
    fail(key, "expected a string, found " + typeName(*v));
    return {};
  }

  // A number, or the {"set": bool, "infinite": bool, "number": n} of openapi v0.0.39 and later
  // (unset and infinite read as `unset`).
  int64_t num(const char* key, int64_t unset = 0) {
    const json* v = find(key);
    if (v == nullptr) return unset;
    if (v->is_number_integer()) return v->get<int64_t>();
    if (v->is_number_unsigned()) return static_cast<int64_t>(v->get<uint64_t>());
    if (v->is_object()) return wrapped(key, *v, unset);
    fail(key, "expected a number, found " + typeName(*v));
    return unset;
  }

  int integer(const char* key) { return static_cast<int>(num(key)); }

  // A list of strings; a comma-separated string is accepted too.
  std::vector<std::string> strings(const char* key) {
    std::vector<std::string> out;
    const json* v = find(key);
    if (v == nullptr) return out;
    if (v->is_string()) return commaList(v->get<std::string>());
    if (!v->is_array()) {
      fail(key, "expected a list of strings, found " + typeName(*v));
      return out;
    }
    for (size_t i = 0; i < v->size(); ++i) {
      if (!(*v)[i].is_string()) {
        fail(std::string(key) + "[" + std::to_string(i) + "]",
             "expected a string, found " + typeName((*v)[i]));
        return {};
      }
      out.push_back((*v)[i].get<std::string>());
    }
    return out;
  }

  // A hostlist expression ("node[1-3]"), expanded.
  std::vector<std::string> hosts(const char* key) {
    const std::string expr = str(key);
    if (expr.empty() || expr == "(null)") return {};
    auto names = expandHostlist(expr);
    if (!names) {
      fail(key, names.error().message);
      return {};
    }
    return std::move(names).value();
  }

  const json* raw(const char* key) { return find(key); }
  void fail(const std::string& key, const std::string& message) {
    if (!error_) error_ = pathError(path_ + "." + key, message);
  }
  [[nodiscard]] const std::optional<Error>& error() const { return error_; }

 private:
  // Missing and null fields are absent: the caller's default applies.
  const json* find(const char* key) {
    if (error_) return nullptr;
    auto it = object_.find(key);
    if (it == object_.end() || it->is_null()) return nullptr;
    return &*it;
  }

  int64_t wrapped(const char* key, const json& v, int64_t unset) {
    auto number = v.find("number");
    if (number == v.end() || !number->is_number()) {
      fail(key, "expected a number or {set, number}, found an object without a number");
      return unset;
    }
    if (v.value("set", true) == false || v.value("infinite", false) == true) return unset;
    return number->is_number_unsigned() ? static_cast<int64_t>(number->get<uint64_t>())
                                        : number->get<int64_t>();
  }

  static std::vector<std::string> commaList(const std::string& s) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= s.size()) {
      const size_t comma = std::min(s.find(',', start), s.size());
      if (comma > start) out.push_back(s.substr(start, comma - start));
      start = comma + 1;
    }
    return out;
  }

  const json& object_;
  std::string path_;
  std::optional<Error> error_;
};

// job_state: "RUNNING" (v0.0.38) or ["RUNNING", "COMPLETING"] (later versions: first is the base).
void readJobState(Fields& f, SlurmJob& job) {
  const json* v = f.raw("job_state");
  if (v == nullptr) {
    f.fail("job_state", "missing");
    return;
  }
  if (v->is_array() && !v->empty() && (*v)[0].is_string())
    job.stateText = (*v)[0].get<std::string>();
  else if (v->is_string())
    job.stateText = v->get<std::string>();
  else
    return f.fail("job_state", "expected a state word, found " + typeName(*v));
  job.state = jobStateFromSlurm(job.stateText);
}

// exit_code: a raw wait status (v0.0.38), or {"return_code": n, "signal": {"id": n}} later.
void readExitCode(Fields& f, SlurmJob& job) {
  const json* v = f.raw("exit_code");
  if (v == nullptr || !v->is_object()) {
    job.exit = decodeWaitStatus(f.num("exit_code"));
    return;
  }
  Fields exit(*v, "exit_code");
  job.exit.code = static_cast<int>(exit.num("return_code"));
  if (const json* sig = exit.raw("signal"); sig != nullptr && sig->is_object())
    job.exit.signal = static_cast<int>(Fields(*sig, "exit_code.signal").num("id"));
  if (exit.error()) f.fail("exit_code", exit.error()->message);
}

void readGres(Fields& f, SlurmJob& job) {
  job.tresPerNode = f.str("tres_per_node");
  auto gres = parseGresList(job.tresPerNode);
  if (!gres) return f.fail("tres_per_node", gres.error().message);
  job.gresPerNode = std::move(gres).value();
  const auto detail = f.strings("gres_detail");
  for (size_t i = 0; i < detail.size(); ++i) {
    // One entry per allocated node, in the order of the job's node list. Only shown, never
    // decided on: an entry this version cannot read leaves that node's GPUs unknown rather than
    // failing the whole poll (which would stop every decision being carried out).
    auto used = parseGresUsed(detail[i]);
    std::string node = i < job.nodes.size() ? job.nodes[i] : std::string();
    job.gresDetail.push_back(
        NodeGres{std::move(node), used ? std::move(used).value() : std::vector<GresUse>{}});
  }
}

Expected<SlurmJob> readJob(const json& v, const std::string& path) {
  if (!v.is_object()) return pathError(path, "expected an object, found " + typeName(v));
  Fields f(v, path);
  SlurmJob job;
  job.id = f.num("job_id");
  if (!f.error() && job.id <= 0) f.fail("job_id", "missing or not a positive number");
  job.name = f.str("name");
  job.user = f.str("user_name");
  job.account = f.str("account");
  job.partition = f.str("partition");
  readJobState(f, job);
  job.stateReason = f.str("state_reason");
  job.priority = f.num("priority");
  job.nodes = f.hosts("nodes");
  job.requiredNodes = f.hosts("required_nodes");
  job.comment = f.str("comment");
  job.tesseraId = tesseraIdFromComment(job.comment);
  job.timeLimitMinutes = f.num("time_limit");
  readExitCode(f, job);
  job.restartCount = f.integer("restart_cnt");
  job.submitTime = f.num("submit_time");
  job.eligibleTime = f.num("eligible_time");
  job.startTime = f.num("start_time");
  job.endTime = f.num("end_time");
  job.nodeCount = f.integer("node_count");
  job.cpus = f.integer("cpus");
  job.held = isHeld(job.priority, job.stateReason);
  readGres(f, job);
  if (f.error()) return *f.error();
  return job;
}

Expected<SlurmNode> readNode(const json& v, const std::string& path) {
  if (!v.is_object()) return pathError(path, "expected an object, found " + typeName(v));
  Fields f(v, path);
  SlurmNode node;
  node.name = f.str("name");
  if (!f.error() && node.name.empty()) f.fail("name", "missing");
  node.stateText = f.str("state");
  node.state = nodeStateFromSlurm(node.stateText);
  node.flags = f.strings("state_flags");
  node.reason = f.str("reason");
  node.reasonSetByUser = f.str("reason_set_by_user");
  node.reasonChangedAt = f.num("reason_changed_at");
  node.cpus = f.integer("cpus");
  node.allocCpus = f.integer("alloc_cpus");
  node.realMemoryMb = f.num("real_memory");
  node.allocMemoryMb = f.num("alloc_memory");
  node.partitions = f.strings("partitions");
  node.features = f.strings("active_features");
  if (node.features.empty()) node.features = f.strings("features");
  if (f.error()) return *f.error();
  auto gres = parseGresList(f.str("gres"));
  if (!gres) return pathError(path + ".gres", gres.error().message);
  node.gres = std::move(gres).value();
  auto used = parseGresUsed(f.str("gres_used"));
  if (!used) return pathError(path + ".gres_used", used.error().message);
  node.gresUsed = std::move(used).value();
  return node;
}

Expected<json> parseDocument(std::string_view text) {
  try {
    json doc = json::parse(text);
    if (!doc.is_object()) return pathError("(document)", "expected a JSON object");
    return doc;
  } catch (const json::parse_error& e) {
    return Error{"malformed JSON at byte " + std::to_string(e.byte) + ": " + e.what(), {}};
  } catch (const json::exception& e) {  // out_of_range.406: a number beyond a double ("1E99999")
    return Error{std::string("malformed JSON: ") + e.what(), {}};
  }
}

Expected<SlurmMeta> readMeta(const json& doc) {
  SlurmMeta meta;
  auto it = doc.find("meta");
  if (it == doc.end() || it->is_null()) return meta;  // unknown producer: best effort
  if (!it->is_object()) return pathError("meta", "expected an object, found " + typeName(*it));
  Fields m(*it, "meta");
  if (const json* plugin = m.raw("plugin"); plugin != nullptr && plugin->is_object()) {
    Fields p(*plugin, "meta.plugin");
    meta.pluginType = p.str("type");
    if (p.error()) return *p.error();
  }
  if (const json* slurm = m.raw("Slurm"); slurm != nullptr && slurm->is_object()) {
    Fields s(*slurm, "meta.Slurm");
    meta.release = s.str("release");
    if (const json* ver = s.raw("version"); ver != nullptr && ver->is_object()) {
      Fields v(*ver, "meta.Slurm.version");
      meta.major = v.integer("major");
      meta.minor = v.integer("minor");
      meta.micro = v.integer("micro");
      if (v.error()) return *v.error();
    }
    if (s.error()) return *s.error();
  }
  return meta;
}

// Slurm's own "errors": [{"error": "...", "errno": n}, ...] (later versions: "description").
std::vector<std::string> readSlurmErrors(const json& doc) {
  std::vector<std::string> out;
  auto it = doc.find("errors");
  if (it == doc.end() || !it->is_array()) return out;
  for (const auto& e : *it) {
    if (e.is_string()) out.push_back(e.get<std::string>());
    if (!e.is_object()) continue;
    for (const char* key : {"error", "description"})
      if (auto m = e.find(key); m != e.end() && m->is_string()) {
        out.push_back(m->get<std::string>());
        break;
      }
  }
  return out;
}

// The array under `key`, each element read by `readOne`.
template <class T, class ReadOne>
Expected<std::vector<T>> readArray(const json& doc, const char* key, ReadOne readOne) {
  auto it = doc.find(key);
  if (it == doc.end()) return pathError(key, "missing");
  if (!it->is_array()) return pathError(key, "expected a list, found " + typeName(*it));
  std::vector<T> out;
  out.reserve(it->size());
  for (size_t i = 0; i < it->size(); ++i) {
    TESSERA_TRY(item, readOne((*it)[i], std::string(key) + "[" + std::to_string(i) + "]"));
    out.push_back(std::move(item));
  }
  return out;
}

template <class Document, class Item, class ReadOne>
Expected<Document> parseListDocument(std::string_view text, const char* key, ReadOne readOne) {
  try {
    TESSERA_TRY(doc, parseDocument(text));
    TESSERA_TRY(meta, readMeta(doc));
    TESSERA_TRY(items, readArray<Item>(doc, key, readOne));
    return Document{std::move(meta), std::move(items), readSlurmErrors(doc)};
  } catch (const std::exception& e) {  // nlohmann or the allocator: never let one escape
    return Error{std::string("cannot read Slurm JSON: ") + e.what(), {}};
  }
}

}  // namespace

Expected<JobsDocument> parseSqueueJson(std::string_view text) {
  return parseListDocument<JobsDocument, SlurmJob>(text, "jobs", readJob);
}

Expected<NodesDocument> parseSinfoJson(std::string_view text) {
  return parseListDocument<NodesDocument, SlurmNode>(text, "nodes", readNode);
}

}  // namespace tessera::slurm
