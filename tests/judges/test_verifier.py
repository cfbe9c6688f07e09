"""The verifier runtime (``rt4chart.judges.verifier``) on a tiny ONNX model built with the ``onnx`` package
(``verifier_helpers``): a token embedding table (plus a token-type table) averaged over the attention mask, then a
3-way MatMul. The word "never" pushes contradiction and "indeed" entailment wherever they are read; every other token
is small noise, and with neither the bias makes it neutral."""

from __future__ import annotations

import fnmatch
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from verifier_helpers import CONTRADICTION, ENTAILMENT, NEUTRAL, onnx, tiny_model, write_card, write_folder
from verifier_helpers import sha as _sha

from rt4chart.errors import ConfigError
from rt4chart.evidence.index import EvidenceIndex
from rt4chart.evidence.premise import premise_sentences, premise_text
from rt4chart.judges import runtime
from rt4chart.judges import verifier as V
from rt4chart.judges.local import models as local_models
from rt4chart.judges.verifier import model as M


@pytest.fixture(scope="module")
def model_bytes() -> bytes:
    return tiny_model().SerializeToString()


@pytest.fixture
def folder(tmp_path: Path, model_bytes: bytes) -> Path:
    return write_folder(tmp_path, model_bytes)


@pytest.fixture
def verifier(folder: Path) -> V.Verifier:
    return V.Verifier(folder, threads=1)


PAIRS = [
    ("The museum opens at nine.", "The museum never opens."),
    ("The museum opens at nine every day of the week, including public holidays and the first Monday of each "
     "month when the rest of the city is closed.", "It indeed opens at nine."),
    ("A cat.", "A dog sleeps."),
    ("The report was published in 2019 by the national statistics office.", "The report is indeed from 2019."),
    ("", "Nothing to read."),
    ("Short.", "Never say never, the saying goes, and the committee never did."),
    ("The bridge is 300 metres long and carries four lanes of traffic.", "The bridge carries traffic."),
]


def test_probabilities_sum_to_one_and_follow_the_words(verifier: V.Verifier):
    p = verifier.probs(PAIRS)
    assert p.shape == (len(PAIRS), 3) and p.dtype == np.float64
    np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-12)
    assert list(p.argmax(axis=1)) == [CONTRADICTION, ENTAILMENT, NEUTRAL, ENTAILMENT, NEUTRAL, CONTRADICTION,
                                      NEUTRAL]
    assert verifier.probs([]).shape == (0, 3)


def test_input_order_is_restored_across_length_sorted_batches(verifier: V.Verifier):
    one_by_one = np.vstack([verifier.probs([pair], batch_size=1) for pair in PAIRS])
    for batch_size in (2, 3, 16):
        np.testing.assert_allclose(verifier.probs(PAIRS, batch_size=batch_size), one_by_one, atol=1e-6)


class _Recording:
    """A session stand-in that records each batch's inputs and runs the real session."""

    def __init__(self, session: Any) -> None:
        self.session, self.feeds = session, []

    def run(self, outputs: Any, feed: dict[str, np.ndarray]) -> Any:
        self.feeds.append(feed)
        return self.session.run(outputs, feed)


def test_batches_are_sorted_by_length_and_padded_to_their_longest(verifier: V.Verifier):
    lengths = sorted(len(ids) for ids, _ in verifier.encode(PAIRS))
    verifier.session = _Recording(verifier.session)
    verifier.probs(PAIRS, batch_size=3)
    feeds = verifier.session.feeds
    assert [f["input_ids"].shape for f in feeds] == [(3, lengths[2]), (3, lengths[5]), (1, lengths[6])]
    assert [list(f["attention_mask"].sum(axis=1)) for f in feeds] == [lengths[0:3], lengths[3:6], lengths[6:]]
    for f in feeds:
        assert set(f) == set(M.INPUTS) and all(a.dtype == np.int64 for a in f.values())
        assert not f["input_ids"][f["attention_mask"] == 0].any()  # [PAD] is id 0
        assert not f["token_type_ids"][f["attention_mask"] == 0].any()


def test_pair_encoding_is_cls_premise_sep_hypothesis_sep(verifier: V.Verifier):
    tok = verifier.tokenizer
    premise, claim = "The museum opens at nine.", "It never opens."
    [(ids, second)] = verifier.encode([(premise, claim)])
    assert ids == tok.encode(premise, claim).ids  # the tokenizer's own pair template, untruncated
    assert second == len(tok.encode(premise, add_special_tokens=False).ids) + 2
    types = M.batch_arrays([(ids, second)], 0)["token_type_ids"][0]
    assert list(types) == tok.encode(premise, claim).type_ids


def test_a_long_premise_is_cut_and_the_claim_kept(verifier: V.Verifier):
    tok = verifier.tokenizer
    long_premise = " ".join(["the museum opens at nine"] * 60) + " indeed"  # 300 words; "indeed" at the very end
    claim = "The museum never opens on Mondays."
    claim_ids = tok.encode(claim, add_special_tokens=False).ids
    [(ids, second)] = verifier.encode([(long_premise, claim)])
    assert len(ids) == verifier.max_length == 64  # not the tokenizer file's own truncation (128) or padding
    assert ids[second:] == [*claim_ids, tok.token_to_id("[SEP]")]
    premise_ids = tok.encode(long_premise, add_special_tokens=False).ids
    assert ids[1:second - 1] == premise_ids[:64 - 3 - len(claim_ids)]  # the premise's beginning
    p = verifier.probs([(long_premise, claim), (long_premise, "The museum opens.")])
    assert list(p.argmax(axis=1)) == [CONTRADICTION, NEUTRAL]  # "indeed" was cut off; "never" was read
    # a premise that fits is read whole: "indeed" counts
    assert verifier.probs([("The museum indeed opens at nine.", "The museum opens.")]).argmax() == ENTAILMENT


def test_a_claim_longer_than_the_window_is_cut_and_the_premise_dropped(verifier: V.Verifier):
    tok = verifier.tokenizer
    claim = " ".join(["a very long claim"] * 40)
    [(ids, second)] = verifier.encode([("Some premise.", claim)])
    assert len(ids) == 64 and second == 2 and ids[:2] == [tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")]
    assert ids[2:-1] == tok.encode(claim, add_special_tokens=False).ids[:61]


def test_card_max_length_is_what_the_encoding_keeps(folder: Path):
    write_card(folder, max_length=256)
    [(ids, _)] = V.Verifier(folder).encode([(" ".join(["word"] * 400), "A claim.")])
    assert len(ids) == 256


@pytest.mark.parametrize("name", [M.MODEL, M.TOKENIZER, M.CARD])
def test_a_missing_file_names_the_folder_and_the_file(folder: Path, name: str):
    (folder / name).unlink()
    with pytest.raises(ConfigError, match=rf"{folder}.*{name}"):
        V.Verifier(folder)
    assert not V.is_available(folder)


def test_a_file_that_does_not_match_its_sha256_is_named(folder: Path):
    with (folder / M.TOKENIZER).open("a") as fh:
        fh.write(" ")
    with pytest.raises(ConfigError, match=rf"{M.TOKENIZER} does not match its card.*sha256"):
        V.Verifier(folder)


def test_the_card_must_list_the_model_and_tokenizer_hashes(folder: Path):
    write_card(folder, files={M.TOKENIZER: _sha(folder / M.TOKENIZER)})
    with pytest.raises(ConfigError, match=rf"no sha256 for {M.MODEL}"):
        V.Verifier(folder)
    write_card(folder, files={M.MODEL: _sha(folder / M.MODEL), M.TOKENIZER: _sha(folder / M.TOKENIZER),
                              "notes.txt": "0" * 64})
    with pytest.raises(ConfigError, match="no notes.txt, which its card"):
        V.Verifier(folder)


@pytest.mark.parametrize("labels", [["contradiction", "entailment", "neutral"], ["entailment", "contradiction"],
                                    None])
def test_a_card_with_another_label_order_is_refused(folder: Path, labels: Any):
    write_card(folder, labels=labels)
    with pytest.raises(ConfigError, match=rf"{M.CARD} gives the labels .*'entailment', 'contradiction', 'neutral'"):
        V.Verifier(folder)


@pytest.mark.parametrize("max_length", [None, 4, 513, "256", True])
def test_a_card_with_a_bad_max_length_is_refused(folder: Path, max_length: Any):
    write_card(folder, max_length=max_length)
    with pytest.raises(ConfigError, match="max_length must be an integer"):
        V.Verifier(folder)


def test_a_model_onnxruntime_cannot_load_is_a_config_error(folder: Path):
    (folder / M.MODEL).write_bytes(b"not a model")
    write_card(folder)
    with pytest.raises(ConfigError, match=rf"onnxruntime cannot load .*{M.MODEL}"):
        V.Verifier(folder)


def test_bad_batch_size_is_refused(verifier: V.Verifier):
    with pytest.raises(ConfigError, match="batch_size"):
        verifier.probs(PAIRS, batch_size=0)


def test_threads_size_the_session(folder: Path):
    opts = V.Verifier(folder, threads=2).session.get_session_options()
    assert (opts.intra_op_num_threads, opts.inter_op_num_threads) == (2, 1)
    assert V.Verifier(folder).session.get_session_options().intra_op_num_threads == runtime.default_threads()


def test_int8_quantisation_loads_and_stays_close(folder: Path, tmp_path_factory: pytest.TempPathFactory):
    quantization = pytest.importorskip("onnxruntime.quantization")
    fp32 = V.Verifier(folder).probs(PAIRS)
    src = folder / M.MODEL
    dst = tmp_path_factory.mktemp("int8") / M.MODEL
    quantization.quantize_dynamic(src, dst, weight_type=quantization.QuantType.QInt8, per_channel=True)
    assert any(n.op_type in ("MatMulInteger", "DynamicQuantizeLinear", "DequantizeLinear")
               for n in onnx.load(dst).graph.node)
    shutil.copyfile(dst, src)
    write_card(folder)
    int8 = V.Verifier(folder).probs(PAIRS)
    np.testing.assert_allclose(int8, fp32, atol=0.05)
    assert list(int8.argmax(axis=1)) == list(fp32.argmax(axis=1))


def test_the_shipped_onnx_ir_test_covers_the_verifier(model_bytes: bytes):
    # tests/judges/test_local_judge.py checks that every *.onnx in local.model_dir() is ONNX IR <= 9; the verifier
    # ships in that folder (is_available's default) under a name that glob matches
    shipped = runtime.model_dir() / M.MODEL
    assert shipped.parent == local_models.model_dir() and fnmatch.fnmatch(shipped.name, "*.onnx")
    assert V.is_available() == all((runtime.model_dir() / n).is_file() for n in (M.MODEL, M.TOKENIZER, M.CARD))
    assert onnx.load_from_string(model_bytes).ir_version == 9  # what the test graph (and an export) writes


def test_verify_claims_reads_each_claim_against_its_premise(verifier: V.Verifier):
    index = EvidenceIndex("The museum opens at nine. The bridge is long. The museum is indeed popular. "
                          "Tickets cost ten euros.")
    claims = ["The museum never opens.", "Tickets cost ten euros.", "The bridge is long."]
    got = V.verify_claims(verifier, index, claims, max_words=8)
    chosen = [premise_sentences(index, c, max_words=8) for c in claims]
    assert V.premises(index, claims, max_words=8) == chosen
    want = verifier.probs([(premise_text(index, ids), c) for ids, c in zip(chosen, claims)])
    np.testing.assert_array_equal(got, want)
    hinted = V.premises(index, claims, hint=[(3,), (), (2,)], max_words=8)
    assert hinted == [premise_sentences(index, c, max_words=8, hint=h)
                      for c, h in zip(claims, [(3,), (), (2,)])]
    with pytest.raises(ConfigError, match="one per claim"):
        V.verify_claims(verifier, index, claims, hint=[(0,)])
    assert V.verify_claims(verifier, index, []).shape == (0, 3)
