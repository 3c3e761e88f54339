"""What run() does not copy: its outputs are views of the memory the compiled code wrote them
in, one memory per run (RunMemory, the arrays' base), kept alive by the arrays."""
import gc

import numpy as np
from onnx import TensorProto, helper

import ember
from conftest import make_model, save


def two_outputs(path):
    m = make_model([helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Neg", ["x"], ["b"])],
                   [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 4])],
                   [helper.make_tensor_value_info("a", TensorProto.FLOAT, [4, 4]),
                    helper.make_tensor_value_info("b", TensorProto.FLOAT, [4, 4])])
    return save(m, path)


def test_outputs_are_views_of_the_runs_memory(tmp_path):
    model = ember.compile(two_outputs(tmp_path / "two.onnx"), backend="CPU")
    x = np.arange(-8, 8, dtype=np.float32).reshape(4, 4)
    out = model.run({"x": x})
    a, b = out["a"], out["b"]
    assert isinstance(a.base, ember.RunMemory) and a.base is b.base
    region = np.asarray(a.base)  # the run's whole memory, as bytes
    assert np.shares_memory(a, region) and np.shares_memory(b, region)
    assert not a.flags.owndata
    np.testing.assert_array_equal(a, np.maximum(x, 0))
    np.testing.assert_array_equal(b, -x)


def test_each_run_has_its_own_memory(tmp_path):
    model = ember.compile(two_outputs(tmp_path / "two.onnx"), backend="CPU")
    x = np.arange(16, dtype=np.float32).reshape(4, 4)
    first = model.run({"x": x})["b"]
    second = model.run({"x": 2 * x})["b"]
    assert not np.shares_memory(first, second)
    np.testing.assert_array_equal(first, -x)
    np.testing.assert_array_equal(second, -2 * x)
    # An output outlives its model and everything else of its run.
    del model, second
    gc.collect()
    np.testing.assert_array_equal(first, -x)
