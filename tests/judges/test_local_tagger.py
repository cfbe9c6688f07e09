"""The local judge's semantic stage: the tagger's input layout, its word mapping and the shipped model."""

import asyncio
import json
import shutil

import numpy as np
import pytest

from rt4chart import Claim, Label, Span
from rt4chart.errors import ConfigError
from rt4chart.judges.local import features as F
from rt4chart.judges import local
from rt4chart.judges.local import judge as J
from rt4chart.judges.local import models as M
from rt4chart.judges.local import rules as R
from rt4chart.judges.local import tagger as T
from rt4chart.judges.local import verifier as V

TOKENIZER = local.model_dir() / T.TOKENIZER


def _claim(text: str, index: int = 0, start: int = 0) -> Claim:
    return Claim(index=index, text=text, sentence_index=index,
                 answer_spans=(Span(start=start, end=start + len(text)),))


def test_claims_text_joins_claims_and_knows_where_each_starts():
    text, starts = T.claims_text(["The trial lasts 14 days.", "It costs 12 dollars."])
    assert text == "The trial lasts 14 days. It costs 12 dollars."
    assert [text[s:s + 3] for s in starts] == ["The", "It "]


def test_select_sentences_keeps_all_that_fit_else_those_sharing_rare_claim_words_in_order():
    sents = ["Paris is the capital of France.", "The weather was mild.", "Lyon is a city in France.",
             "Marseille hosts a port."]
    assert T.select_sentences(sents, [8, 6, 8, 6], "Lyon is in France.", 100) == [0, 1, 2, 3]
    # room for two: "lyon" is rarer than "france", so sentence 2 wins first, then sentence 0 (france)
    assert T.select_sentences(sents, [8, 6, 8, 6], "Lyon is in France.", 16) == [0, 2]
    assert T.select_sentences(sents, [8, 6, 8, 6], "Lyon is in France.", 8) == [2]


def test_encoder_layout_marks_claim_tokens_and_respects_the_window():
    enc = T.Encoder(TOKENIZER, max_len=64)
    text, _ = T.claims_text(["The trial lasts 30 days."])
    e = enc.encode("How long is the trial?", ["The free trial lasts 14 days.", "Support is by email."], text)
    tok = enc.tok
    assert e.ids[0] == enc.cls and e.ids[-1] == enc.sep and int((e.ids == enc.sep).sum()) == 2
    assert list(e.types) == [0] * (len(e.ids) - len(e.positions) - 1) + [1] * (len(e.positions) + 1)
    # every claim token maps back to its own text in the claims text
    for pos, (s, t) in zip(e.positions, e.offsets):
        assert tok.id_to_token(int(e.ids[pos])).lstrip("#") == text[s:t].lower()
    # a long evidence is cut to the window; the claim keeps all of its tokens
    long = [f"Sentence number {i} talks about topic {i}." for i in range(200)]
    e2 = enc.encode(None, long, text)
    assert len(e2.ids) <= 64 and len(e2.positions) == len(e.positions)
    # a claims text longer than the window is cut, leaving the evidence its minimum
    big = T.Encoder(TOKENIZER, max_len=T.MIN_EVIDENCE + 20)
    e3 = big.encode(None, ["The free trial lasts 14 days."], " ".join(["word"] * 300))
    assert len(e3.ids) <= T.MIN_EVIDENCE + 20 and len(e3.positions) == 17


def test_an_evidence_read_again_gives_the_encoding_a_fresh_encoder_gives():
    # the sentences' token ids (and their words, for the selection) are kept per evidence text
    long = [f"Sentence number {i} talks about topic {i}." for i in range(60)] + ["Lyon lies on the Rhone."]
    enc = T.Encoder(TOKENIZER, max_len=64)
    for claims in ("Lyon lies on the Seine.", "Topic 7 is about Lyon.", "Lyon lies on the Seine."):
        got, want = enc.encode("Where?", long, claims), T.Encoder(TOKENIZER, max_len=64).encode("Where?", long, claims)
        for a, b in zip((got.ids, got.types, got.positions, got.offsets), (want.ids, want.types, want.positions,
                                                                           want.offsets)):
            assert (a == b).all()
    assert enc._sentence_ids.cache_info().hits == 2


def test_word_probabilities_take_the_riskiest_token_and_nan_beyond_the_window():
    enc = T.Encoded(ids=np.zeros(6, dtype=np.int64), types=np.zeros(6, dtype=np.int64),
                    positions=np.arange(3, 6), offsets=np.array([[10, 14], [14, 17], [18, 22]]))
    p = np.array([0.1, 0.7, 0.2])
    # the claim starts at 10 in the claims text: word (0, 7) covers the first two tokens, (8, 12) the third
    out = T.word_probabilities(enc, p, 10, [(0, 7), (8, 12), (20, 25)])
    assert out[0] == pytest.approx(0.7) and out[1] == pytest.approx(0.2) and np.isnan(out[2])


def test_claim_columns_aggregate_per_claim_and_over_the_answer():
    cols = T.claim_columns([np.array([0.1, 0.6, 0.8]), np.array([np.nan, 0.3]), np.array([np.nan])])
    name = {n: i for i, n in enumerate(T.CLAIM_COLUMNS)}
    assert cols[0, name["t_max"]] == pytest.approx(0.8) and cols[0, name["t_n50"]] == 2
    assert cols[1, name["t_mean"]] == pytest.approx(0.3)
    assert (cols[2, :3] == T.MISSING).all()
    assert cols[:, name["a_t_max"]].tolist() == pytest.approx([0.8] * 3)
    assert T.word_column(np.array([0.5, np.nan]))[:, 0].tolist() == [0.5, T.MISSING]


def test_the_semantic_stage_ships_and_runs_at_global_verification_only():
    judge = local.LocalJudge()
    assert judge.semantic, "models/local_tagger.onnx and the semantic tree pair must ship in the package"
    card = judge._models.tagger_card
    assert card["trees"]["word_features"] == [*F.FEATURES, *T.WORD_COLUMNS]
    assert card["trees"]["claim_features"] == [*F.CLAIM_MODEL_FEATURES, *T.CLAIM_COLUMNS]
    assert 0 < card["threshold"] < 1 and "RAGTruth train" in card["trained_on"]
    ctx = "The free trial lasts 14 days. Eligible users may request one extension by email."
    claims = [_claim("The free trial lasts 14 days."), _claim("Extensions are granted by phone to all users.", 1)]
    at_global = asyncio.run(judge.judge(claims, ctx, question=None, stage="global"))
    at_local = asyncio.run(judge.judge(claims, ctx, question=None, stage="local"))
    assert "+tagger@" in at_global[0].prompt_version and "+tagger@" not in at_local[0].prompt_version
    assert at_global[0].label == Label.ENTAILED and at_global[1].score != at_local[1].score
    # without it, the same judge gives the trees' decision at both stages
    plain = local.LocalJudge(no_tagger=True)
    assert "+tagger@" not in asyncio.run(plain.judge(claims, ctx, question=None, stage="global"))[0].prompt_version
    # claims the trees alone find clearly supported skip the tagger
    sure = [_claim("The free trial lasts 14 days.")]
    scores = judge.score(sure, ctx, None, semantic=True)
    assert scores.claim_p.max() < R.SKIP_TAGGER_BELOW and not scores.tagged


def test_a_short_answer_with_an_unmatched_word_is_read_by_the_tagger():
    judge = local.LocalJudge()
    ctx = ("The Eiffel Tower is a wrought-iron lattice tower in Paris, France. It was designed by the engineering "
           "company of Gustave Eiffel and completed in 1889 for the World's Fair. The tower is 330 metres tall and was "
           "the tallest man-made structure in the world until 1930. About seven million people visit it every year. "
           "The tower has three levels for visitors, with restaurants on the first and second levels. The upper "
           "platform of the top level is 276 metres above the ground. Tickets can be bought online or at the foot of "
           "the tower, and the lifts run from morning until late at night. The tower is repainted every seven years, "
           "which takes about 60 tonnes of paint and more than a year of work.")
    assert len(ctx) > 665  # longer than the contexts the short-context calibrator reads
    wood = [_claim("The Eiffel Tower is made of wood.")]
    trees = judge.score(wood, ctx, None, semantic=False)
    assert judge.score(wood, ctx, None, semantic=True).tagged
    assert trees.claim_p.max() < R.SKIP_TAGGER_BELOW  # the trees alone would have let it skip the tagger
    # in a longer answer the trees decide such a claim, as before
    longer = [*wood, _claim("It was completed in 1889 for the World's Fair.", 1),
              _claim("The tower is 330 metres tall.", 2)]
    assert R.SHORT_ANSWER_CLAIMS < len(longer)
    scores = judge.score(longer, ctx, None, semantic=True)
    assert scores.claim_p.max() < R.SKIP_TAGGER_BELOW and not scores.tagged


def test_a_semantic_stage_of_another_feature_version_is_refused_and_a_missing_one_is_skipped(tmp_path):
    for name in (local.WORD_MODEL, local.CLAIM_MODEL, local.CALIBRATOR, local.CALIBRATOR_SHORT, local.CARD,
                 V.VERIFIER_MODEL, V.VERIFIER_CARD, V.TOKENIZER):
        if (local.model_dir() / name).exists():  # the short-context calibrator and the verifier, where shipped
            shutil.copy(local.model_dir() / name, tmp_path / name)
    assert not local.LocalJudge(model_dir=tmp_path).semantic  # trees only: still a working judge
    for name in (local.WORD_MODEL_T, local.CLAIM_MODEL_T, local.CALIBRATOR_T, local.SPAN_MODEL_T,
                 local.CALIBRATOR_SHORT_T, local.TAGGER_CARD, T.TAGGER_MODEL, T.TOKENIZER):
        if (local.model_dir() / name).exists():
            shutil.copy(local.model_dir() / name, tmp_path / name)
    M.load.cache_clear()  # loaded models are shared per directory
    assert local.LocalJudge(model_dir=tmp_path).semantic
    card = json.loads((tmp_path / local.TAGGER_CARD).read_text())
    card["trees"]["feature_version"] = -1
    (tmp_path / local.TAGGER_CARD).write_text(json.dumps(card))
    M.load.cache_clear()
    with pytest.raises(ConfigError, match="semantic stage"):
        local.LocalJudge(model_dir=tmp_path)


def test_no_tagger_option_keeps_the_trees_alone():
    from rt4chart.judges.registry import make_judge

    assert make_judge("local")[0].semantic
    assert not make_judge("local", no_tagger=True)[0].semantic
    assert make_judge("local", no_tagger=True, threshold=0.3)[0].threshold == 0.3


def test_the_tagger_loads_on_first_use_and_never_for_the_trees_alone(monkeypatch):
    models = M.Models(local.model_dir(), 1)
    monkeypatch.setattr(J, "load", lambda directory, threads: models)
    assert models.has_tagger and models._tagger is None
    claims = [Claim(index=0, text="Zebras migrate through Kenyan savannas.", sentence_index=0,
                    answer_spans=(Span(start=0, end=39),))]
    ctx = "The museum opens at ten."  # a claim with no word in the evidence: the tagger is never skipped for it
    trees = local.LocalJudge(no_tagger=True)
    assert not trees.semantic and trees.threshold == models.card["threshold"]
    asyncio.run(trees.judge(claims, ctx, question=None, stage="global"))
    assert models._tagger is None
    judged = asyncio.run(local.LocalJudge().judge(claims, ctx, question=None, stage="global"))
    assert models._tagger is not None and "+tagger@" in judged[0].prompt_version


def test_threads_size_the_taggers_pool_and_the_trees_keep_one_thread():
    # two spinning pools on a 2-core machine slowed every tagger call by a third
    models = local.LocalJudge(threads=2)._models
    assert models.tagger.session.get_session_options().intra_op_num_threads == 2
    for session in (models.words, models.claims, models.words_t, models.claims_t):
        assert session.get_session_options().intra_op_num_threads == 1


def test_the_global_pass_reuses_the_local_passs_tree_prediction_on_the_same_text(monkeypatch):
    judge = local.LocalJudge()
    judge._recent.clear()
    calls = []
    predict = judge._models.predict
    monkeypatch.setattr(judge._models, "predict", lambda rows, tagged=None, **kw: calls.append(tagged is not None)
                        or predict(rows, tagged, **kw))
    ctx = "The free trial lasts 14 days. Eligible users may request one extension by email."
    claims = [_claim("The free trial lasts 14 days."), _claim("Extensions are granted by phone to all users.", 1)]
    at_local = asyncio.run(judge.judge(claims, ctx, question=None, stage="local"))
    at_global = asyncio.run(judge.judge(claims, ctx, question=None, stage="global"))
    # the trees once (local), then only the semantic pair (global): not the trees a second time
    assert calls == [False, True]
    assert "+tagger@" in at_global[1].prompt_version and "+tagger@" not in at_local[1].prompt_version


def test_model_dir_option_loads_a_retrained_models_folder(tmp_path, monkeypatch):
    from rt4chart.judges.registry import make_judge

    retrained = tmp_path / "retrained"
    shutil.copytree(local.model_dir(), retrained)
    card = json.loads((retrained / local.CARD).read_text())
    card["threshold"] = 0.123  # the folder's own card decides (trees alone, so the tagger's card does not apply)
    (retrained / local.CARD).write_text(json.dumps(card))
    M.load.cache_clear()
    monkeypatch.delenv("RT4CHART_BASE_URL", raising=False)
    judge = make_judge("local", model_dir=retrained, no_tagger=True)[0]
    assert judge.threshold == 0.123 and make_judge("local", no_tagger=True)[0].threshold != 0.123
    assert make_judge("auto", model_dir=retrained)[0].name == "local"  # no LLM configured: the folder's judge
    with pytest.raises(ConfigError, match="--model-dir configures the local judge, but the judge here is lexical"):
        make_judge("lexical", model_dir=retrained)
    with pytest.raises(ConfigError, match=f"no trained local judge model in {tmp_path}"):
        make_judge("local", model_dir=tmp_path)


def _int8_weights(path):
    """The constant weight of every ``MatMulInteger`` in the graph at ``path``."""
    import onnx
    from onnx import numpy_helper

    m = onnx.load(str(path))
    inits = {i.name: i for i in m.graph.initializer}
    return [numpy_helper.to_array(inits[n.input[1]]) for n in m.graph.node if n.op_type == "MatMulInteger"]


def test_shipped_tagger_has_full_range_int8_weights_so_sessions_need_the_u8s8_guard():
    # onnxruntime's U8S8 kernels on x86 without VNNI add pairs of uint8 * int8 products in 16 bits (VPMADDUBSW):
    # 255 * 127 * 2 > 32767. Only weights within [-64, 64] (reduce_range) cannot saturate; the tagger's are 8-bit,
    # so its exactness rests on runtime.cpu_session's guard (u8s8_saturates, then the U8U8 kernels)
    from rt4chart.judges import runtime

    weights = _int8_weights(local.model_dir() / T.TAGGER_MODEL)
    assert len(weights) == 37 and all(w.dtype == np.int8 for w in weights)
    assert max(int(np.abs(w.astype(np.int16)).max()) for w in weights) > 64
    # the guard's probe is exact once the option is set, on any CPU; without it, exact or saturated pairs
    assert runtime.probe_value(runtime.probe_session(precise=True)) == runtime._PROBE_EXACT
    assert runtime.probe_value(runtime.probe_session()) in (runtime._PROBE_EXACT, 32 * 32767)
    assert runtime.u8s8_saturates() == (runtime.probe_value(runtime.probe_session()) != runtime._PROBE_EXACT)


def test_shipped_probe_is_the_graph_training_writes(tmp_path):
    from rt4chart.judges import runtime
    from training.tagger_graph import u8s8_probe

    u8s8_probe(tmp_path / "probe.onnx")
    assert (tmp_path / "probe.onnx").read_bytes() == (local.model_dir() / runtime.PROBE_MODEL).read_bytes()


def test_cpu_session_sets_the_precise_int8_option_only_where_the_probe_saturates(monkeypatch):
    from rt4chart.judges import runtime

    path = local.model_dir() / runtime.PROBE_MODEL
    for saturates in (True, False):
        monkeypatch.setattr(runtime, "u8s8_saturates", lambda: saturates)
        opts = runtime.cpu_session(path, 1).get_session_options()
        if saturates:
            assert opts.get_session_config_entry(runtime.PRECISE_INT8) == "1"
        else:
            with pytest.raises(RuntimeError, match="does not have configuration"):
                opts.get_session_config_entry(runtime.PRECISE_INT8)


def test_the_precise_int8_option_leaves_the_tagger_probabilities_unchanged():
    # the option's rewrite (int8 weight + 128, zero point + 128) keeps every integer product, so the tagger gives the
    # same logits bit for bit (on a VNNI CPU: what the U8S8 kernels give; on one without: what they should give)
    import onnxruntime as ort

    from rt4chart.judges import runtime

    enc = T.Encoder(TOKENIZER).encode("How long is the free trial?", [MUSEUM_LIKE] * 6,
                                      "The free trial lasts 30 days and costs 12 dollars a month after that.")
    feed = {"input_ids": enc.ids[None], "token_type_ids": enc.types[None], T.ROWS_INPUT: enc.positions}
    out = []
    for precise in (False, True):
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        if precise:
            opts.add_session_config_entry(runtime.PRECISE_INT8, "1")
        s = ort.InferenceSession(str(local.model_dir() / T.TAGGER_MODEL), opts, providers=["CPUExecutionProvider"])
        out.append(s.run(None, feed)[0])
    if runtime.u8s8_saturates():  # pragma: no cover - a CPU without VNNI: the plain kernels differ, by design
        return
    assert np.array_equal(out[0], out[1])


MUSEUM_LIKE = ("The free trial lasts 14 days. After the trial the plan costs 12 dollars a month. Support is by email "
               "only, and answers arrive within two working days. The museum opened in 1932 in a railway station.")
