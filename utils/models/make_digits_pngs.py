#!/usr/bin/python3
"""Write the digits example's test images as grayscale PNG files, for model-runner's image
inputs (-input=image=digit_3.png -image-mode=0to1 -topk=3 -labels=...).

Reads examples/digits/images/digit_<k>.npy (the model input, [1,1,8,8] in [0, 1], the digits'
0..16 values / 16) and writes digit_<k>.png beside it: 8x8, 8-bit gray, each pixel the value
times 255 rounded, so that -image-mode=0to1 gives the model each value within 1/510. Also
writes labels.txt (one label per class). The PNG is encoded here with zlib and struct alone,
not with the decoder ember uses. Run:

    /usr/bin/python3 utils/models/make_digits_pngs.py
"""

import os
import struct
import zlib

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IMAGES_DIR = os.path.join(REPO, "examples", "digits", "images")
LABELS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


def png_gray8(pixels):
    """A PNG file of the uint8 [height, width] array: 8-bit grayscale, no filtering."""
    height, width = pixels.shape

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)  # depth 8, gray
    rows = b"".join(b"\x00" + bytes(row) for row in pixels)  # filter type 0 per row
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


def main():
    for k in range(10):
        base = os.path.join(IMAGES_DIR, "digit_%d" % k)
        image = np.load(base + ".npy")[0, 0]
        pixels = np.clip(np.rint(image * 255), 0, 255).astype(np.uint8)
        with open(base + ".png", "wb") as f:
            f.write(png_gray8(pixels))
    with open(os.path.join(IMAGES_DIR, "labels.txt"), "w") as f:
        f.write("".join(label + "\n" for label in LABELS))
    print("wrote %s/digit_<k>.png and labels.txt" % os.path.relpath(IMAGES_DIR, REPO))


if __name__ == "__main__":
    main()
