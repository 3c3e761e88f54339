"""What the module returns that the tools print or write: the graph and IR dumps, the profile,
bundles."""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

import ember
from conftest import make_model, run_tool, save


def test_dump_graph_and_dump_ir_are_what_model_runner_prints(mlp_path):
    path, _, _ = mlp_path
    model = ember.compile(path, backend="CPU")
    rc, graph_out, err = run_tool("model-runner", f"-model={path}", "-dump-graph")
    assert rc == 0, err
    rc, ir_out, err = run_tool("model-runner", f"-model={path}", "-dump-ir")
    assert rc == 0, err
    graph, ir = model.dump_graph(), model.dump_ir()
    assert graph and graph in graph_out
    assert ir and ir in ir_out
    assert graph != ir


def test_profile_gives_each_instructions_time(tmp_path):
    # A product, then element-wise work and a transpose: instructions of different costs.
    w = np.random.default_rng(0).standard_normal((256, 256)).astype(np.float32)
    m = make_model([helper.make_node("MatMul", ["x", "w"], ["h"]),
                    helper.make_node("Sigmoid", ["h"], ["s"]),
                    helper.make_node("Transpose", ["s"], ["t"]),
                    helper.make_node("Softmax", ["t"], ["y"])],
                   [helper.make_tensor_value_info("x", TensorProto.FLOAT, [64, 256])],
                   [helper.make_tensor_value_info("y", TensorProto.FLOAT, [256, 64])],
                   [numpy_helper.from_array(w, "w")])
    model = ember.compile(save(m, tmp_path / "p.onnx"), backend="CPU")
    x = np.ones((64, 256), np.float32)
    rows = model.profile({"x": x}, iterations=5)
    ir = model.dump_ir()
    assert len(rows) >= 3
    for row in rows:
        assert set(row) == {"name", "kind", "ms", "share", "gflops", "type"}
        assert row["ms"] >= 0 and f"%{row['name']}" in ir
    assert [r["ms"] for r in rows] == sorted((r["ms"] for r in rows), reverse=True)
    assert abs(sum(r["share"] for r in rows) - 1) < 1e-6
    # The product's rate: FLOPs over time.
    assert any(r["gflops"] > 0 for r in rows)
    # The model itself still runs unprofiled, with its own results.
    assert model.run({"x": x})["y"].shape == (256, 64)


def test_emit_bundle_writes_the_bundle_files(mlp_path, tmp_path):
    path, _, _ = mlp_path
    model = ember.compile(path, backend="Interpreter")
    files = model.emit_bundle(tmp_path / "host")
    names = {p.split("/")[-1] for p in files}
    assert {"mlp.o", "mlp.h", "mlp.weights.bin"} <= names
    for f in files:
        assert (tmp_path / "host" / f.split("/")[-1]).stat().st_size > 0
    assert "mlp" in (tmp_path / "host" / "mlp.h").read_text()

    files = model.emit_bundle(tmp_path / "arm", target="aarch64-linux-gnu", mcpu="cortex-a72",
                              network_name="net")
    obj = (tmp_path / "arm" / "net.o").read_bytes()
    assert obj[:4] == b"\x7fELF" and int.from_bytes(obj[18:20], "little") == 183  # EM_AARCH64
