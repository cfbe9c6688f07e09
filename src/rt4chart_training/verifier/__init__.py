"""The NLI claim verifier's training side (issue 25): the training pairs (``build``: NLI sets, RAGTruth train claims
against their premises, synthetic perturbations of RAGTruth train sentences), training, export to ONNX and
evaluation. Run each step as ``python3 -m rt4chart_training.verifier.<module>`` from the repository root (``build``,
``train``, ``export``, ``evaluate``, ``threshold``, ``loto``; the other modules are their parts); outputs go under
``.cache/verifier/``."""
