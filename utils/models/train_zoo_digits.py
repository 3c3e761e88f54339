#!/usr/bin/python3
"""Train the zoo's CNN architectures on scikit-learn's 8x8 digits and export them to ONNX.

The zoo (export_zoo.py) has random weights, as nothing may be downloaded; on random weights a
network's scores hardly depend on its input, so top-1 flips on any small perturbation and says
little about int8 quantization. These are the same torchvision architectures with trained
weights: the one image classification data set available offline (sklearn.datasets.load_digits,
1797 images, no download) upsampled from 8x8 to SIZE x SIZE, three equal channels, normalized by
the training split's mean and deviation, 10 classes. The split is the digits example's
(make_digits_example.py: seed 0, 80% train, 20% test).

Writes into --out (default build/zoo/trained):
    <name>/model.onnx        opset 13, input "input" [1,3,SIZE,SIZE], output "output" [1,10]
    <name>/stamp             its training settings, torch and torchvision: reruns skip cached ones
    <name>/accuracy          torch's accuracy on the held-out split
    data/train_x.npy         the training split as the models take it, [1438,3,SIZE,SIZE] float32
    data/test_x.npy          the held-out split, [359,3,SIZE,SIZE]; data/test_y.npy its labels

Deterministic for a given torch build (seeds, one data order); a few minutes per network on two
cores. utils/quantization_check.py trained measures int8 against float32 on them.

    /usr/bin/python3 utils/models/train_zoo_digits.py [--out DIR] [--threads N] [NAME ...]
"""
import argparse
import os
import shutil
import sys
import warnings

import numpy as np

import digits_data
from export_zoo import IMAGE_CLASSIFIERS

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SIZE = 80          # inception_v3 needs at least 75; every other network takes any size >= 32
SHIFT = 8          # training augmentation: random translation by up to this many pixels
SEED = 0
EPOCHS = 4
LR = 2e-3          # the peak of a one-cycle schedule (AdamW)
# squeezenet1_1 has no BatchNorm, and its classifier ends in a ReLU: at LR its scores die at 0
# and it never leaves chance; a smaller rate over more (cheap) epochs trains it.
# efficientnet_b0's stochastic depth and dropout slow it down: at EPOCHS it is still below 90%.
# inception_v3 draws its classifier's weights with a deviation of 0.1 over 2048 features: its
# first scores are so large (a loss of 6 to 7 where chance is 2.3) that it is below 90% after
# EPOCHS; it starts from a zero classifier.
TUNED = {"squeezenet1_1": dict(lr=5e-4, epochs=12), "efficientnet_b0": dict(epochs=10),
         "inception_v3": dict(zero_classifier=True)}
# Part of every network's stamp: raise it when the data, the augmentation or the training loop
# change, so that cached networks are retrained (a network's own settings are in its stamp).
RECIPE = 1
BATCH = 32
OPSET = 13
MIN_ACCURACY = 0.90


def digits_split():
    """(train images, train labels, test images, test labels): [N,3,SIZE,SIZE] float32, as the
    models take them."""
    import torch
    import torch.nn.functional as F
    images, labels, train, test = digits_data.digits_split()
    big = F.interpolate(torch.from_numpy(images), size=(SIZE, SIZE), mode="bilinear",
                        align_corners=False)
    mean, std = big[train].mean(), big[train].std()
    big = ((big - mean) / std).expand(-1, 3, -1, -1).contiguous().numpy()
    return big[train], labels[train], big[test], labels[test]


def build(name):
    import torchvision.models as tvm
    if name == "inception_v3":
        return tvm.inception_v3(weights=None, num_classes=10, aux_logits=False, init_weights=True)
    return getattr(tvm, name)(weights=None, num_classes=10)


def settings(name):
    return dict(dict(lr=LR, epochs=EPOCHS, zero_classifier=False), **TUNED.get(name, {}))


def stamp(name, threads):
    """What a cached network was trained with: retrain when any of it differs (the thread count
    changes the float sums' order, hence the weights)."""
    import torch
    import torchvision
    return ("train_zoo_digits recipe %d %s %s size %d shift %d batch %d seed %d opset %d threads %d "
            "torch %s torchvision %s\n" % (RECIPE, name, sorted(settings(name).items()), SIZE,
                                            SHIFT, BATCH, SEED, OPSET, threads, torch.__version__,
                                            torchvision.__version__))


def shifted(x, gen):
    """x translated by a random (dy, dx) in [-SHIFT, SHIFT] per image, background filled in."""
    import torch
    n = x.shape[0]
    background = x[:, :, :1, :1]  # the corner pixel: blank in every digit
    padded = background.expand(-1, -1, SIZE + 2 * SHIFT, SIZE + 2 * SHIFT).clone()
    padded[:, :, SHIFT:SHIFT + SIZE, SHIFT:SHIFT + SIZE] = x
    offsets = torch.randint(0, 2 * SHIFT + 1, (n, 2), generator=gen)
    return torch.stack([padded[i, :, oy:oy + SIZE, ox:ox + SIZE]
                        for i, (oy, ox) in enumerate(offsets.tolist())])


def train_one(name, train_x, train_y, test_x, test_y, out_dir, stamp_text):
    import torch
    import torch.nn.functional as F
    torch.manual_seed(SEED)
    model = build(name)
    if settings(name)["zero_classifier"]:
        torch.nn.init.zeros_(model.fc.weight)
    xs, ys = torch.from_numpy(train_x), torch.from_numpy(train_y)
    gen = torch.Generator().manual_seed(SEED)
    lr, epochs = settings(name)["lr"], settings(name)["epochs"]
    steps = epochs * ((len(xs) + BATCH - 1) // BATCH)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps)
    model.train()
    for epoch in range(epochs):
        order = torch.randperm(len(xs), generator=gen)
        total = 0.0
        for i in range(0, len(xs), BATCH):
            idx = order[i:i + BATCH]
            if len(idx) < 2:  # BatchNorm needs two samples
                continue
            loss = F.cross_entropy(model(shifted(xs[idx], gen)), ys[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss) * len(idx)
        print("%s: epoch %d loss %.4f" % (name, epoch + 1, total / len(xs)), flush=True)
    model.eval()
    with torch.no_grad():
        logits = torch.cat([model(torch.from_numpy(test_x[i:i + 128]))
                            for i in range(0, len(test_x), 128)])
    accuracy = float((logits.argmax(1).numpy() == test_y).mean())
    print("%s: held-out accuracy %.2f%%" % (name, 100 * accuracy), flush=True)
    if accuracy < MIN_ACCURACY:
        raise RuntimeError("%s: held-out accuracy %.2f%% is below %.0f%%; not a trained network"
                           % (name, 100 * accuracy, 100 * MIN_ACCURACY))

    tmp = "%s.tmp%d" % (out_dir, os.getpid())
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (torch.from_numpy(test_x[:1]),), os.path.join(tmp, "model.onnx"),
                          opset_version=OPSET, input_names=["input"], output_names=["output"],
                          do_constant_folding=True, training=torch.onnx.TrainingMode.EVAL)
    import onnx
    onnx.checker.check_model(onnx.load(os.path.join(tmp, "model.onnx")), full_check=True)
    with open(os.path.join(tmp, "accuracy"), "w") as f:
        f.write("%.4f\n" % accuracy)
    with open(os.path.join(tmp, "stamp"), "w") as f:
        f.write(stamp_text)
    shutil.rmtree(out_dir, ignore_errors=True)
    os.rename(tmp, out_dir)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(
        os.environ.get("EMBER_BUILD_DIR", os.path.join(REPO, "build")), "zoo", "trained"))
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                    help="torch's threads (ctest passes 1: its OpenMP threads spin, and beside "
                         "another test on a two-core machine two of them ran several times slower)")
    ap.add_argument("names", nargs="*", default=IMAGE_CLASSIFIERS)
    args = ap.parse_args()
    unknown = [n for n in args.names if n not in IMAGE_CLASSIFIERS]
    if unknown:
        sys.exit("train_zoo_digits: unknown network %s (known: %s)"
                 % (unknown, ", ".join(IMAGE_CLASSIFIERS)))
    import torch
    torch.set_num_threads(args.threads)
    train_x, train_y, test_x, test_y = digits_split()
    data = os.path.join(args.out, "data")
    os.makedirs(data, exist_ok=True)
    for fname, arr in (("train_x.npy", train_x), ("test_x.npy", test_x), ("test_y.npy", test_y)):
        np.save(os.path.join(data, fname), arr)
    for name in args.names:
        stamp_text = stamp(name, args.threads)
        out_dir = os.path.join(args.out, name)
        stamp_path = os.path.join(out_dir, "stamp")
        if os.path.isfile(stamp_path) and open(stamp_path).read() == stamp_text:
            print("%s: cached" % name)
            continue
        train_one(name, train_x, train_y, test_x, test_y, out_dir, stamp_text)


if __name__ == "__main__":
    main()
