"""The audit's settings are one dataclass of option fields (``AuditConfig``): ``Auditor`` and ``build_auditor`` take
it or its fields by name, refuse what it does not have, and only the settings that decide verdicts reach the judge
fingerprint."""

import pytest

from rt4chart import Auditor, AuditConfig, ConfigError, LexicalJudge
from rt4chart.judges.registry import build_auditor


def test_the_auditor_takes_the_config_or_its_fields_over_it():
    assert Auditor(judge=LexicalJudge()).config == AuditConfig()
    given = Auditor(judge=LexicalJudge(), config=AuditConfig(window=5, overlap=1), prefilter=True)
    assert (given.config.window, given.config.overlap, given.config.prefilter) == (5, 1, True)


@pytest.mark.parametrize("kw, said", [(dict(windw=5), "unknown audit setting: windw"),
                                      (dict(window=3, overlap=3), "must be smaller"),
                                      (dict(concurrency=0), "concurrency must be >= 1")])
def test_a_setting_it_lacks_or_a_bad_value_is_refused(kw, said):
    with pytest.raises(ConfigError, match=said):
        Auditor(judge=LexicalJudge(), **kw)


def test_records_in_flight_do_not_change_the_fingerprint_and_w_does():
    base = build_auditor("lexical").fingerprint
    assert build_auditor("lexical", concurrency=2).fingerprint == base
    assert build_auditor("lexical", window=12).fingerprint != base
    assert AuditConfig().verdict_settings() == {"window": 25, "overlap": 10, "global_verification": True,
                                                "prefilter": False}
