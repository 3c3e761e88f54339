#!/usr/bin/python3
"""Generate the second seed walkthrough model, tests/models/linear_sigmoid/.

torch.nn.Sequential(nn.Linear(10, 5), nn.Sigmoid()) with torch.manual_seed(0),
exported by torch.onnx.export at opset 13 to a binary model. Writes:

    tests/models/linear_sigmoid/model.onnx                      (input "x" [1,10], output "y" [1,5])
    tests/models/linear_sigmoid/test_data_set_0/input_0.pb      TensorProto "x"
    tests/models/linear_sigmoid/test_data_set_0/output_0.pb     TensorProto "y" (torch's output)
    tests/models/linear_sigmoid/x.npy, y_torch.npy              same tensors, for the command line:
        -input=x=tests/models/linear_sigmoid/x.npy

Deterministic and idempotent (the folder is deleted and rewritten). Run:

    /usr/bin/python3 utils/models/make_seed_torch_models.py
"""

import os
import shutil

import numpy as np
import onnx
import torch
from onnx import numpy_helper

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CASE_DIR = os.path.join(REPO, "tests", "models", "linear_sigmoid")


def main():
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(10, 5), torch.nn.Sigmoid()).eval()
    x = torch.randn(1, 10)
    with torch.no_grad():
        y = model(x)

    if os.path.exists(CASE_DIR):
        shutil.rmtree(CASE_DIR)
    data_dir = os.path.join(CASE_DIR, "test_data_set_0")
    os.makedirs(data_dir)
    model_path = os.path.join(CASE_DIR, "model.onnx")
    torch.onnx.export(model, (x,), model_path, opset_version=13,
                      input_names=["x"], output_names=["y"], do_constant_folding=True)

    m = onnx.load(model_path)
    onnx.checker.check_model(m, full_check=True)
    assert [i.name for i in m.graph.input] == ["x"], [i.name for i in m.graph.input]
    assert [o.name for o in m.graph.output] == ["y"]

    # Independent numpy check of torch's output.
    w = model[0].weight.detach().numpy().astype(np.float64)
    b = model[0].bias.detach().numpy().astype(np.float64)
    ref = 1.0 / (1.0 + np.exp(-(x.numpy().astype(np.float64) @ w.T + b)))
    assert np.allclose(ref, y.numpy(), rtol=1e-5, atol=1e-6)

    x_np = x.numpy().astype(np.float32)
    y_np = y.numpy().astype(np.float32)
    for name, arr, fname in (("x", x_np, "input_0.pb"), ("y", y_np, "output_0.pb")):
        with open(os.path.join(data_dir, fname), "wb") as f:
            f.write(numpy_helper.from_array(arr, name=name).SerializeToString())
    np.save(os.path.join(CASE_DIR, "x.npy"), x_np)
    np.save(os.path.join(CASE_DIR, "y_torch.npy"), y_np)
    print("wrote tests/models/linear_sigmoid: nodes %s" % [n.op_type for n in m.graph.node])
    print("x =", x_np)
    print("y =", y_np)


if __name__ == "__main__":
    main()
