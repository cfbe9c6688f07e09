"""The Judge protocol, re-exported where users look for it; it is defined in ``rt4chart.audit.protocols``, beside
the auditor that calls it (the audit layer sits below the judges that implement it)."""

from __future__ import annotations

from ..audit.protocols import Judge

__all__ = ["Judge"]
