"""Evaluation harness: datasets with gold labels, metrics, baselines and the ``rt4chart eval`` CLI."""
