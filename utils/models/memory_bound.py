#!/usr/bin/env python3
"""The memory a model needs at its busiest node, from ONNX shape inference (and, for the few
tensors it leaves unknown, their sizes in one onnxruntime run).

For each node, in the graph's order, the bytes of every non-constant tensor live there: its
inputs and outputs, and every tensor made before it and read after it (densenet's features that
later concats read, a transformer's residual kept across its attention): what a plan that runs
the nodes as given, in this order, holds there. A plan can hold less (fusion drops the
intermediates it never writes; graph inputs and outputs live outside the activations region),
so this is a yardstick, not a floor. The largest of these is the bound a memory plan's
activations region (kernel scratch included) is held to: utils/zoo.sh compares it with
-print-memory.

Graph inputs and outputs count where they are live, as in the plan's bound before this one (the
largest node's inputs and outputs); initializers do not (they are constants, not activations).
Each tensor counts its bytes rounded up to the plan's 64-byte alignment.

  memory_bound.py model.onnx        prints "bound BYTES node NAME"
"""
import sys

import numpy as np
import onnx
from onnx import helper, shape_inference

ALIGNMENT = 64


def tensor_bytes(value_info):
    t = value_info.type.tensor_type
    if not t.HasField("shape"):
        return None
    n = 1
    for d in t.shape.dim:
        if not d.HasField("dim_value"):
            return None
        n *= d.dim_value
    return aligned(n * np.dtype(helper.tensor_dtype_to_np_dtype(t.elem_type)).itemsize)


def aligned(n):
    """Bytes \p n takes in a memory plan, which starts every tensor on a 64-byte boundary
    (kTensorAlignment): mel_frontend's region is 48 bytes over the unaligned sum."""
    return (n + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT


def sizes_from_a_run(model, names):
    """Bytes of \p names, which shape inference left unknown (a Slice whose ends a Mul of
    constants computes: shufflenet's channel split), from one onnxruntime run on zeros."""
    import onnxruntime as ort
    m = onnx.ModelProto()
    m.CopyFrom(model)
    for name in names:
        m.graph.output.append(helper.make_empty_tensor_value_info(name))
    inits = {t.name for t in m.graph.initializer}
    feeds = {}
    for vi in m.graph.input:
        if vi.name in inits:
            continue
        t = vi.type.tensor_type
        feeds[vi.name] = np.zeros([d.dim_value for d in t.shape.dim],
                                  helper.tensor_dtype_to_np_dtype(t.elem_type))
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    return {name: aligned(value.nbytes) for name, value in zip(names, sess.run(names, feeds))}


def node_bound(model):
    """(bytes, node name) of the node with the most live non-constant bytes."""
    model = shape_inference.infer_shapes(model, strict_mode=True, data_prop=True)
    g = model.graph
    sizes = {}
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        sizes[vi.name] = tensor_bytes(vi)
    constants = {t.name for t in g.initializer}
    constants |= {o for n in g.node if n.op_type == "Constant" for o in n.output}
    # Where each tensor is made (-1: a graph input) and last read (len: a graph output).
    first, last = {}, {}
    for vi in g.input:
        if vi.name not in constants:
            first[vi.name] = -1
    for i, n in enumerate(g.node):
        for name in n.output:
            if name and name not in constants:
                first.setdefault(name, i)
        for name in n.input:
            if name in first:
                last[name] = i
    for vi in g.output:
        last[vi.name] = len(g.node)
    missing = [name for name in first if name in last and sizes.get(name) is None]
    if missing:
        sizes.update(sizes_from_a_run(model, missing))
    best = (0, "")
    for i, n in enumerate(g.node):
        live = sum(sizes[name] for name in first
                   if name in last and first[name] <= i <= last[name])
        best = max(best, (live, n.name or n.op_type))
    return best


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    bytes_, name = node_bound(onnx.load(sys.argv[1]))
    print("bound %d node %s" % (bytes_, name))


if __name__ == "__main__":
    main()
