"""RAGScope features: hand-computed values, batch independence, and cross-checks with reference implementations."""

from __future__ import annotations

import random

import numpy as np
import pytest

from rt4chart.errors import InputError
from rt4chart.eval.baselines import content_tokens, lcs_length
from rt4chart.gate.risk_features import BASE_FEATURES, Batch, as_triples, base_features, fit_tfidf, uncovered_fraction

COL = {name: i for i, name in enumerate(BASE_FEATURES)}


def feats(question, context, answer):
    return dict(zip(BASE_FEATURES, base_features([(question, context, answer)])[0]))


def test_uncovered_counts_token_occurrences_without_stop_words():
    # content tokens of the answer: cat, sat, red, mat ("the", "on" are stop words); "red" is missing
    triple = ("", "The cat sat on the mat.", "The cat sat on the red mat.")
    assert uncovered_fraction([triple])[0] == pytest.approx(0.25)
    # occurrences, not distinct tokens: paris twice uncovered, london once covered
    assert uncovered_fraction([("", "London.", "Paris, Paris, London")])[0] == pytest.approx(2 / 3)


def test_answer_without_content_tokens_is_fully_covered():
    f = feats("", "Some context.", "It is.")
    assert f["answer_coverage"] == 1.0 and f["rare_coverage"] == 1.0 and f["numeric_coverage"] == 1.0


def test_lengths_jaccard_rare_and_numeric_features():
    f = feats("What did the company report?", "Acme reported revenue of 1,200 dollars in 2020.",
              "Acme reported revenue of 1200 dollars and 300 employees.")
    assert f["answer_length"] == 9 and f["context_length"] == 9  # "1,200" is two tokens
    # numbers: 1200 (context has 1,200 -> commas stripped) covered, 300 not
    assert f["numeric_coverage"] == pytest.approx(0.5) and f["numeric_count"] == 2
    # rare (>= 6 chars, non-stop): reported, revenue, dollars, employees -> 3 of 4 covered
    assert f["rare_coverage"] == pytest.approx(0.75)
    # sets: answer {acme, reported, revenue, 1200, dollars, 300, employees}; context {acme, reported, revenue,
    # 1, 200, dollars, 2020}: 4 shared of 10 in the union
    assert f["answer_context_jaccard"] == pytest.approx(4 / 10)
    # question {company, report} shares nothing with the answer
    assert f["question_answer_jaccard"] == 0.0


def test_longest_supported_run_and_sentence_support():
    f = feats("", "alpha beta gamma delta.\nzeta", "alpha beta omega gamma delta epsilon. zeta theta.")
    # supported: T T F T T F | T F  -> longest run 2 of 8 tokens
    assert f["longest_supported_run"] == pytest.approx(2 / 8)
    # sentence 1: best context sentence holds alpha, beta, gamma, delta of 6 -> 4/6; sentence 2: zeta of 2 -> 1/2
    assert f["best_sentence_support"] == pytest.approx((4 / 6 + 1 / 2) / 2)


def test_rougel_and_token_f1_risks():
    b = Batch([("", "alpha beta gamma delta", "delta alpha beta zeta")])
    assert b.rougel_risk()[0] == pytest.approx(1 - 2 / 4)  # LCS "alpha beta"
    # bag overlap 3; precision 3/4, recall 3/4
    assert b.token_f1_risk()[0] == pytest.approx(1 - 0.75)


def test_rougel_matches_the_reference_lcs_on_random_texts():
    rng = random.Random(7)
    words = ["w%d" % i for i in range(12)]
    triples = []
    for _ in range(150):
        c = " ".join(rng.choice(words) for _ in range(rng.randint(0, 80)))
        a = " ".join(rng.choice(words) for _ in range(rng.randint(0, 30)))
        triples.append(("", c, a))
    got = Batch(triples).rougel_risk()
    for (_, c, a), risk in zip(triples, got):
        at = content_tokens(a)
        expected = 1 - lcs_length(at, content_tokens(c)) / len(at) if at else 0.0
        assert risk == pytest.approx(expected)


def test_features_of_a_record_do_not_depend_on_its_batch():
    rng = random.Random(3)
    vocab = "the acme paris revenue 2020 1,200 report. grew\n sales europe of in a".split(" ")
    triples = [
        (" ".join(rng.choices(vocab, k=5)), " ".join(rng.choices(vocab, k=rng.randint(1, 60))),
         " ".join(rng.choices(vocab, k=rng.randint(0, 25))))
        for _ in range(40)
    ]
    space = fit_tfidf(triples)
    batch = Batch(triples)
    together = np.hstack([batch.base(), batch.enhanced(space)])
    alone = np.vstack([np.hstack([Batch([t]).base(), Batch([t]).enhanced(space)]) for t in triples])
    np.testing.assert_allclose(together, alone, rtol=1e-12, atol=1e-12)


def test_tfidf_space_matches_scikit_learn():
    from sklearn.feature_extraction.text import TfidfVectorizer

    docs = ["The FBI charged a Philadelphia woman on Thursday.", "She is one of three women arrested this week.",
            "Acme's revenue grew 12% in Europe; revenue fell in Asia.", "Snake_case tokens and x y z single letters"]
    answers = ["The FBI charged three women.", "Revenue grew in Asia and Europe."]
    space = fit_tfidf([("", d, a) for d, a in zip(docs, answers + answers)])
    ref = TfidfVectorizer(token_pattern=r"[^\W_]{2,}", stop_words="english", ngram_range=(1, 2), min_df=1,
                          norm="l2").fit(docs + answers + answers)
    assert set(space.terms) == set(ref.vocabulary_)
    cols = np.array([ref.vocabulary_[t] for t in space.terms])
    np.testing.assert_allclose(space.idf, ref.idf_[cols])
    batch = Batch([("", d, d) for d in docs])
    ours = space.vectors(batch.contexts, batch.contexts.doc, len(docs)).toarray()
    np.testing.assert_allclose(ours, ref.transform(docs).toarray()[:, cols], atol=1e-12)
    risk, sent_risk = Batch([("", docs[2], answers[1])]).tfidf_risks(space)
    expected = 1 - float(ref.transform([answers[1]]).multiply(ref.transform([docs[2]])).sum())
    assert risk[0] == pytest.approx(expected)
    assert 0.0 <= sent_risk[0] <= 1.0


def test_sentence_tfidf_risk_flags_the_one_unsupported_sentence():
    ctx = "Acme opened a store in Berlin. The store sells bicycles."
    space = fit_tfidf([("", ctx, "Acme opened a store in Berlin.")])
    good = Batch([("", ctx, "Acme opened a store in Berlin. The store sells bicycles.")]).tfidf_risks(space)[1]
    bad = Batch([("", ctx, "Acme opened a store in Berlin. Zebras govern Mars.")]).tfidf_risks(space)[1]
    assert good[0] < 0.5 and bad[0] == pytest.approx(1.0)


def test_record_input_forms():
    rec = {"id": "r1", "context": ["first passage", "second passage"], "question": None, "answer": "x"}
    assert as_triples([rec]) == [("", "first passage\n\nsecond passage", "x")]
    assert as_triples([("q", "c", "a")]) == [("q", "c", "a")]
    with pytest.raises(InputError, match="r2"):
        as_triples([{"id": "r2", "answer": "no context"}])
    with pytest.raises(InputError):
        as_triples([{"context": "c", "answer": 3}])
    with pytest.raises(InputError):
        as_triples(["just a string"])


def test_empty_batch_and_empty_texts():
    assert base_features([]).shape == (0, len(BASE_FEATURES))
    f = base_features([("", "", "")])
    assert f.shape == (1, len(BASE_FEATURES)) and np.isfinite(f).all()
