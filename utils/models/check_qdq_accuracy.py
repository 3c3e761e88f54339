#!/usr/bin/python3
"""Accuracy of the int8 QDQ digits model on the whole test split, against float32.

Classifies the 359 test-split images of the digits example (utils/models/make_digits_example.py's
split, sklearn's digits) with

  - the float32 model examples/models/digits_cnn.onnx under onnxruntime,
  - the QDQ model tests/models/qdq_digits/model.onnx (utils/models/make_qdq_models.py, calibrated
    on 100 training-split images) under onnxruntime, which runs it with its integer kernels,
  - the same QDQ model compiled and run by ember (build/tools/model-runner) on each --backend,

all 359 images in one batch (the models' batch dimension made symbolic), prints the
accuracies (and how far ember's outputs are from onnxruntime's, in output quantization steps)
and fails (exit 1) when a QDQ accuracy is more than 0.5 points below float32's, the bound
issue 17 sets. Takes about 2 s. Needs node and onnxruntime-node (utils/bench/setup-ort.sh) and
a build of model-runner.

    /usr/bin/python3 utils/models/check_qdq_accuracy.py [--backend CPU,Interpreter,OpenCL]
                                                       [--build build]
"""

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_qdq_models as qdq  # noqa: E402

QDQ_MODEL = os.path.join(qdq.TESTS_DIR, "qdq_digits", "model.onnx")
MAX_DROP_POINTS = 0.5


def accuracy(probabilities, labels):
    return 100.0 * float(np.mean(probabilities.argmax(axis=1) == labels))


def onnxruntime_probabilities(model, images):
    batched = qdq.with_symbolic_batch(model)
    return qdq.run_onnxruntime(batched, {qdq.graph_inputs(model)[0]: images})[
        model.graph.output[0].name]


def ember_probabilities(build, backend, model, images):
    """model-runner's output for the whole batch (the symbolic batch bound to its size)."""
    runner = os.path.join(build, "tools", "model-runner")
    if not os.access(runner, os.X_OK):
        sys.exit("check_qdq_accuracy.py: %s not found (build it: ninja -C %s model-runner)"
                 % (runner, build))
    with tempfile.TemporaryDirectory(prefix="qdq-acc-") as tmp:
        model_path, input_path = os.path.join(tmp, "model.onnx"), os.path.join(tmp, "x.npy")
        onnx.save(qdq.with_symbolic_batch(model), model_path)
        np.save(input_path, images)
        cmd = [runner, "-model=" + model_path, "-backend=" + backend,
               "-onnx-define-symbol=batch,%d" % len(images),
               "-input=%s=%s" % (qdq.graph_inputs(model)[0], input_path),
               "-output-dir=" + os.path.join(tmp, "out")]
        done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            raise RuntimeError("model-runner failed (%s):\n%s%s" % (" ".join(cmd), done.stdout,
                                                                    done.stderr))
        return np.load(os.path.join(tmp, "out", qdq.npy_file_name(model.graph.output[0].name)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backend", default="CPU",
                    help="ember backends, comma-separated (default CPU)")
    ap.add_argument("--build", default=os.environ.get("EMBER_BUILD_DIR",
                                                      os.path.join(qdq.REPO, "build")))
    args = ap.parse_args()
    qdq.require_onnxruntime()

    _, _, images, labels = qdq.digits_split()
    float_model, qdq_model = onnx.load(qdq.DIGITS_MODEL), onnx.load(QDQ_MODEL)
    reference = accuracy(onnxruntime_probabilities(float_model, images), labels)
    ort_qdq = onnxruntime_probabilities(qdq_model, images)
    results = [("onnxruntime, QDQ int8", accuracy(ort_qdq, labels), "")]
    step = float(open(os.path.join(os.path.dirname(QDQ_MODEL), "tolerance")).read()) / \
        qdq.TOLERANCE_STEPS
    for backend in args.backend.split(","):
        got = ember_probabilities(args.build, backend, qdq_model, images)
        agreement = "; vs onnxruntime: max %.2f output steps, %d predictions differ" % (
            np.abs(got - ort_qdq).max() / step,
            int(np.sum(got.argmax(axis=1) != ort_qdq.argmax(axis=1))))
        results.append(("ember %s, QDQ int8" % backend, accuracy(got, labels), agreement))

    print("digits test split: %d images" % len(labels))
    print("  %-28s %6.2f%%" % ("onnxruntime, float32", reference))
    failed = False
    for what, acc, agreement in results:
        ok = acc >= reference - MAX_DROP_POINTS
        failed |= not ok
        print("  %-28s %6.2f%%  (%+.2f points%s)%s" % (
            what, acc, acc - reference, agreement, "" if ok else "  MORE THAN 0.5 BELOW FLOAT32"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
