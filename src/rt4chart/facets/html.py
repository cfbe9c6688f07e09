"""Self-contained HTML for facet diagnostics: a Facet x Chunk heat map per question and an aggregate table.

No scripts, no external assets; every text from the data is escaped.
"""

from __future__ import annotations

from html import escape
from typing import Any, Mapping, Optional, Sequence

from ._model import CATEGORIES, FACET_TYPES, Diagnosis

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1a1a1a;max-width:1200px}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:4px 8px;vertical-align:top}
th{background:#f3f3f3;text-align:left}.num{text-align:right;font-variant-numeric:tabular-nums}
.cell{min-width:64px;text-align:center;font-variant-numeric:tabular-nums}
.cat{display:inline-block;padding:1px 8px;border-radius:9px;font-size:12px;color:#fff}
.robust{background:#2e7d32}.evidence_failure{background:#6d4c41}.evidence_misalignment{background:#ef6c00}
.evidence_override{background:#c62828}.unaddressed{background:#757575}.unverified{background:#8e24aa}
.muted{color:#666;font-size:12px}.chunk{white-space:pre-wrap;font-size:12px;max-width:1100px}
.legend span{margin-right:14px}
"""

_MARK = {"entailed": "&#10003;", "contradicted": "&#10007;", "baseless": "&#183;", "unverified": "?"}


_SHORT = {"strict": "St", "soft": "So", "llm_only": "LO"}


def _short(key: str) -> str:
    return _SHORT.get(key, key.replace("claim:", "c"))


def _color(relevance: float) -> str:
    # white (0) -> blue (1)
    r = max(0.0, min(1.0, relevance))
    return f"rgb({int(255 - 180 * r)},{int(255 - 120 * r)},255)"


def _page(title: str, body: str) -> str:
    return (f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{escape(title)}</title>"
            f"<style>{_CSS}</style></head><body>{body}</body></html>\n")


def _badge(category: str) -> str:
    return f'<span class="cat {escape(category)}">{escape(category.replace("_", " "))}</span>'


def render_question(d: Diagnosis) -> str:
    """The heat map of one question: rows are facets, columns chunks; colour = relevance, marks = NLI labels."""
    parts = [f"<h1>Facet diagnostics: {escape(str(d.id))}</h1>",
             f"<p><b>Question:</b> {escape(d.question)}</p>"]
    if d.answer is not None:
        label = f" ({escape(d.answer_label.value)})" if d.answer_label is not None else ""
        parts.append(f"<p><b>Answer{label}:</b> {escape(d.answer)}</p>")
    parts.append(f'<p class=muted>relevance: {escape(d.relevance_method)} · facets: {escape(d.decomposer)} · '
                 f'judge: {escape(d.judge)} · generation: {"yes" if d.generation else "no"}</p>')
    for note in d.notes:
        parts.append(f'<p class=muted>note: {escape(note)}</p>')
    parts.append('<p class="legend muted"><span>cell colour = relevance (white 0 → blue 1), bold = relevant</span>'
                 '<span>&#10003; entailed</span><span>&#10007; contradicted</span><span>&#183; baseless</span>'
                 '<span>? unverified</span><span>St/So/LO: strict/soft/LLM-only answer, c<i>i</i>: answer claim i'
                 '</span></p>')
    head = "".join(f"<th class=cell>chunk {c.index}</th>" for c in d.chunks)
    rows = []
    for f in d.facets:
        cells = []
        for c in f.cells:
            marks = " ".join(f'<span title="{escape(k)}: {v.value}">{escape(_short(k))}{_MARK[v.value]}</span>'
                             for k, v in c.nli.items())
            tip = (f"bm25 {c.bm25:.3f} (norm {c.bm25_norm:.2f})"
                   + (f", cosine {c.cosine:.2f}" if c.cosine is not None else "")
                   + (f", faithfulness {c.faithfulness:.2f}" if c.faithfulness is not None else ""))
            weight = "font-weight:bold;" if c.relevant else ""
            cells.append(f'<td class=cell style="background:{_color(c.relevance)};{weight}" title="{escape(tip)}">'
                         f'{c.relevance:.2f}<br>{marks}</td>')
        rows.append(f"<tr><th>{f.facet.index}. {escape(f.facet.text)}<br><span class=muted>{escape(f.facet.type)}"
                    f"</span> {_badge(f.category)}</th>{''.join(cells)}</tr>")
    parts.append(f"<table><tr><th>facet</th>{head}</tr>{''.join(rows)}</table>")

    parts.append("<h2>Per facet</h2>")
    for f in d.facets:
        parts.append(f"<h3>{f.facet.index}. {escape(f.facet.text)} {_badge(f.category)}</h3><ul>")
        if f.generation is not None:
            parts.append(f"<li>{escape(f.generation.rule)}</li>")
            for mode, a in f.generation.answers.items():
                state = ("error: " + a.error) if a.error else ("abstained" if a.abstained else
                                                                ("grounded" if a.grounded else "not grounded"))
                parts.append(f"<li><b>{escape(mode)}</b>: {escape(a.text)} <span class=muted>({escape(state)}"
                             f"{', chunks ' + escape(str(list(a.supporting_chunks))) if a.supporting_chunks else ''})"
                             f"</span></li>")
            if f.generation.prior_match is not None:
                parts.append(f"<li class=muted>soft answer matches LLM-only: {f.generation.prior_match}</li>")
        if f.answer is not None:
            parts.append(f"<li>{escape(f.answer.rule)}</li>")
            for c in d.claims:
                if f.facet.index in c.facets:
                    parts.append(f"<li>claim {c.index} <b>{escape(c.label.value)}</b>: {escape(c.text)}</li>")
        parts.append("</ul>")
    off = [c for c in d.claims if not c.facets]
    if off:
        parts.append("<h2>Claims that address no facet</h2><ul>")
        parts.extend(f"<li>claim {c.index} <b>{escape(c.label.value)}</b>: {escape(c.text)}</li>" for c in off)
        parts.append("</ul>")
    if d.errors:
        parts.append("<h2>Errors</h2><ul>" + "".join(f"<li>{escape(e)}</li>" for e in d.errors) + "</ul>")
    parts.append("<h2>Chunks</h2><table>")
    parts.extend(f"<tr><th>{c.index}</th><td class=chunk>{escape(c.text)}</td></tr>" for c in d.chunks)
    parts.append("</table>")
    return _page(f"facets {d.id}", "".join(parts))


def render_index(summary: Mapping[str, Any], links: Sequence[tuple[str, str, Optional[Mapping[str, int]]]]) -> str:
    """The aggregate table (facet type x category) and a link per question ``(id, href, categories)``."""
    table = summary["by_type"]
    head = "".join(f"<th>{_badge(c)}</th>" for c in CATEGORIES)
    rows = []
    for t in (*FACET_TYPES, "all"):
        counts = table.get(t, {})
        total = sum(counts.values())
        if not total:
            continue
        tds = "".join(f'<td class=num>{counts.get(c, 0)}<br><span class=muted>{counts.get(c, 0) / total:.0%}'
                      f"</span></td>" for c in CATEGORIES)
        rows.append(f"<tr><th>{escape(t)}</th><td class=num>{total}</td>{tds}</tr>")
    parts = ["<h1>Facet diagnostics</h1>",
             f"<p>{summary['questions']} questions, {summary['facets']} facets, {summary['errors']} failed records"
             f"{' · generation' if summary.get('generation') else ''}</p>",
             f"<table><tr><th>facet type</th><th>facets</th>{head}</tr>{''.join(rows)}</table>"]
    gold = summary.get("gold")
    if gold:
        parts.append("<h2>Unsupported facets vs gold hallucination spans</h2><table>")
        parts.extend(f"<tr><th>{escape(k)}</th><td class=num>{escape(str(v))}</td></tr>" for k, v in gold.items())
        parts.append("</table>")
    parts.append("<h2>Questions</h2><ul>")
    for rid, href, cats in links:
        badges = " ".join(f"{_badge(c)}&times;{n}" for c, n in (cats or {}).items() if n)
        parts.append(f'<li><a href="{escape(href)}">{escape(rid)}</a> {badges}</li>')
    parts.append("</ul>")
    return _page("facet diagnostics", "".join(parts))
