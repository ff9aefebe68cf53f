#include "run_document.h"

#include <QObject>

#include "io/input_error.h"
#include "io/tensor_data.h"
#include "io/tensor_file_reader.h"
#include "report/inspect_text.h"
#include "tensor/byte_swap.h"
#include "workload/tensor_factory.h"

namespace blasscope::ui {
namespace {

// Larger tensors are not copied into the GUI process just to draw a histogram.
constexpr std::uint64_t kMaxHistogramBytes = 64ull << 20;

}  // namespace

std::shared_ptr<core::HostTensor> file_tensor_values(const core::TensorFile& file, const core::TensorInfo& info,
                                                     QString& why) {
  const QString name = QString::fromStdString(info.name);
  try {
    if (info.unread) {
      why = QString::fromStdString(info.unread->reason);
      return nullptr;
    }
    if (!core::is_scannable(info.dtype)) {
      const std::string_view dtype = core::name(info.dtype);
      why = QObject::tr("'%1' holds %2 values: they have no histogram")
                .arg(name, QString::fromUtf8(dtype.data(), static_cast<qsizetype>(dtype.size())));
      return nullptr;
    }
    if (info.nbytes > kMaxHistogramBytes) {
      why = QObject::tr("'%1' is %2: its histogram is left out above %3")
                .arg(name, QString::fromStdString(core::format_bytes(info.nbytes)),
                     QString::fromStdString(core::format_bytes(kMaxHistogramBytes)));
      return nullptr;
    }
    auto t = std::make_shared<core::HostTensor>(info.name, info.dtype, info.shape, info.order);
    core::read_tensor_bytes(file, info, t->data());
    if (info.byte_order == core::ByteOrder::Big) {
      core::copy_swapped(t->data(), t->data(), info.nbytes, core::swap_width(info.dtype));
    }
    return t;
  } catch (const core::InputError& error) {
    why = QString::fromUtf8(error.what());
  } catch (const std::bad_alloc&) {
    why = QObject::tr("not enough memory to read '%1'").arg(name);
  }
  return nullptr;
}

std::shared_ptr<core::HostTensor> document_tensor_values(const RunDocument& doc, const std::string& name,
                                                         QString& why) {
  try {
    if (doc.kind == RunDocument::Kind::TensorFile) {
      const core::TensorFile file = core::open_tensor_file(doc.source.toStdString());
      for (const auto& info : file.tensors) {
        if (info.name == name) return file_tensor_values(file, info, why);
      }
    } else if (doc.workload) {
      for (const auto& spec : doc.workload->tensors) {
        if (spec.name != name) continue;
        const auto need = core::requirement_of(spec);
        if (need.bytes > kMaxHistogramBytes) {
          why = QObject::tr("'%1' is %2: its histogram is left out above %3")
                    .arg(QString::fromStdString(name), QString::fromStdString(core::format_bytes(need.bytes)),
                         QString::fromStdString(core::format_bytes(kMaxHistogramBytes)));
          return nullptr;
        }
        return std::make_shared<core::HostTensor>(core::make_tensor(spec));
      }
    }
  } catch (const core::InputError& error) {
    why = QString::fromUtf8(error.what());
    return nullptr;
  } catch (const std::bad_alloc&) {
    why = QObject::tr("not enough memory to read '%1'").arg(QString::fromStdString(name));
    return nullptr;
  }
  why =
      QObject::tr("'%1' is made by an op inside the worker: its values are not kept").arg(QString::fromStdString(name));
  return nullptr;
}

}  // namespace blasscope::ui
