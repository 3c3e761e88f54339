#!/usr/bin/env python3
"""Writes the ONNX-ML model cases tests/models/ml_*: scikit-learn models (trees, forests,
boosted trees, linear models, preprocessing) written into ONNX-ML operators by hand, with their
expected outputs from onnxruntime (never from ember).

Two interpreters take part: scikit-learn comes from the system's Python (Debian's
python3-sklearn), onnx and onnxruntime from the project's venv. Run it with the venv's Python:

    build/venv/bin/python utils/models/make_ml_models.py [--sklearn-python /usr/bin/python3]

It starts the system Python on this same file with --train, which fits the models on
scikit-learn's bundled datasets (no download) and prints their parameters as JSON.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


# --- training (system Python, scikit-learn) --------------------------------------------------

def tree_json(t):
    """A fitted sklearn tree_ as plain lists."""
    return {
        "left": t.children_left.tolist(), "right": t.children_right.tolist(),
        "feature": t.feature.tolist(), "threshold": t.threshold.tolist(),
        "value": t.value.tolist(),
    }


def train():
    import numpy as np
    from sklearn.datasets import load_diabetes, load_iris
    from sklearn.ensemble import (GradientBoostingClassifier, GradientBoostingRegressor,
                                  RandomForestClassifier, RandomForestRegressor)
    from sklearn.svm import SVC, SVR
    from sklearn.linear_model import LinearRegression, LogisticRegression
    from sklearn.tree import DecisionTreeRegressor

    iris_x, iris_y = load_iris(return_X_y=True)
    diab_x, diab_y = load_diabetes(return_X_y=True)
    out = {}
    tree = DecisionTreeRegressor(max_depth=4, random_state=0).fit(diab_x, diab_y)
    out["tree_regressor"] = {"trees": [tree_json(tree.tree_)], "x": diab_x[:12].tolist()}
    y2 = np.stack([diab_y, diab_x[:, 2] * 100], axis=1)
    forest = RandomForestRegressor(n_estimators=6, max_depth=4, random_state=0).fit(diab_x, y2)
    out["forest_regressor"] = {"trees": [tree_json(e.tree_) for e in forest.estimators_],
                               "x": diab_x[20:32].tolist()}
    gbr = GradientBoostingRegressor(n_estimators=8, max_depth=3, random_state=0).fit(diab_x, diab_y)
    out["gbt_regressor"] = {"trees": [tree_json(e[0].tree_) for e in gbr.estimators_],
                            "learning_rate": gbr.learning_rate,
                            "init": float(gbr.init_.constant_[0][0]), "x": diab_x[60:72].tolist()}
    svrs = {}
    for kernel, extra in [("rbf", {}), ("poly", {"degree": 3, "coef0": 0.5}),
                          ("sigmoid", {"coef0": 0.1}), ("linear", {})]:
        svr = SVR(kernel=kernel, C=50.0, **extra).fit(diab_x[:150], diab_y[:150])
        svrs[kernel] = {"sv": svr.support_vectors_.tolist(), "coef": svr.dual_coef_[0].tolist(),
                        "rho": float(svr.intercept_[0]), "gamma": float(svr._gamma),
                        "coef0": float(svr.coef0), "degree": float(svr.degree)}
    out["svr"] = {"models": svrs, "x": diab_x[150:162].tolist()}
    svcs = {}
    for name, kernel, rows in [("rbf3", "rbf", slice(None)), ("poly3", "poly", slice(None)),
                               ("linear2", "linear", slice(50, 150))]:
        svc = SVC(kernel=kernel, C=2.0, coef0=0.5).fit(iris_x[rows], iris_y[rows])
        svcs[name] = {"sv": svc.support_vectors_.tolist(), "coef": svc.dual_coef_.tolist(),
                      "rho": svc.intercept_.tolist(), "per_class": svc.n_support_.tolist(),
                      "classes": svc.classes_.tolist(), "kernel": kernel,
                      "gamma": float(svc._gamma), "coef0": float(svc.coef0),
                      "degree": float(svc.degree)}
    out["svc"] = {"models": svcs, "x": iris_x[7::9].tolist()}
    rfc = RandomForestClassifier(n_estimators=5, max_depth=3, random_state=0).fit(iris_x, iris_y)
    out["forest_classifier"] = {"trees": [tree_json(e.tree_) for e in rfc.estimators_],
                                "x": iris_x[::13].tolist()}
    gbc = GradientBoostingClassifier(n_estimators=4, max_depth=2, random_state=0).fit(iris_x, iris_y)
    out["gbt_classifier"] = {
        "trees": [[tree_json(e.tree_) for e in stage] for stage in gbc.estimators_],
        "learning_rate": gbc.learning_rate,
        "init": gbc._raw_predict_init(iris_x[:1])[0].tolist(),
        "x": iris_x[5::12].tolist()}
    logreg = LogisticRegression(max_iter=500).fit(iris_x, iris_y)
    out["logistic"] = {"coef": logreg.coef_.tolist(), "intercept": logreg.intercept_.tolist(),
                       "x": iris_x[3::11].tolist()}
    binary = LogisticRegression(max_iter=500).fit(iris_x[:100], iris_y[:100])
    out["logistic_binary"] = {"coef": binary.coef_.tolist(),
                              "intercept": binary.intercept_.tolist(),
                              "x": iris_x[40:60:2].tolist()}
    lin = LinearRegression().fit(diab_x, y2)
    out["linear_regressor"] = {"coef": lin.coef_.tolist(), "intercept": lin.intercept_.tolist(),
                               "x": diab_x[40:50].tolist()}
    out["iris_mean"] = iris_x.mean(axis=0).tolist()
    out["iris_std"] = iris_x.std(axis=0).tolist()
    out["iris_x"] = iris_x[::10].tolist()
    json.dump(out, sys.stdout)


# --- model writing (venv Python, onnx and onnxruntime) ---------------------------------------

def ml_model(nodes, inputs, outputs, ml_opset, name):
    from onnx import helper
    graph = helper.make_graph(nodes, name, inputs, outputs)
    return helper.make_model(graph, producer_name="make_ml_models.py",
                             opset_imports=[helper.make_opsetid("", 17),
                                            helper.make_opsetid("ai.onnx.ml", ml_opset)])


def tensor_info(name, elem, shape=None):
    from onnx import helper
    return helper.make_tensor_value_info(name, elem, shape)


def write_case(out_dir, name, model, feeds, tolerance=None):
    """Checks \p model, runs it on onnxruntime and writes model.onnx and test_data_set_0."""
    import onnx
    import onnxruntime as ort
    from onnx import numpy_helper
    onnx.checker.check_model(model)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    results = sess.run(None, feeds)
    case = os.path.join(out_dir, name)
    data = os.path.join(case, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    onnx.save(model, os.path.join(case, "model.onnx"))
    for i, inp in enumerate(model.graph.input):
        with open(os.path.join(data, f"input_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(feeds[inp.name], inp.name).SerializeToString())
    for i, (out, value) in enumerate(zip(model.graph.output, results)):
        with open(os.path.join(data, f"output_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(value, out.name).SerializeToString())
    if tolerance is not None:
        with open(os.path.join(case, "tolerance"), "w") as f:
            f.write(f"{tolerance}\n")
    print(name, [r.shape for r in results])


def flatten_trees(trees, leaf_weights):
    """sklearn trees as the node lists of TreeEnsembleRegressor/Classifier (sklearn: x <= t goes
    left, BRANCH_LEQ with the true branch left). leaf_weights(tree index, tree, node) gives the
    (target, weight) pairs of a leaf."""
    a = {k: [] for k in ["nodes_treeids", "nodes_nodeids", "nodes_featureids", "nodes_values",
                         "nodes_modes", "nodes_truenodeids", "nodes_falsenodeids"]}
    w = {"treeids": [], "nodeids": [], "ids": [], "weights": []}
    for ti, t in enumerate(trees):
        for n in range(len(t["left"])):
            leaf = t["left"][n] == -1
            a["nodes_treeids"].append(ti)
            a["nodes_nodeids"].append(n)
            a["nodes_featureids"].append(0 if leaf else t["feature"][n])
            a["nodes_values"].append(0.0 if leaf else t["threshold"][n])
            a["nodes_modes"].append("LEAF" if leaf else "BRANCH_LEQ")
            a["nodes_truenodeids"].append(0 if leaf else t["left"][n])
            a["nodes_falsenodeids"].append(0 if leaf else t["right"][n])
            if leaf:
                for target, weight in leaf_weights(ti, t, n):
                    w["treeids"].append(ti)
                    w["nodeids"].append(n)
                    w["ids"].append(target)
                    w["weights"].append(weight)
    return a, w


def regressor(out, name, trees, targets, aggregate, x, base=None, n_targets=None, ml_opset=3,
              tolerance=None, post="NONE"):
    import numpy as np
    from onnx import TensorProto, helper
    a, w = flatten_trees(trees, lambda ti, t, n: [(k, t["value"][n][k][0]) for k in targets])
    attrs = dict(a, target_treeids=w["treeids"], target_nodeids=w["nodeids"],
                 target_ids=[targets.index(i) for i in w["ids"]], target_weights=w["weights"],
                 n_targets=n_targets or len(targets), aggregate_function=aggregate)
    if post != "NONE":
        attrs["post_transform"] = post
    if base is not None:
        attrs["base_values"] = base
    node = helper.make_node("TreeEnsembleRegressor", ["X"], ["Y"], domain="ai.onnx.ml", **attrs)
    model = ml_model([node], [tensor_info("X", TensorProto.FLOAT, [None, len(x[0])])],
                     [tensor_info("Y", TensorProto.FLOAT, [None, len(targets)])], ml_opset, name)
    write_case(out, name, model, {"X": np.array(x, np.float32)}, tolerance)


def regressor_as_tensor(out, name, trees, x):
    """TreeEnsembleRegressor (ai.onnx.ml 3) on float64 X with its thresholds, weights and base
    value as float64 tensors (the *_as_tensor attributes), aggregate AVERAGE."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper
    a, w = flatten_trees(trees, lambda ti, t, n: [(0, t["value"][n][0][0])])
    values = a.pop("nodes_values")
    as_tensor = lambda v, n: numpy_helper.from_array(np.array(v, np.float64), n)  # noqa: E731
    node = helper.make_node(
        "TreeEnsembleRegressor", ["X"], ["Y"], domain="ai.onnx.ml", **a,
        nodes_values_as_tensor=as_tensor(values, "nodes_values"), target_treeids=w["treeids"],
        target_nodeids=w["nodeids"], target_ids=w["ids"],
        target_weights_as_tensor=as_tensor(w["weights"], "target_weights"),
        base_values_as_tensor=as_tensor([0.25], "base_values"), n_targets=1,
        aggregate_function="AVERAGE")
    model = ml_model([node], [tensor_info("X", TensorProto.DOUBLE, [None, len(x[0])])],
                     [tensor_info("Y", TensorProto.FLOAT, [None, 1])], 3, name)
    write_case(out, name, model, {"X": np.array(x, np.float64)}, 1e-3)


def classifier(out, name, trees, labels, leaf_weights, x, base=None, post="NONE"):
    import numpy as np
    from onnx import TensorProto, helper
    a, w = flatten_trees(trees, leaf_weights)
    attrs = dict(a, class_treeids=w["treeids"], class_nodeids=w["nodeids"], class_ids=w["ids"],
                 class_weights=w["weights"], classlabels_int64s=labels, post_transform=post)
    if base is not None:
        attrs["base_values"] = base
    node = helper.make_node("TreeEnsembleClassifier", ["X"], ["label", "scores"],
                            domain="ai.onnx.ml", **attrs)
    model = ml_model([node], [tensor_info("X", TensorProto.FLOAT, [None, len(x[0])])],
                     [tensor_info("label", TensorProto.INT64, [None]),
                      tensor_info("scores", TensorProto.FLOAT, [None, len(labels)])], 3, name)
    write_case(out, name, model, {"X": np.array(x, np.float32)})


def tree_ensemble_v5(out, name, trees, x):
    """TreeEnsemble (ai.onnx.ml 5) over float64, aggregate MAX, from sklearn trees with the
    comparisons rewritten into every mode (x <= t as x < nextafter(t), as not (x > t) with the
    branches swapped, ...) and missing values sent down the true branch at every third node;
    X holds NaNs."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper
    feat, splits, modes, tids, tleaf, fids, fleaf, missing = [], [], [], [], [], [], [], []
    leaf_t, leaf_w, roots = [], [], []
    for t in trees:
        index, leaves = {}, {}
        for n in range(len(t["left"])):
            if t["left"][n] == -1:
                leaves[n] = len(leaf_w)
                leaf_t.append(0)
                leaf_w.append(t["value"][n][0][0])
            else:
                index[n] = len(feat) + len(index)
        base = len(feat)
        for n in sorted(index):
            th = t["threshold"][n]
            left, right = t["left"][n], t["right"][n]
            th32 = float(np.float32(th))
            kind = index[n] % 4
            if kind == 0:
                mode, split = 0, th32  # BRANCH_LEQ
            elif kind == 1:
                mode, split = 1, float(np.nextafter(np.float64(th32), np.inf))  # BRANCH_LT
            elif kind == 2:
                mode, split, left, right = 3, th32, right, left  # BRANCH_GT, swapped
            else:
                mode, split, left, right = 2, float(np.nextafter(np.float64(th32), np.inf)), \
                    right, left  # BRANCH_GTE, swapped
            feat.append(t["feature"][n])
            splits.append(split)
            modes.append(mode)
            for child, ids, leafs in ((left, tids, tleaf), (right, fids, fleaf)):
                if child in leaves:
                    ids.append(leaves[child])
                    leafs.append(1)
                else:
                    ids.append(index[child])
                    leafs.append(0)
            missing.append(1 if index[n] % 3 == 0 else 0)
        roots.append(base)
    node = helper.make_node(
        "TreeEnsemble", ["X"], ["Y"], domain="ai.onnx.ml", aggregate_function=3, n_targets=1,
        post_transform=0, tree_roots=roots, nodes_featureids=feat,
        nodes_splits=numpy_helper.from_array(np.array(splits, np.float64), "nodes_splits"),
        nodes_modes=numpy_helper.from_array(np.array(modes, np.uint8), "nodes_modes"),
        nodes_truenodeids=tids, nodes_trueleafs=tleaf, nodes_falsenodeids=fids,
        nodes_falseleafs=fleaf, nodes_missing_value_tracks_true=missing, leaf_targetids=leaf_t,
        leaf_weights=numpy_helper.from_array(np.array(leaf_w, np.float64), "leaf_weights"))
    xs = np.array(x, np.float64)
    xs[1, 2] = xs[4, 3] = xs[7, 8] = xs[7, 2] = np.nan
    model = ml_model([node], [tensor_info("X", TensorProto.DOUBLE, [None, xs.shape[1]])],
                     [tensor_info("Y", TensorProto.DOUBLE, [None, 1])], 5, name)
    write_case(out, name, model, {"X": xs})


def svm_case(out, fitted):
    """SVMRegressor with each kernel (scikit-learn's SVR), in one model."""
    import numpy as np
    from onnx import TensorProto, helper
    nodes, outs = [], []
    for kernel, m in fitted["svr"]["models"].items():
        nodes.append(helper.make_node(
            "SVMRegressor", ["X"], [kernel], domain="ai.onnx.ml", kernel_type=kernel.upper(),
            kernel_params=[m["gamma"], m["coef0"], m["degree"]], n_supports=len(m["sv"]),
            support_vectors=np.ravel(m["sv"]).tolist(), coefficients=m["coef"], rho=[m["rho"]]))
        outs.append(tensor_info(kernel, TensorProto.FLOAT, [None, 1]))
    model = ml_model(nodes, [tensor_info("X", TensorProto.FLOAT, [None, 10])], outs, 1,
                     "ml_svm_regressor")
    write_case(out, "ml_svm_regressor", model,
               {"X": np.array(fitted["svr"]["x"], np.float32)}, 1e-3)


def svc_case(out, fitted):
    """SVMClassifier one-vs-one without probabilities (scikit-learn's SVC): three classes with
    RBF and POLY kernels, two with a linear kernel. The pair sums cancel to values far smaller
    than their terms, so float32 kernels agree to 1e-3 only (the labels exactly)."""
    import numpy as np
    from onnx import TensorProto, helper
    nodes, outs = [], []
    for name, m in fitted["svc"]["models"].items():
        pairs = len(m["rho"])
        nodes.append(helper.make_node(
            "SVMClassifier", ["X"], [name + "_label", name + "_scores"], domain="ai.onnx.ml",
            kernel_type=m["kernel"].upper(), kernel_params=[m["gamma"], m["coef0"], m["degree"]],
            vectors_per_class=m["per_class"], support_vectors=np.ravel(m["sv"]).tolist(),
            coefficients=np.ravel(m["coef"]).tolist(), rho=m["rho"],
            classlabels_ints=[10 * c + 1 for c in m["classes"]]))
        outs += [tensor_info(name + "_label", TensorProto.INT64, [None]),
                 tensor_info(name + "_scores", TensorProto.FLOAT, [None, max(pairs, 2)])]
    model = ml_model(nodes, [tensor_info("X", TensorProto.FLOAT, [None, 4])], outs, 1,
                     "ml_svm_classifier")
    write_case(out, "ml_svm_classifier", model,
               {"X": np.array(fitted["svc"]["x"], np.float32)}, 1e-3)


def post_transforms_case(out, fitted):
    """Every post transform as onnxruntime computes it: LinearClassifier with LOGISTIC,
    SOFTMAX_ZERO (a row of zero scores, from zero features and intercepts) and PROBIT (scores in
    (0, 1) and outside, where it gives NaN); a two-target tree ensemble with SOFTMAX."""
    import numpy as np
    from onnx import TensorProto, helper
    lg = fitted["logistic"]
    coef = (np.array(lg["coef"]) * 0.05).ravel().tolist()
    nodes, outs = [], []
    for pt in ["LOGISTIC", "SOFTMAX_ZERO", "PROBIT"]:
        name = pt.lower()
        nodes.append(helper.make_node("LinearClassifier", ["X"], [name + "_label", name],
                                      domain="ai.onnx.ml", coefficients=coef,
                                      intercepts=[0.0, 0.0, 0.0], classlabels_ints=[1, 2, 3],
                                      post_transform=pt))
        outs += [tensor_info(name + "_label", TensorProto.INT64, [None]),
                 tensor_info(name, TensorProto.FLOAT, [None, 3])]
    trees = fitted["forest_classifier"]["trees"][:2]
    a, w = flatten_trees(trees, lambda ti, t, n: [(k, t["value"][n][0][k] / 10) for k in (0, 1)])
    nodes.append(helper.make_node(
        "TreeEnsembleRegressor", ["X"], ["softmax"], domain="ai.onnx.ml", **a,
        target_treeids=w["treeids"], target_nodeids=w["nodeids"], target_ids=w["ids"],
        target_weights=w["weights"], n_targets=2, post_transform="SOFTMAX"))
    outs.append(tensor_info("softmax", TensorProto.FLOAT, [None, 2]))
    model = ml_model(nodes, [tensor_info("X", TensorProto.FLOAT, [None, 4])], outs, 3,
                     "ml_post_transforms")
    x = np.array(fitted["iris_x"], np.float32)[:8] - np.float32(3)
    x[0] = 0
    write_case(out, "ml_post_transforms", model, {"X": x})


def linear_cases(out, fitted):
    import numpy as np
    from onnx import TensorProto, helper
    lg = fitted["logistic"]
    node = helper.make_node("LinearClassifier", ["X"], ["label", "scores"], domain="ai.onnx.ml",
                            coefficients=np.ravel(lg["coef"]).tolist(),
                            intercepts=lg["intercept"], classlabels_ints=[0, 1, 2],
                            post_transform="SOFTMAX", multi_class=1)
    model = ml_model([node], [tensor_info("X", TensorProto.FLOAT, [None, 4])],
                     [tensor_info("label", TensorProto.INT64, [None]),
                      tensor_info("scores", TensorProto.FLOAT, [None, 3])], 1, "ml_linear_classifier")
    write_case(out, "ml_linear_classifier", model, {"X": np.array(lg["x"], np.float32)})
    lb = fitted["logistic_binary"]
    node = helper.make_node("LinearClassifier", ["X"], ["label", "scores"], domain="ai.onnx.ml",
                            coefficients=np.ravel(lb["coef"]).tolist(),
                            intercepts=lb["intercept"], classlabels_ints=[4, 9],
                            post_transform="LOGISTIC")
    model = ml_model([node], [tensor_info("X", TensorProto.FLOAT, [None, 4])],
                     [tensor_info("label", TensorProto.INT64, [None]),
                      tensor_info("scores", TensorProto.FLOAT, [None, 2])], 1, "ml_linear_binary")
    write_case(out, "ml_linear_binary", model, {"X": np.array(lb["x"], np.float32)})
    lr = fitted["linear_regressor"]
    node = helper.make_node("LinearRegressor", ["X"], ["Y"], domain="ai.onnx.ml",
                            coefficients=np.ravel(lr["coef"]).tolist(),
                            intercepts=lr["intercept"], targets=2)
    model = ml_model([node], [tensor_info("X", TensorProto.FLOAT, [None, 10])],
                     [tensor_info("Y", TensorProto.FLOAT, [None, 2])], 1, "ml_linear_regressor")
    write_case(out, "ml_linear_regressor", model, {"X": np.array(lr["x"], np.float32)}, 1e-3)


def preprocess_case(out, fitted):
    """Imputer (NaN -> the mean) -> Scaler (standardize) -> Normalizer L2, MAX and L1, and
    Binarizer, as scikit-learn's SimpleImputer, StandardScaler, Normalizer, Binarizer export."""
    import numpy as np
    from onnx import TensorProto, helper
    mean, std = fitted["iris_mean"], fitted["iris_std"]
    nodes = [
        helper.make_node("Imputer", ["X"], ["imputed"], domain="ai.onnx.ml",
                         imputed_value_floats=mean, replaced_value_float=float("nan")),
        helper.make_node("Scaler", ["imputed"], ["scaled"], domain="ai.onnx.ml", offset=mean,
                         scale=[1 / s for s in std]),
        helper.make_node("Normalizer", ["scaled"], ["l2"], domain="ai.onnx.ml", norm="L2"),
        helper.make_node("Normalizer", ["scaled"], ["max"], domain="ai.onnx.ml", norm="MAX"),
        helper.make_node("Normalizer", ["scaled"], ["l1"], domain="ai.onnx.ml", norm="L1"),
        helper.make_node("Binarizer", ["scaled"], ["bin"], domain="ai.onnx.ml", threshold=0.25),
    ]
    outs = [tensor_info(n, TensorProto.FLOAT, [None, 4]) for n in ["l2", "max", "l1", "bin"]]
    model = ml_model(nodes, [tensor_info("X", TensorProto.FLOAT, [None, 4])], outs, 1,
                     "ml_preprocess")
    x = np.array(fitted["iris_x"], np.float32)
    x[2, 1] = x[5, 0] = x[5, 3] = np.nan
    x[9] = mean  # a row that scales to zeros: every norm is 0
    write_case(out, "ml_preprocess", model, {"X": x})


def encoders_case(out):
    """OneHotEncoder, LabelEncoder (int64 keys to floats; float keys with a NaN through
    keys_tensor/values_tensor, to int64), Imputer on int64 and ArrayFeatureExtractor."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper
    nodes = [
        helper.make_node("OneHotEncoder", ["ids"], ["onehot"], domain="ai.onnx.ml",
                         cats_int64s=[1, 3, 5, 7], zeros=1),
        helper.make_node("LabelEncoder", ["ids"], ["mapped"], domain="ai.onnx.ml",
                         keys_int64s=[7, 1, 3], values_floats=[0.5, -2.0, 9.25],
                         default_float=42.0),
        helper.make_node("LabelEncoder", ["values"], ["codes"], domain="ai.onnx.ml",
                         keys_tensor=numpy_helper.from_array(
                             np.array([0.5, np.nan, -1.0], np.float32), "keys"),
                         values_tensor=numpy_helper.from_array(
                             np.array([10, 20, 30], np.int64), "values"),
                         default_tensor=numpy_helper.from_array(np.array([-7], np.int64),
                                                                "default")),
        helper.make_node("Imputer", ["ids"], ["imputed"], domain="ai.onnx.ml",
                         imputed_value_int64s=[100], replaced_value_int64=3),
        helper.make_node("ArrayFeatureExtractor", ["values", "picks"], ["picked"],
                         domain="ai.onnx.ml"),
    ]
    inputs = [tensor_info("ids", TensorProto.INT64, [2, 4]),
              tensor_info("values", TensorProto.FLOAT, [2, 4]),
              tensor_info("picks", TensorProto.INT64, [3])]
    outs = [tensor_info("onehot", TensorProto.FLOAT, [2, 4, 4]),
            tensor_info("mapped", TensorProto.FLOAT, [2, 4]),
            tensor_info("codes", TensorProto.INT64, [2, 4]),
            tensor_info("imputed", TensorProto.INT64, [2, 4]),
            tensor_info("picked", TensorProto.FLOAT, [2, 3])]
    model = ml_model(nodes, inputs, outs, 4, "ml_encoders")
    feeds = {"ids": np.array([[1, 3, 4, 7], [7, 0, 3, 5]], np.int64),
             "values": np.array([[0.5, np.nan, 2.0, -1.0], [-1.0, 0.5, 3.5, np.nan]], np.float32),
             "picks": np.array([3, 0, 3], np.int64)}
    write_case(out, "ml_encoders", model, feeds)


def write_all(fitted, out):
    tr = fitted["tree_regressor"]
    regressor(out, "ml_tree_regressor", tr["trees"], [0], "SUM", tr["x"], ml_opset=1,
              tolerance=1e-3)
    fr = fitted["forest_regressor"]
    regressor(out, "ml_forest_regressor", fr["trees"], [0, 1], "AVERAGE", fr["x"],
              base=[1.5, -2.0], tolerance=1e-3)
    regressor(out, "ml_forest_regressor_min", fr["trees"], [0, 1], "MIN", fr["x"],
              tolerance=1e-3)
    gr = fitted["gbt_regressor"]
    lr_gr = gr["learning_rate"]
    a, w = flatten_trees(gr["trees"], lambda ti, t, n: [(0, lr_gr * t["value"][n][0][0])])
    node_gr = __import__("onnx").helper.make_node(
        "TreeEnsembleRegressor", ["X"], ["Y"], domain="ai.onnx.ml", **a,
        target_treeids=w["treeids"], target_nodeids=w["nodeids"], target_ids=w["ids"],
        target_weights=w["weights"], n_targets=1, aggregate_function="SUM",
        base_values=[gr["init"]])
    write_case(out, "ml_gbt_regressor",
               ml_model([node_gr], [tensor_info("X", 1, [None, 10])],
                        [tensor_info("Y", 1, [None, 1])], 3, "ml_gbt_regressor"),
               {"X": __import__("numpy").array(gr["x"], "float32")}, 1e-3)
    svm_case(out, fitted)
    svc_case(out, fitted)
    regressor_as_tensor(out, "ml_tree_regressor_double", fr["trees"][:3], fr["x"])
    fc = fitted["forest_classifier"]
    n = len(fc["trees"])

    def proportions(ti, t, node):
        counts = t["value"][node][0]
        return [(k, c / sum(counts) / n) for k, c in enumerate(counts)]

    classifier(out, "ml_forest_classifier", fc["trees"], [10, 20, 30], proportions, fc["x"])
    gb = fitted["gbt_classifier"]
    stages = gb["trees"]
    trees = [tree for stage in stages for tree in stage]
    lr = gb["learning_rate"]

    def stage_value(ti, t, node):  # tree ti is stage ti // 3, class ti % 3
        return [(ti % 3, lr * t["value"][node][0][0])]

    classifier(out, "ml_gbt_classifier", trees, [0, 1, 2], stage_value, gb["x"],
               base=gb["init"], post="SOFTMAX")
    tree_ensemble_v5(out, "ml_tree_ensemble_v5", fr["trees"][:3], fr["x"])
    linear_cases(out, fitted)
    post_transforms_case(out, fitted)
    preprocess_case(out, fitted)
    encoders_case(out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sklearn-python", default="/usr/bin/python3")
    parser.add_argument("--out", default=os.path.join(ROOT, "tests", "models"))
    args = parser.parse_args()
    fitted = json.loads(subprocess.run([args.sklearn_python, os.path.abspath(__file__), "--train"],
                                       check=True, capture_output=True, text=True).stdout)
    write_all(fitted, args.out)


if __name__ == "__main__":
    if "--train" in sys.argv:
        train()
    else:
        main()
