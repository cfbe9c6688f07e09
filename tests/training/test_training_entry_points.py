"""Every module of training runs as ``python3 -m training.<name>``: each imports and answers
``--help`` (a stale import of the runtime package would fail here, not in the middle of a training run)."""

import importlib
import pkgutil
import sys

import pytest

import training
import training.experiments

LIBRARIES = {"training.local_judge_onnx", "training.local_judge_rows", "training.splits",
             "training.hybrid_fit",
             "training.tagger_data", "training.tagger_export", "training.tagger_graph",
             "training.tagger_model"}  # helpers, no command line


def commands() -> list[str]:
    names = []
    for package in (training, training.experiments):
        for info in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
            if not info.ispkg and info.name not in LIBRARIES:
                names.append(info.name)
    return sorted(names)


def test_the_package_holds_the_training_and_experiment_modules():
    assert commands() == [
        "training.device_tagger",
        "training.edit_lexicon",
        "training.experiments.claim_calibration",
        "training.experiments.hand_cases",
        "training.experiments.nli_entailed",
        "training.experiments.one_edit_fires",
        "training.experiments.semantic_cascade",
        "training.experiments.subjectless_claims",
        "training.experiments.tune_lexical_judge",
        "training.experiments.typed_gate",
        "training.experiments.validation_variants",
        "training.fit_default_gate",
        "training.hybrid_combination",
        "training.noun_lexicon",
        "training.train_local_judge",
        "training.train_local_tagger",
        "training.train_nli_verifier",
        "training.verifier_pairs",
        "training.verifier_probes",
        "training.world_calibrator",
        "training.world_rows",
        "training.written_corpus",
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

