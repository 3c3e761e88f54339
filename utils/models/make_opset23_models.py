#!/usr/bin/python3
"""Generate ember's test cases for the operators ONNX added in opsets 23 to 25 that the ONNX
1.17 backend suite lacks: Attention (23, 24, 25), RMSNormalization-23, RotaryEmbedding-23 and
TensorScatter-24.

Each case is a folder of tests/models in the ONNX backend test-suite layout (model.onnx,
test_data_set_0/input_<i>.pb, output_<i>.pb), so ModelCasesTest and BundleTest run it on every
backend and as a bundle. Expected outputs come from the ONNX reference evaluator
(onnx.reference.ReferenceEvaluator, onnx >= 1.23, whose Attention has the corrected causal
alignment and the zero rows of fully masked queries); where onnxruntime runs the model too, its
outputs are compared and the largest difference printed, as a check of the reference.

The script is deterministic and idempotent: it deletes and rewrites every case folder it owns
(and only those). Run from the repository:

    build/venv/bin/python utils/models/make_opset23_models.py
"""

import os
import shutil

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT_DIR = os.path.join(REPO, "tests", "models")

F32 = TensorProto.FLOAT
F16 = TensorProto.FLOAT16
I64 = TensorProto.INT64
BOOL = TensorProto.BOOL


def onnx_type(arr):
    return helper.np_dtype_to_tensor_dtype(arr.dtype)


def write_case(name, opset, node, inputs, tolerance=None, check_ort=True):
    """One case: a graph of the single \\p node over \\p inputs (name -> array), its outputs
    named by node.output; expected values from the reference evaluator."""
    graph_inputs = [helper.make_tensor_value_info(n, onnx_type(a), a.shape)
                    for n, a in inputs.items()]
    ref_model = helper.make_model(
        helper.make_graph([node], name, graph_inputs,
                          [helper.make_tensor_value_info(o, 0, None)
                           for o in node.output if o]),
        opset_imports=[helper.make_opsetid("", opset)])
    outs = ReferenceEvaluator(ref_model).run(None, inputs)
    names = [o for o in node.output if o]
    graph_outputs = [helper.make_tensor_value_info(n, onnx_type(a), a.shape)
                     for n, a in zip(names, outs)]
    model = helper.make_model(
        helper.make_graph([node], name, graph_inputs, graph_outputs),
        opset_imports=[helper.make_opsetid("", opset)], producer_name="make_opset23_models")
    model.ir_version = 10
    onnx.checker.check_model(model, full_check=True)
    for a in outs:
        assert np.all(np.isfinite(a.astype(np.float64))), name
    if check_ort:
        try:
            import onnxruntime as ort
            sess = ort.InferenceSession(model.SerializeToString(),
                                        providers=["CPUExecutionProvider"])
            got = sess.run(None, inputs)
            diff = max(float(np.max(np.abs(g.astype(np.float64) - w.astype(np.float64))))
                       for g, w in zip(got, outs))
            print(f"{name}: max |onnxruntime - reference| = {diff:.3g}")
        except Exception as e:  # onnxruntime may lack the operator or the version
            print(f"{name}: onnxruntime does not run it ({str(e).splitlines()[0][:100]})")
    case_dir = os.path.join(OUT_DIR, name)
    if os.path.exists(case_dir):
        shutil.rmtree(case_dir)
    data_dir = os.path.join(case_dir, "test_data_set_0")
    os.makedirs(data_dir)
    onnx.save(model, os.path.join(case_dir, "model.onnx"))
    for i, (n, a) in enumerate(inputs.items()):
        with open(os.path.join(data_dir, f"input_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a, n).SerializeToString())
    for i, (n, a) in enumerate(zip(names, outs)):
        with open(os.path.join(data_dir, f"output_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a, n).SerializeToString())
    if tolerance is not None:
        with open(os.path.join(case_dir, "tolerance"), "w") as f:
            f.write(f"{tolerance}\n")


def rand(rng, shape, dtype=np.float32):
    return rng.uniform(-1.0, 1.0, shape).astype(dtype)


def attention_cases(rng):
    # 4-D, causal, MHA.
    q, k, v = rand(rng, (2, 3, 4, 8)), rand(rng, (2, 3, 4, 8)), rand(rng, (2, 3, 4, 6))
    write_case("attention_causal_4d", 23,
               helper.make_node("Attention", ["Q", "K", "V"], ["Y"], is_causal=1),
               {"Q": q, "K": k, "V": v})
    # 3-D, grouped-query (4 query heads over 2 KV heads), an additive float mask, a past cache
    # (2 cached keys before 3 new ones).
    q, k, v = rand(rng, (2, 3, 4 * 8)), rand(rng, (2, 3, 2 * 8)), rand(rng, (2, 3, 2 * 5))
    past_k, past_v = rand(rng, (2, 2, 2, 8)), rand(rng, (2, 2, 2, 5))
    mask = rng.uniform(-2.0, 0.5, (2, 1, 3, 5)).astype(np.float32)
    write_case("attention_gqa_3d_mask_past", 23,
               helper.make_node("Attention", ["Q", "K", "V", "attn_mask", "past_key",
                                              "past_value"],
                                ["Y", "present_key", "present_value", "qk"],
                                q_num_heads=4, kv_num_heads=2, qk_matmul_output_mode=2),
               {"Q": q, "K": k, "V": v, "attn_mask": mask, "past_key": past_k,
                "past_value": past_v})
    # 4-D, causal with a past cache (the frontier moves right by the past length), a boolean
    # mask with a fully masked row (zeros), the post-softmax scores as the fourth output, an
    # explicit scale and a softcap.
    q, k, v = rand(rng, (1, 2, 3, 4)), rand(rng, (1, 2, 3, 4)), rand(rng, (1, 2, 3, 4))
    past_k, past_v = rand(rng, (1, 2, 2, 4)), rand(rng, (1, 2, 2, 4))
    bmask = np.array([[True, True, False, True, True], [False, False, False, False, False],
                      [True, False, True, True, False]])
    write_case("attention_causal_past_bool_mask", 24,
               helper.make_node("Attention", ["Q", "K", "V", "attn_mask", "past_key",
                                              "past_value"],
                                ["Y", "present_key", "present_value", "qk"],
                                is_causal=1, qk_matmul_output_mode=3, scale=0.7, softcap=1.5),
               {"Q": q, "K": k, "V": v, "attn_mask": bmask, "past_key": past_k,
                "past_value": past_v})
    # Attention-24 with an external cache: nonpad_kv_seqlen pads the keys per batch and moves
    # the causal frontier (offset nonpad - Sq), and a boolean mask shorter than the keys (padded
    # as masked); the post-softmax scores as the fourth output.
    q, k, v = rand(rng, (2, 2, 3, 4)), rand(rng, (2, 2, 6, 4)), rand(rng, (2, 2, 6, 4))
    write_case("attention_nonpad_causal", 24,
               helper.make_node("Attention", ["Q", "K", "V", "attn_mask", "", "",
                                              "nonpad_kv_seqlen"],
                                ["Y", "", "", "qk"], is_causal=1, qk_matmul_output_mode=3),
               {"Q": q, "K": k, "V": v,
                "attn_mask": np.array([[True, False, True, True, True],
                                       [True, True, True, False, True],
                                       [False, True, True, True, True]]),
                "nonpad_kv_seqlen": np.array([5, 3], np.int64)},
               check_ort=False)
    # Attention-25's sliding window, 3-D multi-query (one KV head), a softcap and the capped
    # scores as the fourth output.
    q, k, v = rand(rng, (1, 4, 2 * 4)), rand(rng, (1, 6, 4)), rand(rng, (1, 6, 4))
    write_case("attention_window_mqa", 25,
               helper.make_node("Attention", ["Q", "K", "V"], ["Y", "", "", "qk"],
                                q_num_heads=2, kv_num_heads=1, left_window_size=2,
                                right_window_size=1, softcap=0.8, qk_matmul_output_mode=1),
               {"Q": q, "K": k, "V": v})


def rms_cases(rng):
    x = rand(rng, (2, 3, 8), np.float16)
    scale = rand(rng, (8,), np.float16)
    # float16 X computed in float32 (stash_type 1, the default): within a float16 step.
    write_case("rmsnorm_float16", 23,
               helper.make_node("RMSNormalization", ["X", "scale"], ["Y"], axis=-1),
               {"X": x, "scale": scale}, tolerance=2e-3)
    x = rand(rng, (2, 3, 4, 5))
    scale = rand(rng, (4, 1))
    write_case("rmsnorm_axis1", 23,
               helper.make_node("RMSNormalization", ["X", "scale"], ["Y"], axis=-2,
                                epsilon=1e-3),
               {"X": x, "scale": scale})


def rotary_caches(rng, positions, half):
    theta = rng.uniform(0.0, 3.0, (positions, half))
    return np.cos(theta).astype(np.float32), np.sin(theta).astype(np.float32)


def rotary_cases(rng):
    # 4-D, halves, full rotation, position_ids.
    x = rand(rng, (2, 3, 4, 8))
    cos, sin = rotary_caches(rng, 10, 4)
    pos = np.array([[0, 1, 2, 3], [5, 7, 9, 2]], np.int64)
    write_case("rotary_4d_positions", 23,
               helper.make_node("RotaryEmbedding", ["X", "cos_cache", "sin_cache",
                                                    "position_ids"], ["Y"]),
               {"X": x, "cos_cache": cos, "sin_cache": sin, "position_ids": pos})
    # 3-D, interleaved, partial rotation (6 of 8), position_ids.
    x = rand(rng, (2, 4, 2 * 8))
    cos, sin = rotary_caches(rng, 12, 3)
    pos = np.array([[3, 4, 5, 6], [0, 11, 1, 10]], np.int64)
    write_case("rotary_3d_interleaved_partial", 23,
               helper.make_node("RotaryEmbedding", ["X", "cos_cache", "sin_cache",
                                                    "position_ids"], ["Y"], interleaved=1,
                                num_heads=2, rotary_embedding_dim=6),
               {"X": x, "cos_cache": cos, "sin_cache": sin, "position_ids": pos})
    # 4-D, interleaved, caches per (batch, position), no position_ids.
    x = rand(rng, (2, 2, 3, 4))
    theta = rng.uniform(0.0, 3.0, (2, 3, 2))
    write_case("rotary_4d_interleaved_nopos", 23,
               helper.make_node("RotaryEmbedding", ["X", "cos_cache", "sin_cache"], ["Y"],
                                interleaved=1),
               {"X": x, "cos_cache": np.cos(theta).astype(np.float32),
                "sin_cache": np.sin(theta).astype(np.float32)})


def tensor_scatter_cases(rng):
    # A KV cache (batch, heads, max sequence, head size) updated at per-batch write indices
    # along the default axis -2: linear, and circular wrapping past the end.
    past = rand(rng, (2, 2, 5, 3))
    update = rand(rng, (2, 2, 2, 3))
    write_case("tensor_scatter_linear", 24,
               helper.make_node("TensorScatter", ["past_cache", "update", "write_indices"],
                                ["present_cache"]),
               {"past_cache": past, "update": update,
                "write_indices": np.array([1, 3], np.int64)})
    write_case("tensor_scatter_circular", 24,
               helper.make_node("TensorScatter", ["past_cache", "update", "write_indices"],
                                ["present_cache"], mode="circular"),
               {"past_cache": past, "update": update,
                "write_indices": np.array([4, 2], np.int64)})
    # No write indices (all 0), the sequence on axis 1 of a 3-D cache.
    past = rand(rng, (2, 4, 3))
    update = rand(rng, (2, 3, 3))
    write_case("tensor_scatter_axis1", 24,
               helper.make_node("TensorScatter", ["past_cache", "update"], ["present_cache"],
                                axis=1),
               {"past_cache": past, "update": update})


def float16_cases(rng):
    # float16 throughout: ember's kernels compute each node in float32 and round its result, the
    # reference rounds every numpy step, so they differ by a few float16 steps.
    def r(shape):
        return rng.uniform(-1.0, 1.0, shape).astype(np.float16)
    q, k, v = r((1, 2, 3, 8)), r((1, 2, 3, 8)), r((1, 2, 3, 8))
    write_case("attention_float16_mask", 23,
               helper.make_node("Attention", ["Q", "K", "V", "attn_mask"], ["Y"]),
               {"Q": q, "K": k, "V": v, "attn_mask": r((3, 3))}, tolerance=2e-3)
    # The softmax in float32 (softmax_precision 1), as float16 models ask.
    write_case("attention_float16_softmax_float", 23,
               helper.make_node("Attention", ["Q", "K", "V"], ["Y"], is_causal=1,
                                softmax_precision=1),
               {"Q": q, "K": k, "V": v}, tolerance=2e-3)
    x = r((2, 2, 3, 8))
    theta = rng.uniform(0.0, 3.0, (2, 3, 4))
    write_case("rotary_float16", 23,
               helper.make_node("RotaryEmbedding", ["X", "cos_cache", "sin_cache"], ["Y"]),
               {"X": x, "cos_cache": np.cos(theta).astype(np.float16),
                "sin_cache": np.sin(theta).astype(np.float16)}, tolerance=2e-3)


# Cases of the ONNX backend test suite of onnx >= 1.23 (its own generators, expected values from
# its reference), which the ONNX 1.17 suite ember's conformance runs lacks: the cache offsets of
# nonpad_kv_seqlen, fully masked rows, the sliding window, masks with -inf under a softcap.
ONNX_SUITE_CASES = [
    "test_attention_4d_causal_nonpad_batch_prefill",
    "test_attention_4d_gqa_causal_nonpad_decode",
    "test_attention_4d_causal_nonpad_negative_offset_structural_empty",
    "test_attention_3d_gqa_with_past_and_present",
    "test_attention_3d_local_window",
    "test_attention_4d_diff_heads_mask4d_padded_kv",
    "test_attention_24_fullymasked_qk_matmul_output_mode3_zero",
    "test_attention_4d_softcap_neginf_mask_poison",
    "test_attention_4d_with_past_and_present_qk_matmul_bias_4d_mask_causal",
    "test_rms_normalization_3d_axis1_epsilon",
    "test_rotary_embedding_with_interleaved_rotary_dim",
    "test_rotary_embedding_no_position_ids_rotary_dim",
    "test_tensorscatter_circular",
]


def onnx_suite_cases():
    """Copies ONNX_SUITE_CASES into tests/models/onnx_<name>."""
    from onnx.backend.test.case import node as node_cases
    cases = {c.name: c for c in node_cases.collect_testcases(None)}
    for name in ONNX_SUITE_CASES:
        case = cases[name]
        case_dir = os.path.join(OUT_DIR, "onnx_" + name[len("test_"):])
        if os.path.exists(case_dir):
            shutil.rmtree(case_dir)
        assert len(case.data_sets) == 1, name
        data_dir = os.path.join(case_dir, "test_data_set_0")
        os.makedirs(data_dir)
        onnx.save(case.model, os.path.join(case_dir, "model.onnx"))
        inputs, outputs = case.data_sets[0]
        for kind, values, infos in (("input", inputs, case.model.graph.input),
                                    ("output", outputs, case.model.graph.output)):
            for i, (a, info) in enumerate(zip(values, infos)):
                with open(os.path.join(data_dir, f"{kind}_{i}.pb"), "wb") as f:
                    f.write(numpy_helper.from_array(a, info.name).SerializeToString())


def cpu_stale_buffer_case(rng):
    # The CPU backend once got this wrong at -O3 only: the mask's Broadcast (a byte mover storing
    # int64s) reuses the scaled queries' dead float buffer, and the kernels' type-based alias
    # information let LLVM forward the queries to the Add that reads the mask (KernelLibrary.cpp).
    q, k, v = rand(rng, (1, 2, 2, 4)), rand(rng, (1, 2, 1, 4)), rand(rng, (1, 2, 1, 2))
    mask = rand(rng, (1, 1, 2, 1))
    write_case("attention_mask_over_dead_buffer", 25,
               helper.make_node("Attention", ["Q", "K", "V", "attn_mask"], ["Y", "", "", "qk"],
                                is_causal=1, qk_matmul_output_mode=2, scale=0.273256123),
               {"Q": q, "K": k, "V": v, "attn_mask": mask})


def main():
    rng = np.random.default_rng(23)
    attention_cases(rng)
    rms_cases(rng)
    rotary_cases(rng)
    tensor_scatter_cases(rng)
    float16_cases(np.random.default_rng(16))
    onnx_suite_cases()
    cpu_stale_buffer_case(np.random.default_rng(116))


if __name__ == "__main__":
    main()
