"""cf_*_lstm / cf_*_gru: recurrent nodes inside control flow decided at run time, their states
carried out as graph outputs (issue 43: Silero VAD keeps its LSTMs in Ifs nested in Ifs). Part of
make_import_test_models.py, which writes them with its other cf_* cases.

References are numpy in float64 (the ONNX spec of LSTM and GRU: gates iofc and zrh, default
activations, linear_before_reset 0), rounded once to float32.
"""

import numpy as np
from onnx import helper

from make_import_test_models import BOOL, F32, I64, Case, tensor, vi

HIDDEN, INPUT, STEPS, BATCH = 5, 4, 3, 2


def sigmoid(v):
    return 1 / (1 + np.exp(-v))


def ref_lstm(x, w, r, b, h, c):
    """ONNX LSTM, one forward direction: x [T, B, I]; w [1, 4H, I], r [1, 4H, H], b [1, 8H];
    h, c [1, B, H]. Returns Y [T, 1, B, H], Y_h, Y_c [1, B, H]."""
    x, w, r, b = (np.asarray(a, np.float64) for a in (x, w, r, b))
    h, c = np.asarray(h[0], np.float64), np.asarray(c[0], np.float64)
    ys = []
    for t in range(x.shape[0]):
        g = x[t] @ w[0].T + h @ r[0].T + b[0, :4 * HIDDEN] + b[0, 4 * HIDDEN:]
        i, o, f, cand = np.split(g, 4, axis=1)
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(cand)
        h = sigmoid(o) * np.tanh(c)
        ys.append(h)
    return np.stack(ys)[:, None], h[None], c[None]


def ref_gru(x, w, r, b, h):
    """ONNX GRU, one forward direction, linear_before_reset 0: w [1, 3H, I], r [1, 3H, H],
    b [1, 6H]; h [1, B, H]. Returns Y [T, 1, B, H] and Y_h [1, B, H]."""
    x, w, r, b = (np.asarray(a, np.float64) for a in (x, w, r, b))
    h = np.asarray(h[0], np.float64)
    wz, wr, wh = np.split(w[0], 3)
    rz, rr, rh = np.split(r[0], 3)
    wbz, wbr, wbh, rbz, rbr, rbh = np.split(b[0], 6)
    ys = []
    for t in range(x.shape[0]):
        z = sigmoid(x[t] @ wz.T + h @ rz.T + wbz + rbz)
        rg = sigmoid(x[t] @ wr.T + h @ rr.T + wbr + rbr)
        cand = np.tanh(x[t] @ wh.T + (rg * h) @ rh.T + rbh + wbh)
        h = (1 - z) * cand + z * h
        ys.append(h)
    return np.stack(ys)[:, None], h[None]


def f32(*arrays):
    return tuple(np.asarray(a, np.float32) for a in arrays)


def weights(rng, gates):
    """W, R, B of one direction with `gates` gates, scaled so the gates neither saturate nor
    vanish."""
    w = rng.uniform(-0.6, 0.6, (1, gates * HIDDEN, INPUT))
    r = rng.uniform(-0.6, 0.6, (1, gates * HIDDEN, HIDDEN))
    b = rng.uniform(-0.3, 0.3, (1, 2 * gates * HIDDEN))
    return f32(w, r, b)


def branch(name, nodes, outputs, inits=()):
    return helper.make_graph(nodes, name, [], [vi(n, F32, s) for n, s in outputs],
                             initializer=list(inits))


def nested_if_cases(kind):
    """An LSTM (or GRU) inside an If inside an If, both on graph inputs, so both run at run
    time. The inner body reads values captured from two scopes out: the graph inputs x, h0
    (and c0) and xs, computed in the outer then-branch; its states go out through both Ifs to
    graph outputs, beside Y. The inner else-branch runs a second cell with weights of its own;
    the outer else-branch passes the initial states through, doubled. One case per path taken
    (the outer else-branch's for the LSTM only: it runs no cell)."""
    rng = np.random.default_rng(43 if kind == "lstm" else 44)
    gates = 4 if kind == "lstm" else 3
    w1, r1, b1 = weights(rng, gates)
    w2, r2, b2 = weights(rng, gates)
    x = f32(rng.uniform(-1, 1, (STEPS, BATCH, INPUT)))[0]
    h0 = f32(rng.uniform(-0.5, 0.5, (1, BATCH, HIDDEN)))[0]
    c0 = f32(rng.uniform(-1, 1, (1, BATCH, HIDDEN)))[0]
    y_shape, s_shape = [STEPS, 1, BATCH, HIDDEN], [1, BATCH, HIDDEN]
    states = ["h0", "c0"] if kind == "lstm" else ["h0"]
    outs = ["y", "yh", "yc"] if kind == "lstm" else ["y", "yh"]
    shapes = [y_shape] + [s_shape] * (len(outs) - 1)

    def cell(tag, w, r, b):
        names = ["%s_%s" % (o, tag) for o in outs]
        node = helper.make_node(kind.upper(), ["xs", "W" + tag, "R" + tag, "B" + tag, ""] +
                                states, names, hidden_size=HIDDEN)
        inits = [tensor("W" + tag, w), tensor("R" + tag, r), tensor("B" + tag, b)]
        return branch(tag, [node], zip(names, shapes), inits)

    inner = helper.make_node("If", ["inner"], ["%s_in" % o for o in outs],
                             then_branch=cell("1", w1, r1, b1), else_branch=cell("2", w2, r2, b2))
    passthrough = ([helper.make_node("Expand", ["h0", "y_shape"], ["y_out"])] +
                   [helper.make_node("Add", [s, s], ["%s_out" % o])
                    for s, o in zip(states, outs[1:])])
    outer_then = branch("outer_then",
                        [helper.make_node("Mul", ["x", "two"], ["xs"]), inner] +
                        [helper.make_node("Identity", ["%s_in" % o], ["%s_then" % o])
                         for o in outs],
                        [("%s_then" % o, s) for o, s in zip(outs, shapes)],
                        [tensor("two", np.array(2, np.float32))])
    outer_else = branch("outer_else", passthrough,
                        [("%s_out" % o, s) for o, s in zip(outs, shapes)],
                        [tensor("y_shape", np.array(y_shape, np.int64))])
    cases = []
    paths = ((True, True), (True, False)) + (((False, True),) if kind == "lstm" else ())
    for outer, inner_flag in paths:
        path = ("then_" + ("then" if inner_flag else "else")) if outer else "else"
        c = Case("cf_if_nested_%s_%s" % (kind, path), 13)
        c.input("x", x)
        for s in states:
            c.input(s, {"h0": h0, "c0": c0}[s])
        c.input("outer", np.array(outer))
        c.input("inner", np.array(inner_flag))
        c.node("If", ["outer"], outs, "if_outer", then_branch=outer_then, else_branch=outer_else)
        if not outer:
            want = [np.broadcast_to(h0, y_shape)] + [2 * h0, 2 * c0][:len(outs) - 1]
        else:
            w, r, b = (w1, r1, b1) if inner_flag else (w2, r2, b2)
            if kind == "lstm":
                want = ref_lstm(2 * x, w, r, b, h0, c0)
            else:
                want = ref_gru(2 * x, w, r, b, h0)
        for o, v in zip(outs, f32(*want)):
            c.output(o, v)
        cases.append(c)
    return cases


def loop_lstm_case():
    """A Loop with a run-time trip count carries an LSTM's h and c: iteration i feeds step i of
    x (Gather) to an LSTM inside an If on the iteration's parity (even: weights 1, odd: weights
    2), whose Y_h and Y_c become the next iteration's states and, after the last, graph
    outputs."""
    rng = np.random.default_rng(45)
    w1, r1, b1 = weights(rng, 4)
    w2, r2, b2 = weights(rng, 4)
    steps = 5
    x = f32(rng.uniform(-1, 1, (steps + 2, BATCH, INPUT)))[0]
    h0 = f32(rng.uniform(-0.5, 0.5, (1, BATCH, HIDDEN)))[0]
    c0 = f32(rng.uniform(-1, 1, (1, BATCH, HIDDEN)))[0]
    s_shape = [1, BATCH, HIDDEN]

    def cell(tag, w, r, b):
        node = helper.make_node("LSTM", ["xt", "W" + tag, "R" + tag, "B" + tag, "", "h_in",
                                         "c_in"], ["", "h_" + tag, "c_" + tag],
                                hidden_size=HIDDEN)
        return branch(tag, [node], [("h_" + tag, s_shape), ("c_" + tag, s_shape)],
                      [tensor("W" + tag, w), tensor("R" + tag, r), tensor("B" + tag, b)])

    body = helper.make_graph(
        [helper.make_node("Gather", ["x", "i"], ["xi"], axis=0),
         helper.make_node("Unsqueeze", ["xi", "axis0"], ["xt"]),
         helper.make_node("Mod", ["i", "two"], ["parity"]),
         helper.make_node("Equal", ["parity", "zero"], ["even"]),
         helper.make_node("If", ["even"], ["h_out", "c_out"], then_branch=cell("1", w1, r1, b1),
                          else_branch=cell("2", w2, r2, b2)),
         helper.make_node("Identity", ["c_in_cond"], ["c_out_cond"])],
        "body", [vi("i", I64, []), vi("c_in_cond", BOOL, []), vi("h_in", F32, s_shape),
                 vi("c_in", F32, s_shape)],
        [vi("c_out_cond", BOOL, []), vi("h_out", F32, s_shape), vi("c_out", F32, s_shape)],
        initializer=[tensor("axis0", np.array([0], np.int64)),
                     tensor("two", np.array(2, np.int64)),
                     tensor("zero", np.array(0, np.int64))])
    c = Case("cf_loop_lstm", 13)
    c.input("x", x)
    c.input("h0", h0)
    c.input("c0", c0)
    c.input("M", np.array(steps, np.int64))
    c.node("Loop", ["M", "", "h0", "c0"], ["hn", "cn"], "loop0", body=body)
    h, cs = h0, c0
    for i in range(steps):
        w, r, b = (w1, r1, b1) if i % 2 == 0 else (w2, r2, b2)
        _, h, cs = f32(*ref_lstm(x[i:i + 1], w, r, b, h, cs))
    c.output("hn", h)
    c.output("cn", cs)
    return c




def spectrum_lstm_case():
    """Silero VAD's front end in small: inside an If on the sample rate nested in an If on a
    run-time flag, a Conv with a Hann-windowed DFT basis (128 taps, stride 64) frames a voiced
    signal, the log spectrum log(1 + 2^20 |X|) feeds an LSTM, and its states are the outputs.
    The signal has almost nothing at the top bins, so their 128-term sums cancel to ~1e-8 and
    the log multiplies their error by 2^20. onnxruntime is 2e-3 and 5e-3 off these states (and
    so is the CPU backend's GEMM, summing in float), hence the case's tolerance on every
    backend; the reference, whose sums round once, must be right to 1e-5 (ModelCasesTest's
    ReferenceSumsRoundOnce; issue 43)."""
    rng = np.random.default_rng(46)
    n, step, bins, frames = 128, 64, 65, 4
    t = np.arange(n + step * (frames - 1)) / 16000
    harmonics = zip([140, 280, 420, 700, 1100], rng.uniform(0, 6, 5))
    voiced = sum(np.sin(2 * np.pi * f * t + p) / k for k, (f, p) in enumerate(harmonics, 1))
    signal = f32((0.8 * voiced / np.abs(voiced).max())[None, None])[0]
    k, m = np.arange(bins)[:, None], np.arange(n)[None]
    hann = 0.5 - 0.5 * np.cos(2 * np.pi * m / n)
    basis = f32(np.concatenate([hann * np.cos(2 * np.pi * k * m / n),
                                -hann * np.sin(2 * np.pi * k * m / n)])[:, None])[0]
    w, r, b = f32(rng.uniform(-0.3, 0.3, (1, 4 * HIDDEN, bins)),
                  rng.uniform(-0.3, 0.3, (1, 4 * HIDDEN, HIDDEN)),
                  rng.uniform(-0.3, 0.3, (1, 8 * HIDDEN)))
    h0 = f32(rng.uniform(-0.5, 0.5, (1, 1, HIDDEN)))[0]
    c0 = f32(rng.uniform(-1, 1, (1, 1, HIDDEN)))[0]
    s_shape = [1, 1, HIDDEN]

    front = branch(
        "front",
        [helper.make_node("Conv", ["signal", "basis"], ["X"], strides=[step]),
         helper.make_node("Mul", ["X", "X"], ["X2"]),
         helper.make_node("Reshape", ["X2", "parts"], ["X2p"]),
         helper.make_node("ReduceSum", ["X2p", "one_axis"], ["power"], keepdims=0),
         helper.make_node("Sqrt", ["power"], ["mag"]),
         helper.make_node("Mul", ["mag", "gain"], ["scaled"]),
         helper.make_node("Add", ["scaled", "one"], ["shifted"]),
         helper.make_node("Log", ["shifted"], ["spect"]),
         helper.make_node("Transpose", ["spect"], ["seq"], perm=[2, 0, 1]),
         helper.make_node("LSTM", ["seq", "W", "R", "B", "", "h0", "c0"], ["", "hn_f", "cn_f"],
                          hidden_size=HIDDEN)],
        [("hn_f", s_shape), ("cn_f", s_shape)],
        [tensor("basis", basis), tensor("parts", np.array([1, 2, bins, frames], np.int64)),
         tensor("one_axis", np.array([1], np.int64)),
         tensor("gain", np.array(2.0 ** 20, np.float32)), tensor("one", np.array(1, np.float32)),
         tensor("W", w), tensor("R", r), tensor("B", b)])
    keep = branch("keep", [helper.make_node("Identity", [s], [s + "_k"]) for s in ("h0", "c0")],
                  [("h0_k", s_shape), ("c0_k", s_shape)])
    by_rate = branch(
        "by_rate",
        [helper.make_node("Equal", ["sr", "rate16k"], ["is16k"]),
         helper.make_node("If", ["is16k"], ["hn_r", "cn_r"], then_branch=front,
                          else_branch=keep)],
        [("hn_r", s_shape), ("cn_r", s_shape)], [tensor("rate16k", np.array(16000, np.int64))])
    c = Case("cf_if_nested_spectrum_lstm", 13)
    c.tolerance = 1e-2
    c.input("signal", signal)
    c.input("h0", h0)
    c.input("c0", c0)
    c.input("sr", np.array(16000, np.int64))
    c.input("active", np.array(True))
    c.node("If", ["active"], ["hn", "cn"], "if_active", then_branch=by_rate, else_branch=keep)
    x = np.asarray(signal, np.float64)[0, 0]
    frames_m = np.stack([x[i * step:i * step + n] for i in range(frames)], 1)
    spectrum = np.asarray(basis, np.float64)[:, 0] @ frames_m
    mag = np.sqrt(spectrum[:bins] ** 2 + spectrum[bins:] ** 2)
    seq = np.log(1 + 2.0 ** 20 * mag).T[:, None]
    _, hn, cn = ref_lstm(seq, w, r, b, h0, c0)
    c.output("hn", f32(hn)[0])
    c.output("cn", f32(cn)[0])
    return c


def cf_recurrent_cases():
    return (nested_if_cases("lstm") + nested_if_cases("gru") +
            [loop_lstm_case(), spectrum_lstm_case()])
