"""The diff page: one self-contained HTML file, the two runs of each record side by side.

Built on the report's list page (``rt4chart.report._html.list_page``: its stylesheet, label colours, escaping,
filter bar and lazily paged list, ``pager.js``) and its card renderer (``render.js``: claims coloured by label, each
linked to its context evidence); ``diff.js`` adds the summary, the rules, the filters and, per record, the table of
claims paired across the runs. A context that is the same in both runs travels once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Optional, Union

from ..report import normalize
from ..report import asset, list_page, save_page
from ._compare import CHANGES, STATUSES, RecordDiff, RunDiff, Side

_FILTERS = """  <label>status <select id="f-status"><option value="">all</option>{statuses}</select></label>
  <label>change <select id="f-change"><option value="">all</option>{changes}</select></label>
  <label><input type="checkbox" id="f-changed" checked> changed only</label>"""
_RULES = '\n<section class="rules" id="rules" aria-label="rules"></section>'


def _options(names: Iterable[str]) -> str:
    return "".join(f'<option value="{n}">{n.replace("_", " ")}</option>' for n in names)


def _side(side: Optional[Side], rid: Any) -> Optional[dict]:
    if side is None:
        return None
    if side.result is not None:
        return normalize(side.result)
    assert side.error is not None
    return {"id": rid, "index": side.line, "error": side.error.model_dump(mode="json")}


def _entry(record: RecordDiff) -> dict:
    before, after = _side(record.before, record.id), _side(record.after, record.id)
    if before and after and "context" in after and after.get("context") == before.get("context"):
        after = {**after, "context": None, "same_context": True}  # diff.js restores it from ``before``
    return {"diff": record.to_json(), "before": before, "after": after, "changed": record.changed}


def render_diff_html(diff: RunDiff, checks: Iterable[Any] = (), *, title: str = "rt4chart diff") -> str:
    """The diff page of ``diff`` (``checks``: the ``RuleCheck`` of each ``--fail-on``) as HTML text."""
    summary = {k: v for k, v in diff.to_json(checks).items() if k != "records"}
    sub = f"{Path(diff.before.path).name} \u2192 {Path(diff.after.path).name}"
    filters = _FILTERS.format(statuses=_options(STATUSES), changes=_options(CHANGES))
    data = {"summary": summary, "records": [_entry(r) for r in diff.records]}
    return list_page(title, sub, filters, "id or claim", asset("diff.js", "rt4chart.diff"), data, above=_RULES,
                     styles=[asset("diff.css", "rt4chart.diff")])


def write_diff_html(diff: RunDiff, path: Union[str, Path], checks: Iterable[Any] = (), **kwargs: Any) -> Path:
    """Write :func:`render_diff_html` to ``path`` and return the path."""
    return save_page(render_diff_html(diff, checks, **kwargs), path)
