// Readers for the openb node and pod lists. A compact CSV reader of its own (the files are plain
// comma-separated with a header), so every error can name file:line:column and the column.
#include <charconv>
#include <fstream>
#include <sstream>

#include "sim/openb_experiment.h"

namespace tessera {

namespace {

struct CsvField {
  std::string text;
  int column = 0;  // 1-based character position in the line
};

struct CsvRecord {
  int line = 0;
  std::vector<CsvField> fields;
};

Error errorAt(const std::string& file, int line, int column, const std::string& field,
              std::string message) {
  return Error{std::move(message), SourceLocation{file, line, column, field}};
}

std::string trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return std::string(s);
}

// One line into fields; double quotes may enclose commas and doubled quotes.
Expected<std::vector<CsvField>> splitLine(std::string_view line, const std::string& file,
                                          int lineNo) {
  std::vector<CsvField> out;
  size_t i = 0;
  for (;;) {
    CsvField f;
    f.column = static_cast<int>(i) + 1;
    if (i < line.size() && line[i] == '"') {
      size_t j = i + 1;
      for (;; ++j) {
        if (j >= line.size())
          return errorAt(file, lineNo, f.column, "", "unterminated double quote");
        if (line[j] != '"') {
          f.text += line[j];
        } else if (j + 1 < line.size() && line[j + 1] == '"') {
          f.text += '"';
          ++j;
        } else {
          break;
        }
      }
      i = line.find(',', j);
    } else {
      const size_t comma = line.find(',', i);
      f.text =
          trimmed(line.substr(i, comma == std::string_view::npos ? line.size() - i : comma - i));
      i = comma;
    }
    out.push_back(std::move(f));
    if (i == std::string_view::npos) return out;
    ++i;
  }
}

// Header and data rows; blank lines are skipped, a UTF-8 byte order mark is dropped.
struct CsvTable {
  std::vector<std::string> header;
  std::vector<CsvRecord> rows;
  [[nodiscard]] int index(std::string_view name) const {
    for (size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return static_cast<int>(i);
    return -1;
  }
};

Expected<CsvTable> parseCsv(std::string_view text, const std::string& file,
                            const std::vector<std::string>& required) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  CsvTable table;
  int lineNo = 0;
  bool haveHeader = false;
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
    ++lineNo;
    if (trimmed(line).empty()) continue;
    TESSERA_TRY(fields, splitLine(line, file, lineNo));
    if (haveHeader) {
      if (fields.size() != table.header.size())
        return errorAt(file, lineNo,
                       fields.size() > table.header.size() ? fields[table.header.size()].column
                                                           : static_cast<int>(line.size()) + 1,
                       "",
                       "expected " + std::to_string(table.header.size()) + " fields, found " +
                           std::to_string(fields.size()));
      table.rows.push_back({lineNo, std::move(fields)});
      continue;
    }
    for (auto& f : fields) table.header.push_back(f.text);
    haveHeader = true;
    for (const auto& name : required)
      if (table.index(name) < 0)
        return errorAt(file, lineNo, 0, "", "missing column '" + name + "'");
  }
  if (!haveHeader) return errorAt(file, 0, 0, "", "empty file: no header line");
  return table;
}

// Typed access to one row's fields, with errors located at the field.
class RowReader {
 public:
  RowReader(const CsvTable& t, const CsvRecord& r, const std::string& file)
      : table_(t), row_(r), file_(file) {}

  [[nodiscard]] const CsvField& field(const std::string& name) const {
    return row_.fields[static_cast<size_t>(table_.index(name))];
  }
  [[nodiscard]] std::string text(const std::string& name) const {
    return table_.index(name) < 0 ? std::string{} : field(name).text;
  }
  Expected<std::string> name(const std::string& column) const {
    const CsvField& f = field(column);
    if (f.text.empty()) return errorAt(file_, row_.line, f.column, column, "empty name");
    return f.text;
  }
  Expected<int64_t> integer(const std::string& column, int64_t min, int64_t max) const {
    const CsvField& f = field(column);
    int64_t value = 0;
    const char* end = f.text.data() + f.text.size();
    const auto [ptr, ec] = std::from_chars(f.text.data(), end, value);
    if (f.text.empty() || ec != std::errc{} || ptr != end)
      return errorAt(file_, row_.line, f.column, column,
                     "expected a whole number, got '" + f.text + "'");
    if (value < min || value > max)
      return errorAt(file_, row_.line, f.column, column,
                     std::to_string(value) + " is out of range [" + std::to_string(min) + ", " +
                         std::to_string(max) + "]");
    return value;
  }

 private:
  const CsvTable& table_;
  const CsvRecord& row_;
  const std::string& file_;
};

constexpr int64_t kBig = int64_t{1} << 40;

Expected<OpenbNodeRow> nodeRow(const RowReader& r) {
  OpenbNodeRow n;
  TESSERA_TRY(name, r.name("sn"));
  TESSERA_TRY(cpu, r.integer("cpu_milli", 0, kBig));
  TESSERA_TRY(mem, r.integer("memory_mib", 0, kBig));
  TESSERA_TRY(gpus, r.integer("gpu", 0, 1024));
  n.name = std::move(name);
  n.cpuMilli = cpu;
  n.memoryMiB = mem;
  n.gpus = static_cast<int>(gpus);
  n.model = r.text("model");
  return n;
}

std::vector<std::string> specList(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string token;
  while (std::getline(in, token, '|'))
    if (!trimmed(token).empty()) out.push_back(trimmed(token));
  return out;
}

Expected<OpenbPodRow> podRow(const RowReader& r) {
  OpenbPodRow p;
  TESSERA_TRY(name, r.name("name"));
  TESSERA_TRY(cpu, r.integer("cpu_milli", 0, kBig));
  TESSERA_TRY(mem, r.integer("memory_mib", 0, kBig));
  TESSERA_TRY(num, r.integer("num_gpu", 0, 1024));
  TESSERA_TRY(milli, r.integer("gpu_milli", 0, 1000000));
  p.name = std::move(name);
  p.cpuMilli = cpu;
  p.memoryMiB = mem;
  p.numGpu = static_cast<int>(num);
  p.gpuMilli = static_cast<int>(milli);
  p.spec = specList(r.text("gpu_spec"));
  return p;
}

template <class Row, class Convert>
Expected<std::vector<Row>> parseRows(std::string_view text, const std::string& file,
                                     const std::vector<std::string>& required, Convert convert) {
  TESSERA_TRY(table, parseCsv(text, file, required));
  std::vector<Row> rows;
  rows.reserve(table.rows.size());
  for (const auto& record : table.rows) {
    TESSERA_TRY(row, convert(RowReader(table, record, file)));
    rows.push_back(std::move(row));
  }
  return rows;
}

Expected<std::string> readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cannot open file", SourceLocation{path, 0, 0, ""}};
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) return Error{"cannot read file", SourceLocation{path, 0, 0, ""}};
  return s.str();
}

const std::vector<std::string> kNodeColumns{"sn", "cpu_milli", "memory_mib", "gpu", "model"};
const std::vector<std::string> kPodColumns{"name", "cpu_milli", "memory_mib", "num_gpu",
                                           "gpu_milli"};

}  // namespace

Expected<std::vector<OpenbNodeRow>> parseOpenbNodeRows(std::string_view text,
                                                       const std::string& file) {
  return parseRows<OpenbNodeRow>(text, file, kNodeColumns, nodeRow);
}

Expected<std::vector<OpenbPodRow>> parseOpenbPodRows(std::string_view text,
                                                     const std::string& file) {
  return parseRows<OpenbPodRow>(text, file, kPodColumns, podRow);
}

Expected<std::vector<OpenbNodeRow>> readOpenbNodeRows(const std::string& path) {
  TESSERA_TRY(text, readFile(path));
  return parseOpenbNodeRows(text, path);
}

Expected<std::vector<OpenbPodRow>> readOpenbPodRows(const std::string& path) {
  TESSERA_TRY(text, readFile(path));
  return parseOpenbPodRows(text, path);
}

}  // namespace tessera
