#!/usr/bin/python3
"""Train and export ember's shipped example model: a small CNN for 8x8 digits.

Trains on scikit-learn's bundled 8x8 digits data set (sklearn.datasets.load_digits,
no download), pixels scaled to [0, 1], split 80/20 into training and held-out images
(digits_data.py, the one split every digits script uses), and writes:

    examples/models/digits_cnn.onnx                 opset 13, input "image" [1,1,8,8] float32,
                                                    output "probabilities" [1,10]
    examples/digits/images/digit_<k>.npy            test image of digit k, the exact model input
    examples/digits/images/digit_<k>.txt            ASCII-art rendering plus "label: <k>"
    examples/digits/images/digit_<k>.expected.npy   torch's probabilities for that image
    examples/digits/images/digit_<k>.png, labels.txt  make_digits_pngs.py: the image as a PNG
    examples/digits/README.md

Deterministic (seed 0, one thread) and idempotent. Takes well under a minute. Run:

    /usr/bin/python3 utils/models/make_digits_example.py
"""

import os
import shutil

import numpy as np
import onnx
import torch
from torch import nn

from digits_data import digits_split
import make_digits_pngs

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODEL_PATH = os.path.join(REPO, "examples", "models", "digits_cnn.onnx")
DIGITS_DIR = os.path.join(REPO, "examples", "digits")
IMAGES_DIR = os.path.join(DIGITS_DIR, "images")

SEED = 0
EPOCHS = 15
BATCH = 32
LR = 3e-3
RAMP = " .:-=+*#%@"


def build_model():
    return nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1),    # [1,8,8,8]
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.MaxPool2d(2),                  # [1,8,4,4]
        nn.Conv2d(8, 16, 3, padding=1),   # [1,16,4,4]
        nn.ReLU(),
        nn.MaxPool2d(2),                  # [1,16,2,2]
        nn.Flatten(),                     # [1,64]
        nn.Linear(16 * 2 * 2, 10),
        nn.Softmax(dim=1),
    )


def ascii_art(img):
    """img: [8,8] in [0,1]; each pixel two characters wide."""
    lines = []
    for row in img:
        idx = np.clip(np.rint(row * (len(RAMP) - 1)).astype(int), 0, len(RAMP) - 1)
        lines.append("".join(RAMP[i] * 2 for i in idx).rstrip())
    return "\n".join(lines)


def main():
    torch.set_num_threads(1)
    torch.manual_seed(SEED)
    torch.use_deterministic_algorithms(True)

    images, labels, train_idx, test_idx = digits_split()   # images [1797,1,8,8]
    x_train, y_train = torch.from_numpy(images[train_idx]), torch.from_numpy(labels[train_idx])
    x_test, y_test = torch.from_numpy(images[test_idx]), torch.from_numpy(labels[test_idx])

    model = build_model()
    # The last layer is Softmax, so train on log(probabilities) with NLL loss.
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    gen = torch.Generator().manual_seed(SEED)
    for epoch in range(EPOCHS):
        model.train()
        order = torch.randperm(len(x_train), generator=gen)
        total = 0.0
        for i in range(0, len(order), BATCH):
            idx = order[i:i + BATCH]
            probs = model(x_train[idx])
            loss = nn.functional.nll_loss(torch.log(probs.clamp_min(1e-12)), y_train[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        print("epoch %2d  train loss %.4f" % (epoch + 1, total / len(x_train)))

    model.eval()
    with torch.no_grad():
        test_pred = model(x_test).argmax(dim=1)
        train_pred = model(x_train).argmax(dim=1)
    test_acc = (test_pred == y_test).float().mean().item()
    train_acc = (train_pred == y_train).float().mean().item()
    print("train accuracy %.2f%%, test accuracy %.2f%% (%d test images)"
          % (100 * train_acc, 100 * test_acc, len(y_test)))
    assert test_acc > 0.95, test_acc

    # Export (batch 1 fixed).
    os.makedirs(os.path.dirname(MODEL_PATH), exist_ok=True)
    dummy = torch.zeros(1, 1, 8, 8)
    torch.onnx.export(model, (dummy,), MODEL_PATH, opset_version=13,
                      input_names=["image"], output_names=["probabilities"],
                      do_constant_folding=True)
    m = onnx.load(MODEL_PATH)
    onnx.checker.check_model(m, full_check=True)
    print("exported %s (%d bytes): %s" % (os.path.relpath(MODEL_PATH, REPO),
                                          os.path.getsize(MODEL_PATH),
                                          [n.op_type for n in m.graph.node]))

    # One held-out image per digit: the first of each class in the test split.
    if os.path.exists(IMAGES_DIR):
        shutil.rmtree(IMAGES_DIR)
    os.makedirs(IMAGES_DIR)
    y_test_np = y_test.numpy()
    for k in range(10):
        j = int(np.nonzero(y_test_np == k)[0][0])
        img = np.ascontiguousarray(x_test[j:j + 1].numpy())          # [1,1,8,8]
        with torch.no_grad():
            probs = model(torch.from_numpy(img)).numpy().astype(np.float32)
        base = os.path.join(IMAGES_DIR, "digit_%d" % k)
        np.save(base + ".npy", img.astype(np.float32))
        np.save(base + ".expected.npy", probs)
        with open(base + ".txt", "w") as f:
            f.write(ascii_art(img[0, 0]) + "\nlabel: %d\n" % k)
        print("digit_%d: sklearn index %d, predicted %d (p=%.3f)"
              % (k, int(test_idx[j]), int(probs.argmax()), float(probs.max())))

    make_digits_pngs.main()

    with open(os.path.join(DIGITS_DIR, "README.md"), "w") as f:
        f.write(README.format(test_acc=100 * test_acc, n_test=len(y_test),
                              n_train=len(y_train), epochs=EPOCHS, batch=BATCH, lr=LR))


README = """\
# Digits example

`examples/models/digits_cnn.onnx` is a small convolutional network that classifies
8x8 grayscale images of handwritten digits. It is trained on scikit-learn's bundled
digits data set (`sklearn.datasets.load_digits`, 1797 images, pixel values scaled
from 0..16 to [0, 1]).

- Input `image`: float32 `[1, 1, 8, 8]`. Output `probabilities`: float32 `[1, 10]`.
- Layers: Conv(8, 3x3, pad 1) -> BatchNorm -> ReLU -> MaxPool 2x2 -> Conv(16, 3x3, pad 1)
  -> ReLU -> MaxPool 2x2 -> Flatten -> Linear(64, 10) -> Softmax. The exporter folds
  the BatchNorm into the first Conv.
- Trained with PyTorch: seed 0, {n_train} training / {n_test} test images (random 80/20
  split), Adam (lr {lr}), batch {batch}, {epochs} epochs, exported to ONNX opset 13.
- Test accuracy: **{test_acc:.2f}%** on the {n_test} held-out images.

`images/digit_<k>.npy` is the first test-split image of digit `k`, exactly as fed to the
model; `images/digit_<k>.txt` draws it in ASCII; `images/digit_<k>.expected.npy` holds
PyTorch's probabilities for it.

`images/digit_<k>.png` is the same image as an 8x8 grayscale PNG (each value times 255,
rounded: `utils/models/make_digits_pngs.py`) and `images/labels.txt` names the ten classes, so
model-runner classifies a picture directly (`utils/run-example.sh` does so too):

    build/tools/model-runner -model=examples/models/digits_cnn.onnx -image-mode=0to1 \\
        -input=image=examples/digits/images/digit_3.png -topk=3 \\
        -labels=examples/digits/images/labels.txt

`-image-mode=0to1` feeds `pixel / 255`, within 1/510 of the `.npy` values, and prints

    top 3 of output 'probabilities' for item 0 (examples/digits/images/digit_3.png):
      1. class 3 score 0.9998802 three
      2. class 9 score 0.0001048975 nine
      3. class 2 score 6.656887e-06 two

The model's batch is 1: `-input=image=a.png,image=b.png` is refused with the reason.

Regenerate the model and everything in this folder with:

    /usr/bin/python3 utils/models/make_digits_example.py
"""


if __name__ == "__main__":
    main()
