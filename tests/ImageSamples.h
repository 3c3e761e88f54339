// Encoded images with the pixels PIL decodes them to (what the ONNX reference decodes with;
// Debian's python3-pil on the same libjpeg-turbo ember uses), for the tests of ImageDecoder
// and of the tools' image inputs. Hex strings, two digits a byte.
#ifndef EMBER_TESTS_IMAGESAMPLES_H
#define EMBER_TESTS_IMAGESAMPLES_H

#include <cstdint>
#include <string>
#include <vector>

namespace imagesamples {

// An 8x8 4:2:0 JPEG (quality 75) and PIL's np.array(img) of it: [8, 8, 3] RGB.
inline const char *const kJPEG =
    "ffd8ffe000104a46494600010100000100010000ffdb004300080606070605080707070909080a0c140d0c0b"
    "0b0c1912130f141d1a1f1e1d1a1c1c20242e2720222c231c1c2837292c30313434341f27393d38323c2e3334"
    "32ffdb0043010909090c0b0c180d0d1832211c21323232323232323232323232323232323232323232323232"
    "3232323232323232323232323232323232323232323232323232ffc000110800080008030122000211010311"
    "01ffc4001500010100000000000000000000000000000003ffc4001d10000300000700000000000000000000"
    "00000111020305061221f0ffc4001501010100000000000000000000000000000405ffc4001b110001040300"
    "00000000000000000000000500010204111422ffda000c03010002110311003f008695b4d718b2bb785392df"
    "500100c9cbb1b2f89240221634e3d2ffd9";
inline const char *const kJPEGRGB =
    "131cd31f1acc3e1dc65211ad8f2ab8a11c9cb71a8fbb1080162cd0272fcf4633ca5b28b1943cb7a933a1c636"
    "98cf34901a4bcc3054cf4e55c76148ad8e53a7a54b91c04d88cd4e831868bf3174c54c72b96167a1886c95a4"
    "6985b86473c4656d0d7fa4298dad3f8a9f5c878e878c85ac937dbb8966c3865a0b9a9829aba33ca18f5ca182"
    "81a172acae6fb7a052be9c4514b59634c8a443bb8b5fb97b7bb060aac262b7b546c5b63f16c1943cdaa74cce"
    "8e69cc7c7fbf5fb5d665c8d152deda54";

inline std::vector<uint8_t> fromHex(const std::string &hex) {
  std::vector<uint8_t> bytes;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    bytes.push_back(uint8_t(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return bytes;
}

} // namespace imagesamples

#endif
