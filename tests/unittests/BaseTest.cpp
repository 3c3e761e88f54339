// Element kinds, types, tensors and .npy files.
#include "TestUtils.h"

#include "ember/Base/Npy.h"
#include "ember/Base/Tensor.h"
#include "ember/Semantics/NarrowKinds.h"

#include <cmath>
#include <iterator>

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

//===-- The narrow kinds' conversions (ember/Semantics/NarrowKinds.h) -------------------------===//

namespace {

// The inputs and each float8 kind's bits as ONNX computes them: produced by the venv's
// onnx.numpy_helper.saturate_cast (saturate=1) and ml_dtypes' astype (saturate=0), not by ember.
const float kFloat8Inputs[] = {
    0.0f, -0.0f, 1.0f, -1.0f, 0.10000000149011612f, 0.30000001192092896f, 1.0625f, 1.1875f,
    3.141590118408203f, -2.718280076980591f, 15.5f, 100.0f, 240.0f, 241.0f, 448.0f, 464.0f,
    465.0f, 500.0f, -1000.0f, 57344.0f, 61440.0f, 70000.0f, 0.001953125f, 0.0009765625f,
    0.00048828125f, 0.0003000000142492354f, 1.52587890625e-05f, 7.62939453125e-06f,
    3.000000106112566e-06f, 1.0000000116860974e-07f, -1.0000000116860974e-07f,
    1.0000000031710769e-30f, INFINITY, -INFINITY};
struct Float8Bits {
  ElemKind kind;
  uint8_t saturated[34], unsaturated[34];
};
const Float8Bits kFloat8Bits[] = {
    {ElemKind::Float8E4M3FN,
     {0x00, 0x80, 0x38, 0xB8, 0x1D, 0x2A, 0x38, 0x3A, 0x45, 0xC3, 0x58, 0x6C,
      0x77, 0x77, 0x7E, 0x7E, 0x7E, 0x7E, 0xFE, 0x7E, 0x7E, 0x7E, 0x01, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x00, 0x7E, 0xFE},
     {0x00, 0x80, 0x38, 0xB8, 0x1D, 0x2A, 0x38, 0x3A, 0x45, 0xC3, 0x58, 0x6C,
      0x77, 0x77, 0x7E, 0x7E, 0x7F, 0x7F, 0xFF, 0x7F, 0x7F, 0x7F, 0x01, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x00, 0x7F, 0xFF}},
    {ElemKind::Float8E4M3FNUZ,
     {0x00, 0x00, 0x40, 0xC0, 0x25, 0x32, 0x40, 0x42, 0x4D, 0xCB, 0x60, 0x74,
      0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0xFF, 0x7F, 0x7F, 0x7F, 0x02, 0x01,
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x7F, 0xFF},
     {0x00, 0x00, 0x40, 0xC0, 0x25, 0x32, 0x40, 0x42, 0x4D, 0xCB, 0x60, 0x74,
      0x7F, 0x7F, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02, 0x01,
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x80}},
    {ElemKind::Float8E5M2,
     {0x00, 0x80, 0x3C, 0xBC, 0x2E, 0x35, 0x3C, 0x3D, 0x42, 0xC1, 0x4C, 0x56,
      0x5C, 0x5C, 0x5F, 0x5F, 0x5F, 0x60, 0xE4, 0x7B, 0x7B, 0x7B, 0x18, 0x14,
      0x10, 0x0D, 0x01, 0x00, 0x00, 0x00, 0x80, 0x00, 0x7B, 0xFB},
     {0x00, 0x80, 0x3C, 0xBC, 0x2E, 0x35, 0x3C, 0x3D, 0x42, 0xC1, 0x4C, 0x56,
      0x5C, 0x5C, 0x5F, 0x5F, 0x5F, 0x60, 0xE4, 0x7B, 0x7C, 0x7C, 0x18, 0x14,
      0x10, 0x0D, 0x01, 0x00, 0x00, 0x00, 0x80, 0x00, 0x7C, 0xFC}},
    {ElemKind::Float8E5M2FNUZ,
     {0x00, 0x00, 0x40, 0xC0, 0x32, 0x39, 0x40, 0x41, 0x46, 0xC5, 0x50, 0x5A,
      0x60, 0x60, 0x63, 0x63, 0x63, 0x64, 0xE8, 0x7F, 0x7F, 0x7F, 0x1C, 0x18,
      0x14, 0x11, 0x02, 0x01, 0x00, 0x00, 0x00, 0x00, 0x7F, 0xFF},
     {0x00, 0x00, 0x40, 0xC0, 0x32, 0x39, 0x40, 0x41, 0x46, 0xC5, 0x50, 0x5A,
      0x60, 0x60, 0x63, 0x63, 0x63, 0x64, 0xE8, 0x7F, 0x80, 0x80, 0x1C, 0x18,
      0x14, 0x11, 0x02, 0x01, 0x00, 0x00, 0x00, 0x00, 0x80, 0x80}},
};

} // namespace

TEST(NarrowKinds, FloatToFloat8MatchesONNX) {
  for (const Float8Bits &k : kFloat8Bits) {
    long code = narrowKindCode(k.kind);
    for (size_t i = 0; i < std::size(kFloat8Inputs); ++i) {
      SCOPED_TRACE(elemKindName(k.kind).str() + " of " + std::to_string(kFloat8Inputs[i]));
      EXPECT_EQ(ember_narrow_from_double(code, kFloat8Inputs[i], 1), k.saturated[i]);
      EXPECT_EQ(ember_narrow_from_double(code, kFloat8Inputs[i], 0), k.unsaturated[i]);
    }
    // NaN gives a NaN of the kind, saturating or not.
    EXPECT_TRUE(std::isnan(ember_narrow_to_float(code, ember_narrow_from_double(code, NAN, 1))));
    EXPECT_TRUE(std::isnan(ember_narrow_to_float(code, ember_narrow_from_double(code, NAN, 0))));
  }
}

TEST(NarrowKinds, Float8ToFloatIsExactAndRoundTrips) {
  // Values ml_dtypes decodes (bits 0x01, 0x08, 0x38, 0x7E, 0x7B, 0x7C, 0xFE per kind).
  EXPECT_EQ(ember_narrow_to_float(EMBER_NARROW_F8E4M3FN, 0x01), 0.001953125f);
  EXPECT_EQ(ember_narrow_to_float(EMBER_NARROW_F8E4M3FN, 0x7E), 448.0f);
  EXPECT_EQ(ember_narrow_to_float(EMBER_NARROW_F8E4M3FN, 0xFE), -448.0f);
  EXPECT_TRUE(std::isnan(ember_narrow_to_float(EMBER_NARROW_F8E4M3FN, 0x7F)));
  EXPECT_EQ(ember_narrow_to_float(EMBER_NARROW_F8E4M3FNUZ, 0x01), 0.0009765625f);
  EXPECT_EQ(ember_narrow_to_float(EMBER_NARROW_F8E4M3FNUZ, 0x7F), 240.0f);
  EXPECT_TRUE(std::isnan(ember_narrow_to_float(EMBER_NARROW_F8E4M3FNUZ, 0x80)));
  EXPECT_EQ(ember_narrow_to_float(EMBER_NARROW_F8E5M2, 0x01), 1.52587890625e-05f);
  EXPECT_EQ(ember_narrow_to_float(EMBER_NARROW_F8E5M2, 0x7B), 57344.0f);
  EXPECT_EQ(ember_narrow_to_float(EMBER_NARROW_F8E5M2, 0x7C), INFINITY);
  EXPECT_TRUE(std::isnan(ember_narrow_to_float(EMBER_NARROW_F8E5M2, 0x7E)));
  EXPECT_EQ(ember_narrow_to_float(EMBER_NARROW_F8E5M2FNUZ, 0x01), 7.62939453125e-06f);
  EXPECT_EQ(ember_narrow_to_float(EMBER_NARROW_F8E5M2FNUZ, 0x38), 0.25f);
  EXPECT_EQ(ember_narrow_to_float(EMBER_NARROW_F8E5M2FNUZ, 0x7F), 57344.0f);
  // Every non-NaN bit pattern converts back to itself.
  for (long code = EMBER_NARROW_F8E4M3FN; code <= EMBER_NARROW_F8E5M2FNUZ; ++code)
    for (unsigned bits = 0; bits < 256; ++bits) {
      float f = ember_narrow_to_float(code, bits);
      if (!std::isnan(f)) {
        EXPECT_EQ(ember_narrow_from_double(code, f, 0), bits) << code << " " << bits;
      }
    }
}

TEST(NarrowKinds, Float4AndInt4MatchONNX) {
  // ml_dtypes' float4_e2m1fn (which saturates: it has no infinity), and onnx.numpy_helper's
  // saturate_cast to int4 and uint4 (np.round, half to even, then np.clip).
  const float f4In[] = {0,   0.25f, 0.26f, 0.75f, 1.25f, 1.75f, 2.5f,  3.5f,     5,
                        5.1f, 6,    7,     100,   -0.3f, -4.5f, INFINITY, -INFINITY};
  const uint8_t f4Bits[] = {0x0, 0x0, 0x1, 0x2, 0x2, 0x4, 0x4, 0x6, 0x6,
                            0x7, 0x7, 0x7, 0x7, 0x9, 0xE, 0x7, 0xF};
  for (size_t i = 0; i < std::size(f4In); ++i)
    EXPECT_EQ(ember_narrow_from_double(EMBER_NARROW_F4E2M1, f4In[i], 0), f4Bits[i]) << f4In[i];
  const float f4Values[] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
  for (unsigned b = 0; b < 16; ++b)
    EXPECT_EQ(ember_narrow_to_float(EMBER_NARROW_F4E2M1, b), (b & 8 ? -1 : 1) * f4Values[b & 7]);

  const float intIn[] = {-9, -8.5f, -7.5f, -0.5f, 0.5f, 1.5f, 2.5f, 6.5f, 7.4f, 7.5f, 100, -100};
  const int i4[] = {-8, -8, -8, 0, 0, 2, 2, 6, 7, 7, 7, -8};
  const int u4[] = {0, 0, 0, 0, 0, 2, 2, 6, 7, 8, 15, 0};
  for (size_t i = 0; i < std::size(intIn); ++i) {
    unsigned s = ember_narrow_from_double(EMBER_NARROW_INT4, intIn[i], 1);
    EXPECT_EQ(int(int8_t(s)), i4[i]) << intIn[i];
    EXPECT_EQ(ember_narrow_to_float(EMBER_NARROW_INT4, s), float(i4[i]));
    unsigned u = ember_narrow_from_double(EMBER_NARROW_UINT4, intIn[i], 1);
    EXPECT_EQ(int(u), u4[i]) << intIn[i];
  }
  EXPECT_EQ(ember_narrow_from_double(EMBER_NARROW_INT4, NAN, 1), 0u);
}

TEST(NarrowKinds, KindsAreOneByteAndNotArithmetic) {
  for (ElemKind k : {ElemKind::Float8E4M3FN, ElemKind::Float8E4M3FNUZ, ElemKind::Float8E5M2,
                     ElemKind::Float8E5M2FNUZ, ElemKind::Int4, ElemKind::UInt4,
                     ElemKind::Float4E2M1}) {
    EXPECT_EQ(elemSize(k), 1u);
    EXPECT_TRUE(isNarrowKind(k));
    EXPECT_FALSE(isIntegerKind(k) || isFloatKind(k));
    ElemKind parsed;
    EXPECT_TRUE(parseElemKind(elemKindName(k), parsed) && parsed == k);
  }
  Tensor t(Type(ElemKind::Int4, {2}));
  t.setElementFromDouble(0, -3);
  t.setElementFromDouble(1, 20);
  EXPECT_EQ(t.elementAsDouble(0), -3);
  EXPECT_EQ(t.elementAsDouble(1), 7);
  // numpy has no dtype for them: .npy refuses them by name.
  std::string err = errorOf(writeNpyFile("/tmp/ember_narrow_test.npy", t));
  EXPECT_NE(err.find("int4"), std::string::npos) << err;
}
