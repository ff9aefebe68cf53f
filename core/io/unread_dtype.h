#pragma once

#include <optional>
#include <string>

namespace blasscope::core {

struct PyValue;

// A dtype BLAScope lists but never reads the values of (a .npy header it understands,
// holding something no BLAS routine takes). The tensor is shown; its values are skipped.
struct UnreadDType {
  std::string category;  // "strings", "structured", "object", "datetime", "float128", ...
  std::string name;      // what the DTYPE column shows: "<U5", "object", "float128", "structured"
  std::string reason;    // one sentence: what it holds and why it is not scanned
};

// A well-formed .npy descriptor of values BLAScope lists without reading: strings ('<U5',
// '|S3'), structured (a list of fields) or void ('|V8'), object ('|O'), datetime ('<M8[ns]')
// and long double ('<f16', '<c32'). nullopt for anything else, numeric or malformed.
std::optional<UnreadDType> unread_npy_descr(const PyValue& descr);

}  // namespace blasscope::core
