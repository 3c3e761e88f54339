"""ember.compile from a path and from bytes, the models' metadata, runs on every backend against
numpy and torch, threads, inputs fixed at compile time, the tools' flags by name."""
import numpy as np
from onnx import TensorProto, helper, numpy_helper
import pytest

import ember
from conftest import BACKENDS, ROOT, make_model, mlp, save


def reference(x, w, b):
    return np.maximum(x @ w + b, 0)


def test_compile_from_path_gives_inputs_and_outputs(mlp_path):
    path, _, _ = mlp_path
    model = ember.compile(path, backend="Interpreter")
    assert [(i.name, i.shape, i.dtype) for i in model.inputs] == [("x", (2, 8), np.float32)]
    assert [(o.name, o.shape, o.dtype) for o in model.outputs] == [("y", (2, 16), np.float32)]


def test_compile_from_bytes_runs_as_from_a_path():
    model_proto, w, b = mlp(seed=3)
    model = ember.compile(model_proto.SerializeToString(), backend="CPU")
    x = np.random.default_rng(1).standard_normal((2, 8)).astype(np.float32)
    np.testing.assert_allclose(model.run({"x": x})["y"], reference(x, w, b), rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
def test_run_matches_numpy_on_every_backend(mlp_path, backend):
    path, w, b = mlp_path
    model = ember.compile(path, backend=backend)
    x = np.random.default_rng(2).standard_normal((2, 8)).astype(np.float32)
    out = model.run({"x": x})
    assert list(out) == ["y"]
    np.testing.assert_allclose(out["y"], reference(x, w, b), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
def test_run_matches_torch_on_every_backend(backend):
    case = ROOT / "tests" / "models" / "linear_sigmoid"
    model = ember.compile(case / "model.onnx", backend=backend)
    y = model.run({"x": np.load(case / "x.npy")})["y"]
    np.testing.assert_allclose(y, np.load(case / "y_torch.npy"), rtol=1e-5, atol=1e-6)


def test_two_threads_per_product_match_numpy(tmp_path):
    # Large enough that the product is split over the two threads.
    model_proto, w, b = mlp(batch=64, features=256, hidden=128, seed=4)
    model = ember.compile(save(model_proto, tmp_path / "wide.onnx"), backend="CPU", threads=2)
    x = np.random.default_rng(5).standard_normal((64, 256)).astype(np.float32)
    np.testing.assert_allclose(model.run({"x": x})["y"], reference(x, w, b), rtol=1e-4,
                               atol=1e-4)


def test_define_inputs_fixes_an_input_at_compile_time(tmp_path):
    m = make_model([helper.make_node("Add", ["x", "s"], ["y"])],
                   [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3]),
                    helper.make_tensor_value_info("s", TensorProto.FLOAT, [3])],
                   [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])])
    path = save(m, tmp_path / "add.onnx")
    s = np.array([1, 2, 4], np.float32)
    model = ember.compile(path, backend="CPU", define_inputs={"s": s})
    assert [i.name for i in model.inputs] == ["x"]
    x = np.array([0.5, -1, 3], np.float32)
    np.testing.assert_array_equal(model.run({"x": x})["y"], x + s)


def test_tool_flags_by_name_in_either_spelling(tmp_path):
    m = make_model([helper.make_node("Relu", ["x"], ["y"])],
                   [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3])],
                   [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])])
    path = save(m, tmp_path / "sym.onnx")
    assert ember.compile(path, onnx_define_symbol="N,4").inputs[0].shape == (4, 3)
    model = ember.compile(path, **{"onnx-define-symbol": ["N,5"], "llvm-opt-level": 0})
    assert model.inputs[0].shape == (5, 3)
    x = np.linspace(-1, 1, 15, dtype=np.float32).reshape(5, 3)
    np.testing.assert_array_equal(model.run({"x": x})["y"], np.maximum(x, 0))


@pytest.mark.parametrize("backend", BACKENDS)
def test_backend_argument_reaches_the_backend(mlp_path, backend, capfd):
    # Only the CPU backend has LLVM IR to print; the others refuse the flag, each in its words.
    path, _, _ = mlp_path
    if backend == "CPU":
        ember.compile(path, backend=backend, dump_llvm_ir=True)
        assert "define " in capfd.readouterr().out
    else:
        with pytest.raises(ember.Error, match=f"^the {backend} backend takes no "):
            ember.compile(path, backend=backend, dump_llvm_ir=True)
