"""How rt4chart reaches a language model: the ChatBackend seam, its OpenAI-compatible implementation (retries,
timeouts, concurrency and rate limits), the SQLite response cache, prices, prompt templates, reply schemas and
how each prompt version shows evidence and reads a verdict's evidence (``verdicts``).

Users do not import from here; they pick ``--judge llm`` or call ``rt4chart.judges.llm.build_llm``.
"""
