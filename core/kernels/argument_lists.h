#pragma once

// The reference BLAS and LAPACK argument lists, by routine: what XERBLA's parameter number
// points at. Shared by the replays (exec) and the diagnoses of recordings.
#include <string>
#include <string_view>

namespace blasscope::core {

// The name of argument `parameter` (from 1, in the Fortran argument list) of the routine XERBLA
// names ("DLASCL", "ZGEMM"); "" for a routine or a position this table does not know.
std::string xerbla_parameter_name(std::string_view routine, int parameter);

// The argument list of that routine ("1 TYPE, 2 KL, 3 KU, ..."); "" when unknown.
std::string xerbla_parameter_list(std::string_view routine);

}  // namespace blasscope::core
