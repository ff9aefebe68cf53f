#pragma once

#include <memory>
#include <vector>

#include "io/mapped_file.h"
#include "io/tensor_file.h"
#include "io/zip_directory.h"

namespace blasscope::core {

// Reads an HDF5 file (a Keras 2 .h5 among them) through libhdf5. Every dataset of numeric
// type is a tensor named by its path without the leading '/' ("model_weights/dense/dense/kernel:0");
// other datasets (strings, compounds, vlen...) are listed unread with a reason; attributes are
// metadata ("group@name", root attributes by their bare name). Objects are visited once each in
// name order along hard links; soft and external links are never followed, datasets with
// external raw data or virtual layout are listed unread. Contiguous datasets are read in place
// from the mapping (checked to lie inside the file); chunked, filtered, compact and never-written
// ones are streamed through libhdf5 (TensorStorage::Kind::Streamed). A dataset whose filter is
// not available (h5py's lzf, blosc...) is listed unread: "filter 32000 (lzf) not available".
// A dataset claiming more values than 1024 times the file's size (plus 64 MiB) is refused: those
// can only be fill values of unwritten chunks, and reading them could take hours.
TensorFile read_hdf5(std::shared_ptr<const MappedFile> mapping);

// A Keras 3 .keras archive: a zip holding config.json, metadata.json and model.weights.h5.
bool is_keras_archive(const std::vector<ZipMember>& members);
// config.json and metadata.json become metadata (keys "config.json", "metadata.json"); the
// weights are model.weights.h5's datasets. A stored member is opened in place; a deflated one
// is inflated (size and CRC-32 checked) into an unlinked temporary file and streamed from there.
TensorFile read_keras(std::shared_ptr<const MappedFile> mapping, const std::vector<ZipMember>& members);

}  // namespace blasscope::core
