"""Measurements behind the shipped settings, on RAGTruth train's validation slice or on an eval run (never tuned on
test); each prints a table and changes nothing. Run from the repository root as
``python3 -m training.experiments.<name>`` (``--help`` for the options):

- ``validation_variants``: the default local judge, or a variant of it, through the full pipeline;
- ``semantic_cascade``: how often the local judge's tagger can be skipped;
- ``subjectless_claims``: how many rule-decomposer claims are verb phrases without a subject;
- ``one_edit_fires``: how often ``rt4chart.evidence.one_edit`` fires, and on gold hallucinations;
- ``claim_calibration``: the reliability table of a judge's claim scores from an eval run;
- ``hand_cases``: hand-written first-try answers about one short context;
- ``tune_lexical_judge``: the lexical judge's thresholds, chosen on a train sample.
"""
