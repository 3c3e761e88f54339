#!/usr/bin/python3
"""Writes the seed corpus of one fuzz harness (tests/fuzz) into a directory, in the harness's
input format, from the project's model cases, the examples and Debian's ONNX backend suite.
    /usr/bin/python3 utils/fuzz/make_seeds.py HARNESS DIR
"""
import hashlib
import struct
import sys
from pathlib import Path

root = Path(__file__).resolve().parents[2]
suite = Path("/usr/share/libonnx-testdata/data")
MAX_SEED = 64 << 10  # bigger files are mostly weights, which the loaders only copy


def onnx_binaries():
    files = sorted(root.glob("tests/models/*/model.onnx")) + sorted(root.glob("examples/models/*.onnx"))
    files += sorted(suite.glob("*/*/model.onnx"))
    return [f.read_bytes() for f in files]


def onnx_texts():
    seeds = [f.read_bytes() for f in sorted(root.glob("tests/models/*/model.onnxtxt"))]
    import onnx
    from google.protobuf import text_format
    for f in sorted(suite.glob("node/*/model.onnx"))[::4]:
        seeds.append(text_format.MessageToString(onnx.load(str(f))).encode())
    return seeds


def caffe2_pairs():
    seeds = []
    for case in sorted((root / "tests/models/caffe2").iterdir()):
        for ext, flag in ((".pbtxt", 1), (".pb", 0)):
            predict, init = case / f"predict_net{ext}", case / f"init_net{ext}"
            if predict.exists() and init.exists():
                p = predict.read_bytes()
                seeds.append(bytes([flag]) + struct.pack("<I", len(p)) + p + init.read_bytes())
    return seeds


def tensor_files():
    seeds = [b"\x00" + f.read_bytes() for f in sorted(root.glob("examples/digits/images/*.npy"))]
    pbs = sorted(root.glob("tests/models/*/test_data_set_0/*.pb"))
    pbs += sorted(suite.glob("node/*/test_data_set_0/*.pb"))[::8]
    seeds += [b"\x01" + f.read_bytes() for f in pbs]
    return seeds


def compile_models():
    # The pipeline harnesses are slow per input: the model cases and a sample of the suite.
    files = sorted(root.glob("tests/models/*/model.onnx")) + sorted(root.glob("examples/models/*.onnx"))
    files += sorted(suite.glob("node/*/model.onnx"))[::6]
    seeds = [f.read_bytes() for f in files]
    import onnx
    from google.protobuf import text_format
    for f in sorted(root.glob("tests/models/*/model.onnxtxt")):
        m = onnx.ModelProto()
        text_format.Parse(f.read_text(), m)
        seeds.append(m.SerializeToString())
    return seeds


SOURCES = {
    "onnx_binary": onnx_binaries,
    "onnx_text": onnx_texts,
    "caffe2": caffe2_pairs,
    "tensor_files": tensor_files,
    "compile_interpreter": compile_models,
    "compile_cpu": compile_models,
}

if len(sys.argv) != 3 or sys.argv[1] not in SOURCES:
    sys.exit(f"usage: make_seeds.py {{{','.join(SOURCES)}}} DIR")
out = Path(sys.argv[2])
out.mkdir(parents=True, exist_ok=True)
n = 0
for seed in SOURCES[sys.argv[1]]():
    if len(seed) <= MAX_SEED:
        (out / hashlib.sha1(seed).hexdigest()).write_bytes(seed)
        n += 1
print(f"{n} seeds in {out}")
