/* rt4chart diff page: summary, rules, filters and, per record, its claims paired across the two runs above the
   two results side by side (each rendered by render.js, so claims are coloured and linked to their evidence).
   The list is paged lazily by pager.js. All text goes through textContent. */
(function () {
  "use strict";
  var RT4 = window.RT4, el = RT4.el, stat = RT4.stat;
  var data = RT4.pageData(), summary = data.summary;
  var counts = summary.counts || {};

  function words(name) { return String(name).replace(/_/g, " "); }
  function pct(v) { return typeof v === "number" ? (100 * v).toFixed(1) + "%" : "n/a"; }

  var sumBox = document.getElementById("summary");
  var rate = summary.rate || {};
  var change = typeof rate.change === "number" ? " (" + (rate.change >= 0 ? "+" : "") +
    (100 * rate.change).toFixed(1) + " pts)" : "";
  var rateStat = stat(pct(rate.before) + " \u2192 " + pct(rate.after) + change,
    "hallucination rate, " + (rate.records || 0) + " records in both");
  rateStat.setAttribute("data-stat", "rate");
  sumBox.appendChild(rateStat);
  ["newly_hallucinated", "fixed", "still_hallucinated", "needs_review", "errored", "only_before", "only_after"].forEach(function (s) {
    var d = stat(String(counts[s] || 0), words(s), counts[s] ? "st-" + s : "");  /* coloured when not 0 */
    d.setAttribute("data-stat", s);
    sumBox.appendChild(d);
  });
  var claims = summary.claims || {};
  var flips = stat(String(claims.flipped || 0), "claims flipped (" + (claims.worse || 0) + " worse, " +
    (claims.better || 0) + " better)");
  flips.setAttribute("data-stat", "flipped");
  sumBox.appendChild(flips);
  sumBox.parentNode.insertBefore(RT4.legend(), sumBox.nextSibling);

  var rulesBox = document.getElementById("rules");
  (summary.rules || []).forEach(function (r) {
    var d = el("span", "rule " + (r.tripped ? "tripped" : "pass"),
      r.rule + ": " + (r.value === null ? "nothing to compare" : r.value) + (r.tripped ? " \u2014 tripped" : " \u2014 pass"));
    rulesBox.appendChild(d);
  });
  if (!(summary.rules || []).length) rulesBox.hidden = true;

  var fStatus = document.getElementById("f-status");
  var fChange = document.getElementById("f-change");
  var fChanged = document.getElementById("f-changed");
  var fText = document.getElementById("f-text");

  function haystack(r) {
    if (r.__hay === undefined) {
      var parts = [String(r.diff.id)];
      (r.diff.claims || []).forEach(function (p) { parts.push(p.text.before || "", p.text.after || ""); });
      r.__hay = parts.join("\n").toLowerCase();
    }
    return r.__hay;
  }

  function keep(r, text) {
    if (fChanged.checked && !r.changed) return false;
    if (fStatus.value && r.diff.status !== fStatus.value) return false;
    if (fChange.value && r.diff.change !== fChange.value) return false;
    return !text || haystack(r).indexOf(text) >= 0;
  }

  function side(rec, name, judge) {
    var box = el("div", "side");
    box.setAttribute("data-side", name);
    box.appendChild(el("div", "side-title", name + (judge ? " \u00b7 judge: " + judge : "")));
    if (!rec) { box.appendChild(el("div", "absent", "not in this run")); return { box: box, card: null }; }
    var card = RT4.renderRecord(rec);
    box.appendChild(card);
    return { box: box, card: card };
  }

  function pairTable(pairs, cards) {
    var table = el("table", "pairs");
    var head = el("tr");
    ["before", "", "after"].forEach(function (h) { head.appendChild(el("th", null, h)); });
    table.appendChild(head);
    pairs.forEach(function (p) {
      var tr = el("tr", "pc-" + p.change);
      tr.setAttribute("data-change", p.change);
      [["before", p.before], ["how", null], ["after", p.after]].forEach(function (cell) {
        var td = el("td", cell[0]);
        if (cell[0] === "how") {
          td.textContent = p.change + (p.before !== null && p.after !== null && p.similarity < 1
            ? " \u00b7 " + Math.round(100 * p.similarity) + "%" : "");
        } else if (cell[1] === null) {
          td.textContent = "\u2014";
        } else {
          td.appendChild(RT4.badge(p.label[cell[0]]));
          td.appendChild(document.createTextNode(p.text[cell[0]]));
        }
        tr.appendChild(td);
      });
      /* Selecting a pair selects its claim in both cards: labels, reasons and evidence side by side. */
      tr.addEventListener("click", function () {
        table.querySelectorAll("tr.active").forEach(function (n) { n.classList.remove("active"); });
        tr.classList.add("active");
        if (p.before !== null && cards.before && cards.before.rt4Select) cards.before.rt4Select(p.before);
        if (p.after !== null && cards.after && cards.after.rt4Select) cards.after.rt4Select(p.after);
      });
      table.appendChild(tr);
    });
    return table;
  }

  function render(r) {
    var d = r.diff;
    var card = el("article", "diff-card st-" + d.status);
    card.setAttribute("data-status", d.status);
    if (d.change) card.setAttribute("data-change", d.change);
    var head = el("div", "card-head");
    head.appendChild(el("span", "rid", "id " + String(d.id)));
    head.appendChild(el("span", "badge st-" + d.status, words(d.status)));
    if (d.change) head.appendChild(el("span", "badge change", words(d.change)));
    if (d.label.before || d.label.after) {
      head.appendChild(RT4.badge(d.label.before || "unknown", d.label.before || "\u2014"));
      head.appendChild(el("span", "arrow", "\u2192"));
      head.appendChild(RT4.badge(d.label.after || "unknown", d.label.after || "\u2014"));
    }
    ["question", "context"].forEach(function (k) {
      if (d[k + "_changed"]) head.appendChild(el("span", "meta", k + " changed"));
    });
    card.appendChild(head);
    var after = r.after;
    if (after && after.same_context && r.before) after.context = r.before.context;
    var b = side(r.before, "before", r.before && r.before.judge), a = side(after, "after", after && after.judge);
    if (d.claims && d.claims.length) card.appendChild(pairTable(d.claims, { before: b.card, after: a.card }));
    var sides = el("div", "sides");
    sides.appendChild(b.box);
    sides.appendChild(a.box);
    card.appendChild(sides);
    return card;
  }

  RT4.pager({ records: data.records, page: 20, keep: keep, render: render, controls: [fStatus, fChange, fChanged],
    search: fText });
})();
