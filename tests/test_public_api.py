"""The public surface: everything in __all__ exists, and the docstring examples run."""

import doctest
import importlib

import rt4chart


def test_all_is_complete_and_importable():
    for name in rt4chart.__all__:
        assert hasattr(rt4chart, name), name
    public = {n for n in dir(rt4chart)
              if not n.startswith("_") and not isinstance(getattr(rt4chart, n), type(rt4chart))}
    public -= {"annotations", "asyncio", "Any", "Optional", "Union"}
    assert public <= set(rt4chart.__all__), public - set(rt4chart.__all__)


def test_doctests():
    # `rt4chart.audit` is the public function; the subpackage of the same name is reached through importlib
    for module in (rt4chart, importlib.import_module("rt4chart.audit.auditor")):
        failures, tried = doctest.testmod(module)
        assert tried > 0 and failures == 0


def test_one_shot_audit_with_its_own_decomposer_writes_no_fingerprint_that_names_another():
    import rt4chart
    from rt4chart.audit.decompose import RuleDecomposer

    context, answer = "The trial lasts 14 days.", "The trial lasts 14 days."
    named = rt4chart.audit(context, answer, judge="lexical")
    own = rt4chart.audit(context, answer, judge="lexical", decomposer=RuleDecomposer())
    assert named.config.get("judge_fingerprint") and "judge_fingerprint" not in own.config
