// tessera: the desktop console, and the command-line verbs when one is named.
#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QSettings>
#include <QTranslator>

#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>

#include "cli/cli.h"
#include "clusterspec/cluster_spec.h"
#include "clusterspec/cluster_summary.h"
#include "console/main_window.h"
#include "console/settings_dialog.h"
#include "workload/workload_spec.h"

namespace {

bool displayAvailable() {
#ifdef Q_OS_LINUX
  return qEnvironmentVariableIsSet("DISPLAY") || qEnvironmentVariableIsSet("WAYLAND_DISPLAY") ||
         qEnvironmentVariableIsSet("QT_QPA_PLATFORM");
#else
  return true;
#endif
}

struct ConsoleOptions {
  std::string cluster;  // empty: the built-in demo cluster
  std::string catalog;  // empty: the built-in GPU catalog alone
  QString screenshot;   // empty: keep the window open
};

// Reads the console's options (tessera::cli::kConsoleOptions) from `args`, which Qt has already
// stripped of its own (-platform, -style, ...). Returns an exit code when the process ends here:
// 0 after help, 2 on a usage error.
std::optional<int> parseConsoleOptions(const QStringList& args, ConsoleOptions& options) {
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Tessera GPU cluster operations console"));
  const QCommandLineOption help = parser.addHelpOption();
  const auto qstr = [](std::string_view s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
  };
  for (const auto& o : tessera::cli::kConsoleOptions)
    parser.addOption(QCommandLineOption(qstr(o.name), qstr(o.help), QStringLiteral("FILE")));
  if (!parser.parse(args)) {
    std::cerr << "tessera: " << parser.errorText().toStdString()
              << "\nRun 'tessera --help' for usage.\n";
    return tessera::cli::kExitUsage;
  }
  // --help-all (Qt's, added with the help option) shows the same text: only these options matter.
  if (parser.isSet(help) || parser.isSet(QStringLiteral("help-all"))) {
    std::cout << parser.helpText().toStdString();
    return tessera::cli::kExitOk;
  }
  options.cluster = parser.value(QStringLiteral("cluster")).toStdString();
  options.catalog = parser.value(QStringLiteral("catalog")).toStdString();
  options.screenshot = parser.value(QStringLiteral("screenshot"));
  return std::nullopt;
}

// --cluster (or the demo cluster) read with the built-in catalog plus --catalog. On error prints
// it and sets `failure`: 2 for a catalog problem or an unreadable spec, 1 for a spec that was read
// and is invalid (the verbs' rule).
std::shared_ptr<const tessera::Cluster> loadCluster(const ConsoleOptions& options, int& failure) {
  auto catalog = tessera::loadCatalog(options.catalog);
  if (!catalog) {
    std::cerr << "tessera: " << catalog.error().str() << "\n";
    failure = tessera::cli::kExitUsage;
    return nullptr;
  }
  auto cluster = tessera::loadClusterOrDemo(options.cluster, *catalog);
  if (!cluster) {
    std::cerr << "tessera: " << cluster.error().str() << "\n";
    failure = tessera::cli::loadErrorCode(options.cluster);
    return nullptr;
  }
  return *cluster;
}

// Without any display Qt would abort: say what the console would show and how to get it.
int runWithoutDisplay(int argc, char** argv) {
  const QCoreApplication app(argc, argv);
  ConsoleOptions options;
  if (auto code = parseConsoleOptions(QCoreApplication::arguments(), options)) return *code;
  int failure = 0;
  const auto cluster = loadCluster(options, failure);
  if (!cluster) return failure;
  std::cout
      << tessera::formatSummary(tessera::summarize(*cluster))
      << "\ntessera: no display found (DISPLAY/WAYLAND_DISPLAY unset), so the console window was "
         "not "
         "opened.\nRun it in a desktop session, under xvfb-run, or with QT_QPA_PLATFORM=offscreen "
         "--screenshot FILE.\n";
  return tessera::cli::kExitOk;
}

// Renders the window to `file` once it has been laid out, then quits (0, or 2 if not written).
void screenshotLater(tessera::console::MainWindow& window, const QString& file) {
  // Once the charts hold some history (the embedded engine's first cycles painted meanwhile).
  window.whenChartsFilled([&window, file] {
    const bool ok = window.grab().save(file);
    std::fprintf(ok ? stdout : stderr, ok ? "wrote %s\n" : "tessera: cannot write %s\n",
                 qPrintable(file));
    QApplication::exit(ok ? tessera::cli::kExitOk : tessera::cli::kExitUsage);
  });
}

int runConsole(int argc, char** argv) {
  if (!displayAvailable()) return runWithoutDisplay(argc, argv);
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("tessera"));
  QApplication::setOrganizationName(QStringLiteral("Tessera"));
  QApplication::setApplicationVersion(QStringLiteral("0.1.0"));
  // The installed desktop entry (installer/packaging): Wayland's app id and the X11 startup
  // notification then match it, so the shell shows its name and icon for the window.
  QGuiApplication::setDesktopFileName(QStringLiteral("io.github.tessera.Console"));
  // UI language: see console/settings_dialog.h (system locale, TESSERA_LANG, ui/language, which
  // the Settings dialog edits). Qt's own strings (standard dialog buttons, shortcuts) come from
  // qtbase_*.qm when Qt's translations are installed; without them those stay English.
  const QLocale ui = tessera::console::uiLocale();
  // Numbers and dates formatted through QLocale() then match the chosen language too.
  QLocale::setDefault(ui);
  QTranslator qtTranslator;
  if (qtTranslator.load(ui, QStringLiteral("qtbase"), QStringLiteral("_"),
                        QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
    QApplication::installTranslator(&qtTranslator);
  QTranslator translator;
  if (translator.load(ui, QStringLiteral("tessera"), QStringLiteral("_"), QStringLiteral(":/i18n")))
    QApplication::installTranslator(&translator);
  ConsoleOptions options;
  if (auto code = parseConsoleOptions(QApplication::arguments(), options)) return *code;
  int failure = 0;
  const auto cluster = loadCluster(options, failure);
  if (!cluster) return failure;
  // The catalog outlives the window: the MIG panels look GPU models up in it.
  const auto catalog = tessera::loadCatalog(options.catalog);
  tessera::console::EmbeddedOptions demo;
  demo.cluster = cluster;
  demo.catalog = catalog ? &*catalog : nullptr;
  // The demo workload is written for the demo cluster; another cluster starts with no jobs and
  // the synthetic load alone.
  if (options.cluster.empty()) {
    if (auto w = tessera::demoWorkload(demo.catalog)) demo.workload = std::move(*w);
  }
  tessera::console::MainWindow window(std::move(demo));
  window.show();
  if (!options.screenshot.isEmpty()) screenshotLater(window, options.screenshot);
  return QApplication::exec();
}

}  // namespace

int main(int argc, char** argv) {
  if (tessera::cli::isVerbInvocation(argc, argv))
    return tessera::cli::run(argc, argv, std::cout, std::cerr);
  return runConsole(argc, argv);
}
