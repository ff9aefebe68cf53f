#include "file_loader.h"

#include "io/input_error.h"
#include "io/tensor_file_reader.h"

namespace blasscope::ui {

FileLoader::FileLoader(QObject* parent) : QObject(parent), m_task(this) {}

FileLoader::~FileLoader() {
  cancel();
}

void FileLoader::load(const QString& path) {
  cancel();
  m_busy = true;
  m_task.launch([this, path](std::stop_token stop, quint64 generation) { run(stop, path, generation); });
}

void FileLoader::cancel() {
  const bool wasBusy = m_busy;
  if (!m_task.stop()) return;
  m_busy = false;
  if (wasBusy) emit cancelled();
}

template <typename F>
void FileLoader::post(quint64 generation, F&& deliver) {
  m_task.post(generation, std::forward<F>(deliver));
}

void FileLoader::run(std::stop_token stop, QString path, quint64 generation) {
  try {
    const core::TensorFile file = core::open_tensor_file(path.toStdString());
    core::InspectReport report = core::describe_file(file);
    post(generation, [this, path, report] { emit described(path, report); });
    core::ScanOptions options;
    options.stop = stop;
    options.progress = [&](std::uint64_t done, std::uint64_t total) {
      post(generation, [this, done, total] { emit progress(static_cast<qint64>(done), static_cast<qint64>(total)); });
    };
    core::scan_report(file, report, options, [&](std::size_t row) {
      post(generation,
           [this, row, tensor = report.tensors[row]] { emit tensorScanned(static_cast<int>(row), tensor); });
    });
    post(generation, [this, report] {
      m_busy = false;
      emit finished(report);
    });
  } catch (const core::ScanCancelled&) {
    // cancel() already reported it
  } catch (const core::InputError& error) {
    const QString message = QString::fromUtf8(error.what());
    post(generation, [this, path, message] {
      m_busy = false;
      emit failed(path, message);
    });
  } catch (const std::exception& error) {
    const QString message = tr("unexpected error: %1").arg(QString::fromUtf8(error.what()));
    post(generation, [this, path, message] {
      m_busy = false;
      emit failed(path, message);
    });
  }
}

}  // namespace blasscope::ui
