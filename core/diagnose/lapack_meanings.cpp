#include "diagnose/lapack_meanings.h"

#include <array>
#include <sstream>
#include <vector>

namespace blasscope::core {

using record::Routine;

std::string xerbla_list_cause(const std::string& routine) {
  const std::string list = xerbla_parameter_list(routine);
  return "BLAS and LAPACK check their arguments on entry and report the first bad one through XERBLA, as its "
         "position in the Fortran argument list of the routine named" +
         (list.empty() ? std::string(".") : ": for " + routine + " " + list + ".");
}

std::optional<PositiveInfo> positive_info_meaning(Routine routine, int info, const InfoContext& context) {
  if (info <= 0) return std::nullopt;
  const std::string i = std::to_string(info);
  constexpr std::string_view kSvdFix =
      "Check the input for NaN/Inf first (numpy.isfinite(a).all()); with finite input, try another driver "
      "(scipy.linalg.svd(a, lapack_driver='gesvd'), or gesdd) or rescale the matrix.";
  switch (routine) {
    case Routine::Potrf:
      return PositiveInfo{
          "the leading minor of order " + i + " is not positive definite",
          "POTRF (Cholesky) returns INFO = i > 0 when the leading minor of order i is not positive definite: the "
          "factorisation could not be completed because the matrix is not symmetric (Hermitian) positive definite. "
          "NumPy reports it as LinAlgError \"Matrix is not positive definite\", SciPy as \"i-th leading minor of "
          "the array is not positive definite\".",
          "Check that the matrix is symmetric positive definite: numpy.linalg.eigvalsh(a).min() must be > 0. A "
          "covariance or Gram matrix built from fewer samples than dimensions, or rounding, leaves it only "
          "semi-definite: add a small multiple of the identity (a + eps * numpy.eye(n)), or factor it with "
          "scipy.linalg.ldl or numpy.linalg.eigh instead.",
          "positive definite"};
    case Routine::Getrf:
    case Routine::Gesv:
      return PositiveInfo{
          "U(" + i + "," + i + ") is exactly zero: the matrix is singular",
          "GETRF and GESV return INFO = i > 0 when U(i,i), the i-th pivot of the LU factorisation, is exactly "
          "zero: the matrix is singular, so it has no inverse and the system has no unique solution. GETRF's "
          "factorisation is complete all the same (NumPy's det of it is a correct 0); a solve with it (GETRS) "
          "divides by that zero. NumPy reports it as LinAlgError \"Singular matrix\", SciPy as \"Matrix is "
          "singular.\" or a LinAlgWarning \"Diagonal number i is exactly zero\".",
          "Check the rank and the conditioning (numpy.linalg.matrix_rank(a), numpy.linalg.cond(a)). Solve in the "
          "least-squares sense instead (numpy.linalg.lstsq, scipy.linalg.lstsq) or use the pseudo-inverse "
          "(numpy.linalg.pinv); remove the duplicated or all-zero rows and columns that make it singular.",
          "singular matrix|matrix is singular"};
    case Routine::Getri:
      return PositiveInfo{
          "U(" + i + "," + i + ") is exactly zero: the matrix is singular and has no inverse",
          "GETRI inverts a matrix from its LU factors (GETRF's): INFO = i > 0 means the i-th pivot U(i,i) is "
          "exactly zero, so the matrix is singular and its inverse was not computed.",
          "Check the rank and the conditioning (numpy.linalg.matrix_rank(a), numpy.linalg.cond(a)); an explicit "
          "inverse is rarely needed: solve the system instead (scipy.linalg.solve), in the least-squares sense "
          "for a singular matrix (scipy.linalg.lstsq), or use the pseudo-inverse (numpy.linalg.pinv).",
          "singular matrix|matrix is singular"};
    case Routine::Trtrs:
      return PositiveInfo{
          "the diagonal element " + i + " of the triangular matrix is zero: it is singular",
          "TRTRS solves with a triangular matrix: INFO = i > 0 means its i-th diagonal element is exactly zero, so "
          "the matrix is singular and no solution was computed.",
          "Check where the triangular factor came from (a QR or Cholesky factor of a rank-deficient matrix has a "
          "zero on its diagonal); solve in the least-squares sense (scipy.linalg.lstsq) instead.",
          "singular matrix|matrix is singular"};
    case Routine::Posv:
      return PositiveInfo{
          "the leading minor of order " + i + " is not positive definite: no solution was computed",
          "POSV solves A X = B for a symmetric (Hermitian) positive definite A by factoring it with Cholesky "
          "(POTRF) first: INFO = i > 0 means the leading minor of order i is not positive definite, so the "
          "factorisation and the solution were not computed. The matrix need not be singular: it is not "
          "positive definite. SciPy's solve(a, b, assume_a='pos') reports it as LinAlgError \"Matrix is "
          "singular.\" all the same.",
          "Check that the matrix is symmetric positive definite: numpy.linalg.eigvalsh(a).min() must be > 0. If it "
          "is only symmetric, solve with assume_a='sym' (or the default 'gen'); a covariance that is only "
          "semi-definite needs a small multiple of the identity added (a + eps * numpy.eye(n)).",
          "matrix is singular|positive definite"};
    case Routine::Sysv:
    case Routine::Sytrf:
    case Routine::Hesv:
    case Routine::Hetrf:
      return PositiveInfo{
          "D(" + i + "," + i + ") is exactly zero: the matrix is singular",
          "SYTRF factors a symmetric matrix as L D L^T (Bunch-Kaufman; HETRF a Hermitian one as L D L^H) and SYSV "
          "(HESV) solves with it: INFO = i > 0 means the block diagonal D has an exact zero at (i,i). The "
          "factorisation is complete all the same; SYSV and HESV computed no solution, since solving would divide "
          "by that zero. SciPy's solve(assume_a='sym') and solve(assume_a='her') report it as LinAlgError "
          "\"Matrix is singular.\"",
          "Check the rank and the conditioning (numpy.linalg.matrix_rank(a), numpy.linalg.cond(a)); solve in the "
          "least-squares sense (scipy.linalg.lstsq) or use the pseudo-inverse (numpy.linalg.pinvh).",
          "singular matrix|matrix is singular"};
    case Routine::Gees:
      return PositiveInfo{
          "the Schur form was not computed in full",
          "GEES returns INFO = i with 1 <= i <= N when the QR algorithm failed to compute all the eigenvalues (only "
          "those after the i-th converged), N+1 when the eigenvalues selected for sorting could not be reordered "
          "(too close to separate), and N+2 when rounding changed a sorted complex pair so that SELECT no longer "
          "holds for it.",
          "Check the input for NaN/Inf first (numpy.isfinite(a).all()); rescale a badly scaled matrix, or call "
          "scipy.linalg.schur without sort to get the unsorted form."};
    case Routine::Sygvd:
    case Routine::Sygv:
      if (context.factor_of_b_failed && context.n > 0 && info > context.n) {
        const std::string minor = std::to_string(info - context.n);
        return PositiveInfo{
            "the leading minor of order " + minor + " of B is not positive definite",
            "SYGV and SYGVD solve A x = lambda B x for a symmetric (Hermitian) A and a positive definite B: they "
            "factor B by Cholesky first (POTRF). INFO = N + i means the leading minor of order i of B is not "
            "positive definite, so B could not be factored and no eigenvalues or eigenvectors were computed. "
            "SciPy's eigh(a, b) reports it as LinAlgError \"The leading minor of order i of B is not positive "
            "definite.\"",
            "Check that B is symmetric positive definite: numpy.linalg.eigvalsh(b).min() must be > 0. A mass or "
            "covariance matrix that is only semi-definite needs a small multiple of the identity added "
            "(b + eps * numpy.eye(n)); were A and B passed in the right order (eigh(a, b), B the definite one)?",
            "of B"};
      }
      return PositiveInfo{
          "the eigenvalue algorithm did not converge",
          "SYGV and SYGVD reduce A x = lambda B x to a standard symmetric problem and solve it with SYEV (SYEVD); "
          "B's Cholesky factorisation succeeded, so a positive INFO is that solver's failure: for SYGV (and SYGVD "
          "without eigenvectors) i <= N off-diagonal elements of an intermediate tridiagonal form did not "
          "converge to zero; SYGVD with eigenvectors encodes the submatrix it failed on, a number above N that "
          "SciPy reads as \"rows and columns i/(N+1) through mod(i, N+1)\". With finite input this is rare.",
          "Check A and B for NaN/Inf first; then try the other driver (scipy.linalg.eigh(a, b, driver='gv') or "
          "'gvd') or rescale B, whose conditioning enters the reduced problem.",
          "Eigenvalues did not converge"};
    case Routine::Gges:
      return PositiveInfo{
          "the generalized Schur form was not computed in full",
          "GGES returns INFO = i with 1 <= i <= N when the QZ iteration failed ((A,B) are not in Schur form; only "
          "the eigenvalues after the i-th are correct), N+1 when another part of the QZ algorithm (HGEQZ) failed, "
          "N+2 when rounding changed sorted complex eigenvalues so that SELCTG no longer holds for them, and N+3 "
          "when the reordering (TGSEN) failed.",
          "Check A and B for NaN/Inf first (numpy.isfinite(a).all()); rescale badly scaled matrices, or call "
          "scipy.linalg.qz without sort to get the unsorted form."};
    case Routine::Geev:
      return PositiveInfo{
          "the QR algorithm did not compute all eigenvalues",
          "GEEV returns INFO = i > 0 when the QR algorithm failed to compute all the eigenvalues: no eigenvectors "
          "were computed, and only eigenvalues i+1 to N converged. With finite input this is rare and points at "
          "extreme scaling.",
          "Check the input for NaN/Inf first (numpy.isfinite(a).all()); balance or rescale the matrix, or for a "
          "symmetric matrix use the symmetric solver (numpy.linalg.eigh).",
          "Eigenvalues did not converge"};
    case Routine::Syevr:
      return PositiveInfo{
          "an internal error in the eigenvalue algorithm",
          "SYEVR (HEEVR) documents INFO > 0 as an internal error of its MRRR algorithm. SciPy's eigh, whose "
          "default driver it is, reports it as LinAlgError \"Internal Error.\"",
          "Check the input for NaN/Inf first; then try another driver (scipy.linalg.eigh(a, driver='evd') or "
          "'ev')."};
    case Routine::Gels:
      return PositiveInfo{
          "the triangular factor of A has a zero on its diagonal (element " + i + "): A does not have full rank",
          "GELS solves least squares through a QR factorisation that assumes A has full rank: INFO = i > 0 "
          "means the i-th diagonal element of the triangular factor is zero, so no solution was computed. "
          "PyTorch reports it as \"the input matrix does not have full rank\".",
          "Use a rank-revealing driver: gelsd, the default of numpy.linalg.lstsq and scipy.linalg.lstsq "
          "(torch.linalg.lstsq(a, b, driver='gelsd')), or gelsy; or remove the dependent columns.",
          "full rank"};
    case Routine::Syev:
    case Routine::Syevd:
      return PositiveInfo{
          "the eigenvalue algorithm did not converge",
          "SYEV and SYEVD return INFO > 0 when their iteration fails: off-diagonal elements of an intermediate "
          "tridiagonal form did not converge to zero (SYEVD with eigenvectors: an eigenvalue of a submatrix "
          "could not be computed). With finite input this is rare.",
          "Check the input for NaN/Inf first; then try the other driver (scipy.linalg.eigh(a, driver='ev') or "
          "'evd') or rescale the matrix.",
          "Eigenvalues did not converge"};
    case Routine::Gesdd:
      return PositiveInfo{
          "the SVD did not converge",
          "GESDD returns INFO > 0 when DBDSDC, the divide-and-conquer SVD of its bidiagonal form, did not "
          "converge (its updating process failed). With finite input this is rare and points at extreme "
          "conditioning.",
          std::string(kSvdFix), "SVD"};
    case Routine::Gesvd:
    case Routine::Gelsd:
    case Routine::Gelss:
      return PositiveInfo{
          "the SVD did not converge",
          "The SVD iteration inside the driver did not converge: INFO = i counts the superdiagonals of an "
          "intermediate bidiagonal form that did not converge to zero. With finite input this is rare and points "
          "at extreme conditioning; it is also how this LAPACK reports NaN input in these drivers (gesvd with U "
          "and V^T, gelsd and gelss).",
          std::string(kSvdFix), "SVD"};
    default: return std::nullopt;
  }
}

}  // namespace blasscope::core
