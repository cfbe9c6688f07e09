/* rt4chart: what the pages that list records (the report and the diff page) share, on top of render.js: their
   data, the summary tiles and the pager, which applies the filters and renders the list lazily. Cards are built
   only when the reader nears the end of the list (a page of them at a time), so thousands of records open without
   freezing. The page's markup comes from rt4chart.report._html.list_page (ids count, records and more). */
(function (global) {
  "use strict";
  var RT4 = global.RT4, el = RT4.el;

  /* The page's records and summary, from its JSON data element. */
  function pageData() {
    var data = JSON.parse(document.getElementById("rt4-data").textContent);
    return { records: Array.isArray(data.records) ? data.records : [], summary: data.summary || {} };
  }

  /* A summary tile: the number `n` above its key `k`. */
  function stat(n, k, cls) {
    var d = el("div", "stat" + (cls ? " " + cls : ""));
    d.appendChild(el("div", "n", n));
    d.appendChild(el("div", "k", k));
    return d;
  }

  /* Show `opts.records` through the filters: `opts.keep(record, text)` says whether a record is shown (`text`: the
     search box, trimmed and lower-cased), `opts.render(record, index)` builds its card, `opts.page` of them at a
     time. The list is filtered again when one of `opts.controls` changes or, 150 ms after typing stops, when
     `opts.search` does; `opts.number` formats the counts (default: String). Marks the body ready when done. */
  function pager(opts) {
    var records = opts.records, fmt = opts.number || String, search = opts.search;
    var count = document.getElementById("count");
    var list = document.getElementById("records");
    var more = document.getElementById("more");
    var shown = [], rendered = 0;

    function renderMore() {
      var end = Math.min(shown.length, rendered + opts.page);
      var frag = document.createDocumentFragment();
      for (; rendered < end; rendered++) frag.appendChild(opts.render(records[shown[rendered]], shown[rendered]));
      list.appendChild(frag);
      more.hidden = rendered >= shown.length;
      list.setAttribute("data-rendered", String(rendered));
    }

    function apply() {
      var text = search.value.trim().toLowerCase();
      shown = [];
      for (var i = 0; i < records.length; i++) if (opts.keep(records[i], text)) shown.push(i);
      rendered = 0;
      RT4.clear(list);
      count.textContent = "showing " + fmt(shown.length) + " of " + fmt(records.length);
      if (!shown.length) list.appendChild(el("div", "empty", "No records match these filters."));
      renderMore();
    }

    opts.controls.forEach(function (n) { n.addEventListener("change", apply); });
    var timer = null;
    search.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(apply, 150); });
    more.addEventListener("click", renderMore);
    /* Keep rendering pages while the "more" sentinel is within reach of the viewport, one page per frame. */
    function nearEnd() { return !more.hidden && more.getBoundingClientRect().top < window.innerHeight + 1200; }
    function fill() {
      if (rendered < shown.length && nearEnd()) { renderMore(); window.requestAnimationFrame(fill); }
    }
    if ("IntersectionObserver" in window) {
      new IntersectionObserver(function (entries) {
        if (entries.some(function (e) { return e.isIntersecting; })) fill();
      }, { rootMargin: "1200px 0px" }).observe(more);
    }
    apply();
    document.body.setAttribute("data-ready", "1");
  }

  RT4.pageData = pageData;
  RT4.stat = stat;
  RT4.pager = pager;
})(window);
