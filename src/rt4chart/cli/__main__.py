"""``python -m rt4chart.cli``: the ``rt4chart`` command."""

from . import main

main()
