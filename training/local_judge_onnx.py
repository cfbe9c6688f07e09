"""The local judge's tree ensembles as ONNX files: a fitted scikit-learn ``HistGradientBoostingClassifier`` written
as an ``ai.onnx.ml`` ``TreeEnsembleRegressor`` graph giving the raw logit (``python -m
training.train_local_judge`` writes every tree model of ``rt4chart.judges.local`` with ``export``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np


#: the ONNX IR version the tree files declare: what their opsets need (opset 17 is IR 8), not the onnx package's own
#: default (IR 14 with onnx 1.23), which onnxruntime before 1.31 refuses to load; pyproject allows onnxruntime 1.17
ONNX_IR_VERSION = 8
#: the ONNX files' producer_name, part of their bytes
PRODUCER = "rt4chart scripts/train_local_judge.py"


def export(model, n_features: int, path: Path, offset: float = 0.0) -> None:
    """Write a fitted HistGradientBoostingClassifier as an ONNX TreeEnsembleRegressor giving the raw logit (plus
    ``offset``, a shift of every output's logit)."""
    import onnx
    from onnx import TensorProto, helper

    a: dict[str, list] = {k: [] for k in (
        "nodes_treeids", "nodes_nodeids", "nodes_featureids", "nodes_values", "nodes_modes", "nodes_truenodeids",
        "nodes_falsenodeids", "target_treeids", "target_nodeids", "target_ids", "target_weights")}
    for t, (pred,) in enumerate(model._predictors):
        for i, nd in enumerate(pred.nodes):
            leaf = bool(nd["is_leaf"])
            a["nodes_treeids"].append(t)
            a["nodes_nodeids"].append(i)
            a["nodes_featureids"].append(0 if leaf else int(nd["feature_idx"]))
            a["nodes_values"].append(0.0 if leaf else float(nd["num_threshold"]))
            a["nodes_modes"].append("LEAF" if leaf else "BRANCH_LEQ")
            a["nodes_truenodeids"].append(0 if leaf else int(nd["left"]))
            a["nodes_falsenodeids"].append(0 if leaf else int(nd["right"]))
            if leaf:
                a["target_treeids"].append(t)
                a["target_nodeids"].append(i)
                a["target_ids"].append(0)
                a["target_weights"].append(float(nd["value"]))
    node = helper.make_node("TreeEnsembleRegressor", ["X"], ["Y"], domain="ai.onnx.ml", n_targets=1,
                            base_values=[float(np.ravel(model._baseline_prediction)[0]) + offset],
                            post_transform="NONE", aggregate_function="SUM", **a)
    graph = helper.make_graph([node], path.stem, [helper.make_tensor_value_info("X", TensorProto.FLOAT,
                                                                                [None, n_features])],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [None, 1])])
    # the producer name is the one the shipped files carry (the script's former path), so a retrain is byte-identical
    onx = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.ml", 3)],
                            producer_name=PRODUCER, ir_version=ONNX_IR_VERSION)
    onnx.checker.check_model(onx)
    onnx.save(onx, str(path))
