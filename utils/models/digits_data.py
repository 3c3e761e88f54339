"""The digits example's data, for every script that trains on it or measures against it.

scikit-learn's bundled 8x8 digits (sklearn.datasets.load_digits: 1797 images, nothing
downloaded), scaled from 0..16 to [0, 1], and the one train/test split they all use: a seed-0
permutation, its first 80% for training and the rest held out. make_digits_example.py trains the
example on it, train_zoo_digits.py the zoo's architectures, and quantization_check.py profiles
on the training part and measures on the held-out one; a second copy of the split could drift
and leak test images into training. numpy and scikit-learn only, so the checks need no torch.
"""
import numpy as np

SEED = 0
TRAIN_FRACTION = 0.8


def digits_split():
    """(images, labels, train, test): images [1797, 1, 8, 8] float32 in [0, 1], labels int64,
    and the indices of the training and the held-out images."""
    from sklearn.datasets import load_digits
    d = load_digits()
    images = (d.images / 16.0).astype(np.float32)[:, None, :, :]
    labels = d.target.astype(np.int64)
    perm = np.random.default_rng(SEED).permutation(len(labels))
    n_train = int(round(TRAIN_FRACTION * len(labels)))
    return images, labels, perm[:n_train], perm[n_train:]
