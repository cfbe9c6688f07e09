"""Audit reports: a self-contained HTML file (claims coloured by label, linked to their context evidence).

>>> from rt4chart.report import render_html
>>> html = render_html([])
>>> html.startswith("<!doctype html>")
True
"""

from ._data import load_results, normalize, summarize
from ._html import asset, list_page, page, render_html, save_page, write_html

#: ``asset``, ``page``, ``list_page`` and ``save_page`` build the other self-contained pages (``rt4chart diff``'s,
#: the server's) the way the report is built
__all__ = ["asset", "list_page", "load_results", "normalize", "page", "render_html", "save_page", "summarize",
           "write_html"]
