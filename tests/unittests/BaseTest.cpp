// Element kinds, types, tensors and .npy files.
#include "TestUtils.h"

#include "ember/Base/Npy.h"
#include "ember/Base/Tensor.h"

#include <cmath>

using namespace ember;
using namespace ember::test;

TEST(Type, SizesAndPrinting) {
  Type t(ElemKind::Float32, {2, 3, 4});
  EXPECT_EQ(t.numElements(), 24u);
  EXPECT_EQ(t.sizeInBytes(), 96u);
  EXPECT_EQ(t.str(), "float32<2 x 3 x 4>");
  EXPECT_EQ(Type(ElemKind::Int64, {}).str(), "int64<scalar>");
  EXPECT_EQ(Type(ElemKind::QInt8, {2}, 0.5f, 3).str(), "qint8<2>{scale:0.5,offset:3}");
  EXPECT_EQ(elemSize(ElemKind::Float16), 2u);
  EXPECT_EQ(elemSize(ElemKind::Bool), 1u);
}

TEST(Type, EqualityIncludesQuantizationParams) {
  EXPECT_EQ(Type(ElemKind::Float32, {2}), Type(ElemKind::Float32, {2}));
  EXPECT_NE(Type(ElemKind::Float32, {2}), Type(ElemKind::Float32, {3}));
  EXPECT_NE(Type(ElemKind::QInt8, {2}, 0.5f, 0), Type(ElemKind::QInt8, {2}, 0.25f, 0));
  EXPECT_EQ(Type(ElemKind::QInt8, {2}, 0.5f, 0).hash(), Type(ElemKind::QInt8, {2}, 0.5f, 0).hash());
}

TEST(Type, CheckedRejectsNegativeAndOverflowingDims) {
  EXPECT_NE(errorOf(Type::checked(ElemKind::Float32, {-1, 3})).find("negative"), std::string::npos);
  int64_t big = int64_t(1) << 32;
  EXPECT_NE(errorOf(Type::checked(ElemKind::Float32, {big, big, big})).find("overflow"),
            std::string::npos);
  EXPECT_EQ(errorOf(Type::checked(ElemKind::Float32, {0, 5})), "");
}

TEST(Tensor, AlignedAndZeroed) {
  Tensor t(Type(ElemKind::Float32, {3, 5}));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data()) % kTensorAlignment, 0u);
  for (float v : t.values<float>())
    EXPECT_EQ(v, 0.0f);
  Tensor c = Tensor::fromValues<int64_t>({2}, {7, -9});
  Tensor d = c.clone();
  EXPECT_TRUE(c.bitwiseEqual(d));
  EXPECT_EQ(d.elementAsDouble(1), -9.0);
}

// IEEE 754 binary16 encodings (from the standard's tables).
TEST(Tensor, HalfConversion) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xC000);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7BFF);
  EXPECT_EQ(floatToHalf(1e6f), 0x7C00);           // overflows to infinity
  EXPECT_EQ(floatToHalf(5.960464477539063e-8f), 0x0001); // smallest subnormal
  EXPECT_EQ(halfToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(halfToFloat(0x0001), 5.960464477539063e-8f);
  EXPECT_TRUE(std::isinf(halfToFloat(0xFC00)));
}

// digit_0.npy was written by numpy (utils/models/make_digits_example.py).
TEST(Npy, ReadsNumpyFile) {
  ASSERT_OK_AND_ASSIGN(Tensor t, readNpyFile(sourcePath("examples/digits/images/digit_0.npy")));
  EXPECT_EQ(t.getType(), Type(ElemKind::Float32, {1, 1, 8, 8}));
  for (float v : t.values<float>()) {
    EXPECT_GE(v, 0.0f);
    EXPECT_LE(v, 1.0f);
  }
}

TEST(Npy, WriteReadRoundTrip) {
  TempDir dir;
  std::vector<Tensor> tensors;
  tensors.push_back(Tensor::fromValues<float>({2, 2}, {1.5f, -2, 3, 4}));
  tensors.push_back(Tensor::fromValues<int64_t>({3}, {1, 2, 3}));
  tensors.push_back(Tensor::fromValues<float>({}, {42.0f}));
  for (const Tensor &t : tensors) {
    std::string p = dir.path() + "/t.npy";
    ASSERT_EQ(errorOf(writeNpyFile(p, t)), "");
    ASSERT_OK_AND_ASSIGN(Tensor back, readNpyFile(p));
    EXPECT_TRUE(back.bitwiseEqual(t)) << back.getType().str();
  }
}

TEST(Npy, RejectsCorruptFiles) {
  EXPECT_NE(errorOf(parseNpy("not numpy at all")).find("magic"), std::string::npos);
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  std::string file = std::string("\x93NUMPY\x01\x00", 8) + char(header.size()) + char(0) + header;
  EXPECT_NE(errorOf(parseNpy(file + std::string(8, '\0'))).find("needs 24"), std::string::npos);
  std::string fortran = file;
  fortran.replace(fortran.find("False"), 5, "True ");
  EXPECT_NE(errorOf(parseNpy(fortran + std::string(24, '\0'))).find("Fortran"), std::string::npos);
  std::string complexType = file;
  complexType.replace(complexType.find("<f4"), 3, "<c8");
  EXPECT_NE(errorOf(parseNpy(complexType)).find("dtype"), std::string::npos);
  EXPECT_NE(errorOf(readNpyFile("/nonexistent/x.npy")).find("/nonexistent/x.npy"),
            std::string::npos);
}
