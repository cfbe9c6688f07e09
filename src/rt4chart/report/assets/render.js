/* rt4chart: render one audit result (AuditResult.to_json()) or one error record as a DOM card.
   Shared by the HTML report, the diff page and the server's web page. All text goes through textContent, never
   innerHTML: context, question, answer, reasons and ids are untrusted input. Offsets in results count Unicode code
   points (Python str indices); they are mapped to UTF-16 indices before slicing JavaScript strings. */
(function (global) {
  "use strict";

  var LABELS = ["contradicted", "baseless", "unverified", "entailed"];
  var SEVERITY = { contradicted: 3, baseless: 2, unverified: 1, entailed: 0 };

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

  function labelClass(label) {
    return Object.prototype.hasOwnProperty.call(SEVERITY, label) ? label : "unknown";
  }

  function badge(label, text) {
    return el("span", "badge lab-" + labelClass(label), text === undefined ? String(label) : text);
  }

  function severity(label) {
    return Object.prototype.hasOwnProperty.call(SEVERITY, label) ? SEVERITY[label] : 1;
  }

  function worst(labels) {
    var best = labels[0];
    for (var i = 1; i < labels.length; i++) if (severity(labels[i]) > severity(best)) best = labels[i];
    return best;
  }

  /* Code-point index -> UTF-16 index for `text`; identity when the text has no surrogates. */
  function cpMap(text) {
    if (!/[\uD800-\uDFFF]/.test(text)) {
      return function (k) { return Math.max(0, Math.min(text.length, k)); };
    }
    var idx = [0], i = 0;
    while (i < text.length) {
      var c = text.charCodeAt(i);
      var pair = c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
      i += pair ? 2 : 1;
      idx.push(i);
    }
    return function (k) { return idx[Math.max(0, Math.min(idx.length - 1, k))]; };
  }

  function isInt(v) { return typeof v === "number" && isFinite(v) && Math.floor(v) === v; }

  /* Split `text` at every interval boundary; each piece carries the keys of the intervals covering it. */
  function segments(text, intervals) {
    var map = cpMap(text), cuts = [0, text.length], ivs = [];
    for (var i = 0; i < intervals.length; i++) {
      var iv = intervals[i];
      if (!isInt(iv.start) || !isInt(iv.end)) continue;
      var s = map(iv.start), e = map(iv.end);
      if (e <= s) continue;
      ivs.push({ s: s, e: e, key: iv.key });
      cuts.push(s, e);
    }
    cuts.sort(function (a, b) { return a - b; });
    var out = [];
    for (var j = 0; j + 1 < cuts.length; j++) {
      var a = cuts[j], b = cuts[j + 1];
      if (b <= a) continue;
      var keys = [];
      for (var k = 0; k < ivs.length; k++) if (ivs[k].s <= a && ivs[k].e >= b) keys.push(ivs[k].key);
      out.push({ text: text.slice(a, b), keys: keys });
    }
    return out;
  }

  function asArray(v) { return Array.isArray(v) ? v : []; }

  /* An answer's markdown read as text: per character, whether it is markup to hide (the "**" of bold, a list's "- "
     or "1. ", a heading's "#") and whether it is bold. Offsets stay the answer's: only the display changes. */
  function markdownMask(text) {
    var hide = new Array(text.length).fill(false), bold = new Array(text.length).fill(false), m, k;
    var line = /(^|\n)([ \t]*)(#{1,6}[ \t]+|[-*+•][ \t]+|\d{1,2}[.)][ \t]+)/g;
    while ((m = line.exec(text)) !== null) {
      var at = m.index + m[1].length + m[2].length;
      for (k = at; k < at + m[3].length; k++) hide[k] = true;
      if (/^[-*+•]/.test(m[3])) hide[at] = "bullet";
    }
    var strong = /\*\*(?=\S)([^]*?\S)\*\*/g;
    while ((m = strong.exec(text)) !== null) {
      for (k = m.index; k < m.index + 2; k++) hide[k] = true;
      for (k = m.index + m[0].length - 2; k < m.index + m[0].length; k++) hide[k] = true;
      for (k = m.index + 2; k < m.index + m[0].length - 2; k++) bold[k] = true;
    }
    return { hide: hide, bold: bold };
  }

  /* The pieces of text[start:end] as nodes: hidden markup left out (a bullet shown as "• "), bold runs in <strong>. */
  function markdownNodes(text, start, end, mask) {
    var out = [], k = start;
    while (k < end) {
      var j = k + 1;
      while (j < end && mask.hide[j] === mask.hide[k] && mask.bold[j] === mask.bold[k]) j++;
      if (mask.hide[k] === "bullet") { out.push(el("span", "md-bullet", "• ")); j = k + 1; }
      else if (!mask.hide[k]) out.push(mask.bold[k] ? el("strong", null, text.slice(k, j))
                                                    : document.createTextNode(text.slice(k, j)));
      k = j;
    }
    return out;
  }
  function str(v) { return typeof v === "string" ? v : v === null || v === undefined ? "" : String(v); }

  function recordTask(rec) {
    var cfg = rec && rec.config;
    return cfg && typeof cfg === "object" && typeof cfg.task === "string" && cfg.task ? cfg.task : null;
  }

  function isError(rec) {
    return !rec || typeof rec !== "object" || (rec.error !== undefined && rec.answer === undefined);
  }

  function renderError(rec) {
    var card = el("article", "card error-card");
    var err = rec && typeof rec.error === "object" && rec.error ? rec.error : { message: "not a result record" };
    var head = el("div", "card-head");
    head.appendChild(badge("error", "error"));
    if (rec && rec.id !== undefined && rec.id !== null) head.appendChild(el("span", "rid", "id " + str(rec.id)));
    if (rec && isInt(rec.index)) head.appendChild(el("span", "meta", "record #" + rec.index));
    if (err.kind) head.appendChild(el("span", "meta", "kind: " + str(err.kind)));
    card.appendChild(head);
    var msg = el("div", "errors");
    if (err.field) msg.appendChild(el("b", null, str(err.field) + ": "));
    msg.appendChild(document.createTextNode(str(err.message)));
    card.appendChild(msg);
    return card;
  }

  function dlRow(dl, key, value) {
    if (value === undefined || value === null || value === "") return;
    dl.appendChild(el("dt", null, key));
    var dd = el("dd");
    if (value instanceof Node) dd.appendChild(value); else dd.textContent = String(value);
    dl.appendChild(dd);
  }

  /* No judge confirmed the answer: hallucinated is null (files written before it was, an unverified label). */
  function needsReview(rec) {
    return rec.hallucinated !== true && (rec.hallucinated === null || rec.label === "unverified");
  }

  function renderResult(rec, opts) {
    opts = opts || {};
    var card = el("article", "card");
    var claims = asArray(rec.claims);
    var answer = str(rec.answer), context = str(rec.context);

    var head = el("div", "card-head");
    head.appendChild(badge(rec.label));
    if (rec.hallucinated === true) head.appendChild(el("span", "badge halluc", "hallucinated"));
    else if (needsReview(rec)) head.appendChild(el("span", "badge review", "needs review"));
    if (rec.id !== undefined && rec.id !== null) head.appendChild(el("span", "rid", "id " + str(rec.id)));
    var task = recordTask(rec);
    if (task) head.appendChild(el("span", "meta", "task: " + task));
    if (rec.judge) head.appendChild(el("span", "meta", "judge: " + str(rec.judge)));
    if (rec.routed) head.appendChild(el("span", "meta", "gate: " + str(rec.routed)));
    if (typeof rec.risk === "number") head.appendChild(el("span", "meta", "risk " + rec.risk.toFixed(3)));
    card.appendChild(head);

    if (rec.question) {
      var q = el("div", "q");
      q.appendChild(el("b", null, "Question "));
      q.appendChild(document.createTextNode(str(rec.question)));
      card.appendChild(q);
    }

    /* Answer: claim spans coloured by the most severe label among the claims covering each piece. */
    var ivs = [];
    claims.forEach(function (c, i) {
      asArray(c && c.answer_spans).forEach(function (sp) { if (sp) ivs.push({ start: sp.start, end: sp.end, key: i }); });
    });
    var ansBox = el("div", "answer");
    ansBox.setAttribute("data-role", "answer");
    var mask = markdownMask(answer), at = 0;
    segments(answer, ivs).forEach(function (seg) {
      var from = at, to = at + seg.text.length;
      at = to;
      if (!seg.keys.length) {
        markdownNodes(answer, from, to, mask).forEach(function (n) { ansBox.appendChild(n); });
        return;
      }
      var labels = seg.keys.map(function (i) { return claims[i].label; });
      var span = el("span", "claim-span lab-" + labelClass(worst(labels)));
      markdownNodes(answer, from, to, mask).forEach(function (n) { span.appendChild(n); });
      seg.keys.forEach(function (i) { span.classList.add("c-" + i); });
      span.setAttribute("data-claims", seg.keys.join(" "));
      span.setAttribute("tabindex", "0");
      span.setAttribute("role", "button");
      span.title = seg.keys.map(function (i) { return "claim " + (i + 1) + ": " + str(claims[i].label); }).join("; ");
      ansBox.appendChild(span);
    });
    card.appendChild(ansBox);

    var list = el("ol", "claims");
    claims.forEach(function (c, i) {
      var li = el("li", "claim-item lab-" + labelClass(c && c.label) + " c-" + i);
      li.setAttribute("data-claim", String(i));
      li.setAttribute("tabindex", "0");
      li.appendChild(badge(c && c.label));
      li.appendChild(document.createTextNode(str(c && c.text)));
      var cite = asArray(rec.citation_check && rec.citation_check.claims).filter(function (x) {
        return x && c && x.claim === c.index;
      })[0];
      if (cite && cite.status !== "not_needed") {
        li.appendChild(el("span", "cite-status cite-" + str(cite.status), "citation: " + str(cite.status).replace(/_/g, " ")));
      }
      list.appendChild(li);
    });
    if (claims.length) card.appendChild(list);
    else card.appendChild(el("div", "meta", "No claims were extracted from this answer."));

    var detail = el("div", "detail");
    detail.hidden = true;
    detail.setAttribute("data-role", "detail");
    card.appendChild(detail);

    asArray(rec.errors).forEach(function (e) {
      var d = el("div", "errors");
      d.textContent = "error" + (e && e.field ? " in " + str(e.field) : "") + ": " + str(e && e.message);
      card.appendChild(d);
    });

    /* Context: evidence spans of every claim, marked and coloured by the claim's label. */
    var evs = [];
    claims.forEach(function (c, i) {
      asArray(c && c.evidence).forEach(function (ev, j) {
        if (ev) evs.push({ start: ev.start, end: ev.end, key: [i, j] });
      });
    });
    var ctxTitle = el("div", "section-title", "Context");
    card.appendChild(ctxTitle);
    var ctxBox = el("div", "context");
    ctxBox.setAttribute("data-role", "context");
    segments(context, evs).forEach(function (seg) {
      if (!seg.keys.length) { ctxBox.appendChild(document.createTextNode(seg.text)); return; }
      var labels = seg.keys.map(function (k) { return claims[k[0]].label; });
      var m = el("mark", "ev lab-" + labelClass(worst(labels)), seg.text);
      seg.keys.forEach(function (k) { m.classList.add("c-" + k[0]); m.classList.add("e-" + k[0] + "-" + k[1]); });
      ctxBox.appendChild(m);
    });
    card.appendChild(ctxBox);

    var cycle = {};
    function select(i, evIndex) {
      var c = claims[i];
      if (!c) return;
      card.querySelectorAll(".active").forEach(function (n) { n.classList.remove("active"); });
      card.querySelectorAll(".c-" + i).forEach(function (n) { n.classList.add("active"); });
      card.setAttribute("data-selected", String(i));
      clear(detail);
      detail.hidden = false;
      var title = el("div");
      title.appendChild(badge(c.label));
      title.appendChild(el("b", null, "Claim " + (i + 1) + ": "));
      title.appendChild(document.createTextNode(str(c.text)));
      detail.appendChild(title);
      var dl = el("dl");
      dlRow(dl, "label", str(c.label));
      dlRow(dl, "local label", c.local_label ? str(c.local_label) : null);
      var chunkLabels = asArray(c.chunk_labels);
      if (chunkLabels.length) {
        var ch = el("span", "chunks");
        chunkLabels.forEach(function (l, k) {
          var b = badge(l, "chunk " + k + ": " + str(l));
          if (k === c.focus_chunk) b.title = "focus chunk";
          ch.appendChild(b);
        });
        dlRow(dl, "chunk labels", ch);
      }
      dlRow(dl, "focus chunk", isInt(c.focus_chunk) ? c.focus_chunk : null);
      dlRow(dl, "reason", c.reason ? str(c.reason) : null);
      dlRow(dl, "score", typeof c.score === "number" ? c.score.toFixed(3) : null);
      /* The citation check (audit --citations): the passages the claim cites beside the ones its evidence is in. */
      var cited = asArray(rec.citation_check && rec.citation_check.claims).filter(function (x) {
        return x && x.claim === c.index;
      })[0];
      if (cited) {
        var held = asArray(cited.evidence_passages).join(", ");
        dlRow(dl, "citation", str(cited.status) + ": cites passage " + (asArray(cited.passages).join(", ") || "none")
          + (held ? "; the evidence is in passage " + held : "")
          + (cited.reason ? " (" + str(cited.reason) + ")" : ""));
      }
      var evidence = asArray(c.evidence);
      if (evidence.length) {
        var qs = el("div");
        evidence.forEach(function (ev, j) {
          var qd = el("span", "quote", "\u201c" + str(ev && ev.text) + "\u201d");
          qd.setAttribute("data-evidence", String(j));
          qd.addEventListener("click", function () { reveal(i, j); });
          qs.appendChild(qd);
        });
        dlRow(dl, "evidence", qs);
      } else {
        dlRow(dl, "evidence", c.label === "baseless" ? "none: the context does not address this claim"
          : "none located in the context");
      }
      detail.appendChild(dl);
      reveal(i, evIndex || 0);
    }

    function reveal(i, j) {
      var mark = ctxBox.querySelector(".e-" + i + "-" + j) || ctxBox.querySelector(".c-" + i);
      if (!mark) return;
      ctxBox.querySelectorAll("mark.focus").forEach(function (n) { n.classList.remove("focus"); });
      mark.classList.add("focus");
      /* Scroll the context box only, never the page, so the clicked claim stays where the reader is. */
      var top = mark.offsetTop - ctxBox.clientHeight / 3;
      ctxBox.scrollTop = Math.max(0, top);
    }

    function onPick(ev) {
      var t = ev.target;
      var item = t.closest && t.closest(".claim-item");
      if (item && card.contains(item)) { select(parseInt(item.getAttribute("data-claim"), 10)); return; }
      var span = t.closest && t.closest(".claim-span");
      if (span && card.contains(span)) {
        /* A piece covered by several claims: repeated clicks cycle through them, most severe first. */
        var ids = span.getAttribute("data-claims").split(" ").map(Number);
        ids.sort(function (a, b) { return severity(claims[b].label) - severity(claims[a].label) || a - b; });
        var key = ids.join(" ");
        var sel = card.getAttribute("data-selected");
        var pos = cycle[key] === undefined || String(ids[cycle[key]]) !== sel ? 0 : (cycle[key] + 1) % ids.length;
        cycle[key] = pos;
        select(ids[pos]);
      }
    }
    card.addEventListener("click", onPick);
    card.addEventListener("keydown", function (ev) {
      if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); onPick(ev); }
    });
    card.rt4Select = select;
    return card;
  }

  function renderRecord(rec, opts) {
    return isError(rec) ? renderError(rec) : renderResult(rec, opts);
  }

  function legend() {
    var d = el("div", "legend");
    d.appendChild(el("span", null, "Labels:"));
    LABELS.forEach(function (l) { d.appendChild(badge(l)); });
    return d;
  }

  global.RT4 = { renderRecord: renderRecord, isError: isError, recordTask: recordTask, legend: legend,
    badge: badge, el: el, clear: clear, segments: segments, LABELS: LABELS };
})(window);
