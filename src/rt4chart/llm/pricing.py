"""Token prices, to turn usage into money (``--price-in/--price-out`` or a named model).

Prices are US dollars per million tokens, from OpenAI's published list prices as of 2025 (not re-checked since; verify
them before relying on costs). Self-hosted servers (vLLM, Ollama, llama.cpp) cost nothing per token here: pass your own
``--price-in/--price-out`` to account for hardware. An unknown model without explicit prices costs 0.0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..errors import ConfigError


@dataclass(frozen=True)
class Price:
    """Dollars per million prompt (input), cached prompt and completion (output) tokens."""

    input: float = 0.0
    output: float = 0.0
    cached_input: Optional[float] = None

    def cost(self, prompt_tokens: int, completion_tokens: int, cached_tokens: int = 0) -> float:
        cached = min(cached_tokens, prompt_tokens)
        cached_rate = self.input if self.cached_input is None else self.cached_input
        return ((prompt_tokens - cached) * self.input + cached * cached_rate + completion_tokens * self.output) / 1e6


PRICES: dict[str, Price] = {
    "gpt-4o-mini": Price(0.15, 0.60, 0.075),
    "gpt-4o": Price(2.50, 10.00, 1.25),
    "gpt-4.1-nano": Price(0.10, 0.40, 0.025),
    "gpt-4.1-mini": Price(0.40, 1.60, 0.10),
    "gpt-4.1": Price(2.00, 8.00, 0.50),
    "gpt-5-nano": Price(0.05, 0.40, 0.005),
    "gpt-5-mini": Price(0.25, 2.00, 0.025),
    "gpt-5": Price(1.25, 10.00, 0.125),
    "o4-mini": Price(1.10, 4.40, 0.275),
}


def price_for(model: str, *, price_in: Optional[float] = None, price_out: Optional[float] = None) -> Price:
    """Explicit prices win; otherwise the longest table entry that ``model`` starts with (dated snapshots such as
    ``gpt-4o-mini-2024-07-18`` match ``gpt-4o-mini``); otherwise free."""
    for name, value in (("price_in", price_in), ("price_out", price_out)):
        if value is not None and value < 0:
            raise ConfigError(f"{name} must be >= 0, got {value!r}")
    if price_in is not None or price_out is not None:
        return Price(input=price_in or 0.0, output=price_out or 0.0)
    name = _table_entry(model)
    return PRICES[name] if name is not None else Price()


def _table_entry(model: str) -> Optional[str]:
    """The longest ``PRICES`` entry that ``model`` (without a provider prefix) is or starts with, or None."""
    base = model.rsplit("/", 1)[-1].lower()
    for name in sorted(PRICES, key=len, reverse=True):
        if base == name or base.startswith(name + "-"):
            return name
    return None


def describe_price(model: str, *, price_in: Optional[float] = None, price_out: Optional[float] = None) -> str:
    """Where ``price_for``'s price comes from, in words, for reports that show a cost."""
    price = price_for(model, price_in=price_in, price_out=price_out)
    rates = f"${price.input:g} / ${price.output:g} per million prompt / completion tokens"
    if price_in is not None or price_out is not None:
        return f"{rates} (--price-in/--price-out)"
    name = _table_entry(model)
    if name is not None:
        return (f"{rates}: OpenAI's list price for {name} as of 2025 in rt4chart.llm.pricing, not re-checked; pass "
                "--price-in/--price-out with your own")
    return f"no price known for {model!r}: cost 0; pass --price-in/--price-out"
