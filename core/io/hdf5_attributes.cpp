#include "io/hdf5_attributes.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <vector>

#include "io/hdf5_handle.h"
#include "io/hdf5_types.h"
#include "io/input_error.h"

namespace blasscope::core {
namespace {

constexpr std::uint64_t kMaxReadBytes = 1 << 20;  // attribute bytes read to show a value

std::string number_text(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

std::string cut(std::string text) {
  if (text.size() <= Hdf5AttributeReader::kMaxValueChars) return text;
  const std::size_t total = text.size();
  text.resize(Hdf5AttributeReader::kMaxValueChars);
  return text + "… (cut: " + std::to_string(total) + " characters in all)";
}

std::string join(const std::vector<std::string>& items, hssize_t count, bool scalar) {
  if (scalar && items.size() == 1) return items[0];
  std::string text = "[";
  for (std::size_t i = 0; i < items.size(); ++i) text += (i ? ", " : "") + items[i];
  if (count > static_cast<hssize_t>(items.size())) text += ", … (" + std::to_string(count) + " values)";
  return text + "]";
}

template <typename T>
std::vector<std::string> numbers(hid_t attribute, hid_t memory_type, std::size_t count) {
  std::vector<T> values(count);
  if (H5Aread(attribute, memory_type, values.data()) < 0) return {};
  std::vector<std::string> items;
  for (std::size_t i = 0; i < std::min(count, Hdf5AttributeReader::kMaxShownValues); ++i) {
    if constexpr (std::is_floating_point_v<T>)
      items.push_back(number_text(values[i]));
    else
      items.push_back(std::to_string(values[i]));
  }
  return items;
}

std::vector<std::string> strings(hid_t attribute, hid_t file_type, std::size_t count) {
  std::vector<std::string> items;
  if (H5Tis_variable_str(file_type) > 0) {
    Hid memory_type(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(memory_type.get(), H5T_VARIABLE);
    H5Tset_cset(memory_type.get(), H5Tget_cset(file_type));
    std::vector<char*> values(count, nullptr);
    if (H5Aread(attribute, memory_type.get(), values.data()) < 0) return {};
    for (std::size_t i = 0; i < count; ++i) {
      if (i < Hdf5AttributeReader::kMaxShownValues) items.emplace_back(values[i] ? values[i] : "");
      H5free_memory(values[i]);
    }
    return items;
  }
  const std::size_t size = H5Tget_size(file_type);
  std::vector<char> bytes(size * count);
  if (H5Aread(attribute, file_type, bytes.data()) < 0) return {};
  for (std::size_t i = 0; i < std::min(count, Hdf5AttributeReader::kMaxShownValues); ++i) {
    const char* text = bytes.data() + i * size;
    std::size_t length = 0;
    while (length < size && text[length] != '\0') ++length;
    items.emplace_back(text, length);
  }
  return items;
}

}  // namespace

const std::optional<std::string>& Hdf5AttributeReader::vlen_problem() {
  if (!m_vlen_checked) m_vlen_checked = m_vlen_problem ? m_vlen_problem() : std::nullopt;
  return *m_vlen_checked;
}

std::string Hdf5AttributeReader::value_text(hid_t attribute) {
  Hid type(H5Aget_type(attribute), H5Tclose);
  Hid space(H5Aget_space(attribute), H5Sclose);
  if (!type.valid() || !space.valid()) return "(unreadable attribute: " + hdf5_error_text() + ")";
  const hssize_t points = H5Sget_simple_extent_npoints(space.get());
  const bool scalar = H5Sget_simple_extent_type(space.get()) == H5S_SCALAR;
  if (H5Sget_simple_extent_type(space.get()) == H5S_NULL) return "(empty)";
  const std::size_t item = H5Tget_size(type.get());
  if (points < 0 || item == 0) return "(unreadable attribute)";
  const auto count = static_cast<std::uint64_t>(points);
  const H5T_class_t type_class = H5Tget_class(type.get());
  const std::uint64_t memory_item = type_class == H5T_STRING ? std::max<std::size_t>(item, sizeof(char*)) : 8;
  if (count > kMaxReadBytes / memory_item) return "(" + std::to_string(count) + " values, not shown)";
  if (type_class == H5T_STRING && H5Tis_variable_str(type.get()) > 0 && vlen_problem()) {
    return "(variable-length string, not read: " + *vlen_problem() + ")";
  }
  std::vector<std::string> items;
  switch (type_class) {
    case H5T_STRING: items = strings(attribute, type.get(), count); break;
    case H5T_FLOAT: items = numbers<double>(attribute, H5T_NATIVE_DOUBLE, count); break;
    case H5T_INTEGER:
      items = H5Tget_sign(type.get()) == H5T_SGN_NONE ? numbers<unsigned long long>(attribute, H5T_NATIVE_ULLONG, count)
                                                      : numbers<long long>(attribute, H5T_NATIVE_LLONG, count);
      break;
    case H5T_ENUM:
      if (map_hdf5_type(type.get()).dtype == DType::Bool && !map_hdf5_type(type.get()).unread) {
        std::vector<std::int8_t> values(count);
        if (H5Aread(attribute, type.get(), values.data()) < 0) break;
        for (std::size_t i = 0; i < std::min<std::uint64_t>(count, kMaxShownValues); ++i) {
          items.emplace_back(values[i] ? "True" : "False");
        }
        break;
      }
      [[fallthrough]];
    default: {
      const Hdf5ElementType mapped = map_hdf5_type(type.get());
      return "(" + (mapped.unread ? mapped.unread->name : std::string("value")) + " attribute, not shown)";
    }
  }
  if (items.empty() && count > 0) {
    const std::string stack = hdf5_error_text();
    return "(unreadable attribute" + (stack.empty() ? "" : ": " + stack) + ")";
  }
  return cut(join(items, points, scalar));
}

namespace {

// Names of attributes kept in dense storage, in the v2 B-tree's native order: the only order
// in which libhdf5 1.10 lists them without building (and, on a corrupt file, mis-freeing) a table.
std::vector<std::string> dense_attribute_names(hid_t object) {
  std::vector<std::string> names;
  hsize_t index = 0;
  auto collect = [](hid_t, const char* name, const H5A_info_t*, void* data) -> herr_t {
    static_cast<std::vector<std::string>*>(data)->emplace_back(name);
    return 0;
  };
  if (H5Aiterate2(object, H5_INDEX_NAME, H5_ITER_NATIVE, &index, collect, &names) < 0) H5Eclear2(H5E_DEFAULT);
  return names;
}

std::string attribute_name(hid_t attribute) {
  char name[256] = {};
  return H5Aget_name(attribute, sizeof name, name) < 0 ? "?" : std::string(name);
}

}  // namespace

void Hdf5AttributeReader::read_all(hid_t object, const Hdf5ObjectHeader& header, const std::string& key_prefix,
                                   std::vector<std::pair<std::string, std::string>>& out) {
  hdf5_quiet();
  if (header.shared_attributes) {
    // Attributes in the shared-message heap are named only there: let libhdf5 list them all.
    H5O_info_t info;
    if (H5Oget_info2(object, &info, H5O_INFO_NUM_ATTRS) < 0) {
      H5Eclear2(H5E_DEFAULT);
      return;
    }
    for (hsize_t i = 0; i < info.num_attrs; ++i) {
      Hid attribute(H5Aopen_by_idx(object, ".", H5_INDEX_NAME, H5_ITER_INC, i, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
      if (attribute.valid()) read_one(attribute_name(attribute.get()), value_text(attribute.get()), key_prefix, out);
      H5Eclear2(H5E_DEFAULT);
    }
    return;
  }
  // Opened by name: libhdf5 builds its attribute table (which crashes on a corrupt header, see
  // tests/fuzz/regressions/hdf5) only to open or list by index.
  std::vector<std::string> names = header.attribute_names;
  if (header.dense_attributes) {
    std::vector<std::string> dense = dense_attribute_names(object);
    names.insert(names.end(), dense.begin(), dense.end());
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  for (const std::string& name : names) {
    if (const auto bad = header.unreadable_values.find(name); bad != header.unreadable_values.end()) {
      read_one(name, "(variable-length value, not read: " + bad->second + ")", key_prefix, out);
      continue;
    }
    Hid attribute(H5Aopen_by_name(object, ".", name.c_str(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    if (attribute.valid()) read_one(name, value_text(attribute.get()), key_prefix, out);
    H5Eclear2(H5E_DEFAULT);
  }
}

void Hdf5AttributeReader::read_one(const std::string& name, std::string value, const std::string& key_prefix,
                                   std::vector<std::pair<std::string, std::string>>& out) {
  std::string key = key_prefix.empty() ? name : key_prefix + "@" + name;
  m_used += key.size() + value.size();
  if (m_used > kBudgetChars) {
    fail_unsupported("HDF5 attributes: more than " + std::to_string(kBudgetChars >> 20) +
                     " MiB of attribute text (at '" + key + "')");
  }
  out.emplace_back(std::move(key), std::move(value));
}

}  // namespace blasscope::core
