#pragma once

#include <cstdint>
#include <vector>

namespace blasscope::core {

// LAPACK's ?LASCL (types G, L, U, H): multiplies the M x N column-major matrix A by
// CTO/CFROM without over- or underflow, in as many safe steps as it takes.

// LAPACK's argument checks, in LAPACK's order: 0 when valid, else -(parameter number).
template <typename T>
int lascl_check(char type, T cfrom, T cto, std::int64_t m, std::int64_t n, std::int64_t lda);

// The factors LAPACK multiplies by, in order: one for ordinary ratios, more when
// CTO/CFROM would overflow or underflow in one step. Empty when nothing changes.
template <typename T>
std::vector<T> lascl_multipliers(T cfrom, T cto);

// BLAScope's ?LASCL: the same checks and INFO codes (reported through xerbla as LAPACK
// does, routine "DLASCL"/"SLASCL"), the same multipliers applied in the same order to each
// element, so results are bit-identical (a NaN may differ in sign or payload, as between
// LAPACK builds); one pass over memory, vectorized, on `threads`
// threads for large matrices. Returns INFO.
template <typename T>
int blasscope_lascl(char type, T cfrom, T cto, std::int64_t m, std::int64_t n, T* a, std::int64_t lda,
                    unsigned threads = 0);

// The name of ?LASCL's parameter `p` (1-based): TYPE, KL, KU, CFROM, CTO, M, N, A, LDA, INFO.
const char* lascl_parameter_name(int p);

// LAPACK's own dlascl_/slascl_ (from the linked OpenBLAS). Returns INFO.
int lapack_lascl(char type, double cfrom, double cto, std::int64_t m, std::int64_t n, double* a, std::int64_t lda);
int lapack_lascl(char type, float cfrom, float cto, std::int64_t m, std::int64_t n, float* a, std::int64_t lda);

}  // namespace blasscope::core
