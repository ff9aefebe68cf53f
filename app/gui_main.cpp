// blasscope: the desktop inspector.
#include <QApplication>
#include <QCommandLineParser>

#include "main_window.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("BLAScope"));
  QApplication::setApplicationVersion(QStringLiteral(BLASSCOPE_VERSION));
  QApplication::setOrganizationName(QStringLiteral("BLAScope"));

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Inspector and profiler for BLAS/LAPACK workloads."));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(QStringLiteral("files"),
                               QStringLiteral("Tensor files to open (.npy, .npz, .safetensors)."),
                               QStringLiteral("[files...]"));
  const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                      QStringLiteral("Save a PNG of the window once all files are read, then quit."),
                                      QStringLiteral("png"));
  parser.addOption(screenshot);
  parser.process(app);

  blasscope::ui::MainWindow window;
  window.show();
  window.openFiles(parser.positionalArguments());
  if (parser.isSet(screenshot)) window.saveScreenshotWhenIdle(parser.value(screenshot));
  return app.exec();
}
