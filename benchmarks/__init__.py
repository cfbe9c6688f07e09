"""Benchmarks, run from the repository root as ``python3 -m benchmarks.<name>`` (this file makes the folder a
regular package, which takes precedence over the ``benchmarks`` package that pysbd installs in site-packages)."""
