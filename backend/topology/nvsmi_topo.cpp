#include "topology/nvsmi_topo.h"

#include <optional>
#include <unordered_map>
#include <utility>

#include "core/strings.h"

namespace tessera {

namespace {

constexpr std::string_view kCpuAffinity = "CPU Affinity";
constexpr std::string_view kNumaAffinity = "NUMA Affinity";
constexpr std::string_view kLegend = "Legend:";
constexpr std::string_view kNicLegend = "NIC Legend:";
constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
// Error messages quote cells; garbage input must not turn one message into megabytes.
constexpr size_t kMaxQuotedChars = 40;
// Linux NUMA node IDs stay below MAX_NUMNODES (at most 1 << 10), so anything past this bound
// is damaged text, not a node.
constexpr int kMaxNumaNode = 4095;

struct Line {
  int number = 0;    // 1-based, as an editor shows it
  std::string text;  // without CR and ANSI escape sequences
};

enum class DeviceKind { Gpu, Nic };

struct Device {
  std::string name;  // the header's column name
  DeviceKind kind = DeviceKind::Gpu;
  size_t ordinal = 0;  // position among devices of the same kind
};

struct Header {
  int line = 0;
  size_t fieldCount = 0;        // including the empty top-left field
  std::vector<Device> devices;  // field i+1 of every row links to devices[i]
  std::unordered_map<std::string, size_t> deviceByName;
  std::optional<size_t> cpuField;
  std::optional<size_t> numaField;
  // nvidia-smi puts an unlabelled empty field after NUMA Affinity in GPU rows whenever a
  // column (GPU NUMA ID) follows it, so such rows hold one field more than the header.
  bool numaGap = false;
};

// One matrix line split into TAB fields, before its cells are interpreted.
struct RowText {
  const Line& line;
  std::string_view label;
  std::vector<std::string_view> fields;  // trailing empty fields beyond the header dropped
  size_t rawFieldCount = 0;              // as written, for error messages
};

// What the NIC legend has said so far: each NIC and each device name appears at most once,
// since two lines for one NIC (or one name for two NICs) cannot both be true of one machine.
struct NicLegend {
  std::vector<std::string> names;                     // by NIC ordinal
  std::vector<int> entryLine;                         // by NIC ordinal, 0 = not in the legend
  std::unordered_map<std::string, int> lineOfDevice;  // legend device name -> its line
};

struct Row {
  int line = 0;
  std::vector<GpuLink> links;    // indexed like Header::devices
  std::vector<int> linkColumns;  // text column of each link cell, for error locations
  std::string cpuAffinity;
  int numaAffinity = -1;
};

// Drops ESC[...x control sequences (terminal underline around the header, colours).
std::string stripAnsi(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\x1b') {
      out += s[i];
      continue;
    }
    if (i + 1 < s.size() && s[i + 1] == '[') {
      i += 2;
      while (i < s.size() && (s[i] < '\x40' || s[i] > '\x7e')) ++i;
    }
  }
  return out;
}

std::vector<Line> splitLines(std::string_view text) {
  if (text.substr(0, kUtf8Bom.size()) == kUtf8Bom) text.remove_prefix(kUtf8Bom.size());
  std::vector<Line> lines;
  int number = 0;
  for (auto raw : split(text, '\n')) {
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    lines.push_back(Line{++number, stripAnsi(raw)});
  }
  return lines;
}

bool isBlank(const Line& line) {
  return trim(line.text).empty();
}

bool isGpuColumnName(std::string_view name) {
  if (name.size() <= 3 || name.substr(0, 3) != "GPU") return false;
  for (char c : name.substr(3))
    if (c < '0' || c > '9') return false;
  return true;
}

// Device names (GPU0, NIC0, mlx5_0) never contain spaces; the affinity columns always do.
bool isAttributeColumnName(std::string_view name) {
  return name.find(' ') != std::string_view::npos;
}

std::string quoted(std::string_view cell) {
  std::string text(cell.substr(0, kMaxQuotedChars));
  if (cell.size() > kMaxQuotedChars) text += "...";
  return "'" + text + "'";
}

int columnOf(std::string_view field, const std::string& lineText) {
  return static_cast<int>(field.data() - lineText.data()) + 1;
}

// Trailing empty fields come and go with editors and copy/paste; only the ones the header
// accounts for matter.
void dropSurplusEmptyFields(std::vector<std::string_view>& fields, size_t keep) {
  while (fields.size() > keep && trim(fields.back()).empty()) fields.pop_back();
}

bool isValidCpuList(std::string_view list) {
  return parseCpuList(list).has_value();
}

std::optional<int> parseNumaAffinity(std::string_view cell) {
  if (cell.empty() || cell == "N/A") return -1;
  const auto node = parseInt(cell);
  if (!node || *node < 0 || *node > kMaxNumaNode) return std::nullopt;
  return node;
}

// nvidia-smi names GPU columns by index, so the k-th GPU column is "GPU<k>". Comparing text
// rather than parsing the number keeps "GPU99999999999999999999" from overflowing anything.
std::string expectedGpuColumnName(size_t ordinal) {
  return "GPU" + std::to_string(ordinal);
}

class TopoParser {
 public:
  TopoParser(std::string_view text, const std::string& fileName)
      : file_(fileName), lines_(splitLines(text)) {}

  Expected<TopoMatrix> parse() {
    TESSERA_TRY(headerIndex, findHeaderLine());
    TESSERA_TRY(header, parseHeader(lines_[headerIndex]));
    header_ = std::move(header);
    rows_.resize(header_.devices.size());
    TESSERA_TRY(afterMatrix, parseMatrixRows(headerIndex + 1));
    TESSERA_CHECK(checkEveryRowPresent());
    TESSERA_CHECK(checkSymmetry());
    TESSERA_TRY(nicNames, readNicNames(afterMatrix));
    return assemble(std::move(nicNames));
  }

 private:
  Error errorAt(int line, int column, std::string field, std::string message) const {
    return Error{std::move(message), SourceLocation{file_, line, column, std::move(field)}};
  }

  // The header is the first non-blank line; anything else there means this is not topo output.
  Expected<size_t> findHeaderLine() const {
    for (size_t i = 0; i < lines_.size(); ++i)
      if (!isBlank(lines_[i])) return i;
    return errorAt(0, 0, {}, "no header row found: the input holds no text");
  }

  Error noHeader(const Line& line, std::string_view why) const {
    return errorAt(line.number, 1, {},
                   "no header row found: " + std::string(why) +
                       " (expected a line that starts with a TAB followed by GPU0, GPU1, ...)");
  }

  Expected<Header> parseHeader(const Line& line) const {
    auto fields = split(line.text, '\t');
    dropSurplusEmptyFields(fields, 1);
    if (fields.size() < 2 || !trim(fields[0]).empty())
      return noHeader(line,
                      "the first non-blank line does not start with a TAB-separated column list");
    Header header;
    header.line = line.number;
    header.fieldCount = fields.size();
    TESSERA_CHECK(classifyHeaderColumns(fields, line, header));
    if (header.devices.empty() || header.devices.front().kind != DeviceKind::Gpu)
      return noHeader(line, "the column list does not start with a GPU column");
    header.numaGap = header.numaField && *header.numaField + 1 < header.fieldCount;
    return header;
  }

  Status classifyHeaderColumns(const std::vector<std::string_view>& fields, const Line& line,
                               Header& header) const {
    bool inAttributes = false;
    size_t gpus = 0;
    size_t nics = 0;
    for (size_t i = 1; i < fields.size(); ++i) {
      const auto name = trim(fields[i]);
      const int column = columnOf(fields[i], line.text);
      if (name.empty())
        return errorAt(line.number, column, {},
                       "header column " + std::to_string(i) + " has no name");
      if (isAttributeColumnName(name)) {
        inAttributes = true;
        if (name == kCpuAffinity) header.cpuField = i;
        if (name == kNumaAffinity) header.numaField = i;
        continue;
      }
      if (inAttributes)
        return errorAt(line.number, column, std::string(name),
                       "header column '" + std::string(name) + "' follows the affinity columns");
      if (!header.deviceByName.emplace(std::string(name), header.devices.size()).second)
        return errorAt(line.number, column, std::string(name),
                       "header names " + std::string(name) + " twice");
      const bool gpu = isGpuColumnName(name);
      if (gpu && name != expectedGpuColumnName(gpus))
        return errorAt(line.number, column, std::string(name.substr(0, kMaxQuotedChars)),
                       "header column " + quoted(name) + " should be " +
                           expectedGpuColumnName(gpus) +
                           ": GPU columns are numbered GPU0, GPU1, ... in order");
      header.devices.push_back(Device{std::string(name), gpu ? DeviceKind::Gpu : DeviceKind::Nic,
                                      gpu ? gpus++ : nics++});
    }
    return okStatus();
  }

  std::optional<size_t> deviceIndex(std::string_view name) const {
    const auto it = header_.deviceByName.find(std::string(name));
    if (it == header_.deviceByName.end()) return std::nullopt;
    return it->second;
  }

  size_t deviceCount() const { return header_.devices.size(); }

  size_t fullRowFieldCount() const { return header_.fieldCount + (header_.numaGap ? 1 : 0); }

  // Reads rows until the blank line or "Legend:" that ends the matrix; returns the index of
  // the first line after it.
  Expected<size_t> parseMatrixRows(size_t first) {
    bool anyRow = false;
    for (size_t i = first; i < lines_.size(); ++i) {
      const Line& line = lines_[i];
      if (isBlank(line)) {
        if (anyRow) return i;
        continue;
      }
      if (trim(line.text).substr(0, kLegend.size()) == kLegend) return i;
      TESSERA_CHECK(parseRow(line));
      anyRow = true;
    }
    return lines_.size();
  }

  Status parseRow(const Line& line) {
    RowText text{line, {}, split(line.text, '\t'), 0};
    text.rawFieldCount = text.fields.size();
    dropSurplusEmptyFields(text.fields, header_.fieldCount);
    text.label = trim(text.fields[0]);
    const auto device = deviceIndex(text.label);
    if (!device)
      return errorAt(line.number, 1, {},
                     "row label " + quoted(text.label) + " is not a column of the header");
    if (rows_[*device])
      return errorAt(line.number, 1, std::string(text.label),
                     "row " + std::string(text.label) + " appears twice (first on line " +
                         std::to_string(rows_[*device]->line) + ")");
    if (text.fields.size() > fullRowFieldCount()) return wrongCellCount(text);
    const bool gpuRow = header_.devices[*device].kind == DeviceKind::Gpu;
    if (!gpuRow) TESSERA_CHECK(checkNothingAfterLinks(text));
    Row row;
    row.line = line.number;
    TESSERA_CHECK(parseLinks(text, *device, row));
    if (gpuRow) TESSERA_CHECK(parseAffinity(text, row));
    rows_[*device] = std::move(row);
    return okStatus();
  }

  Error wrongCellCount(const RowText& text) const {
    return errorAt(text.line.number, 0, std::string(text.label),
                   "row " + std::string(text.label) + ": wrong number of cells: found " +
                       std::to_string(text.rawFieldCount) + ", expected " +
                       std::to_string(fullRowFieldCount()) + " like the header");
  }

  // NIC rows carry no affinity, so text after their link cells means a surplus cell that
  // pushed the others one column to the right.
  Status checkNothingAfterLinks(const RowText& text) const {
    for (size_t i = deviceCount() + 1; i < text.fields.size(); ++i)
      if (!trim(text.fields[i]).empty()) return wrongCellCount(text);
    return okStatus();
  }

  // A row that lost a cell shifts its affinity text (digits) or an empty field into the
  // last link column; that is a cell-count problem, not a bad link code.
  bool looksShifted(std::string_view cell, const RowText& text) const {
    if (text.fields.size() >= fullRowFieldCount()) return false;
    return cell.empty() || (cell.front() >= '0' && cell.front() <= '9');
  }

  Status parseLinks(const RowText& text, size_t device, Row& row) const {
    const std::string& rowName = header_.devices[device].name;
    for (size_t d = 0; d < deviceCount(); ++d) {
      if (d + 1 >= text.fields.size()) return wrongCellCount(text);
      const auto cell = trim(text.fields[d + 1]);
      const int column = columnOf(text.fields[d + 1], text.line.text);
      const std::string& columnName = header_.devices[d].name;
      const auto link = parseGpuLink(cell);
      if (!link) {
        if (looksShifted(cell, text)) return wrongCellCount(text);
        return errorAt(text.line.number, column, rowName + "." + columnName,
                       rowName + " column " + columnName + ": unknown link " + quoted(cell));
      }
      TESSERA_CHECK(checkSelfCell(*link, d == device, text.line, column, rowName, columnName));
      row.links.push_back(*link);
      row.linkColumns.push_back(column);
    }
    return okStatus();
  }

  Status checkSelfCell(const GpuLink& link, bool onDiagonal, const Line& line, int column,
                       const std::string& rowName, const std::string& columnName) const {
    const bool isSelf = link.kind == LinkKind::Self;
    if (onDiagonal == isSelf) return okStatus();
    const std::string where = rowName + " column " + columnName + ": ";
    const std::string message =
        onDiagonal ? where + "diagonal cell must be 'X', found '" + link.str() + "'"
                   : where + "'X' belongs on the diagonal only";
    return errorAt(line.number, column, rowName + "." + columnName, message);
  }

  Status parseAffinity(const RowText& text, Row& row) const {
    if (text.fields.size() < header_.fieldCount) return wrongCellCount(text);
    if (text.fields.size() > header_.fieldCount) TESSERA_CHECK(checkNumaGapIsEmpty(text));
    if (header_.cpuField) TESSERA_CHECK(readCpuAffinity(text, text.fields[*header_.cpuField], row));
    if (header_.numaField)
      TESSERA_CHECK(readNumaAffinity(text, text.fields[*header_.numaField], row));
    return okStatus();
  }

  // Only the unlabelled gap after NUMA Affinity may make a GPU row longer than the header.
  Status checkNumaGapIsEmpty(const RowText& text) const {
    if (!header_.numaGap) return wrongCellCount(text);
    const auto gap = text.fields[*header_.numaField + 1];
    if (trim(gap).empty()) return okStatus();
    const std::string label(text.label);
    return errorAt(text.line.number, columnOf(gap, text.line.text), label,
                   "row " + label + ": the field after NUMA Affinity must be empty, found " +
                       quoted(trim(gap)));
  }

  Status readCpuAffinity(const RowText& text, std::string_view field, Row& row) const {
    const auto cell = trim(field);
    const std::string label(text.label);
    if (!isValidCpuList(cell))
      return errorAt(text.line.number, columnOf(field, text.line.text),
                     label + "." + std::string(kCpuAffinity),
                     label + ": bad CPU affinity " + quoted(cell) +
                         " (expected a cpulist such as 0-55,112-167)");
    row.cpuAffinity = std::string(cell);
    return okStatus();
  }

  Status readNumaAffinity(const RowText& text, std::string_view field, Row& row) const {
    const auto cell = trim(field);
    const std::string label(text.label);
    const auto node = parseNumaAffinity(cell);
    if (!node)
      return errorAt(text.line.number, columnOf(field, text.line.text),
                     label + "." + std::string(kNumaAffinity),
                     label + ": bad NUMA affinity " + quoted(cell) + " (expected a node number 0-" +
                         std::to_string(kMaxNumaNode) + " or N/A)");
    row.numaAffinity = *node;
    return okStatus();
  }

  Status checkEveryRowPresent() const {
    for (size_t d = 0; d < deviceCount(); ++d) {
      if (rows_[d]) continue;
      const std::string& name = header_.devices[d].name;
      const char* kind = header_.devices[d].kind == DeviceKind::Gpu ? "GPU" : "NIC";
      return errorAt(header_.line, 0, name,
                     std::string(kind) + " row missing: the header names " + name + " but no row " +
                         name + " follows");
    }
    return okStatus();
  }

  // nvidia-smi reports one path per device pair, so the two cells of a pair must agree;
  // a mismatch means the text was edited or spliced from two machines.
  Status checkSymmetry() const {
    for (size_t a = 0; a < deviceCount(); ++a)
      for (size_t b = a + 1; b < deviceCount(); ++b) TESSERA_CHECK(checkPairAgrees(a, b));
    return okStatus();
  }

  Status checkPairAgrees(size_t a, size_t b) const {
    const Row& rowA = *rows_[a];
    const Row& rowB = *rows_[b];
    if (rowA.links[b] == rowB.links[a]) return okStatus();
    const std::string& nameA = header_.devices[a].name;
    const std::string& nameB = header_.devices[b].name;
    const bool gpuPair =
        header_.devices[a].kind == DeviceKind::Gpu && header_.devices[b].kind == DeviceKind::Gpu;
    const bool bLater = rowB.line > rowA.line;
    return errorAt(bLater ? rowB.line : rowA.line,
                   bLater ? rowB.linkColumns[a] : rowA.linkColumns[b],
                   bLater ? nameB + "." + nameA : nameA + "." + nameB,
                   std::string(gpuPair ? "asymmetric GPU matrix: " : "asymmetric matrix: ") +
                       nameA + "->" + nameB + " is " + rowA.links[b].str() + " but " + nameB +
                       "->" + nameA + " is " + rowB.links[a].str());
  }

  std::vector<size_t> devicesOfKind(DeviceKind kind) const {
    std::vector<size_t> out;
    for (size_t d = 0; d < deviceCount(); ++d)
      if (header_.devices[d].kind == kind) out.push_back(d);
    return out;
  }

  Expected<std::vector<std::string>> readNicNames(size_t from) const {
    NicLegend legend;
    for (size_t d : devicesOfKind(DeviceKind::Nic)) legend.names.push_back(header_.devices[d].name);
    legend.entryLine.assign(legend.names.size(), 0);
    for (size_t i = from; i < lines_.size(); ++i)
      if (trim(lines_[i].text) == kNicLegend) {
        TESSERA_CHECK(applyNicLegend(i + 1, legend));
        break;
      }
    return std::move(legend.names);
  }

  // Entries look like "  NIC0: mlx5_0"; the section ends at the first line of another shape.
  Status applyNicLegend(size_t first, NicLegend& legend) const {
    bool anyEntry = false;
    for (size_t i = first; i < lines_.size(); ++i) {
      const auto text = trim(lines_[i].text);
      if (text.empty()) {
        if (anyEntry) break;
        continue;
      }
      const auto colon = text.find(':');
      if (colon == std::string_view::npos) break;
      TESSERA_CHECK(applyNicLegendEntry(lines_[i], text, colon, legend));
      anyEntry = true;
    }
    return okStatus();
  }

  Status applyNicLegendEntry(const Line& line, std::string_view text, size_t colon,
                             NicLegend& legend) const {
    const auto key = trim(text.substr(0, colon));
    const auto value = trim(text.substr(colon + 1));
    const auto device = deviceIndex(key);
    const int column = columnOf(key, line.text);
    if (!device || header_.devices[*device].kind != DeviceKind::Nic)
      return errorAt(
          line.number, column, "NIC Legend",
          "NIC legend names " + quoted(key) + ", which is not a NIC column of the header");
    if (value.empty())
      return errorAt(line.number, column, "NIC Legend",
                     "NIC legend entry " + std::string(key) + " has no device name");
    const size_t nic = header_.devices[*device].ordinal;
    TESSERA_CHECK(checkNicLegendRepeat(line, column, key, value, nic, legend));
    legend.names[nic] = std::string(value);
    legend.entryLine[nic] = line.number;
    legend.lineOfDevice.emplace(std::string(value), line.number);
    return okStatus();
  }

  Status checkNicLegendRepeat(const Line& line, int column, std::string_view key,
                              std::string_view value, size_t nic, const NicLegend& legend) const {
    if (legend.entryLine[nic] != 0)
      return errorAt(line.number, column, "NIC Legend",
                     "NIC legend names " + std::string(key) + " twice (first on line " +
                         std::to_string(legend.entryLine[nic]) + ")");
    const auto other = legend.lineOfDevice.find(std::string(value));
    if (other == legend.lineOfDevice.end()) return okStatus();
    return errorAt(line.number, column, "NIC Legend",
                   "NIC legend gives " + std::string(key) + " the device name " + quoted(value) +
                       ", which line " + std::to_string(other->second) +
                       " already gives another NIC");
  }

  std::vector<std::vector<GpuLink>> linkBlock(const std::vector<size_t>& rowDevices,
                                              const std::vector<size_t>& columnDevices) const {
    std::vector<std::vector<GpuLink>> block;
    block.reserve(rowDevices.size());
    for (size_t r : rowDevices) {
      std::vector<GpuLink> links;
      links.reserve(columnDevices.size());
      for (size_t c : columnDevices) links.push_back(rows_[r]->links[c]);
      block.push_back(std::move(links));
    }
    return block;
  }

  TopoMatrix assemble(std::vector<std::string> nicNames) const {
    const auto gpus = devicesOfKind(DeviceKind::Gpu);
    const auto nics = devicesOfKind(DeviceKind::Nic);
    TopoMatrix m;
    for (size_t g : gpus) {
      m.gpus.push_back(header_.devices[g].name);
      m.cpuAffinity.push_back(rows_[g]->cpuAffinity);
      m.numaAffinity.push_back(rows_[g]->numaAffinity);
    }
    m.nics = std::move(nicNames);
    m.gpuGpu = linkBlock(gpus, gpus);
    m.gpuNic = linkBlock(gpus, nics);
    m.nicNic = linkBlock(nics, nics);
    return m;
  }

  const std::string& file_;
  std::vector<Line> lines_;
  Header header_;
  std::vector<std::optional<Row>> rows_;  // indexed like Header::devices
};

}  // namespace

Expected<TopoMatrix> parseNvidiaSmiTopo(std::string_view text, const std::string& fileName) {
  return TopoParser(text, fileName).parse();
}

}  // namespace tessera
