/* rt4chart web page: POST the form to /v1/audit and render the result with the report's renderer. */
(function () {
  "use strict";
  var RT4 = window.RT4;
  var EXAMPLE = {
    id: "paper-figure-1",
    context: "The free trial described in this policy is available to new users of the Pro plan. Only new users " +
      "who have completed identity verification are eligible for the free trial. The free trial lasts 14 days " +
      "from the date of activation. Eligible users may request one seven-day extension of the trial.",
    question: "Who is eligible for the free trial, and how long does it last?",
    answer: "The policy applies to all users and verification is not required. The free trial lasts 14 days. " +
      "Verified new users can receive a one-time 7-day extension of the free trial. The trial includes priority " +
      "email support."
  };
  var form = document.getElementById("audit-form");
  var ctx = document.getElementById("in-context");
  var q = document.getElementById("in-question");
  var ans = document.getElementById("in-answer");
  var tok = document.getElementById("in-token");
  var status = document.getElementById("status");
  var out = document.getElementById("result");
  var submit = document.getElementById("submit");
  try { tok.value = window.sessionStorage.getItem("rt4chart-token") || ""; } catch (e) { /* storage disabled */ }

  document.getElementById("example").addEventListener("click", function () {
    ctx.value = EXAMPLE.context; q.value = EXAMPLE.question; ans.value = EXAMPLE.answer;
  });

  function showError(status, body) {
    RT4.clear(out);
    var box = RT4.el("div", "api-error");
    box.setAttribute("data-role", "api-error");
    var err = body && body.error ? body.error : { message: "HTTP " + status };
    box.appendChild(RT4.el("b", null, "Error " + status + (err.kind ? " (" + err.kind + ")" : "") + ": "));
    box.appendChild(document.createTextNode(String(err.message || "")));
    out.appendChild(box);
  }

  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    var headers = { "Content-Type": "application/json" };
    if (!document.getElementById("token-row").hidden && tok.value) {
      headers.Authorization = "Bearer " + tok.value;
      try { window.sessionStorage.setItem("rt4chart-token", tok.value); } catch (e) { /* storage disabled */ }
    }
    var record = { id: "web", context: ctx.value, question: q.value || null, answer: ans.value };
    submit.disabled = true;
    status.textContent = "auditing\u2026";
    var t0 = performance.now();
    fetch("v1/audit", { method: "POST", headers: headers, body: JSON.stringify(record) })
      .then(function (r) {
        return r.json().catch(function () { return null; }).then(function (body) { return { r: r, body: body }; });
      })
      .then(function (res) {
        if (!res.r.ok || !res.body) { showError(res.r.status, res.body); status.textContent = ""; return; }
        RT4.clear(out);
        out.appendChild(RT4.legend());
        out.appendChild(RT4.renderRecord(res.body));
        var n = (res.body.claims || []).length;
        status.textContent = n + " claims \u00b7 " + Math.round(performance.now() - t0) + " ms";
      })
      .catch(function (e) { showError(0, { error: { message: String(e) } }); status.textContent = ""; })
      .then(function () { submit.disabled = false; });
  });
})();
