#!/usr/bin/python3
"""Export a zoo of real network architectures as ONNX backend-test cases for ember.

Besides torchvision's image classifiers, the zoo has networks of the other shapes deployed at
batch 1: transformer encoders shaped as BERT-mini and BERT-base, a GPT-2-shaped causal decoder
stack, Whisper-tiny's audio encoder, a mel-spectrogram front-end (STFT as a convolution), and
GRU / LSTM sequence models (see build()).

Every model is built by Debian's torch / torchvision with RANDOM weights (nothing is ever
downloaded), fixed seeds and eval mode, exported at opset 13 with constant folding, and written
in the layout the conformance runner reads:

    <out>/<name>/model.onnx
    <out>/<name>/test_data_set_0/input_0.pb     TensorProto named as the graph input
    <out>/<name>/test_data_set_0/output_0.pb    torch's own output on that input
    <out>/<name>/stamp                          hash of this script + torch versions (cache key)

BatchNorm running statistics are calibrated first (a few train-mode passes on random data with
momentum=None, i.e. a plain average), so eval-mode activations stay O(1) instead of vanishing or
exploding through random-init layers. Each export is checked with onnx.checker, and torch's
output must be finite and of a sane magnitude.

A model whose folder is complete and whose stamp matches is skipped, so re-running is cheap.

    /usr/bin/python3 utils/models/export_zoo.py --out build/zoo/models [--set ci|full]
                                               [--only resnet18,mlp] [--list] [--force]
"""

import argparse
import functools
import hashlib
import os
import shutil
import sys
import time
import types
import warnings

SETS = {
    "ci": ["resnet18", "mobilenet_v2", "squeezenet1_1", "shufflenet_v2_x1_0",
           "efficientnet_b0", "transformer_encoder", "mobilenet_v2_bn"],
}
SETS["full"] = SETS["ci"] + ["resnet50", "densenet121", "inception_v3", "mlp", "bert_mini",
                              "bert_base", "gpt2_decoder", "whisper_tiny_encoder", "mel_frontend",
                              "gru", "lstm"]

# The image classifiers: torchvision's networks, 1000 classes from a [1, 3, 224, 224] image
# (inception_v3: 299 x 299). quantization_check.py and train_zoo_digits.py take them from here.
IMAGE_CLASSIFIERS = ["resnet18", "resnet50", "mobilenet_v2", "squeezenet1_1",
                     "shufflenet_v2_x1_0", "efficientnet_b0", "densenet121", "inception_v3"]

OPSET = 13
SEED = 0            # torch.manual_seed before building each model (weights)
CALIB_SEED = 1      # BatchNorm calibration data
INPUT_SEED = 2      # the test input
CALIB_BATCH = 8
CALIB_PASSES = 2


def build(name):
    """Returns (module, input shape) for a zoo name, weights drawn from the current seed."""
    import torch
    from torch import nn
    import torchvision.models as tvm

    image = (1, 3, 224, 224)
    if name in IMAGE_CLASSIFIERS and name != "inception_v3":
        return getattr(tvm, name)(weights=None), image
    if name == "mobilenet_v2_bn":  # exported with its BatchNorms kept (see export())
        return tvm.mobilenet_v2(weights=None), image
    if name == "inception_v3":
        return tvm.inception_v3(weights=None, aux_logits=False, init_weights=True), (1, 3, 299, 299)
    if name == "transformer_encoder":
        layer = nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, dropout=0.0)
        return nn.TransformerEncoder(layer, num_layers=2), (8, 1, 64)  # [seq, batch, d_model]
    if name == "mlp":
        return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                             nn.Linear(128, 10)), (1, 784)
    # BERT-shaped encoders (post-LayerNorm, GELU) on token embeddings [batch, seq, d_model]: the
    # embedding lookup is left out, the encoder stack is the work.
    if name == "bert_mini":
        return encoder_stack(layers=4, d_model=256, heads=4, ffn=1024), (1, 128, 256)
    if name == "bert_base":
        return encoder_stack(layers=12, d_model=768, heads=12, ffn=3072), (1, 128, 768)
    if name == "gpt2_decoder":
        return (modules().CausalDecoder(layers=6, d_model=768, heads=12, ffn=3072, seq=128),
                (1, 128, 768))
    if name == "whisper_tiny_encoder":
        return modules().WhisperEncoder(), (1, 80, 3000)  # 30 s of log-mel frames
    if name == "mel_frontend":
        return modules().MelFrontend(), (1, 1, 16000)     # 1 s of 16 kHz audio
    if name == "gru":  # 200 steps of 80 features, [seq, batch, features]
        return modules().RecurrentHead(nn.GRU(80, 256, num_layers=1)), (200, 1, 80)
    if name == "lstm":
        return modules().RecurrentHead(nn.LSTM(80, 256, num_layers=2)), (200, 1, 80)
    raise KeyError(name)


def encoder_stack(layers, d_model, heads, ffn, norm_first=False, final_norm=False):
    """nn.TransformerEncoder of \p layers GELU layers, batch-first, no dropout. Each layer draws
    its own weights: nn.TransformerEncoder deep-copies one layer, and the exporter would then
    store the identical weights once (a 28 MB bert_base, its layers sharing cached weights)."""
    from torch import nn

    def layer():
        return nn.TransformerEncoderLayer(d_model, heads, dim_feedforward=ffn, dropout=0.0,
                                          activation="gelu", batch_first=True,
                                          norm_first=norm_first)
    stack = nn.TransformerEncoder(layer(), num_layers=layers,
                                  norm=nn.LayerNorm(d_model) if final_norm else None)
    stack.layers = nn.ModuleList([layer() for _ in range(layers)])
    return stack


@functools.lru_cache(maxsize=None)
def modules():
    """The zoo's own nn.Module classes, defined on first use (torch is imported only when a
    model is built: --list and the importers of IMAGE_CLASSIFIERS do without it)."""
    import numpy as np
    import torch
    from torch import nn
    from torch.nn import functional as F

    class CausalDecoder(nn.Module):
        """GPT-2's block stack: pre-LayerNorm self-attention under a causal mask, GELU MLP, a
        final LayerNorm. The mask (-inf above the diagonal) is a constant of the graph, added to
        the attention scores before the softmax."""

        def __init__(self, layers, d_model, heads, ffn, seq):
            super().__init__()
            self.blocks = encoder_stack(layers, d_model, heads, ffn, norm_first=True,
                                        final_norm=True)
            self.register_buffer("mask", torch.triu(torch.full((seq, seq), float("-inf")), 1))

        def forward(self, x):
            return self.blocks(x, mask=self.mask)

    class WhisperEncoder(nn.Module):
        """Whisper-tiny's audio encoder: log-mel [1, 80, 3000] -> two GELU convolutions (the
        second of stride 2) -> + positional embedding [1500, 384] (random here, sinusoidal in
        Whisper) -> 4 pre-LayerNorm encoder layers (d 384, 6 heads, FFN 1536, GELU) ->
        LayerNorm. The full 1500 positions: torch's reference and the export take seconds."""

        def __init__(self, mels=80, d_model=384, frames=3000, heads=6, ffn=1536, layers=4):
            super().__init__()
            self.conv1 = nn.Conv1d(mels, d_model, 3, padding=1)
            self.conv2 = nn.Conv1d(d_model, d_model, 3, stride=2, padding=1)
            self.positions = nn.Parameter(0.1 * torch.randn(frames // 2, d_model))
            self.blocks = encoder_stack(layers, d_model, heads, ffn, norm_first=True,
                                        final_norm=True)

        def forward(self, x):
            x = F.gelu(self.conv2(F.gelu(self.conv1(x))))
            return self.blocks(x.permute(0, 2, 1) + self.positions)

    class MelFrontend(nn.Module):
        """A log-mel front-end as plain ONNX ops: an STFT as a Conv1d of 400-wide Hann-windowed
        cos / sin filters (201 frequencies each, stride 160, zero padding 200), power =
        Pow(re, 2) + Pow(im, 2), a MatMul by an [80, 201] triangular mel filterbank, then
        Log(Clip(x, 1e-10))."""

        def __init__(self, window=400, hop=160, mels=80):
            super().__init__()
            self.bins = window // 2 + 1
            n = torch.arange(window, dtype=torch.float64)
            k = torch.arange(self.bins, dtype=torch.float64)[:, None]
            angle = 2.0 * np.pi * k * n / window
            hann = torch.hann_window(window, periodic=True, dtype=torch.float64)
            filters = torch.cat([hann * torch.cos(angle), -hann * torch.sin(angle)])
            self.stft = nn.Conv1d(1, 2 * self.bins, window, stride=hop, padding=window // 2,
                                  bias=False)
            with torch.no_grad():
                self.stft.weight.copy_(filters[:, None, :].float())
            self.register_buffer("mel", torch.from_numpy(slaney_mel_bank(mels, self.bins)))

        def forward(self, x):
            y = self.stft(x)
            power = torch.pow(y[:, :self.bins], 2) + torch.pow(y[:, self.bins:], 2)
            return torch.log(torch.clamp(torch.matmul(self.mel, power), min=1e-10))

    class RecurrentHead(nn.Module):
        """A recurrent layer stack (nn.GRU / nn.LSTM, exported as ONNX GRU / LSTM nodes) over
        the whole sequence, then a Linear head on every step's output: [seq, 1, 80] ->
        [seq, 1, 32]."""

        def __init__(self, rnn, classes=32):
            super().__init__()
            self.rnn = rnn
            self.head = nn.Linear(rnn.hidden_size, classes)

        def forward(self, x):
            return self.head(self.rnn(x)[0])

    return types.SimpleNamespace(CausalDecoder=CausalDecoder, WhisperEncoder=WhisperEncoder,
                                 MelFrontend=MelFrontend, RecurrentHead=RecurrentHead)


def slaney_mel_bank(mels=80, bins=201, rate=16000):
    """A [mels, bins] triangular filterbank on the Slaney mel scale with Slaney's area
    normalization (librosa.filters.mel's default, which Whisper uses)."""
    import numpy as np

    def hz_to_mel(f):
        f = np.asarray(f, dtype=np.float64)
        return np.where(f < 1000.0, 3.0 * f / 200.0,
                        15.0 + 27.0 * np.log(np.maximum(f, 1e-9) / 1000.0) / np.log(6.4))

    def mel_to_hz(m):
        return np.where(m < 15.0, 200.0 * m / 3.0,
                        1000.0 * np.exp(np.log(6.4) * (m - 15.0) / 27.0))

    freqs = np.linspace(0.0, rate / 2.0, bins)
    edges = mel_to_hz(np.linspace(hz_to_mel(0.0), hz_to_mel(rate / 2.0), mels + 2))
    lower, centre, upper = edges[:-2, None], edges[1:-1, None], edges[2:, None]
    ramps = np.minimum((freqs - lower) / (centre - lower), (upper - freqs) / (upper - centre))
    return (np.maximum(ramps, 0.0) * (2.0 / (upper - lower))).astype(np.float32)


def calibrate_batchnorm(model, shape):
    """Sets BatchNorm running mean/var from data: momentum None averages over the passes."""
    import torch
    bns = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return
    for m in bns:
        m.reset_running_stats()
        m.momentum = None
    gen = torch.Generator().manual_seed(CALIB_SEED)
    model.train()
    with torch.no_grad():
        for _ in range(CALIB_PASSES):
            model(torch.randn((CALIB_BATCH,) + tuple(shape[1:]), generator=gen))


def script_stamp():
    import torch
    import torchvision
    with open(os.path.abspath(__file__), "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:16]
    return "export_zoo %s torch %s torchvision %s opset %d\n" % (
        digest, torch.__version__, torchvision.__version__, OPSET)


def case_files(case_dir):
    data = os.path.join(case_dir, "test_data_set_0")
    return [os.path.join(case_dir, "model.onnx"), os.path.join(data, "input_0.pb"),
            os.path.join(data, "output_0.pb")]


def is_cached(case_dir, stamp):
    stamp_path = os.path.join(case_dir, "stamp")
    if not all(os.path.isfile(p) for p in case_files(case_dir) + [stamp_path]):
        return False
    with open(stamp_path) as f:
        return f.read() == stamp


def export(name, case_dir, stamp):
    """Builds, calibrates, runs and exports one model into case_dir; returns the output."""
    import numpy as np
    import onnx
    import torch
    from onnx import numpy_helper

    torch.manual_seed(SEED)
    model, shape = build(name)
    calibrate_batchnorm(model, shape)
    model.eval()
    x = torch.randn(shape, generator=torch.Generator().manual_seed(INPUT_SEED))

    # torch 1.13's TransformerEncoder can take a fused inference "fast path" (aten::_transformer_
    # encoder_layer_fwd, which the ONNX exporter cannot handle) when grad is disabled in eval
    # mode; with grad enabled it always runs the plain composition of ops. (Debian's build also
    # skips the fast path while tracing, so the graph is the same; this guards other builds.)
    # The reference output is computed on the same path as the export, not the fused kernel.
    # For the other models grad mode changes nothing. (The same holds for every model built on
    # nn.TransformerEncoderLayer: the BERT, GPT-2 and Whisper shapes.)
    grad = (torch.enable_grad() if any(isinstance(m, torch.nn.TransformerEncoderLayer)
                                       for m in model.modules()) else torch.no_grad())
    with grad:
        y = model(x).detach()
    y_np = y.numpy().astype(np.float32)
    if not np.all(np.isfinite(y_np)):
        raise RuntimeError("%s: torch output is not finite" % name)
    scale = float(np.max(np.abs(y_np)))
    if not 1e-2 <= scale <= 1e3:
        raise RuntimeError("%s: torch output max |y| = %g, not O(1)" % (name, scale))

    tmp = "%s.tmp%d" % (case_dir, os.getpid())
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(os.path.join(tmp, "test_data_set_0"))
    model_path, in_path, out_path = case_files(tmp)
    with grad, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # *_bn: keep BatchNormalization nodes (torch otherwise folds them into the convolutions)
        # so that ember's own fold-batchnorm pass is exercised on a real network.
        keep_bn = name.endswith("_bn")
        torch.onnx.export(model, (x,), model_path, opset_version=OPSET,
                          input_names=["input"], output_names=["output"],
                          do_constant_folding=not keep_bn,
                          training=(torch.onnx.TrainingMode.PRESERVE if keep_bn
                                    else torch.onnx.TrainingMode.EVAL))
    m = onnx.load(model_path)
    onnx.checker.check_model(m, full_check=True)
    in_name = [i.name for i in m.graph.input]
    out_name = [o.name for o in m.graph.output]
    if len(in_name) != 1 or len(out_name) != 1:
        raise RuntimeError("%s: graph has inputs %s, outputs %s" % (name, in_name, out_name))
    for path, arr, tname in ((in_path, x.numpy().astype(np.float32), in_name[0]),
                             (out_path, y_np, out_name[0])):
        with open(path, "wb") as f:
            f.write(numpy_helper.from_array(arr, name=tname).SerializeToString())
    with open(os.path.join(tmp, "stamp"), "w") as f:
        f.write(stamp)
    shutil.rmtree(case_dir, ignore_errors=True)
    try:
        os.rename(tmp, case_dir)
    except OSError:
        if not is_cached(case_dir, stamp):  # else a concurrent run just wrote the same files
            raise
        shutil.rmtree(tmp, ignore_errors=True)
    return y_np


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="folder to write <name>/ cases into")
    ap.add_argument("--set", choices=sorted(SETS), default="ci",
                    help="ci: %s; full: also %s" % (", ".join(SETS["ci"]),
                                                    ", ".join(SETS["full"][len(SETS["ci"]):])))
    ap.add_argument("--only", help="comma-separated model names (instead of --set)")
    ap.add_argument("--list", action="store_true", help="print the selected names and exit")
    ap.add_argument("--force", action="store_true", help="re-export even when cached")
    args = ap.parse_args()

    names = args.only.split(",") if args.only else SETS[args.set]
    unknown = [n for n in names if n not in SETS["full"]]
    if unknown:
        ap.error("unknown model(s): %s (known: %s)" % (", ".join(unknown),
                                                       ", ".join(SETS["full"])))
    if args.list:
        print("\n".join(names))
        return 0
    if not args.out:
        ap.error("--out is required")

    import numpy as np
    import torch
    torch.set_num_threads(2)
    stamp = script_stamp()
    os.makedirs(args.out, exist_ok=True)
    failed = 0
    for name in names:
        case_dir = os.path.join(args.out, name)
        start = time.time()
        try:
            if not args.force and is_cached(case_dir, stamp):
                from onnx import load_tensor, numpy_helper
                y = numpy_helper.to_array(load_tensor(case_files(case_dir)[2]))
                what = "cached"
            else:
                y = export(name, case_dir, stamp)
                what = "exported"
        except Exception as e:  # report every model, fail at the end
            print("FAILED   %-20s %s: %s" % (name, type(e).__name__, e), flush=True)
            failed += 1
            continue
        size = os.path.getsize(case_files(case_dir)[0]) / 1e6
        print("%-8s %-20s output %-14s max|y| %-8.3g %6.1f MB %6.1f s" % (
            what, name, list(y.shape), float(np.max(np.abs(y))), size, time.time() - start),
            flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
