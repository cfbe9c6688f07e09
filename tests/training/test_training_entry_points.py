"""Every module of rt4chart_training runs as ``python3 -m rt4chart_training.<name>``: each imports and answers
``--help`` (a stale import of the runtime package would fail here, not in the middle of a training run)."""

import importlib
import pkgutil
import sys

import pytest

import rt4chart_training
import rt4chart_training.experiments

LIBRARIES = {"rt4chart_training.local_judge_onnx", "rt4chart_training.local_judge_rows", "rt4chart_training.splits",
             "rt4chart_training.hybrid_fit",
             "rt4chart_training.tagger_data", "rt4chart_training.tagger_export", "rt4chart_training.tagger_graph",
             "rt4chart_training.tagger_model"}  # helpers, no command line


def commands() -> list[str]:
    names = []
    for package in (rt4chart_training, rt4chart_training.experiments):
        for info in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
            if not info.ispkg and info.name not in LIBRARIES:
                names.append(info.name)
    return sorted(names)


def test_the_package_holds_the_training_and_experiment_modules():
    assert commands() == [
        "rt4chart_training.device_tagger",
        "rt4chart_training.edit_lexicon",
        "rt4chart_training.experiments.claim_calibration",
        "rt4chart_training.experiments.hand_cases",
        "rt4chart_training.experiments.nli_entailed",
        "rt4chart_training.experiments.one_edit_fires",
        "rt4chart_training.experiments.semantic_cascade",
        "rt4chart_training.experiments.tune_lexical_judge",
        "rt4chart_training.experiments.validation_variants",
        "rt4chart_training.fit_default_gate",
        "rt4chart_training.hybrid_combination",
        "rt4chart_training.train_local_judge",
        "rt4chart_training.train_local_tagger",
    ]


@pytest.mark.parametrize("name", sorted(LIBRARIES))
def test_each_helper_module_imports(name):
    assert importlib.import_module(name).__doc__  # a name left here after its module went would fail


@pytest.mark.parametrize("name", commands())
def test_each_module_answers_help(name, monkeypatch, capsys):
    module = importlib.import_module(name)
    monkeypatch.setattr(sys, "argv", [name, "--help"])
    with pytest.raises(SystemExit) as done:
        module.main()
    assert done.value.code == 0
    assert capsys.readouterr().out.startswith("usage:")

