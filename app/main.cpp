// tessera: the desktop console, and the command-line verbs when one is named.
#include <QApplication>
#include <QCommandLineParser>
#include <QLocale>
#include <QTimer>
#include <QTranslator>

#include <cstdio>
#include <iostream>

#include "cli/cli.h"
#include "clusterspec/cluster_spec.h"
#include "clusterspec/cluster_summary.h"
#include "console/main_window.h"

namespace {

bool displayAvailable() {
#ifdef Q_OS_LINUX
  return qEnvironmentVariableIsSet("DISPLAY") || qEnvironmentVariableIsSet("WAYLAND_DISPLAY") ||
         qEnvironmentVariableIsSet("QT_QPA_PLATFORM");
#else
  return true;
#endif
}

std::shared_ptr<const tessera::Cluster> loadCluster(const QString& path) {
  if (path.isEmpty()) return tessera::demoCluster();
  auto cluster = tessera::loadClusterSpecFile(path.toStdString());
  if (!cluster) {
    std::cerr << "tessera: " << cluster.error().str() << "\n";
    return nullptr;
  }
  return *cluster;
}

int runConsole(int argc, char** argv) {
  // Without any display, Qt would abort; say what the console would show and how to get it.
  if (!displayAvailable()) {
    std::cout << tessera::formatSummary(tessera::summarize(*tessera::demoCluster()))
              << "\ntessera: no display found (DISPLAY/WAYLAND_DISPLAY unset), so the console window was not "
                 "opened.\nRun it in a desktop session, under xvfb-run, or with QT_QPA_PLATFORM=offscreen "
                 "--screenshot FILE.\n";
    return 0;
  }
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("tessera"));
  QApplication::setApplicationVersion(QStringLiteral("0.1.0"));
  // UI language follows the system locale (LANG/LC_ALL); English is built in.
  QTranslator translator;
  if (translator.load(QLocale(), QStringLiteral("tessera"), QStringLiteral("_"), QStringLiteral(":/i18n")))
    QApplication::installTranslator(&translator);
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Tessera GPU cluster operations console"));
  parser.addHelpOption();
  const QCommandLineOption clusterOpt(QStringLiteral("cluster"), QStringLiteral("Cluster spec to open (default: demo)."),
                                      QStringLiteral("FILE"));
  const QCommandLineOption shotOpt(QStringLiteral("screenshot"),
                                   QStringLiteral("Render the window to a PNG file and exit."), QStringLiteral("FILE"));
  parser.addOption(clusterOpt);
  parser.addOption(shotOpt);
  parser.process(app);
  auto cluster = loadCluster(parser.value(clusterOpt));
  if (!cluster) return 2;
  tessera::console::MainWindow window(cluster);
  window.show();
  if (parser.isSet(shotOpt)) {
    const QString file = parser.value(shotOpt);
    QTimer::singleShot(300, &window, [&window, file] {
      const bool ok = window.grab().save(file);
      std::fprintf(ok ? stdout : stderr, ok ? "wrote %s\n" : "tessera: cannot write %s\n", qPrintable(file));
      QApplication::exit(ok ? 0 : 2);
    });
  }
  return QApplication::exec();
}

}  // namespace

int main(int argc, char** argv) {
  if (tessera::cli::isVerbInvocation(argc, argv)) return tessera::cli::run(argc, argv, std::cout, std::cerr);
  return runConsole(argc, argv);
}
