/* rt4chart report page: summary, filters and a lazily rendered list of records. Cards are built only when the
   reader scrolls near the end of the list (PAGE at a time), so thousands of records open without freezing. */
(function () {
  "use strict";
  var RT4 = window.RT4, el = RT4.el;
  var PAGE = 30;
  var data = JSON.parse(document.getElementById("rt4-data").textContent);
  var records = Array.isArray(data.records) ? data.records : [];
  var summary = data.summary || {};

  function stat(n, k, cls) {
    var d = el("div", "stat" + (cls ? " " + cls : ""));
    d.appendChild(el("div", "n", n));
    d.appendChild(el("div", "k", k));
    return d;
  }

  function fmtInt(n) { return typeof n === "number" ? n.toLocaleString("en-US") : "0"; }

  var sumBox = document.getElementById("summary");
  var labels = summary.labels || {};
  var claimLabels = summary.claim_labels || {};
  sumBox.appendChild(stat(fmtInt(summary.records), "records"));
  sumBox.appendChild(stat(fmtInt(summary.hallucinated) + (summary.results ?
    " (" + (100 * summary.hallucinated / summary.results).toFixed(1) + "%)" : ""), "hallucinated"));
  RT4.LABELS.forEach(function (l) {
    var s = stat(fmtInt(labels[l] || 0), l, "lab-" + l);
    s.setAttribute("data-label", l);
    s.querySelector(".k").appendChild(document.createTextNode(" \u00b7 " + fmtInt(claimLabels[l] || 0) + " claims"));
    sumBox.appendChild(s);
  });
  sumBox.appendChild(stat(fmtInt(summary.errors), "errors", summary.errors ? "has-errors" : ""));
  var usage = summary.usage || {};
  sumBox.appendChild(stat(fmtInt(usage.calls), "model calls"));
  sumBox.appendChild(stat(fmtInt((usage.prompt_tokens || 0) + (usage.completion_tokens || 0)), "tokens"));
  sumBox.appendChild(stat("$" + (usage.cost_usd || 0).toFixed(4), "cost"));
  sumBox.parentNode.insertBefore(RT4.legend(), sumBox.nextSibling);

  var fLabel = document.getElementById("f-label");
  var fTask = document.getElementById("f-task");
  var fHall = document.getElementById("f-halluc");
  var fText = document.getElementById("f-text");
  var count = document.getElementById("count");
  var list = document.getElementById("records");
  var more = document.getElementById("more");

  var tasks = Array.isArray(summary.tasks) ? summary.tasks : [];
  if (tasks.length) {
    tasks.forEach(function (t) { var o = el("option", null, t); o.value = t; fTask.appendChild(o); });
  } else {
    fTask.parentNode.hidden = true;
  }

  function haystack(rec) {
    if (!rec.__hay) rec.__hay = [rec.id, rec.question, rec.answer].map(function (v) {
      return v === undefined || v === null ? "" : String(v);
    }).join("\n").toLowerCase();
    return rec.__hay;
  }

  function keep(rec) {
    var err = RT4.isError(rec);
    var lab = fLabel.value;
    if (lab) {
      if (lab === "error") { if (!err && !(rec.errors && rec.errors.length)) return false; }
      else if (err || rec.label !== lab) return false;
    }
    if (fHall.checked && (err || rec.hallucinated !== true)) return false;
    if (fTask.value && (err || RT4.recordTask(rec) !== fTask.value)) return false;
    var text = fText.value.trim().toLowerCase();
    if (text && (err || haystack(rec).indexOf(text) < 0)) return false;
    return true;
  }

  var shown = [], rendered = 0;

  function renderMore() {
    var end = Math.min(shown.length, rendered + PAGE);
    var frag = document.createDocumentFragment();
    for (; rendered < end; rendered++) {
      var card = RT4.renderRecord(records[shown[rendered]]);
      card.setAttribute("data-index", String(shown[rendered]));
      frag.appendChild(card);
    }
    list.appendChild(frag);
    more.hidden = rendered >= shown.length;
    list.setAttribute("data-rendered", String(rendered));
  }

  function apply() {
    shown = [];
    for (var i = 0; i < records.length; i++) if (keep(records[i])) shown.push(i);
    rendered = 0;
    while (list.firstChild) list.removeChild(list.firstChild);
    count.textContent = "showing " + fmtInt(shown.length) + " of " + fmtInt(records.length);
    if (!shown.length) list.appendChild(el("div", "empty", "No records match these filters."));
    renderMore();
  }

  [fLabel, fTask, fHall].forEach(function (n) { n.addEventListener("change", apply); });
  var timer = null;
  fText.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(apply, 150); });
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
})();
