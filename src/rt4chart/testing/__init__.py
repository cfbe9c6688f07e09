"""Audits inside pytest: ``assert_grounded`` and the pytest plugin (entry point ``pytest11``, name ``rt4chart``).

>>> from rt4chart.testing import assert_grounded
>>> result = assert_grounded("Paris is in France.", "Paris is the capital of France.", judge="lexical")
>>> result.label.value
'entailed'

The plugin adds ``--rt4chart-judge NAME`` (a judge name ``rt4chart.judges.registry`` knows; default ``local``, the
offline default judge; ``lexical`` is the faster choice) and a session fixture, ``rt4chart_auditor``: one ``Auditor``
for that judge, built once per test session. ``assert_grounded`` without ``judge=`` uses that auditor while the
plugin runs, and builds one for ``local`` otherwise.
Within a session, a judge named by ``judge=`` is built once too, and the LLM judge reads its
endpoint from the environment as the command line does (``RT4CHART_BASE_URL``, ``RT4CHART_MODEL``, ...).

An answer is grounded when every claim is entailed by the context. ``max_risk`` relaxes that: the share of claims
that are not entailed (contradicted, baseless or unverified: a claim the judge could not check is not grounded)
may be at most ``max_risk``. An answer with no claim to check is never grounded. An answer no judge confirmed
(``hallucinated`` None, label unverified) fails whatever ``max_risk`` allows, unless ``allow_unverified=True``
(or ``--rt4chart-allow-unverified``) lets it pass, still bounded by ``max_risk``.
"""

from __future__ import annotations

import os
from typing import Any, Iterator, Optional, Union

from .._console import cut
from ..audit.auditor import Auditor
from ..audit.protocols import Judge
from ..jobs.batch import run_sync
from ..errors import ConfigError
from ..judges.registry import JUDGES, build_auditor
from ..llm.settings import llm_env
from ..types import AuditResult, Label

try:
    import pytest
except ImportError:  # pragma: no cover - assert_grounded works without pytest; the plugin's fixture needs it
    pytest = None  # type: ignore[assignment]

__all__ = ["DEFAULT_JUDGE", "assert_grounded", "claim_table", "risk"]

#: the judge of the plugin and of ``assert_grounded`` when none is named: the offline default judge (tens of
#: milliseconds per answer; ``--rt4chart-judge lexical`` takes a few)
DEFAULT_JUDGE = "local"
_WIDTH = 70  # characters of a claim or an evidence quote shown in the claim table


class _Session:
    """The plugin's state for one pytest session: the judge named by ``--rt4chart-judge``, the LLM settings read
    from the environment when the session started (``RT4CHART_BASE_URL``, ``RT4CHART_MODEL``, ``OPENAI_API_KEY``,
    ``RT4CHART_CACHE_DIR``, as the command line reads them) and an auditor per judge name, built when first used."""

    def __init__(self, judge: str, llm_options: dict[str, Any], allow_unverified: bool = False) -> None:
        self.judge = judge
        self.allow_unverified = allow_unverified
        self.llm_options = llm_options
        self._auditors: dict[str, Auditor] = {}

    def auditor(self, name: Optional[str] = None) -> Auditor:
        name = name or self.judge
        if name not in self._auditors:
            self._auditors[name] = build_auditor(name, **self.llm_options)
        return self._auditors[name]


# pytest sessions configured with the plugin, innermost last (pytester runs a session inside a session)
_sessions: list[_Session] = []


def risk(result: AuditResult) -> float:
    """The share of the answer's claims that are not entailed; 1.0 for an answer with no claim."""
    if not result.claims:
        return 1.0
    return sum(c.label != Label.ENTAILED for c in result.claims) / len(result.claims)


def claim_table(result: AuditResult) -> str:
    """The claims of a result as a plain-text table: number, label, claim, then its evidence or the reason."""
    rows = [("#", "label", "claim", "evidence / reason")]
    for i, c in enumerate(result.claims, start=1):
        why = f"\u201c{cut(c.evidence[0].text, 50)}\u201d" if c.evidence else cut(c.reason or "", 50)
        rows.append((str(i), c.label.value, cut(c.text, _WIDTH), why))
    widths = [max(len(row[k]) for row in rows) for k in range(3)]
    return "\n".join("  " + "  ".join(cell.ljust(w) for cell, w in zip(row[:3], widths)) + "  " + row[3]
                     for row in rows).rstrip()


def _auditor(judge: Union[str, Judge, Auditor, None]) -> Auditor:
    if isinstance(judge, Auditor):
        return judge
    if judge is None or isinstance(judge, str):
        return _sessions[-1].auditor(judge) if _sessions else build_auditor(judge or DEFAULT_JUDGE)
    return Auditor(judge=judge)


def assert_grounded(answer: str, context: Union[str, list[str]], question: Optional[str] = None, *,
                    judge: Union[str, Judge, Auditor, None] = None, max_risk: float = 0.0,
                    allow_unverified: Optional[bool] = None) -> AuditResult:
    """Audit ``answer`` against ``context`` and raise ``AssertionError``, with a table of its claims, unless the
    answer is grounded: at most ``max_risk`` (0 to 1) of its claims not entailed, and at least one claim.
    An answer no judge confirmed (``hallucinated`` None) fails unless ``allow_unverified`` (None: the plugin's
    ``--rt4chart-allow-unverified``, off by default).

    ``judge``: a judge name (``lexical``, ``local``, ``llm``, ...), a judge object, an ``Auditor`` (the
    ``rt4chart_auditor`` fixture), or None for the plugin's ``--rt4chart-judge``. Returns the ``AuditResult``."""
    __tracebackhide__ = True  # pytest shows the failing test's line, not this helper's frame
    if not 0.0 <= max_risk <= 1.0:
        raise ConfigError(f"max_risk must be between 0 and 1, got {max_risk!r}")
    auditor = _auditor(judge)
    record = {"id": "assert_grounded", "context": context, "question": question, "answer": answer}
    result = run_sync(auditor.audit(record))
    share = risk(result)
    if allow_unverified is None:
        allow_unverified = bool(_sessions) and _sessions[-1].allow_unverified
    unconfirmed = result.hallucinated is None and not allow_unverified
    if result.claims and share <= max_risk and not unconfirmed:
        return result
    n = len(result.claims)
    unverified = sum(c.label == Label.UNVERIFIED for c in result.claims)
    why = ("no claim to check was found in the answer" if not n else
           f"{sum(c.label != Label.ENTAILED for c in result.claims)} of {n} claims not entailed "
           f"(risk {share:.2f} > max_risk {max_risk:.2f})" if share > max_risk else
           f"needs review: no judge confirmed it ({unverified} of {n} claims unverified; allow_unverified=True or "
           "--rt4chart-allow-unverified lets it pass)")
    raise AssertionError(f"answer not grounded ({result.label.value}, judge {result.judge}): {why}\n"
                         f"{claim_table(result)}")


# -- the pytest plugin ------------------------------------------------------------------------------------------
def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("rt4chart", "rt4chart hallucination audits")
    group.addoption("--rt4chart-judge", action="store", default=DEFAULT_JUDGE, choices=JUDGES,
                    help=f"judge of assert_grounded and the rt4chart_auditor fixture (default: {DEFAULT_JUDGE})")
    group.addoption("--rt4chart-allow-unverified", action="store_true", default=False,
                    help="let assert_grounded pass an answer no judge confirmed (unverified) within max_risk")


def pytest_configure(config: Any) -> None:
    # the plugin is an edge, like the command line: the environment is read here, once per session
    _sessions.append(_Session(config.getoption("rt4chart_judge"), llm_env(os.environ),
                              config.getoption("rt4chart_allow_unverified")))


def pytest_unconfigure(config: Any) -> None:
    if _sessions:
        _sessions.pop()


if pytest is not None:
    @pytest.fixture(scope="session")
    def rt4chart_auditor() -> Iterator[Auditor]:
        """One ``Auditor`` for ``--rt4chart-judge``, shared by the tests of a session."""
        if not _sessions:
            raise ConfigError("the rt4chart pytest plugin is not configured in this session")
        yield _sessions[-1].auditor()
