#include "tensor_values.h"

#include "analysis/tensor_layout.h"
#include "exec/op_support.h"
#include "io/input_error.h"
#include "io/tensor_file_reader.h"
#include "run_document.h"
#include "tensor/element_codec.h"

namespace blasscope::ui {
namespace {

core::ValueHistogram histogram_of(std::shared_ptr<core::HostTensor> values) {
  if (values->is_padded()) {  // the histogram walks dense data
    auto dense = std::make_shared<core::HostTensor>(values->name(), values->dtype(), values->shape(), values->order());
    core::copy_converted(*values, *dense);
    values = dense;
  }
  return core::value_histogram(values->dtype(), values->data(), values->element_count(), values->shape(),
                               values->order());
}

void add_tensor_file(const RunDocument& doc, const std::stop_token& stop, TensorValues& out) {
  const core::TensorFile file = core::open_tensor_file(doc.source.toStdString());
  for (const auto& info : file.tensors) {
    if (stop.stop_requested()) return;
    // A little-endian tensor stored as is is sampled where it is mapped, however large.
    if (info.storage.kind == core::TensorStorage::Kind::Mapped && info.byte_order != core::ByteOrder::Big &&
        info.values_readable()) {
      out.histograms[info.name] =
          core::value_histogram(info.dtype, core::mapping_of(file, info).bytes().data() + info.data_offset,
                                info.element_count(), info.shape, info.order);
      continue;
    }
    QString why;
    if (auto values = file_tensor_values(file, info, why)) {
      out.histograms[info.name] = histogram_of(values);
    } else {
      out.why_not[info.name] = why;
    }
  }
}

void add_workload(const RunDocument& doc, const std::stop_token& stop, TensorValues& out) {
  for (const auto& spec : doc.workload->tensors) {
    if (stop.stop_requested()) return;
    QString why;
    if (auto values = document_tensor_values(doc, spec.name, why)) {
      out.stats[spec.name] = core::summarize_values(*values);
      out.alignment[spec.name] = core::alignment_of(reinterpret_cast<std::uintptr_t>(values->data()));
      out.histograms[spec.name] = histogram_of(values);
    } else {
      out.why_not[spec.name] = why;
    }
  }
}

}  // namespace

TensorValues compute_tensor_values(const RunDocument& doc, const std::stop_token& stop) {
  TensorValues out;
  try {
    if (doc.kind == RunDocument::Kind::TensorFile) add_tensor_file(doc, stop, out);
    if (doc.kind == RunDocument::Kind::Workload && doc.workload) add_workload(doc, stop, out);
  } catch (const std::exception& error) {
    // The file changed or vanished since it was read: every tensor says why.
    if (doc.inspect) {
      for (const auto& t : doc.inspect->tensors) out.why_not[t.info.name] = QString::fromUtf8(error.what());
    }
  }
  return out;
}

TensorValuesJob::TensorValuesJob(QObject* parent) : QObject(parent), m_task(this) {}

TensorValuesJob::~TensorValuesJob() {
  cancel();
}

void TensorValuesJob::start(const RunDocument& doc) {
  m_busy = true;
  m_source = doc.source;
  m_task.launch([this, snapshot = doc](std::stop_token stop, quint64 generation) {
    auto values = std::make_shared<const TensorValues>(compute_tensor_values(snapshot, stop));
    if (stop.stop_requested()) return;
    m_task.post(generation, [this, values] {
      m_busy = false;
      emit ready(values);
    });
  });
}

void TensorValuesJob::cancel() {
  m_task.stop();
  m_busy = false;
}

}  // namespace blasscope::ui
