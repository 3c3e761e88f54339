"""Every mistake raises ember.Error carrying the message the tools print for it."""
import numpy as np
import pytest

import ember
from conftest import run_tool


def tool_error(*args):
    """model-runner's message for the same mistake: its "error: " lines, less the prefix."""
    rc, _, err = run_tool("model-runner", *args)
    assert rc == 1
    lines = [line for line in err.splitlines() if line.startswith("error: ")]
    assert lines, err
    return "\n".join(line[len("error: "):] for line in lines)


def test_missing_file(tmp_path):
    path = tmp_path / "absent.onnx"
    with pytest.raises(ember.Error) as e:
        ember.compile(path)
    assert str(e.value) == tool_error(f"-model={path}")
    assert str(path) in str(e.value)


def test_bad_model(tmp_path):
    path = tmp_path / "junk.onnx"
    path.write_bytes(b"\x08\x07not a model at all")
    with pytest.raises(ember.Error) as e:
        ember.compile(path)
    assert str(e.value) == tool_error(f"-model={path}")
    with pytest.raises(ember.Error):
        ember.compile(path.read_bytes())


def test_unknown_flag_and_bad_value_as_the_command_line_says(mlp_path):
    path, _, _ = mlp_path
    with pytest.raises(ember.Error, match=r"^unknown flag 'bogus'$"):
        ember.compile(path, bogus=1)
    # model-runner's own flags (not the shared ones) are not the module's.
    with pytest.raises(ember.Error, match=r"^unknown flag 'output_dir'$"):
        ember.compile(path, output_dir="out")
    with pytest.raises(ember.Error) as e:
        ember.compile(path, llvm_opt_level="fast")
    assert str(e.value) + " (see -help)" == tool_error(f"-model={path}", "-llvm_opt_level=fast")
    with pytest.raises(ember.Error, match=r"flag 'model'.*first argument"):
        ember.compile(path, model=str(path))


def test_wrong_input_name_shape_dtype_or_none(mlp_path):
    path, _, _ = mlp_path
    model = ember.compile(path, backend="CPU")
    x = np.zeros((2, 8), np.float32)
    with pytest.raises(ember.Error, match=r"^the model has no input named 'q' \(its inputs: x\)$"):
        model.run({"x": x, "q": x})
    with pytest.raises(ember.Error,
                       match=r"^input 'x': got float32<3 x 8>, the model expects float32<2 x 8>$"):
        model.run({"x": np.zeros((3, 8), np.float32)})
    with pytest.raises(ember.Error,
                       match=r"^input 'x': got float64<2 x 8>, the model expects float32<2 x 8>$"):
        model.run({"x": x.astype(np.float64)})
    with pytest.raises(ember.Error, match=r"complex64.*no ember element kind"):
        model.run({"x": x.astype(np.complex64)})
    with pytest.raises(ember.Error, match=r"^no data for model input\(s\) 'x' float32<2 x 8>$"):
        model.run({})
