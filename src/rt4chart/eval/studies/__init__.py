"""The papers' studies, reproduced with the product's code and kept apart from it: the RT4CHART ablations
(``ablate``, ``ablate_report``: ``rt4chart eval ablate``), the input-shape study (``shapes``: ``rt4chart eval run
--shape``) and the RAGScope protocol (``ragscope``: ``rt4chart triage eval``)."""
