"""The self-contained HTML report: one file with its CSS, JavaScript and data inlined (no network, opens from disk).

Records travel as JSON inside ``<script type="application/json">`` and are rendered in the browser with
``textContent`` only; the JSON is escaped so that no input text can close the script element.
"""

from __future__ import annotations

import html
import json
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Optional, Union

from ..types import AuditResult
from ._data import normalize, summarize

_JSON_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                               "\u2028": "\\u2028", "\u2029": "\\u2029"})


@lru_cache(maxsize=None)
def asset(name: str, package: str = "rt4chart.report") -> str:
    """Text of a packaged asset in ``package``'s ``assets`` folder (here: ``rt4.css``, ``render.js``, ``pager.js``,
    ``report.js``; pages built on this one, like the diff page, keep theirs in their own package)."""
    return resources.files(package).joinpath("assets", name).read_text(encoding="utf-8")


def embed_json(data: Any) -> str:
    """JSON safe to place inside a ``<script>`` element (no ``</script>``, ``<!--`` or ``&`` survives)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).translate(_JSON_ESCAPES)


def _script(code: str) -> str:
    # Packaged code never contains "</script"; guard anyway so an edit cannot silently break the page.
    if "</script" in code.lower():
        raise ValueError("inline script contains '</script'")
    return f"<script>{code}</script>"


def page(title: str, body: str, scripts: Iterable[str], data: Optional[Any] = None, styles: Iterable[str] = ()) -> str:
    """A complete HTML document with the shared stylesheet (then ``styles``, rules of this page only), ``body``
    (trusted markup) and inline scripts."""
    data_tag = (f'<script type="application/json" id="rt4-data">{embed_json(data)}</script>'
                if data is not None else "")
    return "".join([
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
        # Inline styles and scripts only; no fetches anywhere except the page's own origin (the server page).
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
        "script-src 'unsafe-inline'; img-src data:; connect-src 'self'\">",
        f"<title>{html.escape(title)}</title>",
        *(f"<style>{css}</style>" for css in (asset("rt4.css"), *styles)), "</head><body>",
        body, data_tag, *(_script(s) for s in scripts), "</body></html>\n",
    ])


_LIST_BODY = """<header class="top"><h1>{title}</h1><div class="sub">{sub}</div></header>
<main>
<section class="summary" id="summary" aria-label="summary"></section>{above}
<div class="filters" role="search">
{filters}
  <label>search <input type="search" id="f-text" placeholder="{search}"></label>
  <span class="count" id="count"></span>
</div>
<section id="records" aria-live="polite"></section>
<button class="more" id="more" type="button">show more</button>
</main>"""


def list_page(title: str, sub: str, filters: str, search: str, script: str, data: Any, *, above: str = "",
              styles: Iterable[str] = ()) -> str:
    """A page that lists records (the report, the diff page): header (``title``, ``sub``), summary, ``above``, the
    filter bar (``filters``, then the text search whose placeholder is ``search``) and the list, which ``pager.js``
    fills page by page; ``script`` is the page's own code, run after ``render.js`` and ``pager.js``. ``filters``
    and ``above`` are trusted markup; the other texts are escaped."""
    body = _LIST_BODY.format(title=html.escape(title), sub=html.escape(sub), above=above, filters=filters,
                             search=html.escape(search))
    return page(title, body, [asset("render.js"), asset("pager.js"), script], data, styles)


_REPORT_FILTERS = """  <label>label <select id="f-label"><option value="">all</option><option>contradicted</option>
    <option>baseless</option><option>unverified</option><option>entailed</option>
    <option value="error">errors</option></select></label>
  <label>task <select id="f-task"><option value="">all</option></select></label>
  <label><input type="checkbox" id="f-halluc"> hallucinated only</label>"""


def render_html(
    results: Iterable[Union[AuditResult, dict]], *, title: str = "rt4chart audit report", source: str = ""
) -> str:
    """The report for audit results (``AuditResult`` objects, their JSON dicts, or error records) as HTML text."""
    entries = [normalize(r, i) for i, r in enumerate(results)]
    summary = summarize(entries)
    judges = ", ".join(summary["judges"]) or "n/a"
    sub = f"{summary['records']} records" + (f" from {source}" if source else "") + f" · judge: {judges}"
    return list_page(title, sub, _REPORT_FILTERS, "id, question or answer", asset("report.js"),
                     {"summary": summary, "records": entries})


def write_html(
    results: Iterable[Union[AuditResult, dict]], path: Union[str, Path], **kwargs: Any
) -> Path:
    """Write :func:`render_html` to ``path`` (UTF-8) and return the path."""
    return save_page(render_html(results, **kwargs), path)


def save_page(text: str, path: Union[str, Path]) -> Path:
    """Write a page built by :func:`page` to ``path`` (UTF-8) and return the path."""
    out = Path(path)
    # A lone surrogate can only sit inside a JSON string, where backslashreplace writes it as a valid JSON escape.
    out.write_bytes(text.encode("utf-8", "backslashreplace"))
    return out
