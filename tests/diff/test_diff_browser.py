"""The diff page in headless Chromium: the two runs side by side, claims coloured as in the report, pairs that
select their claims (and evidence) in both runs, filters, error and absent sides, escaping (issue 28, acceptance 2)."""

from __future__ import annotations

from pathlib import Path

from diff_helpers import EXPECTED, rate_runs, two_runs

from rt4chart.diff import check_rule, diff_files, parse_rule, write_diff_html

RED, YELLOW, GREEN = "rgb(252, 165, 165)", "rgb(253, 224, 71)", "rgb(134, 239, 172)"  # rt4.css --con, --nic, --ent


def _open(browser, path: Path):
    # Without the page's CSP: escaping alone must keep record text inert.
    page = browser.new_page(viewport={"width": 1400, "height": 1000}, bypass_csp=True)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("dialog", lambda d: (errors.append("dialog: " + d.message), d.dismiss()))
    page.goto(path.resolve().as_uri())
    page.wait_for_selector("body[data-ready='1']")
    return page, errors


def _background(locator) -> str:
    return locator.evaluate("n => getComputedStyle(n).backgroundColor")


def test_diff_page_side_by_side(chromium, tmp_path: Path):
    diff = diff_files(*two_runs(tmp_path))
    checks = [check_rule(parse_rule("new-hallucinations"), diff), check_rule(parse_rule("flips:10"), diff)]
    path = write_diff_html(diff, tmp_path / "diff.html", checks)
    page, errors = _open(chromium, path)

    # Summary and rules; "changed only" hides the one record that is the same in both runs.
    assert page.locator("[data-stat=newly_hallucinated] .n").inner_text() == "1"
    assert "42.9% \u2192 42.9%" in page.locator("[data-stat=rate]").inner_text()
    assert page.locator(".rules .rule.tripped").inner_text().startswith("new-hallucinations")
    assert page.locator(".rules .rule.pass").count() == 1
    assert page.inner_text("#count") == f"showing {len(EXPECTED) - 1} of {len(EXPECTED)}"
    cards = page.locator("article.diff-card")
    assert {cards.nth(i).get_attribute("data-status") for i in range(cards.count())} == (
        {s for s, _ in EXPECTED.values()})

    # The newly hallucinated record: before on the left, after on the right, claims coloured as in the report.
    card = page.locator("article.diff-card", has=page.locator(".rid", has_text="id newly"))
    assert _background(card.locator(".card-head .badge.st-newly_hallucinated")) == RED
    before, after = card.locator("[data-side=before]"), card.locator("[data-side=after]")
    left, right = before.bounding_box(), after.bounding_box()
    assert left["x"] + left["width"] <= right["x"] and abs(left["y"] - right["y"]) < 2
    assert _background(before.locator(".claim-span")) == GREEN
    assert _background(after.locator(".claim-span")) == RED
    assert after.locator(".side-title").text_content() == "after \u00b7 judge: local"

    # A claim pair selects its claim in both runs, with each run's evidence highlighted in its context.
    row = card.locator("table.pairs tr.pc-flipped")
    assert row.locator("td.how").inner_text().startswith("flipped")
    row.click()
    for side in (before, after):
        assert side.locator("article.card").get_attribute("data-selected") == "0"
        assert side.locator("[data-role=detail]").is_visible()
        assert side.locator("mark.ev.active").count() >= 1
    assert "contradicted" in after.locator("[data-role=detail]").inner_text()
    assert _background(after.locator("mark.ev.active").first) == RED

    # A label flip between hallucinated labels: contradicted before, baseless (yellow, no evidence) after.
    flip = page.locator("article.diff-card", has=page.locator(".rid", has_text="id flip"))
    assert _background(flip.locator("[data-side=after] .claim-span")) == YELLOW
    assert flip.locator(".badge.change").inner_text() == "label flip"

    # An error line is shown as an error; a record only one run has says so on the other side.
    errored = page.locator("article.diff-card[data-status=errored]")
    assert "the judge failed" in errored.locator("[data-side=after] .error-card").inner_text()
    gone = page.locator("article.diff-card[data-status=only_before]")
    assert gone.locator("[data-side=after] .absent").inner_text() == "not in this run"

    # Record text is inert: the id and the answer with markup are shown as text.
    new = page.locator("article.diff-card[data-status=only_after]")
    assert "new <img src=x onerror=alert(1)>" in new.locator(":scope > .card-head .rid").inner_text()
    assert "Email <b>support</b> is free." in new.locator("[data-side=after] .answer").inner_text()
    assert page.locator("img").count() == 0 and page.locator("main b", has_text="support").count() == 0

    # A context that is the same in both runs travels once and is shown on both sides.
    assert after.locator("[data-role=context]").inner_text() == before.locator("[data-role=context]").inner_text()
    assert path.read_text().count("Verified users can extend it once by 7 days.") < 9 + 8  # fewer than one a side

    # Filters.
    page.select_option("#f-status", "fixed")
    assert page.inner_text("#count") == "showing 1 of 10"
    page.select_option("#f-status", "")
    page.select_option("#f-change", "evidence_changed")
    assert page.locator("article.diff-card > .card-head .rid").all_inner_texts() == ["id evidence"]
    page.select_option("#f-change", "")
    page.uncheck("#f-changed")
    assert page.inner_text("#count") == "showing 10 of 10"
    page.fill("#f-text", "trial lasts 14")
    page.wait_for_function("document.getElementById('count').textContent !== 'showing 10 of 10'")
    assert page.locator("article.diff-card").count() == 5  # same, newly, fixed, evidence, reworded

    page.screenshot(path=str(tmp_path / "diff.png"))
    assert (tmp_path / "diff.png").stat().st_size > 20_000
    assert errors == []
    page.close()


def test_diff_page_renders_its_records_a_page_at_a_time(chromium, tmp_path: Path):
    # 150 newly hallucinated records: the shared pager (pager.js) builds 20 cards a page, more as the reader scrolls.
    path = write_diff_html(diff_files(*rate_runs(tmp_path, 200, 0, 150)), tmp_path / "diff.html")
    page, errors = _open(chromium, path)
    assert page.inner_text("#count") == "showing 150 of 200"
    rendered = int(page.get_attribute("#records", "data-rendered"))
    assert rendered % 20 == 0 and 20 <= rendered < 150
    assert page.locator("article.diff-card").count() == rendered and page.is_visible("#more")
    page.mouse.wheel(0, 200_000)
    page.wait_for_function(f"+document.getElementById('records').dataset.rendered > {rendered}")
    page.uncheck("#f-changed")
    page.wait_for_function("document.getElementById('count').textContent === 'showing 200 of 200'")
    page.fill("#f-text", "r19")
    page.wait_for_function("document.getElementById('count').textContent === 'showing 11 of 200'")  # r19, r190..r199
    assert page.get_attribute("#records", "data-rendered") == "11" and page.is_hidden("#more")
    assert errors == []
    page.close()
