"""Audit reports: a self-contained HTML file (claims coloured by label, linked to their context evidence).

>>> from rt4chart.report import render_html
>>> html = render_html([])
>>> html.startswith("<!doctype html>")
True
"""

from ._data import load_results, normalize, summarize
from ._html import render_html, write_html

__all__ = ["load_results", "normalize", "render_html", "summarize", "write_html"]
