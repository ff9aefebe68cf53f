// Promotion against NumPy's own np.result_type, computed at test time.
#include <gtest/gtest.h>

#include <cstdio>

#include "tensor/dtype_promotion.h"
#include "test_files.h"
#include "text/json.h"

using namespace blasscope::core;

TEST(DTypePromotion, AgreesWithNumPyResultType) {
  blasscope::test::TempDir dir;
  const std::string script = R"(import json, numpy as np, sys
names = ["bool","int8","int16","int32","int64","uint8","uint16","uint32","uint64","float16","float32","float64","complex64","complex128"]
json.dump([[a, b, np.result_type(a, b).name] for a in names for b in names], open(sys.argv[1], "w")))";
  blasscope::test::write_file(dir.file("promote.py"), script);
  const std::string command = std::string(BLASSCOPE_PYTHON) + " " + dir.file("promote.py") + " " + dir.file("out.json");
  ASSERT_EQ(std::system(command.c_str()), 0);
  const auto table = nlohmann::json::parse(blasscope::test::read_file(dir.file("out.json")));
  ASSERT_EQ(table.size(), 196u);
  for (const auto& row : table) {
    const DType a = *dtype_from_name(row[0].get<std::string>());
    const DType b = *dtype_from_name(row[1].get<std::string>());
    EXPECT_EQ(std::string(name(promote_types(a, b))), row[2].get<std::string>()) << row[0] << " + " << row[1];
  }
}

TEST(DTypePromotion, BFloat16AndComputeDtypes) {
  EXPECT_EQ(promote_types(DType::BFloat16, DType::Float16), DType::Float32);
  EXPECT_EQ(promote_types(DType::BFloat16, DType::Float32), DType::Float32);
  EXPECT_EQ(blas_compute_dtype(DType::Float16, false), DType::Float32);
  EXPECT_EQ(blas_compute_dtype(DType::BFloat16, false), DType::Float32);
  EXPECT_EQ(blas_compute_dtype(DType::BFloat16, true), DType::BFloat16);
  EXPECT_EQ(blas_compute_dtype(DType::Int32, false), DType::Float64);
  EXPECT_EQ(blas_compute_dtype(DType::Complex64, false), DType::Complex64);
}
