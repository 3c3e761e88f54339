#!/usr/bin/env python3
"""Post-training int8 quantization as a user runs it: model-runner -dump-profile on sample
inputs, then -load-profile on inputs the profile did not see, compared with float32.

  quantization_check.py digits [--backend CPU]
      The digits example (examples/models/digits_cnn.onnx): profile on 100 images of its training
      split, accuracy on its 359 held-out test images, int8 against float32. Fails when int8 loses
      more than 0.5 points.
  quantization_check.py zoo MODEL.onnx [MODEL.onnx ...] [--profile-inputs 8] [--inputs 100]
      Zoo CNNs: profile on a few seeded inputs, then top-1 agreement of int8 with float32 over
      other inputs. Prints the agreement per model; fails below --min-agreement (default 95%).

Inputs are batched into one tensor per run by giving the model a batch dimension of that size
(the networks are the same; only the graph input's first dim changes), so each measurement is one
compile and one run of model-runner. The labels and images of the digits split come from
scikit-learn's bundled data set, split exactly as utils/models/make_digits_example.py does.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEED = 0


def with_batch(model_path, batch, out_path):
    """The model with its (single) input's first dim set to `batch` and the outputs' first dim
    left free; value_info cleared so shape inference cannot disagree."""
    m = onnx.load(model_path)
    inits = {i.name for i in m.graph.initializer}
    for inp in m.graph.input:
        if inp.name in inits:
            continue
        inp.type.tensor_type.shape.dim[0].ClearField("dim_param")
        inp.type.tensor_type.shape.dim[0].dim_value = batch
    for out in m.graph.output:
        out.type.tensor_type.shape.dim[0].ClearField("dim_value")
        out.type.tensor_type.shape.dim[0].dim_param = "batch"
    del m.graph.value_info[:]
    onnx.save(m, out_path)


def run(runner, model, backend, inp, out_dir, extra=()):
    os.makedirs(out_dir, exist_ok=True)
    cmd = [runner, "-model=" + model, "-backend=" + backend, "-input=" + inp,
           "-output-dir=" + out_dir] + list(extra)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        sys.exit("quantization_check: %s failed:\n%s" % (" ".join(cmd), p.stdout))
    outs = [f for f in sorted(os.listdir(out_dir)) if f.endswith(".npy")]
    return np.load(os.path.join(out_dir, outs[0])), p.stdout


def profile_and_quantize(runner, model, backend, profile_x, eval_x, tmp, schema_flags):
    """(float32 outputs, int8 outputs, quantization report lines) on eval_x."""
    prof_model = os.path.join(tmp, "profile.onnx")
    eval_model = os.path.join(tmp, "eval.onnx")
    with_batch(model, len(profile_x), prof_model)
    with_batch(model, len(eval_x), eval_model)
    np.save(os.path.join(tmp, "profile_x.npy"), profile_x)
    np.save(os.path.join(tmp, "eval_x.npy"), eval_x)
    profile = os.path.join(tmp, "profile.yaml")
    run(runner, prof_model, backend, os.path.join(tmp, "profile_x.npy"),
        os.path.join(tmp, "out_profile"), ["-dump-profile=" + profile])
    want, _ = run(runner, eval_model, backend, os.path.join(tmp, "eval_x.npy"),
                  os.path.join(tmp, "out_float"))
    got, log = run(runner, eval_model, backend, os.path.join(tmp, "eval_x.npy"),
                   os.path.join(tmp, "out_int8"), ["-load-profile=" + profile] + schema_flags)
    report = [l for l in log.splitlines() if l.startswith("quantization:")]
    return want, got, report


def digits(args, runner):
    from sklearn.datasets import load_digits
    d = load_digits()
    images = (d.images / 16.0).astype(np.float32)[:, None, :, :]
    labels = d.target.astype(np.int64)
    perm = np.random.default_rng(SEED).permutation(len(labels))
    n_train = int(round(0.8 * len(labels)))
    train, test = perm[:n_train], perm[n_train:]
    model = os.path.join(ROOT, "examples", "models", "digits_cnn.onnx")
    with tempfile.TemporaryDirectory() as tmp:
        want, got, report = profile_and_quantize(runner, model, args.backend,
                                                 images[train[:100]], images[test], tmp,
                                                 args.flags)
    acc_float = 100.0 * np.mean(want.argmax(1) == labels[test])
    acc_int8 = 100.0 * np.mean(got.argmax(1) == labels[test])
    for line in report:
        print(line)
    print("digits on %s, %d held-out images: float32 %.2f%%, int8 %.2f%% (%+.2f points)"
          % (args.backend, len(test), acc_float, acc_int8, acc_int8 - acc_float))
    if acc_int8 < acc_float - 0.5:
        sys.exit("quantization_check: int8 loses more than 0.5 points")


def zoo(args, runner):
    failed = False
    rng = np.random.default_rng(SEED)
    for model in args.models:
        m = onnx.load(model, load_external_data=False)
        inits = {i.name for i in m.graph.initializer}
        inp = [i for i in m.graph.input if i.name not in inits][0]
        dims = [d.dim_value for d in inp.type.tensor_type.shape.dim][1:]
        # Images as torchvision normalizes them: roughly zero mean and unit variance per channel.
        profile_x = rng.standard_normal([args.profile_inputs] + dims).astype(np.float32)
        eval_x = rng.standard_normal([args.inputs] + dims).astype(np.float32)
        with tempfile.TemporaryDirectory() as tmp:
            want, got, report = profile_and_quantize(runner, model, args.backend, profile_x,
                                                     eval_x, tmp, args.flags)
        want = want.reshape(len(eval_x), -1)
        got = got.reshape(len(eval_x), -1)
        agree = 100.0 * np.mean(want.argmax(1) == got.argmax(1))
        name = os.path.basename(os.path.dirname(model)) or model
        print("%s on %s: top-1 agreement int8 vs float32 %.1f%% over %d inputs (profile: %d "
              "other inputs); %s" % (name, args.backend, agree, len(eval_x), len(profile_x),
                                     "; ".join(l[len("quantization: "):] for l in report)))
        failed |= agree < args.min_agreement
    if failed:
        sys.exit("quantization_check: agreement below %.1f%%" % args.min_agreement)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=["digits", "zoo"])
    ap.add_argument("models", nargs="*")
    ap.add_argument("--backend", default="CPU")
    ap.add_argument("--build", default=os.environ.get("EMBER_BUILD_DIR",
                                                      os.path.join(ROOT, "build")))
    ap.add_argument("--profile-inputs", type=int, default=8)
    ap.add_argument("--inputs", type=int, default=100)
    ap.add_argument("--min-agreement", type=float, default=95.0)
    ap.add_argument("--schema", default="asymmetric")
    ap.add_argument("--no-channelwise", action="store_true")
    args = ap.parse_args()
    args.flags = ["-quantization-schema=" + args.schema]
    if not args.no_channelwise:
        args.flags.append("-enable-channelwise")
    runner = os.path.join(args.build, "tools", "model-runner")
    if args.what == "digits":
        digits(args, runner)
    else:
        if not args.models:
            sys.exit("quantization_check zoo: name the models")
        zoo(args, runner)


if __name__ == "__main__":
    main()
