"""The web page at ``/``: paste context, question and answer, see the answer coloured claim by claim.

It reuses the report's stylesheet and renderer (``rt4chart/report/assets``) and is fully inline, so it works on a
machine without internet access.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from .._version import __version__
from ..report import asset, page

_BODY = """<header class="top"><h1>rt4chart</h1>
<div class="sub">Claim-level, evidence-grounded audit of a RAG answer · v{version} ·
<a href="docs" style="color:#93c5fd">API docs</a></div></header>
<main>
<form class="audit-form" id="audit-form" autocomplete="off">
  <label class="section-title" for="in-context">Context (retrieved passages)</label>
  <textarea id="in-context" name="context" rows="7" required></textarea>
  <label class="section-title" for="in-question">Question</label>
  <input id="in-question" name="question" type="text">
  <label class="section-title" for="in-answer">Answer to audit</label>
  <textarea id="in-answer" name="answer" rows="4" required></textarea>
  <div class="row" id="token-row"{token_hidden}>
    <label class="section-title" for="in-token">API token</label>
    <input id="in-token" name="token" type="password" style="max-width:24em">
  </div>
  <div class="row">
    <button type="submit" id="submit">Audit</button>
    <button type="button" id="example">Load the paper's example</button>
    <span class="status" id="status" role="status"></span>
  </div>
</form>
<section id="result" aria-live="polite"></section>
</main>"""


@lru_cache(maxsize=None)
def _page_js() -> str:
    return resources.files("rt4chart.server").joinpath("static", "page.js").read_text(encoding="utf-8")


@lru_cache(maxsize=2)
def web_page(*, auth: bool) -> str:
    """The page's HTML; ``auth`` shows the token field (the page keeps the token in session storage only)."""
    body = _BODY.format(version=__version__, token_hidden="" if auth else " hidden")
    return page("rt4chart", body, [asset("render.js"), _page_js()])
