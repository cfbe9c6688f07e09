"""Issue 42, item 9: the ``Auditor`` docstring example runs as written (its own imports, nothing borrowed from the
module) and is an indented block, which the API reference renders as code rather than one flattened line."""

from __future__ import annotations

import doctest
import inspect

from rt4chart import Auditor


def test_the_auditor_example_runs_with_only_its_own_imports():
    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    tests = [t for t in finder.find(Auditor, "Auditor", globs={}) if t.examples]
    assert tests, "the Auditor docstring has no example"
    for test in tests:
        runner.run(test)
    assert runner.failures == 0 and runner.tries >= 6


def test_the_example_is_an_indented_code_block():
    lines = inspect.getdoc(Auditor).splitlines()
    examples = [i for i, line in enumerate(lines) if line.lstrip().startswith(">>>")]
    assert examples and all(lines[i].startswith("    >>>") for i in examples)
    assert lines[examples[0] - 1].strip() == ""  # a blank line opens the block
