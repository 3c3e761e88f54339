"""Shared by the ember module's tests: the models they compile, built here with the onnx
package (Debian's 1.12) or taken from tests/models, and the tools they compare messages with.

Run with the build tree's package on the path, as ctest does (test Python.Module):
    PYTHONPATH=build/python /usr/bin/python3 -m pytest python/tests
"""
import os
import pathlib
import subprocess

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("EMBER_BUILD_DIR", ROOT / "build"))
BACKENDS = ["Interpreter", "CPU", "OpenCL"]


def save(model, path):
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return path


def make_model(nodes, inputs, outputs, initializers=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=7)


def mlp(batch=2, features=8, hidden=16, seed=0):
    """y = relu(x @ w + b): the model, and its weights for the numpy reference."""
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((features, hidden)).astype(np.float32)
    b = rng.standard_normal(hidden).astype(np.float32)
    model = make_model(
        [helper.make_node("MatMul", ["x", "w"], ["h"]),
         helper.make_node("Add", ["h", "b"], ["z"]),
         helper.make_node("Relu", ["z"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, features])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, hidden])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    return model, w, b


@pytest.fixture
def mlp_path(tmp_path):
    model, w, b = mlp()
    return save(model, tmp_path / "mlp.onnx"), w, b


def run_tool(tool, *args):
    """A tool of the build run as a user runs it: (exit code, stdout, stderr)."""
    p = subprocess.run([str(BUILD / "tools" / tool), *args], capture_output=True, text=True,
                       timeout=120)
    return p.returncode, p.stdout, p.stderr
