#!/usr/bin/env python3
"""Converts an ONNX model to another opset of the default domain with the onnx package's version
converter (run it with the build tree's venv, build/venv/bin/python: Debian's onnx 1.12 knows
opsets up to 17), then checks the result with that package's checker. This is how users bring
models of new opsets that were exported at old ones; utils/zoo.sh --opset uses it.

    build/venv/bin/python utils/onnx/convert_opset.py IN.onnx OUT.onnx OPSET
"""
import sys

import onnx
from onnx import version_converter


def main():
    src, dst, opset = sys.argv[1], sys.argv[2], int(sys.argv[3])
    model = onnx.load(src)
    converted = version_converter.convert_version(model, opset)
    onnx.checker.check_model(converted)
    onnx.save(converted, dst)


if __name__ == "__main__":
    main()
