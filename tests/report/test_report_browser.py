"""The HTML report in headless Chromium: coloured claim spans, click-to-evidence, filters, escaping, 5,000 records."""

from __future__ import annotations

import json
from pathlib import Path

from report_helpers import crafted_result, example_results

from rt4chart.report import write_html

RED, YELLOW, GREEN = "rgb(252, 165, 165)", "rgb(253, 224, 71)", "rgb(134, 239, 172)"


def _open(browser, path: Path, *, height: int = 1000):
    # Without the page's CSP: escaping alone must keep record text inert (and Playwright may evaluate helpers).
    page = browser.new_page(viewport={"width": 1200, "height": height}, bypass_csp=True)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(path.resolve().as_uri())
    page.wait_for_selector("body[data-ready='1']")
    return page, errors


def _span_colours(page, scope: str = "") -> dict:
    return page.evaluate("""(scope) => {
        const out = {};
        for (const s of document.querySelectorAll(scope + ' .claim-span')) {
            const lab = [...s.classList].find(c => c.startsWith('lab-'));
            (out[lab] = out[lab] || new Set()).add(getComputedStyle(s).backgroundColor);
        }
        return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, [...v]]));
    }""", scope)


def test_report_of_examples_colours_claims_and_links_them_to_evidence(chromium, tmp_path: Path):
    results = example_results()
    results.append({"id": "broken", "index": 6, "error": {"field": "answer", "message": "is empty", "kind": "input"}})
    path = write_html(results, tmp_path / "report.html", source="examples/records.jsonl")
    page, errors = _open(chromium, path)

    assert page.inner_text("#count") == "showing 7 of 7"
    assert _span_colours(page) == {"lab-contradicted": [RED], "lab-baseless": [YELLOW], "lab-entailed": [GREEN]}

    # Click the contradicted claim of the number-conflict record: its evidence is highlighted and scrolled to.
    card = page.locator("article.card", has=page.locator(".rid", has_text="qa-number-conflict"))
    claim = json.loads(json.dumps(next(r for r in results if r.get("id") == "qa-number-conflict")))["claims"][0]
    assert claim["label"] == "contradicted" and claim["evidence"]
    card.locator(".claim-span.lab-contradicted").first.click()
    assert card.get_attribute("data-selected") == "0"
    assert card.locator(".claim-span.active").count() >= 1
    assert "active" in card.locator(".claim-item").first.get_attribute("class")
    detail = card.locator("[data-role=detail]")
    assert detail.is_visible()
    text = detail.inner_text()
    assert "contradicted" in text and claim["reason"] in text and "chunk 0: contradicted" in text
    active = card.locator("mark.ev.active")
    assert active.count() >= 1
    assert "".join(active.all_inner_texts()) == claim["evidence"][0]["text"]
    box = card.locator("[data-role=context]").bounding_box()
    mark = active.first.bounding_box()
    assert box["y"] <= mark["y"] and mark["y"] + mark["height"] <= box["y"] + box["height"] + 1  # in view
    assert page.evaluate("getComputedStyle(document.querySelector('mark.ev.active')).backgroundColor") == RED

    # Selecting another claim moves the highlight; a baseless claim has no evidence to show.
    paper = page.locator("article.card", has=page.locator(".rid", has_text="paper-figure-1"))
    paper.locator(".claim-item.lab-baseless").last.click()
    assert card.locator("mark.ev.active").count() == 1  # the other card keeps its own selection
    assert paper.locator("mark.ev.active").count() == 0
    assert "the context does not address this claim" in paper.locator("[data-role=detail]").inner_text()
    page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
    assert (tmp_path / "report.png").stat().st_size > 20_000

    # The error record is rendered as an error, not dropped.
    err = page.locator("article.error-card")
    assert err.count() == 1 and "answer: is empty" in err.inner_text()
    assert errors == []
    page.close()


def test_report_filters_by_label_task_hallucination_and_text(chromium, tmp_path: Path):
    results = example_results()
    results.append({"id": "broken", "index": 6, "error": {"field": "answer", "message": "is empty", "kind": "input"}})
    path = write_html(results, tmp_path / "report.html")
    page, errors = _open(chromium, path)

    def shown() -> list[str]:
        return page.locator("article.card .rid").all_inner_texts()

    page.select_option("#f-label", "contradicted")
    expected = sorted(f"id {r['id']}" for r in results if r.get("label") == "contradicted")
    assert expected and sorted(shown()) == expected
    page.select_option("#f-label", "error")
    assert page.locator("article.error-card").count() == 1 and page.inner_text("#count") == "showing 1 of 7"
    page.select_option("#f-label", "")
    page.select_option("#f-task", "summary")
    assert shown() == ["id summary-baseless"]
    page.select_option("#f-task", "")
    page.check("#f-halluc")
    assert len(shown()) == 5 and "id qa-clean" not in shown()
    page.uncheck("#f-halluc")
    page.fill("#f-text", "eiffel")
    page.wait_for_function("document.getElementById('count').textContent === 'showing 1 of 7'")
    assert shown() == ["id qa-clean"]
    page.fill("#f-text", "no such text")
    page.wait_for_selector(".empty")
    assert errors == []
    page.close()


def test_report_never_executes_record_text(chromium, tmp_path: Path):
    evil = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'
    result = crafted_result(evil, context=f"Alpha is one. {evil} Gamma is three.", answer=f"Alpha is {evil} nine.")
    page, errors = _open(chromium, write_html([result], tmp_path / "evil.html", title=evil))
    assert page.evaluate("window.__pwned") is None
    assert page.locator("article.card img").count() == 0 and page.locator("article.card script").count() == 0
    assert evil in page.inner_text("article.card [data-role=answer]")
    assert evil in page.inner_text("article.card [data-role=context]")
    page.locator(".claim-item").first.click()
    assert "reason <contradicted>" in page.inner_text("[data-role=detail]")
    assert errors == []
    page.close()


def test_offsets_count_code_points_like_python(chromium, tmp_path: Path):
    # Astral characters are one Python index but two JavaScript ones: spans must still land on the same text.
    context = "😀 Alpha is one. 🎉 Beta is two. 🚀 Gamma is three."
    answer = "😀😀 Alpha nine. 🎉 Delta four. 🚀 Gamma three."
    result = crafted_result("emoji", context=context, answer=answer)
    page, errors = _open(chromium, write_html([result], tmp_path / "emoji.html"))
    spans = page.locator(".claim-span").all_inner_texts()
    assert spans == [c.text for c in result.claims]
    page.locator(".claim-item").first.click()
    assert "".join(page.locator("mark.ev.active").all_inner_texts()) == result.claims[0].evidence[0].text
    assert errors == []
    page.close()


def test_five_thousand_records_open_without_freezing(chromium, tmp_path: Path):
    base = example_results()
    results = []
    for i in range(5000):
        r = dict(base[i % len(base)])
        r["id"] = f"r{i}"
        results.append(r)
    path = write_html(results, tmp_path / "big.html")
    page, errors = _open(chromium, path, height=900)
    rendered = int(page.get_attribute("#records", "data-rendered"))
    assert page.inner_text("#count") == "showing 5,000 of 5,000"
    assert 30 <= rendered <= 300  # lazy: a few pages, not 5,000 cards (timings live in the benchmarks)
    page.mouse.wheel(0, 200_000)
    page.wait_for_function(f"+document.getElementById('records').dataset.rendered > {rendered}")
    n_con = sum(r.get("label") == "contradicted" for r in results)
    page.select_option("#f-label", "contradicted")
    page.wait_for_function(f"document.getElementById('count').textContent === 'showing {n_con:,} of 5,000'")
    assert errors == []
    page.close()


def test_a_checked_citation_shows_the_cited_passage_beside_the_deciding_one(chromium, tmp_path: Path):
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from rt4chart.judges.registry import build_auditor

    passages = ["The museum opens at nine in the morning.", "Tickets cost twelve euros for adults."]
    audit = build_auditor("lexical", citations=True).audit(
        {"id": "cited", "context": passages, "answer": "Tickets cost twelve euros for adults [1]."})
    with ThreadPoolExecutor(1) as pool:  # the browser's event loop runs in this thread
        result = pool.submit(asyncio.run, audit).result()
    path = write_html([result.to_json()], tmp_path / "report.html")
    page, errors = _open(chromium, path)
    page.locator(".claim-span").first.click()
    text = page.locator("[data-role=detail]").inner_text()
    assert "misattributed: cites passage 1; the evidence is in passage 2" in text
    assert errors == []
    # the claim's row shows its citation status without a click
    assert "citation: misattributed" in page.locator(".claim-item").first.inner_text()


def test_an_answers_markdown_reads_as_text_and_its_claim_spans_stay_exact(chromium, tmp_path: Path):
    from concurrent.futures import ThreadPoolExecutor

    import rt4chart

    answer = "Our plans:\n- **Basic** costs $9 a month.\n- **Pro** costs $19 a month."
    with ThreadPoolExecutor(1) as pool:  # the browser's event loop runs in this thread
        result = pool.submit(rt4chart.audit, context="Basic costs $9 a month. Pro costs $19 a month.",
                             answer=answer, judge="lexical").result()
    path = write_html([result.to_json()], tmp_path / "report.html")
    page, errors = _open(chromium, path)
    shown = page.locator("[data-role=answer]").inner_text()
    assert "**" not in shown and "- " not in shown and "• Basic costs $9 a month." in shown
    assert page.locator("[data-role=answer] strong").all_inner_texts() == ["Basic", "Pro"]
    # each claim span shows its claim's words, the markup hidden, in answer order
    spans = page.locator(".claim-span").all_inner_texts()
    assert [s.replace("• ", "") for s in spans] == [c.text for c in result.claims]
    assert errors == []
