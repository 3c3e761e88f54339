#!/usr/bin/env python3
"""Post-training int8 quantization as a user runs it: model-runner -dump-profile on sample
inputs, then -load-profile on inputs the profile did not see, compared with float32.

  quantization_check.py digits [--backend CPU]
      The digits example (examples/models/digits_cnn.onnx): profile on 100 images of its training
      split, accuracy on its 359 held-out test images, int8 against float32. Fails when int8 loses
      more than 0.5 points.
  quantization_check.py zoo [MODEL.onnx ...] [--profile-inputs 8] [--inputs 100]
      Zoo CNNs (default: every CNN under build/zoo/models): profile on a few seeded inputs,
      then top-1 agreement of int8 with float32 over other inputs. Prints the agreement per
      model; fails below --min-agreement (default 95%).
  quantization_check.py trained [MODEL.onnx ...] [--profile-inputs 8]
      The same architectures trained on the 8x8 digits upsampled to 80x80
      (utils/models/train_zoo_digits.py; default: every network under build/zoo/trained):
      profile on the first few images of the training split, then top-1 agreement of int8 with
      float32 and both accuracies on the 359 held-out images. Fails below --min-agreement.

--calibration and --channelwise take a comma-separated list (none,KL; on,off): each
combination is measured against the same profile and float32 run, one line each. --perturbed
adds float32 on the inputs plus noise of 1% of their spread: how fragile the top-1 of a
random-weight network is to any perturbation, int8's rounding or not.

Inputs are batched into one tensor per run by giving the model a batch dimension of that size
(the networks are the same; only the graph input's first dim changes), so each measurement is one
compile and one run of model-runner. The labels and images of the digits split come from
scikit-learn's bundled data set, split as every digits script splits them
(utils/models/digits_data.py).
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnx.numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "utils", "models"))
import digits_data  # noqa: E402
# The image classifiers of the zoo (utils/zoo.sh): torchvision's networks with random weights.
from export_zoo import IMAGE_CLASSIFIERS  # noqa: E402

SEED = 0


def with_batch(model_path, batch, out_path):
    """The model with its (single) input's first dim set to `batch` and the outputs' first dim
    left free; value_info cleared so shape inference cannot disagree."""
    m = onnx.load(model_path)
    inits = {i.name for i in m.graph.initializer}
    exported_batch = None
    for inp in m.graph.input:
        if inp.name in inits:
            continue
        exported_batch = inp.type.tensor_type.shape.dim[0].dim_value
        inp.type.tensor_type.shape.dim[0].ClearField("dim_param")
        inp.type.tensor_type.shape.dim[0].dim_value = batch
    if exported_batch == 1:
        # A model exported for one image may spell its batch in Reshape shapes (shufflenet's
        # channel shuffle: [1, 2, 58, 28, 28]): a leading 1 becomes 0, "as in the input".
        shapes = {r.input[1] for r in m.graph.node if r.op_type == "Reshape"}
        tensors = [t for t in m.graph.initializer if t.name in shapes]
        tensors += [a.t for n in m.graph.node if n.op_type == "Constant" and n.output[0] in shapes
                    for a in n.attribute if a.name == "value"]
        for t in tensors:
            v = onnx.numpy_helper.to_array(t)
            if v.ndim == 1 and len(v) > 1 and v[0] == 1:
                v = v.copy()
                v[0] = 0
                t.CopyFrom(onnx.numpy_helper.from_array(v, t.name))
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


def profile_and_quantize(runner, model, backend, profile_x, eval_x, tmp, configs,
                         perturbed_x=None):
    """(float32 outputs, [(int8 outputs, quantization report lines) per configuration],
    float32 outputs on perturbed_x or None) on eval_x; a configuration is a list of
    model-runner flags."""
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
    results = []
    for k, flags in enumerate(configs):
        got, log = run(runner, eval_model, backend, os.path.join(tmp, "eval_x.npy"),
                       os.path.join(tmp, "out_int8_%d" % k), ["-load-profile=" + profile] + flags)
        results.append((got, [l for l in log.splitlines() if l.startswith("quantization:")]))
    perturbed = None
    if perturbed_x is not None:
        np.save(os.path.join(tmp, "perturbed_x.npy"), perturbed_x)
        perturbed, _ = run(runner, eval_model, backend, os.path.join(tmp, "perturbed_x.npy"),
                           os.path.join(tmp, "out_perturbed"))
    return want, results, perturbed


def digits(args, runner):
    images, labels, train, test = digits_data.digits_split()
    model = os.path.join(ROOT, "examples", "models", "digits_cnn.onnx")
    with tempfile.TemporaryDirectory() as tmp:
        want, results, _ = profile_and_quantize(runner, model, args.backend,
                                                images[train[:100]], images[test], tmp,
                                                [f for _, f in args.configs])
    acc_float = 100.0 * np.mean(want.argmax(1) == labels[test])
    failed = False
    for (what, _), (got, report) in zip(args.configs, results):
        acc_int8 = 100.0 * np.mean(got.argmax(1) == labels[test])
        for line in report:
            print(line)
        print("digits on %s, %d held-out images: float32 %.2f%%, int8 (%s) %.2f%% (%+.2f "
              "points)" % (args.backend, len(test), acc_float, what, acc_int8,
                           acc_int8 - acc_float))
        failed |= acc_int8 < acc_float - 0.5
    if failed:
        sys.exit("quantization_check: int8 loses more than 0.5 points")


def report_agreement(args, name, want, results, over, labels=None):
    """Prints, for each configuration's int8 result, its top-1 agreement with float32 `want`
    over the inputs `over` describes (and both accuracies, given the `labels`), and its output
    error; returns whether any agrees on less than --min-agreement."""
    failed = False
    want = want.reshape(len(want), -1)
    for (what, _), (got, report) in zip(args.configs, results):
        got = got.reshape(want.shape)
        agree = 100.0 * np.mean(want.argmax(1) == got.argmax(1))
        accuracy = "" if labels is None else ", accuracy float32 %.2f%% int8 %.2f%%" % (
            100.0 * np.mean(want.argmax(1) == labels), 100.0 * np.mean(got.argmax(1) == labels))
        # The logits' error relative to their spread: what int8 changes, less noisy than the
        # agreement when the top two scores lie close together.
        error = np.sqrt(np.mean((got - want) ** 2)) / want.std()
        print("%s on %s (%s): top-1 agreement int8 vs float32 %.1f%% over %s%s, output error "
              "%.2f%% of its spread; %s" % (
                  name, args.backend, what, agree, over, accuracy, 100.0 * error,
                  "; ".join(l[len("quantization: "):] for l in report)), flush=True)
        failed |= agree < args.min_agreement
    return failed


def zoo(args, runner):
    failed = False
    for model in args.models:
        # The same inputs for a model whichever others are measured with it.
        rng = np.random.default_rng(SEED)
        m = onnx.load(model, load_external_data=False)
        inits = {i.name for i in m.graph.initializer}
        inp = [i for i in m.graph.input if i.name not in inits][0]
        dims = [d.dim_value for d in inp.type.tensor_type.shape.dim][1:]
        # Images as torchvision normalizes them: roughly zero mean and unit variance per channel.
        profile_x = rng.standard_normal([args.profile_inputs] + dims).astype(np.float32)
        eval_x = rng.standard_normal([args.inputs] + dims).astype(np.float32)
        # How fragile the model's top-1 is: float32 on the inputs plus noise of 1% of their
        # spread, less than the rounding of 8 bits at each of dozens of layers.
        perturbed_x = (eval_x + 0.01 * rng.standard_normal(eval_x.shape)).astype(np.float32)
        with tempfile.TemporaryDirectory() as tmp:
            want, results, perturbed = profile_and_quantize(
                runner, model, args.backend, profile_x, eval_x, tmp,
                [f for _, f in args.configs], perturbed_x if args.perturbed else None)
        want = want.reshape(len(eval_x), -1)
        name = os.path.basename(os.path.dirname(model)) or model
        if perturbed is not None:
            perturbed = perturbed.reshape(len(eval_x), -1)
            print("%s on %s: float32 with 1%% input noise: top-1 agreement %.1f%%, output "
                  "error %.2f%% of its spread" % (
                      name, args.backend, 100.0 * np.mean(want.argmax(1) == perturbed.argmax(1)),
                      100.0 * np.sqrt(np.mean((perturbed - want) ** 2)) / want.std()),
                  flush=True)
        failed |= report_agreement(
            args, name, want, results,
            "%d inputs (profile: %d other inputs)" % (len(eval_x), len(profile_x)))
    if failed:
        sys.exit("quantization_check: agreement below %.1f%%" % args.min_agreement)


def trained(args, runner):
    """The zoo architectures with trained weights (train_zoo_digits.py) on held-out digits."""
    data = os.path.join(args.build, "zoo", "trained", "data")
    try:
        train_x = np.load(os.path.join(data, "train_x.npy"))
        test_x = np.load(os.path.join(data, "test_x.npy"))
        test_y = np.load(os.path.join(data, "test_y.npy"))
    except OSError as e:
        sys.exit("quantization_check: %s; run utils/models/train_zoo_digits.py first" % e)
    failed = False
    for model in args.models:
        name = os.path.basename(os.path.dirname(model)) or model
        with tempfile.TemporaryDirectory() as tmp:
            want, results, _ = profile_and_quantize(
                runner, model, args.backend, train_x[:args.profile_inputs], test_x, tmp,
                [f for _, f in args.configs])
        failed |= report_agreement(
            args, name, want, results,
            "%d held-out digits (profile: %d training images)" % (len(test_x),
                                                                  args.profile_inputs),
            labels=test_y)
    if failed:
        sys.exit("quantization_check: agreement below %.1f%%" % args.min_agreement)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=["digits", "zoo", "trained"])
    ap.add_argument("models", nargs="*")
    ap.add_argument("--backend", default="CPU")
    ap.add_argument("--build", default=os.environ.get("EMBER_BUILD_DIR",
                                                      os.path.join(ROOT, "build")))
    ap.add_argument("--profile-inputs", type=int, default=8)
    ap.add_argument("--inputs", type=int, default=100)
    ap.add_argument("--min-agreement", type=float, default=95.0)
    ap.add_argument("--schema", default="asymmetric")
    ap.add_argument("--perturbed", action="store_true",
                    help="zoo: also float32 on the inputs plus 1%% noise, for comparison")
    ap.add_argument("--calibration", default="none", help="none, KL, or both: none,KL")
    ap.add_argument("--channelwise", default="on", help="on, off, or both: on,off")
    ap.add_argument("--no-channelwise", dest="channelwise", action="store_const", const="off")
    args = ap.parse_args()
    args.configs = []
    for calibration in args.calibration.split(","):
        for channelwise in args.channelwise.split(","):
            if calibration not in ("none", "KL") or channelwise not in ("on", "off"):
                sys.exit("quantization_check: --calibration takes none,KL and --channelwise "
                         "on,off")
            flags = ["-quantization-schema=" + args.schema,
                     "-quantization-calibration=" + calibration]
            flags.append("-enable-channelwise=" + ("true" if channelwise == "on" else "false"))
            what = "%s, calibration %s, %s" % (
                args.schema, calibration, "per channel" if channelwise == "on" else "per tensor")
            args.configs.append((what, flags))
    runner = os.path.join(args.build, "tools", "model-runner")
    if args.what == "digits":
        digits(args, runner)
    elif args.what == "trained":
        if not args.models:
            args.models = [os.path.join(args.build, "zoo", "trained", m, "model.onnx")
                           for m in IMAGE_CLASSIFIERS]
        trained(args, runner)
    else:
        if not args.models:
            args.models = [os.path.join(args.build, "zoo", "models", m, "model.onnx")
                           for m in IMAGE_CLASSIFIERS]
        zoo(args, runner)


if __name__ == "__main__":
    main()
