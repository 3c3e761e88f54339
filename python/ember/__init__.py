"""ember from Python: compile an ONNX (or Caffe2) model, run it on numpy arrays, write bundles.

    import ember
    model = ember.compile("m.onnx", backend="CPU")
    outputs = model.run({"x": x})  # {name: ndarray}

The reference is docs/python.md. Compiling goes through the code model-runner and
model-compiler run, with their flags by name (ember.compile(p, dump_graph=True)); every
error they report raises ember.Error with their message.
"""

import collections
import numbers
import os
import re
import tempfile

import numpy as np

from ._ember import Error, RunMemory  # noqa: F401  (RunMemory: the base of run()'s outputs)
from . import _ember

__all__ = ["compile", "Model", "Error", "TensorInfo"]
Error.__module__ = RunMemory.__module__ = __name__  # as users name them: ember.Error

TensorInfo = collections.namedtuple("TensorInfo", "name shape dtype type")
TensorInfo.__doc__ = ("An input or output: its name, shape (a tuple), numpy dtype (None where "
                      "numpy has none, e.g. bfloat16) and ember's type ('float32<1 x 3>').")


def _flag_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return str(value)


def _flag_pairs(flags):
    """(name, text) per flag; a list or tuple is the flag repeated (-onnx-define-symbol)."""
    pairs = []
    for name, value in flags.items():
        for one in value if isinstance(value, (list, tuple)) else [value]:
            pairs.append((name, _flag_text(one)))
    return pairs


class Model:
    """A compiled model (ember.compile). Several threads may call run() at once."""

    def __init__(self, path, flags, files):
        self._path = path
        self._flags = flags
        self._files = files  # the temporary files compile() wrote (bytes, arrays): kept alive
        self._native = _ember.Model(path, flags)

    @property
    def inputs(self):
        """The run-time inputs, as TensorInfo."""
        return [TensorInfo(*i) for i in self._native.inputs]

    @property
    def outputs(self):
        """The outputs, as TensorInfo, in the graph's order."""
        return [TensorInfo(*o) for o in self._native.outputs]

    def run(self, inputs):
        """Runs once on {name: array} (each of the input's exact dtype and shape); returns
        {name: ndarray}. The GIL is released while the model runs. Each output is a view of
        the run's own memory (no copy; out.base is that memory), each input is copied once
        from the array into it."""
        return self._native.run(dict(inputs))

    def profile(self, inputs, iterations=10):
        """Each computing instruction's time per run over `iterations` runs on `inputs`,
        slowest first: dicts with name, kind, ms, share, gflops, type. The first call compiles
        a copy of the model with -profile."""
        return self._native.profile(dict(inputs), int(iterations))

    def emit_bundle(self, dir, target=None, mcpu=None, network_name=None, **flags):
        """Writes a bundle of the model into `dir` as model-compiler -emit-bundle does, for the
        CPU backend of this machine or of `target`/`mcpu` (more flags by name); returns the
        paths written. network_name: the bundle's name (default: the model file's stem)."""
        chosen = {"backend": "CPU", "target": target, "mcpu": mcpu}
        chosen = {name: value for name, value in chosen.items() if value is not None}
        pairs = [p for p in self._flags if p[0].replace("-", "_") not in chosen]
        pairs += list(chosen.items())
        pairs += _flag_pairs(flags)
        os.makedirs(dir, exist_ok=True)
        return _ember.emit_bundle(self._path, pairs, os.fspath(dir), network_name or "")

    def dump_graph(self):
        """The optimized graph, as -dump-graph prints it."""
        return self._native.dump_graph()

    def dump_ir(self):
        """The IR with its memory plan, as -dump-ir prints it."""
        return self._native.dump_ir()


def compile(model, /, backend="CPU", threads=1, define_inputs=None, load_profile=None, **flags):
    """Compiles `model` (a path to .onnx/.onnxtxt or a Caffe2 folder, or an ONNX model's
    bytes) for `backend` (CPU, Interpreter, OpenCL). define_inputs={name: number, array or
    file} fixes inputs at compile time (-onnx-define-input); load_profile quantizes from a
    profile; any other flag of model-runner by name (dump_graph=True,
    onnx_define_symbol=["N,8"]). Raises ember.Error."""
    files = None
    if isinstance(model, (bytes, bytearray, memoryview)):
        files = tempfile.TemporaryDirectory(prefix="ember-")
        path = os.path.join(files.name, "model.onnx")
        with open(path, "wb") as f:
            f.write(model)
    else:
        path = os.fspath(model)
    pairs = [("backend", backend), ("threads", str(int(threads)))]
    if load_profile is not None:
        pairs.append(("load_profile", os.fspath(load_profile)))
    for name, value in (define_inputs or {}).items():
        if isinstance(value, (str, os.PathLike)):
            text = os.fspath(value)
        elif isinstance(value, numbers.Number) and not isinstance(value, bool):
            text = repr(value)
        else:  # an array: the flag takes it as a .npy file
            if files is None:
                files = tempfile.TemporaryDirectory(prefix="ember-")
            text = os.path.join(files.name, re.sub(r"[^A-Za-z0-9_.-]", "_", name) + ".npy")
            np.save(text, np.asarray(value))
        pairs.append(("onnx_define_input", f"{name}={text}"))
    pairs += _flag_pairs(flags)
    return Model(path, pairs, files)
