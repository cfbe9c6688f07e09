"""The claim verifier: an ONNX cross-encoder (fine-tuned from all-MiniLM-L6-v2 by ``rt4chart_training.verifier``)
that reads a claim against its premise, the evidence sentences most related to it (``evidence.premise``), and gives
P(entailment), P(contradiction), P(neutral). ``Verifier`` runs a model folder (``model``); ``verify_claims`` builds
each claim's premise from an ``EvidenceIndex`` and runs it; ``VerifierJudge`` (``judge``, ``--judge verifier``) is
the judge built on it. Runtime: numpy, onnxruntime and tokenizers only."""

from .judge import VerifierJudge
from .model import CARD, LABELS, MODEL, TOKENIZER, Verifier, encode_pairs, is_available, read_card
from .verify import premises, verify_claims

__all__ = ["CARD", "LABELS", "MODEL", "TOKENIZER", "Verifier", "VerifierJudge", "encode_pairs", "is_available",
           "premises", "read_card", "verify_claims"]
