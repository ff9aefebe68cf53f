#pragma once

// Fortran BLAS and LAPACK pass every argument by address, and gfortran adds one hidden length
// per CHARACTER argument, all in integer registers or 8-byte stack slots. A wrapper that takes
// and passes on exactly that many machine words is therefore ABI-identical to the routine,
// whatever the types behind the pointers: these macros declare and forward N words.
#include <cstdint>

namespace blasscope::preload {
using Word = std::uintptr_t;
}

#define BLASSCOPE_W_1 ::blasscope::preload::Word a0
#define BLASSCOPE_W_2 BLASSCOPE_W_1, ::blasscope::preload::Word a1
#define BLASSCOPE_W_3 BLASSCOPE_W_2, ::blasscope::preload::Word a2
#define BLASSCOPE_W_4 BLASSCOPE_W_3, ::blasscope::preload::Word a3
#define BLASSCOPE_W_5 BLASSCOPE_W_4, ::blasscope::preload::Word a4
#define BLASSCOPE_W_6 BLASSCOPE_W_5, ::blasscope::preload::Word a5
#define BLASSCOPE_W_7 BLASSCOPE_W_6, ::blasscope::preload::Word a6
#define BLASSCOPE_W_8 BLASSCOPE_W_7, ::blasscope::preload::Word a7
#define BLASSCOPE_W_9 BLASSCOPE_W_8, ::blasscope::preload::Word a8
#define BLASSCOPE_W_10 BLASSCOPE_W_9, ::blasscope::preload::Word a9
#define BLASSCOPE_W_11 BLASSCOPE_W_10, ::blasscope::preload::Word a10
#define BLASSCOPE_W_12 BLASSCOPE_W_11, ::blasscope::preload::Word a11
#define BLASSCOPE_W_13 BLASSCOPE_W_12, ::blasscope::preload::Word a12
#define BLASSCOPE_W_14 BLASSCOPE_W_13, ::blasscope::preload::Word a13
#define BLASSCOPE_W_15 BLASSCOPE_W_14, ::blasscope::preload::Word a14
#define BLASSCOPE_W_16 BLASSCOPE_W_15, ::blasscope::preload::Word a15
#define BLASSCOPE_W_17 BLASSCOPE_W_16, ::blasscope::preload::Word a16
#define BLASSCOPE_W_18 BLASSCOPE_W_17, ::blasscope::preload::Word a17
#define BLASSCOPE_W_19 BLASSCOPE_W_18, ::blasscope::preload::Word a18
#define BLASSCOPE_W_20 BLASSCOPE_W_19, ::blasscope::preload::Word a19
#define BLASSCOPE_W_21 BLASSCOPE_W_20, ::blasscope::preload::Word a20
#define BLASSCOPE_W_22 BLASSCOPE_W_21, ::blasscope::preload::Word a21
#define BLASSCOPE_W_23 BLASSCOPE_W_22, ::blasscope::preload::Word a22
#define BLASSCOPE_W_24 BLASSCOPE_W_23, ::blasscope::preload::Word a23
#define BLASSCOPE_W_25 BLASSCOPE_W_24, ::blasscope::preload::Word a24
#define BLASSCOPE_W_26 BLASSCOPE_W_25, ::blasscope::preload::Word a25

#define BLASSCOPE_P_1 a0
#define BLASSCOPE_P_2 BLASSCOPE_P_1, a1
#define BLASSCOPE_P_3 BLASSCOPE_P_2, a2
#define BLASSCOPE_P_4 BLASSCOPE_P_3, a3
#define BLASSCOPE_P_5 BLASSCOPE_P_4, a4
#define BLASSCOPE_P_6 BLASSCOPE_P_5, a5
#define BLASSCOPE_P_7 BLASSCOPE_P_6, a6
#define BLASSCOPE_P_8 BLASSCOPE_P_7, a7
#define BLASSCOPE_P_9 BLASSCOPE_P_8, a8
#define BLASSCOPE_P_10 BLASSCOPE_P_9, a9
#define BLASSCOPE_P_11 BLASSCOPE_P_10, a10
#define BLASSCOPE_P_12 BLASSCOPE_P_11, a11
#define BLASSCOPE_P_13 BLASSCOPE_P_12, a12
#define BLASSCOPE_P_14 BLASSCOPE_P_13, a13
#define BLASSCOPE_P_15 BLASSCOPE_P_14, a14
#define BLASSCOPE_P_16 BLASSCOPE_P_15, a15
#define BLASSCOPE_P_17 BLASSCOPE_P_16, a16
#define BLASSCOPE_P_18 BLASSCOPE_P_17, a17
#define BLASSCOPE_P_19 BLASSCOPE_P_18, a18
#define BLASSCOPE_P_20 BLASSCOPE_P_19, a19
#define BLASSCOPE_P_21 BLASSCOPE_P_20, a20
#define BLASSCOPE_P_22 BLASSCOPE_P_21, a21
#define BLASSCOPE_P_23 BLASSCOPE_P_22, a22
#define BLASSCOPE_P_24 BLASSCOPE_P_23, a23
#define BLASSCOPE_P_25 BLASSCOPE_P_24, a24
#define BLASSCOPE_P_26 BLASSCOPE_P_25, a25

#define BLASSCOPE_EXPORT extern "C" __attribute__((visibility("default")))
