"""A tiny llama GGUF whose replies are known in advance, for the tests that run real llama.cpp servers (issue 26).

``write_tiny_gguf(path)`` writes a random-free llama model with the ``gguf`` package: 2 layers, 64 dims, 4 heads
and an SPM tokenizer of byte tokens ``<0x00>``..``<0xFF>``, one token per printable ASCII character (``▁`` for
the space) and ``<unk>``, ``<s>``, ``</s>``. It loads in milliseconds.

Its hidden state is constant: every token has the same embedding and every attention and FFN output projection is
zero, so the residual stream is the embedding at every position, whatever the prompt. The output projection turns
that constant state into fixed logits, so the model ranks the vocabulary the same way at every step, and greedy
decoding picks the highest-ranked token that the sampler allows:

- with no grammar, ``</s>`` ranks first: a plain reply is empty and stops at once;
- under a JSON grammar (``response_format``) ``</s>`` is allowed only once the object is complete. Inside a string
  the multi-character token ``ok"`` ranks first, so every free string is ``"ok"``; ``"`` outranks ``]``, so an
  array gets one item, and ``]`` outranks ``,``, so it gets no second one; among the first letters of
  RT4CHART's verdicts ``b`` ranks first (``baseless``); whitespace ranks low, so there is none.

So every constrained reply is short and the same on every call: a verdict is
``{"reasoning":"ok","evidence":["ok"],"verdict":"baseless","reason":"ok"}`` and a decomposition
``{"claims":["ok"]}``. ``runaway=True`` ranks the letter ``a`` above ``ok"``: a free string then never closes
and a constrained reply runs until the token cap or the context (``finish_reason: length``), the llama-server
failure of issue 26.

Logits are spaced by more than a factor 1.1 (llama-cpp-python's default ``repeat_penalty``), so a repetition
penalty cannot reorder them.
"""

from __future__ import annotations

import string
from pathlib import Path
from typing import Union

import numpy as np

N_EMBD = 64
N_LAYER = 2
N_HEAD = 4
N_FF = 128
N_CTX_TRAIN = 8192

#: the constrained replies of the constant model, as the servers return them
VERDICT = '{"reasoning":"ok","evidence":["ok"],"verdict":"baseless","reason":"ok"}'
CLAIMS = '{"claims":["ok"]}'

# the logits that decide the replies; everything else is lower (see the module docstring)
_RANK = {"</s>": 400.0, "a-runaway": 200.0, 'ok"': 100.0, '"': 70.0, "]": 50.0, "b": 35.0, ",": 20.0}
_OTHER_PRINTABLE = 5.0
_WHITESPACE = 1.0
_BYTE = 0.0
_CONTROL = -10.0


def vocabulary() -> tuple[list[str], list[float], list[int]]:
    """``(tokens, scores, token types)`` of the SPM vocabulary (types as ``gguf.TokenType`` values)."""
    from gguf import TokenType

    tokens = ["<unk>", "<s>", "</s>"]
    types = [TokenType.UNKNOWN, TokenType.CONTROL, TokenType.CONTROL]
    tokens += [f"<0x{b:02X}>" for b in range(256)]
    types += [TokenType.BYTE] * 256
    printable = ["\u2581" if ch == " " else ch for ch in string.printable if ch.isprintable()]  # 0x20..0x7E
    tokens += printable
    types += [TokenType.NORMAL] * len(printable)
    tokens.append('ok"')
    types.append(TokenType.NORMAL)
    # SPM merges by score: single characters first (higher scores merge first); nothing here needs merging
    scores = [0.0 if t in (TokenType.UNKNOWN, TokenType.CONTROL, TokenType.BYTE) else -float(i)
              for i, t in enumerate(types)]
    return tokens, scores, [int(t) for t in types]


def logits(tokens: list[str], *, runaway: bool = False) -> np.ndarray:
    """The fixed logit of every token (the model's output for any prompt)."""
    out = np.empty(len(tokens), dtype=np.float32)
    for i, tok in enumerate(tokens):
        if tok in ("<unk>", "<s>"):
            out[i] = _CONTROL
        elif tok.startswith("<0x") and len(tok) == 6:
            out[i] = _BYTE
        elif tok in _RANK:
            out[i] = _RANK[tok]
        elif tok == "a" and runaway:
            out[i] = _RANK["a-runaway"]
        elif tok in ("\u2581",):
            out[i] = _WHITESPACE
        else:
            out[i] = _OTHER_PRINTABLE
    return out


def write_tiny_gguf(path: Union[str, Path], *, runaway: bool = False) -> Path:
    """Write the model to ``path`` (see the module docstring) and return the path."""
    import gguf

    path = Path(path)
    tokens, scores, types = vocabulary()
    n_vocab = len(tokens)
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_name("rt4chart-tiny-runaway" if runaway else "rt4chart-tiny-constant")
    writer.add_context_length(N_CTX_TRAIN)
    writer.add_embedding_length(N_EMBD)
    writer.add_block_count(N_LAYER)
    writer.add_feed_forward_length(N_FF)
    writer.add_rope_dimension_count(N_EMBD // N_HEAD)
    writer.add_head_count(N_HEAD)
    writer.add_head_count_kv(N_HEAD)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    writer.add_unk_token_id(0)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(False)

    f32 = np.float32
    # numpy shapes are ggml's reversed: token_embd is (n_vocab, n_embd), a projection (n_out, n_in)
    writer.add_tensor("token_embd.weight", np.ones((n_vocab, N_EMBD), dtype=f32))  # one embedding for all
    writer.add_tensor("output_norm.weight", np.ones(N_EMBD, dtype=f32))
    output = np.zeros((n_vocab, N_EMBD), dtype=f32)
    output[:, 0] = logits(tokens, runaway=runaway)  # the normed state is all ones: logit = column 0
    writer.add_tensor("output.weight", output)
    for layer in range(N_LAYER):
        blk = f"blk.{layer}"
        writer.add_tensor(f"{blk}.attn_norm.weight", np.ones(N_EMBD, dtype=f32))
        for name in ("attn_q", "attn_k", "attn_v", "attn_output"):  # attn_output zero: attention adds nothing
            writer.add_tensor(f"{blk}.{name}.weight", np.zeros((N_EMBD, N_EMBD), dtype=f32))
        writer.add_tensor(f"{blk}.ffn_norm.weight", np.ones(N_EMBD, dtype=f32))
        writer.add_tensor(f"{blk}.ffn_gate.weight", np.zeros((N_FF, N_EMBD), dtype=f32))
        writer.add_tensor(f"{blk}.ffn_up.weight", np.zeros((N_FF, N_EMBD), dtype=f32))
        writer.add_tensor(f"{blk}.ffn_down.weight", np.zeros((N_EMBD, N_FF), dtype=f32))  # zero: FFN adds nothing
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
