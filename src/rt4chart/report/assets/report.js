/* rt4chart report page: summary, filters and the list of records (paged lazily by pager.js). */
(function () {
  "use strict";
  var RT4 = window.RT4, el = RT4.el, stat = RT4.stat;
  var data = RT4.pageData(), summary = data.summary;

  function fmtInt(n) { return typeof n === "number" ? n.toLocaleString("en-US") : "0"; }

  var sumBox = document.getElementById("summary");
  var labels = summary.labels || {};
  var claimLabels = summary.claim_labels || {};
  sumBox.appendChild(stat(fmtInt(summary.records), "records"));
  sumBox.appendChild(stat(fmtInt(summary.hallucinated) + (summary.results ?
    " (" + (100 * summary.hallucinated / summary.results).toFixed(1) + "%)" : ""), "hallucinated"));
  sumBox.appendChild(stat(fmtInt(summary.needs_review), "needs review", summary.needs_review ? "lab-unverified" : ""));
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

  function keep(rec, text) {
    var err = RT4.isError(rec);
    var lab = fLabel.value;
    if (lab) {
      if (lab === "error") { if (!err && !(rec.errors && rec.errors.length)) return false; }
      else if (err || rec.label !== lab) return false;
    }
    if (fHall.checked && (err || rec.hallucinated !== true)) return false;
    if (fTask.value && (err || RT4.recordTask(rec) !== fTask.value)) return false;
    if (text && (err || haystack(rec).indexOf(text) < 0)) return false;
    return true;
  }

  RT4.pager({
    records: data.records, page: 30, keep: keep, controls: [fLabel, fTask, fHall], search: fText, number: fmtInt,
    render: function (rec, i) {
      var card = RT4.renderRecord(rec);
      card.setAttribute("data-index", String(i));
      return card;
    }
  });
})();
