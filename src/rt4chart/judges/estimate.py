"""What an LLM audit would spend, without calling a model (``rt4chart audit --estimate``, ``eval ablate --estimate``).

The estimate runs the real audit: the ``Auditor``, ``LLMJudge`` and ``LLMDecomposer`` that ``build_auditor`` makes,
with their prompt templates, over ``EstimatingBackend``, a ``ChatBackend`` that sends nothing. It counts the tokens of
every request's messages and answers with an *assumed reply*, whose tokens are the completion tokens, so the audit
goes on as it would with a model: the claims decide the verification calls, and each claim's local label decides
which global prompt it gets and whether that prompt carries a focus chunk.

Assumed replies (``Assumptions``), per call type:

- sentence decomposition (``decompose_sentence``): the claims the rule decomposer finds in the sentence (its clauses;
  none for a preamble such as "Here is a summary:");
- holistic decomposition (``decompose_holistic``): the same claims, each with its sentence number;
- a verdict (``local`` and ``global_*``, and every claim of ``local_batched`` and ``global_batched``): the lexical
  judge's label for the claim against the prompt's chunk or context, with its evidence sentences as quotes for
  entailed and contradicted (baseless, and the lexical judge's unverified, become baseless with no quote); its
  ``reasoning`` counts ``reasoning_tokens`` and its ``reason`` ``reason_tokens``; with the ``v3`` prompts
  (``--prompt-version v3``) the same label, citing its evidence sentences by their numbers in the prompt's numbered
  chunk or context, with a short ``reason`` (``reason_tokens``) and no step-by-step reasoning;
- a one-token verdict of the hybrid judge (``hybrid_supports``, one per claim): "Yes" where the lexical judge finds
  the claim entailed by the document, else "No"; one completion token. The hybrid judge's local judge runs for
  real. A real server's prefix cache evaluates a document once per answer; the estimate counts every prompt token
  as sent.

Every call is assumed to be answered usably at once (no re-ask, no retry). Prompt tokens are each message's content
tokens plus 3 per message and 3 for the reply (OpenAI's rule for its chat models, in its cookbook "How to count
tokens with tiktoken"); the JSON schema sent as ``response_format`` is not counted. ``token_counter`` says which
tokenizer counted: a ``tokenizers`` file the user gives, else tiktoken when it is installed, else characters / 4.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence, Union

from ..audit.decompose import RuleDecomposer
from ..errors import ConfigError, InputError
from ..llm.backend import Completion, Messages
from ..llm.pricing import Price, describe_price, price_for
from ..llm.schemas import BatchVerdictReply, CitedBatch, CitedVerdict, HolisticClaimsReply, JsonSchema
from ..llm.schemas import SentenceClaimsReply, VerdictReply
from ..llm.templates import data_blocks, parse_numbered
from ..llm.meter import record_usage
from ..types import AuditResult, Label, Record, RecordError, Usage
from .lexical import LexicalJudge
from .llm import NO_QUESTION

__all__ = ["Assumptions", "TokenCounter", "token_counter", "EstimatingBackend", "Estimate", "check_estimable",
           "estimate", "render_estimates"]

#: tokens counted per message and for the assistant reply's priming (OpenAI's counting rule for chat models)
PER_MESSAGE, PER_REPLY = 3, 3
#: tokens assumed for one verdict's step-by-step ``reasoning``: the value at which the estimate of RAGTruth test
#: answers at gpt-4o-mini's list prices comes to the paper's reported $0.0104 per answer (RT4CHART §4.6, GPT-4o mini
#: on RAGTruth-Enhance); the derivation and its caveats are in docs/results/ablation.md
REASONING_TOKENS = 225
#: tokens assumed for one verdict's ``reason`` ("one short sentence for a report", the prompts ask)
REASON_TOKENS = 15


@dataclass(frozen=True)
class TokenCounter:
    """Counts the tokens of a text; ``name`` says with what (shown beside every estimate)."""

    name: str
    count: Callable[[str], int] = field(repr=False, compare=False)


def _approximate(text: str) -> int:
    return (len(text) + 3) // 4


def token_counter(model: str, tokenizer: "Union[str, Path, None]" = None) -> TokenCounter:
    """The token counter for ``model``: the ``tokenizers`` file ``tokenizer`` (a ``tokenizer.json``) when given; else
    tiktoken's encoding for the model (o200k_base when tiktoken does not know the model) when tiktoken is installed
    and has its encoding files; else characters / 4, an approximation that says so."""
    if tokenizer is not None:
        from .runtime import plain_tokenizer

        path = Path(tokenizer)
        if not path.is_file():
            raise ConfigError(f"--tokenizer {tokenizer}: no such file (a tokenizers tokenizer.json is expected)")
        try:
            tok = plain_tokenizer(path, extra="local")
        except Exception as exc:  # the tokenizers library says what is wrong with the file in its own exception
            raise ConfigError(f"--tokenizer {tokenizer}: not a tokenizers file ({exc})") from exc
        return TokenCounter(f"tokenizers: {path.name}",
                            lambda text: len(tok.encode(text, add_special_tokens=False).ids))
    why = "tiktoken is not installed"
    try:
        import tiktoken
    except ImportError:
        pass
    else:
        try:
            try:
                enc = tiktoken.encoding_for_model(model.rsplit("/", 1)[-1])
            except KeyError:
                enc = tiktoken.get_encoding("o200k_base")
            return TokenCounter(f"tiktoken: {enc.name}", lambda text: len(enc.encode(text, disallowed_special=())))
        except Exception as exc:  # e.g. its encoding files cannot be downloaded on an offline machine
            why = f"tiktoken could not load an encoding ({type(exc).__name__})"
    return TokenCounter(f"approximation: characters / 4 ({why}; pass --tokenizer FILE for real counts)",
                        _approximate)


@dataclass(frozen=True)
class Assumptions:
    """What the estimate assumes a model replies (see the module docstring): tokens of a verdict's ``reasoning`` and
    ``reason``; decompositions and labels come from the rule decomposer and the lexical judge."""

    reasoning_tokens: int = REASONING_TOKENS
    reason_tokens: int = REASON_TOKENS

    def __post_init__(self) -> None:
        for name in ("reasoning_tokens", "reason_tokens"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigError(f"{name} must be a whole number >= 0, got {value!r}")

    def describe(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "decomposition": "the rule decomposer's claims of each sentence",
            "verdicts": "the lexical judge's labels; its evidence sentences are the quotes",
            "reasks": 0,
        }


class _Replies:
    """Builds the assumed reply to one request from its reply schema and the data blocks of its prompt."""

    def __init__(self, assumptions: Assumptions) -> None:
        self.assumptions = assumptions
        self.lexical = LexicalJudge()
        self.decomposer = RuleDecomposer()

    def reply(self, model: type, user: str) -> tuple[dict[str, Any], int, bool]:
        """``(reply object, verdicts in it, whether they reason step by step)`` for a request whose reply model is
        ``model`` (``JsonSchema.model``)."""
        blocks = data_blocks(user)
        if model is CitedVerdict or issubclass(model, CitedBatch):
            header = "CONTEXT CHUNK" if "CONTEXT CHUNK" in blocks else "FULL CONTEXT"
            return (*self._checks(model, blocks, header, _VERDICT_WORDS, _question(blocks)), False)
        return (*self._judge_reply(model, blocks), True)

    def _judge_reply(self, model: type, blocks: Mapping[str, str]) -> tuple[dict[str, Any], int]:
        if model is SentenceClaimsReply:
            return {"claims": self._claims(self._block(blocks, "SENTENCE TO DECOMPOSE", model))}, 0
        if model is HolisticClaimsReply:
            numbered = parse_numbered(self._block(blocks, "ANSWER SENTENCES", model))
            return {"claims": [{"sentence": i, "claim": c} for i, text in numbered.items()
                               for c in self._claims(text)]}, 0
        evidence = blocks.get("CONTEXT CHUNK", blocks.get("FULL CONTEXT"))
        if evidence is None:
            raise ConfigError(f"the estimate found no CONTEXT CHUNK or FULL CONTEXT block in a {model.__name__} prompt")
        question = _question(blocks)
        if model is VerdictReply:
            return self._verdict(self._block(blocks, "CLAIM", model), evidence, question), 1
        if model is BatchVerdictReply:
            numbered = parse_numbered(self._block(blocks, "CLAIMS", model))
            verdicts = [{"claim": i, **self._verdict(text, evidence, question)} for i, text in numbered.items()]
            return {"verdicts": verdicts}, len(verdicts)
        raise ConfigError(f"the estimate has no assumed reply for a {model.__name__} request")

    def _checks(self, model: type, blocks: Mapping[str, str], header: str, words: Mapping[Label, str],
                question: Optional[str] = None) -> tuple[dict[str, Any], int]:
        """Verdicts that cite numbered sentences (the LLM judge's ``v3`` verdicts): the lexical judge's label of each
        claim against the sentences of block ``header``, in the reply's ``words`` (the last one for any other
        label), citing its evidence sentences."""
        premise = parse_numbered(self._block(blocks, header, model))
        text = " ".join(premise.values())
        number = {sentence: n for n, sentence in premise.items()}
        otherwise = list(words.values())[-1]

        def check(claim: str) -> dict[str, Any]:
            judgment = self.lexical.judge_one(claim, text, question=question)
            verdict = words.get(judgment.label, otherwise)
            cited = [number[q] for q in judgment.evidence if q in number] if verdict != otherwise else []
            return {"reason": "", "verdict": verdict, "sentences": cited}

        if model is CitedVerdict:
            return check(self._block(blocks, "CLAIM", model)), 1
        numbered = parse_numbered(self._block(blocks, "CLAIMS", model))
        return {"verdicts": [{"claim": i, **check(c)} for i, c in numbered.items()]}, len(numbered)

    @staticmethod
    def _block(blocks: Mapping[str, str], header: str, model: type) -> str:
        if header not in blocks:
            raise ConfigError(f"the estimate found no {header} block in a {model.__name__} prompt")
        return blocks[header]

    def _claims(self, sentence: str) -> list[str]:
        return [c.text for c in self.decomposer.decompose_sync(sentence)]

    def _verdict(self, claim: str, evidence: str, question: Optional[str]) -> dict[str, Any]:
        judgment = self.lexical.judge_one(claim, evidence, question=question)
        if judgment.label in (Label.ENTAILED, Label.CONTRADICTED) and judgment.evidence:
            verdict, quotes = judgment.label.value, list(judgment.evidence)
        else:
            verdict, quotes = "baseless", []
        # the reasoning and reason are counted, not written: ``reasoning_tokens`` and ``reason_tokens`` each
        return {"reasoning": "", "evidence": quotes, "verdict": verdict, "reason": ""}


#: how replies that cite numbered sentences name the lexical judge's labels (the last word: any other label)
_VERDICT_WORDS = {Label.ENTAILED: "entailed", Label.CONTRADICTED: "contradicted", Label.BASELESS: "baseless"}


def _question(blocks: Mapping[str, str]) -> Optional[str]:
    question = blocks.get("QUESTION")
    return None if question in (None, NO_QUESTION) else question


@dataclass
class _Tally:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


class EstimatingBackend:
    """A ``ChatBackend`` that sends nothing: it counts each request's prompt tokens, answers with the assumed reply
    (``Assumptions``), counts that reply's tokens as the completion and records the usage (with ``price``'s cost) on
    the record being audited, as a real backend does. ``by_prompt`` tallies calls and tokens per prompt template."""

    def __init__(self, model: str, counter: TokenCounter, *, assumptions: Assumptions = Assumptions(),
                 price: Price = Price()) -> None:
        self.model = model
        self.counter = counter
        self.assumptions = assumptions
        self.price = price
        self.by_prompt: dict[str, _Tally] = {}
        self._replies = _Replies(assumptions)

    async def complete(self, messages: Messages, *, schema: Optional[JsonSchema] = None,
                       prompt_version: Optional[str] = None, logprobs: int = 0) -> Completion:
        if logprobs:
            return self._one_token(messages, prompt_version)
        if schema is None or schema.model is None:
            raise ConfigError("the estimate needs the reply schema and model of every request (llm.schemas.schema_for)")
        user = next((m.get("content") or "" for m in messages if m.get("role") == "user"), "")
        reply, verdicts, reasons = self._replies.reply(schema.model, user)
        text = json.dumps(reply, ensure_ascii=False)
        per_verdict = self.assumptions.reason_tokens + (self.assumptions.reasoning_tokens if reasons else 0)
        usage = self._record(messages, self.counter.count(text) + verdicts * per_verdict, prompt_version or schema.name)
        return Completion(text=text, usage=usage, finish_reason="stop")

    def _record(self, messages: Messages, completion: int, name: str) -> Usage:
        """The usage of one request (its prompt tokens counted, ``completion`` assumed), recorded on the record being
        audited and tallied under its prompt ``name``."""
        prompt = sum(self.counter.count(m.get("content") or "") + PER_MESSAGE for m in messages) + PER_REPLY
        usage = Usage(calls=1, prompt_tokens=prompt, completion_tokens=completion,
                      cost_usd=self.price.cost(prompt, completion))
        record_usage(usage)
        tally = self.by_prompt.setdefault(name.rsplit(".", 1)[0], _Tally())
        tally.calls += 1
        tally.prompt_tokens += prompt
        tally.completion_tokens += completion
        return usage

    def _one_token(self, messages: Messages, prompt_version: Optional[str]) -> Completion:
        """A one-token verdict (the hybrid judge's): "Yes" where the lexical judge finds the claim entailed."""
        document, _, claim = (messages[-1].get("content") or "").partition("\nClaim: ")
        judgment = self._replies.lexical.judge_one(claim, document.removeprefix("Document: "), question=None)
        word = "Yes" if judgment.label is Label.ENTAILED else "No"
        usage = self._record(messages, 1, prompt_version or "one-token")
        return Completion(text=word, usage=usage, finish_reason="length",
                          top_logprobs=((word, math.log(0.9)), ("No" if word == "Yes" else "Yes", math.log(0.1))))


@dataclass(frozen=True)
class Estimate:
    """An estimate of one audit setting over some records: totals, per prompt template, and what it rests on."""

    records: int
    audited: int
    calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    by_prompt: dict[str, dict[str, int]]
    tokenizer: str
    price: str
    assumptions: dict[str, Any]
    errors: list[str]

    def per_answer(self) -> dict[str, float]:
        n = max(self.audited, 1)
        return {"calls": self.calls / n, "prompt_tokens": self.prompt_tokens / n,
                "completion_tokens": self.completion_tokens / n, "cost_usd": self.cost_usd / n}

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "per_answer": self.per_answer()}


def check_estimable(options: Mapping[str, Any]) -> str:
    """The model name of ``build_auditor`` options that choose the LLM judge; ``ConfigError`` when they choose an
    offline judge (it calls no model) or name no model (it chooses the tokenizer and the price)."""
    judge = options.get("judge") or "auto"
    offline_auto = judge == "auto" and not (options.get("model") or options.get("base_url"))
    if judge not in ("llm", "hybrid", "auto") or offline_auto:
        which = f"the {judge} judge" if judge != "auto" else \
            "--judge auto picks an offline judge here (no --model or --base-url), which"
        raise ConfigError(f"--estimate counts the calls of the LLM judge (--judge llm --model NAME) or of the hybrid "
                          f"judge (--judge hybrid --model NAME); {which} calls no model")
    if not options.get("model"):
        raise ConfigError("--estimate needs the model name (--model or RT4CHART_MODEL): it chooses the tokenizer "
                          "and the price")
    return str(options["model"])


def estimate(
    records: Iterable[Union[Record, Mapping[str, Any]]],
    *,
    counter: TokenCounter,
    assumptions: Assumptions = Assumptions(),
    **auditor_options: Any,
) -> Estimate:
    """Estimate the LLM judge's calls, tokens and cost on ``records`` under ``auditor_options`` (the options of
    ``rt4chart.judges.registry.build_auditor``: ``judge``, ``window``, ``overlap``, ``global_verification``,
    ``prefilter``, ``decomposition``, ``granularity``, ``model``, ``price_in``, ``price_out`` ...) without calling any
    model. Raises ``ConfigError`` when the options choose another judge than the LLM judge (it makes no calls to
    estimate). Records that fail validation are counted in ``errors`` and not estimated."""
    from .registry import build_auditor

    options = {k: v for k, v in auditor_options.items() if v is not None}
    model = check_estimable(options)
    price_in, price_out = options.get("price_in"), options.get("price_out")
    backend = EstimatingBackend(model, counter, assumptions=assumptions,
                                price=price_for(model, price_in=price_in, price_out=price_out))
    options.update(judge="hybrid" if options.get("judge") == "hybrid" else "llm", cache=False, backend=backend)
    auditor = build_auditor(**options)
    results = asyncio.run(_audit_all(auditor, records))
    done = [r for r in results if isinstance(r, AuditResult)]
    errors = [r.message if isinstance(r, RecordError) else str(r) for r in results if not isinstance(r, AuditResult)]
    total = sum((r.usage for r in done), Usage())
    return Estimate(
        records=len(results), audited=len(done), calls=total.calls, prompt_tokens=total.prompt_tokens,
        completion_tokens=total.completion_tokens, cost_usd=round(total.cost_usd, 6),
        by_prompt={name: asdict(t) for name, t in sorted(backend.by_prompt.items())}, tokenizer=counter.name,
        price=describe_price(model, price_in=price_in, price_out=price_out), assumptions=assumptions.describe(),
        errors=errors,
    )


async def _audit_all(auditor: Any, records: Iterable[Union[Record, Mapping[str, Any], InputError]]
                     ) -> Sequence[Union[AuditResult, RecordError]]:
    out: dict[int, Union[AuditResult, RecordError]] = {}
    async for index, result, _ in auditor.audit_many(enumerate(records)):
        out[index] = result
    return [out[i] for i in sorted(out)]


def prompt_names(estimates: Iterable[Estimate]) -> list[str]:
    """The prompt templates the estimates used, most calls first (for tables)."""
    calls: Counter = Counter()
    for e in estimates:
        for name, tally in e.by_prompt.items():
            calls[name] += tally["calls"]
    return [name for name, _ in calls.most_common()]


def render_estimates(rows: Sequence[tuple[str, Estimate]], title: Optional[str] = None) -> str:
    """Markdown: one row per named estimate (per answer and in total), the calls per prompt template, and what the
    numbers rest on (tokenizer, price, assumptions)."""
    lines: list[str] = [f"### {title}", ""] if title else []
    lines += ["No model was called: these are estimates (`rt4chart.judges.estimate`).", "",
              "| setting | answers | calls/answer | prompt tok/answer | completion tok/answer | $/answer | calls | "
              "prompt tokens | completion tokens | $ total |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, e in rows:
        per = e.per_answer()
        lines.append(f"| {name} | {e.audited} | {per['calls']:.1f} | {per['prompt_tokens']:,.0f} | "
                     f"{per['completion_tokens']:,.0f} | {per['cost_usd']:.5f} | {e.calls:,} | {e.prompt_tokens:,} | "
                     f"{e.completion_tokens:,} | {e.cost_usd:.4f} |")
    names = prompt_names(e for _, e in rows)
    if names:
        lines += ["", "Calls per prompt template:", "", "| setting | " + " | ".join(names) + " |",
                  "|---|" + "---:|" * len(names)]
        for name, e in rows:
            lines.append(f"| {name} | " + " | ".join(f"{e.by_prompt.get(p, {}).get('calls', 0):,}" for p in names)
                         + " |")
    first = rows[0][1] if rows else None
    if first is not None:
        a = first.assumptions
        lines += ["", f"- tokens: {first.tokenizer}; prompt tokens include {PER_MESSAGE} per message and {PER_REPLY} "
                      "per reply, not the JSON schema",
                  f"- price: {first.price}",
                  f"- assumed replies: {a['decomposition']}; {a['verdicts']}; each verdict's reasoning "
                  f"{a['reasoning_tokens']} tokens and reason {a['reason_tokens']} tokens; no re-asks or retries"]
    errors = sum(len(e.errors) for _, e in rows)
    if errors:
        lines.append(f"- {errors} records failed validation and are not counted")
    return "\n".join(lines) + "\n"
