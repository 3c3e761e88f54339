"""Model.run releases the GIL: two Python threads run one model at once. Measured with the
times each run's compiled code started and finished (RunMemory.started, .finished), not with
speed ratios, which a shared machine blurs, nor with timestamps taken in Python, which a thread
holding the GIL delays: with the GIL held (or any lock) one run would start after the other
ended.
"""
import threading
import time

import numpy as np
from onnx import TensorProto, helper, numpy_helper

import ember
from conftest import make_model, save

LAYERS, BATCH, WIDTH = 24, 256, 512  # ~3 GFLOP: around 100 ms on one core


def deep_model(path):
    rng = np.random.default_rng(7)
    w = (rng.standard_normal((WIDTH, WIDTH)) / np.sqrt(WIDTH)).astype(np.float32)
    nodes, prev = [], "x"
    for i in range(LAYERS):
        nodes += [helper.make_node("MatMul", [prev, "w"], [f"m{i}"]),
                  helper.make_node("Relu", [f"m{i}"], [f"r{i}" if i < LAYERS - 1 else "y"])]
        prev = f"r{i}"
    m = make_model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [BATCH, WIDTH])],
                   [helper.make_tensor_value_info("y", TensorProto.FLOAT, [BATCH, WIDTH])],
                   [numpy_helper.from_array(w, "w")])
    return save(m, path), w


def test_two_threads_run_at_once(tmp_path):
    path, w = deep_model(tmp_path / "deep.onnx")
    model = ember.compile(path, backend="CPU")
    rng = np.random.default_rng(8)
    xs = [rng.standard_normal((BATCH, WIDTH)).astype(np.float32) for _ in range(2)]
    model.run({"x": xs[0]})  # warm
    barrier = threading.Barrier(2)
    spans, outs = [None, None], [None, None]

    def work(k):
        barrier.wait()
        outs[k] = model.run({"x": xs[k]})["y"]
        spans[k] = (outs[k].base.started, outs[k].base.finished)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    overlap = min(s[1] for s in spans) - max(s[0] for s in spans)
    shortest = min(s[1] - s[0] for s in spans)
    print(f"runs {[round((e - s) * 1e3, 1) for s, e in spans]} ms, overlap {overlap * 1e3:.1f} ms")
    # Held, the GIL would make the overlap negative; a quarter leaves room for a thread that a
    # loaded machine wakes late.
    assert overlap > 0.25 * shortest
    # The clock is time.monotonic()'s.
    assert spans[0][0] <= time.monotonic() and time.monotonic() - spans[0][1] < 60
    for x, y in zip(xs, outs):
        ref = x
        for _ in range(LAYERS):
            ref = np.maximum(ref @ w, 0)
        np.testing.assert_allclose(y, ref, rtol=1e-3, atol=1e-3)
