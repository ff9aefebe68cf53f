#include "kernels/argument_lists.h"

#include <sstream>
#include <vector>

namespace blasscope::core {
namespace {

struct ArgumentList {
  std::string_view routine;  // without its precision letter
  std::vector<std::string_view> names;
};

// The reference BLAS and LAPACK argument lists (real precisions; the complex drivers add RWORK
// after LWORK, so only the arguments up to LWORK are named for them).
const std::vector<ArgumentList>& argument_lists() {
  static const std::vector<ArgumentList> kLists = {
      {"GEMM", {"TRANSA", "TRANSB", "M", "N", "K", "ALPHA", "A", "LDA", "B", "LDB", "BETA", "C", "LDC"}},
      {"GEMV", {"TRANS", "M", "N", "ALPHA", "A", "LDA", "X", "INCX", "BETA", "Y", "INCY"}},
      {"SYRK", {"UPLO", "TRANS", "N", "K", "ALPHA", "A", "LDA", "BETA", "C", "LDC"}},
      {"TRSM", {"SIDE", "UPLO", "TRANSA", "DIAG", "M", "N", "ALPHA", "A", "LDA", "B", "LDB"}},
      {"LASCL", {"TYPE", "KL", "KU", "CFROM", "CTO", "M", "N", "A", "LDA", "INFO"}},
      {"POTRF", {"UPLO", "N", "A", "LDA", "INFO"}},
      {"GETRF", {"M", "N", "A", "LDA", "IPIV", "INFO"}},
      {"GETRS", {"TRANS", "N", "NRHS", "A", "LDA", "IPIV", "B", "LDB", "INFO"}},
      {"GESV", {"N", "NRHS", "A", "LDA", "IPIV", "B", "LDB", "INFO"}},
      {"GESDD", {"JOBZ", "M", "N", "A", "LDA", "S", "U", "LDU", "VT", "LDVT", "WORK", "LWORK"}},
      {"GESVD", {"JOBU", "JOBVT", "M", "N", "A", "LDA", "S", "U", "LDU", "VT", "LDVT", "WORK", "LWORK"}},
      {"GELSD", {"M", "N", "NRHS", "A", "LDA", "B", "LDB", "S", "RCOND", "RANK", "WORK", "LWORK"}},
      {"GELSS", {"M", "N", "NRHS", "A", "LDA", "B", "LDB", "S", "RCOND", "RANK", "WORK", "LWORK"}},
      {"GELSY", {"M", "N", "NRHS", "A", "LDA", "B", "LDB", "JPVT", "RCOND", "RANK", "WORK", "LWORK"}},
      {"GELS", {"TRANS", "M", "N", "NRHS", "A", "LDA", "B", "LDB", "WORK", "LWORK"}},
      {"SYEV", {"JOBZ", "UPLO", "N", "A", "LDA", "W", "WORK", "LWORK"}},
      {"SYEVD", {"JOBZ", "UPLO", "N", "A", "LDA", "W", "WORK", "LWORK"}},
      {"HEEV", {"JOBZ", "UPLO", "N", "A", "LDA", "W", "WORK", "LWORK"}},
      {"HEEVD", {"JOBZ", "UPLO", "N", "A", "LDA", "W", "WORK", "LWORK"}},
      {"SYEVR",
       {"JOBZ", "RANGE", "UPLO", "N", "A", "LDA", "VL", "VU", "IL", "IU", "ABSTOL", "M", "W", "Z", "LDZ", "ISUPPZ",
        "WORK", "LWORK"}},
      {"HEEVR",
       {"JOBZ", "RANGE", "UPLO", "N", "A", "LDA", "VL", "VU", "IL", "IU", "ABSTOL", "M", "W", "Z", "LDZ", "ISUPPZ",
        "WORK", "LWORK"}},
      {"GEEV", {"JOBVL", "JOBVR", "N", "A", "LDA"}},  // then WR, WI (real) or W (complex)
      {"GEQRF", {"M", "N", "A", "LDA", "TAU", "WORK", "LWORK", "INFO"}},
      {"ORGQR", {"M", "N", "K", "A", "LDA", "TAU", "WORK", "LWORK", "INFO"}},
      {"UNGQR", {"M", "N", "K", "A", "LDA", "TAU", "WORK", "LWORK", "INFO"}},
      {"POTRS", {"UPLO", "N", "NRHS", "A", "LDA", "B", "LDB", "INFO"}},
      {"GETRI", {"N", "A", "LDA", "IPIV", "WORK", "LWORK", "INFO"}},
      {"TRTRS", {"UPLO", "TRANS", "DIAG", "N", "NRHS", "A", "LDA", "B", "LDB", "INFO"}},
      {"POSV", {"UPLO", "N", "NRHS", "A", "LDA", "B", "LDB", "INFO"}},
      {"SYSV", {"UPLO", "N", "NRHS", "A", "LDA", "IPIV", "B", "LDB", "WORK", "LWORK", "INFO"}},
      {"HESV", {"UPLO", "N", "NRHS", "A", "LDA", "IPIV", "B", "LDB", "WORK", "LWORK", "INFO"}},
      {"SYTRF", {"UPLO", "N", "A", "LDA", "IPIV", "WORK", "LWORK", "INFO"}},
      {"HETRF", {"UPLO", "N", "A", "LDA", "IPIV", "WORK", "LWORK", "INFO"}},
      {"GEES", {"JOBVS", "SORT", "SELECT", "N", "A", "LDA", "SDIM"}},  // then WR, WI (real) or W (complex)
      {"SYGVD",
       {"ITYPE", "JOBZ", "UPLO", "N", "A", "LDA", "B", "LDB", "W", "WORK", "LWORK", "IWORK", "LIWORK", "INFO"}},
      {"HEGVD",
       {"ITYPE", "JOBZ", "UPLO", "N", "A", "LDA", "B", "LDB", "W", "WORK", "LWORK", "RWORK", "LRWORK", "IWORK",
        "LIWORK", "INFO"}},
      {"SYGV", {"ITYPE", "JOBZ", "UPLO", "N", "A", "LDA", "B", "LDB", "W", "WORK", "LWORK", "INFO"}},
      {"HEGV", {"ITYPE", "JOBZ", "UPLO", "N", "A", "LDA", "B", "LDB", "W", "WORK", "LWORK", "RWORK", "INFO"}},
      // then ALPHAR, ALPHAI, BETA (real) or ALPHA, BETA (complex)
      {"GGES", {"JOBVSL", "JOBVSR", "SORT", "SELCTG", "N", "A", "LDA", "B", "LDB", "SDIM"}},
      {"GEHRD", {"N", "ILO", "IHI", "A", "LDA", "TAU", "WORK", "LWORK", "INFO"}},
      // What GEEV calls before GEHRD and after it: where its NaN/Inf input is refused.
      {"GEBAL", {"JOB", "N", "A", "LDA", "ILO", "IHI", "SCALE", "INFO"}},
      {"HSEQR", {"JOB", "COMPZ", "N", "ILO", "IHI", "H", "LDH"}},         // then WR, WI (real) or W (complex)
      {"GEQP3", {"M", "N", "A", "LDA", "JPVT", "TAU", "WORK", "LWORK"}},  // then INFO (real) or RWORK, INFO
  };
  return kLists;
}

const ArgumentList* list_of(std::string_view routine) {
  // XERBLA names the routine with its precision letter and may pad it with blanks.
  while (!routine.empty() && routine.back() == ' ') routine.remove_suffix(1);
  if (routine.size() < 2) return nullptr;
  const char precision = routine.front();
  if (precision != 'S' && precision != 'D' && precision != 'C' && precision != 'Z') return nullptr;
  for (const ArgumentList& list : argument_lists()) {
    if (routine.substr(1) == list.routine) return &list;
  }
  return nullptr;
}

}  // namespace

std::string xerbla_parameter_name(std::string_view routine, int parameter) {
  const ArgumentList* list = list_of(routine);
  if (!list || parameter < 1 || static_cast<std::size_t>(parameter) > list->names.size()) return "";
  return std::string(list->names[static_cast<std::size_t>(parameter) - 1]);
}

std::string xerbla_parameter_list(std::string_view routine) {
  const ArgumentList* list = list_of(routine);
  if (!list) return "";
  std::ostringstream text;
  for (std::size_t i = 0; i < list->names.size(); ++i) text << (i ? ", " : "") << i + 1 << " " << list->names[i];
  return text.str();
}

}  // namespace blasscope::core
