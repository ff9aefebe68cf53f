// blasscope: the desktop inspector.
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QPalette>
#include <QStyleFactory>
#include <QTimer>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "guarded_application.h"
#include "main_window.h"

namespace {

// A dark Fusion palette: what --theme dark asks for (the default follows the system).
void apply_dark_palette(QApplication& app) {
  app.setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
  QPalette p;
  const QColor window(0x2b, 0x2b, 0x2b), base(0x1e, 0x1e, 0x1e), text(0xe6, 0xe6, 0xe6);
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, QColor(0x33, 0x33, 0x33));
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::PlaceholderText, QColor(0x9a, 0x9a, 0x9a));
  p.setColor(QPalette::Button, window);
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::ToolTipBase, base);
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::Highlight, QColor(0x2f, 0x6f, 0xb8));
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::Link, QColor(0x6a, 0xb0, 0xff));
  app.setPalette(p);
}

// The command line's options, for the GUI and for --help, which needs no display.
struct GuiOptions {
  QCommandLineOption scenario{QStringLiteral("scenario"), QStringLiteral("Open a built-in scenario."),
                              QStringLiteral("id")};
  QCommandLineOption run{QStringLiteral("run"), QStringLiteral("Run it at once on cpu, gpu or both."),
                         QStringLiteral("device")};
  QCommandLineOption screenshot{QStringLiteral("screenshot"),
                                QStringLiteral("When the load/run is done, save one PNG per view into DIR, then quit."),
                                QStringLiteral("dir")};
  QCommandLineOption theme{QStringLiteral("theme"), QStringLiteral("light, dark or system (the default)."),
                           QStringLiteral("theme"), QStringLiteral("system")};
  QCommandLineOption size{QStringLiteral("size"), QStringLiteral("Window size, e.g. 1280x800."), QStringLiteral("WxH")};

  void add_to(QCommandLineParser& parser) const {
    parser.setApplicationDescription(QStringLiteral("Inspector and profiler for BLAS/LAPACK workloads."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("file"),
                                 QStringLiteral("A tensor file, a workload or a session to open."),
                                 QStringLiteral("[file]"));
    parser.addOptions({scenario, run, screenshot, theme, size});
  }
};

void set_application_names() {
  QCoreApplication::setApplicationName(QStringLiteral("BLAScope"));
  QCoreApplication::setApplicationVersion(QStringLiteral(BLASSCOPE_VERSION));
  QCoreApplication::setOrganizationName(QStringLiteral("BLAScope"));
}

bool asks_only_for_text(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "-h" || arg == "--help" || arg == "--help-all" || arg == "-v" || arg == "--version") {
      return true;
    }
  }
  return false;
}

// Where Qt would abort without a word a user can act on: no X11 or Wayland display to open,
// and no platform chosen (QT_QPA_PLATFORM, or Qt's own -platform argument).
bool no_display(int argc, char** argv) {
  const auto unset = [](const char* name) {
    const char* value = std::getenv(name);
    return !value || !*value;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "-platform" || arg == "--platform" || arg.starts_with("-platform=") || arg.starts_with("--platform=")) {
      return false;
    }
  }
  return unset("DISPLAY") && unset("WAYLAND_DISPLAY") && unset("QT_QPA_PLATFORM");
}

}  // namespace

int main(int argc, char** argv) {
  const GuiOptions options;
  if (asks_only_for_text(argc, argv)) {
    // --help and --version print and exit: no display needed for that.
    QCoreApplication text_only(argc, argv);
    set_application_names();
    QCommandLineParser parser;
    options.add_to(parser);
    parser.process(text_only);
    return 0;
  }
  if (no_display(argc, argv)) {
    std::fprintf(stderr,
                 "blasscope: no display to open (neither DISPLAY nor WAYLAND_DISPLAY is set). Run it in a desktop "
                 "session, with QT_QPA_PLATFORM=offscreen for --screenshot, or use blasscope-cli on a machine "
                 "without one.\n");
    return 1;
  }
  QElapsedTimer since_start;  // screenshot mode says how long opening took
  since_start.start();
  blasscope::ui::GuardedApplication app(argc, argv);
  set_application_names();

  QCommandLineParser parser;
  options.add_to(parser);
  parser.process(app);
  const QCommandLineOption &scenario = options.scenario, &run = options.run, &screenshot = options.screenshot,
                           &theme = options.theme, &size = options.size;

  if (parser.value(theme) == QStringLiteral("dark")) apply_dark_palette(app);
  if (parser.value(theme) == QStringLiteral("light")) app.setStyle(QStyleFactory::create(QStringLiteral("Fusion")));

  blasscope::ui::MainWindow window;
  if (parser.isSet(size)) {
    const QStringList wh = parser.value(size).split(QLatin1Char('x'));
    if (wh.size() == 2) window.resize(wh[0].toInt(), wh[1].toInt());
  }
  window.show();
  const bool screenshots = parser.isSet(screenshot);
  window.setInteractive(!screenshots);
  bool waiting = false;
  bool finishing = false;  // idle can come more than once: a failed open, then the start-up check
  qint64 opened_ms = -1;   // set where opening finished inside open() itself
  if (screenshots) {
    QObject::connect(
        &window, &blasscope::ui::MainWindow::idle, &app,
        [&] {
          if (window.isBusy() || window.isReadingValues() || finishing) return;
          finishing = true;
          if (!window.lastWarning().isEmpty()) {
            std::fprintf(stderr, "no screenshots saved, after the warning above\n");
            QApplication::exit(2);
            return;
          }
          // Opened when the window fell idle, or when open() returned where it had nothing left to
          // do: not the settling wait below.
          std::printf("opened in %.2f s\n",
                      static_cast<double>(opened_ms >= 0 ? opened_ms : since_start.elapsed()) / 1e3);
          QTimer::singleShot(300, &app, [&] {
            const bool ok = window.saveViewScreenshots(parser.value(screenshot));
            std::printf("screenshots %s in %s\n", ok ? "saved" : "FAILED", qPrintable(parser.value(screenshot)));
            QApplication::exit(ok ? 0 : 1);
          });
        },
        Qt::QueuedConnection);  // queued: idle may come before app.exec(), when exit() would be lost
  }
  if (parser.isSet(scenario)) {
    window.open(QStringLiteral("scenario:") + parser.value(scenario));
  } else if (!parser.positionalArguments().isEmpty()) {
    window.open(parser.positionalArguments().front());
  }
  if (parser.isSet(run)) window.runOn(parser.value(run));
  waiting = window.isBusy();
  if (screenshots && !waiting) {
    opened_ms = since_start.elapsed();
    QTimer::singleShot(300, &app, [&] { emit window.idle(); });
  }
  return app.exec();
}
