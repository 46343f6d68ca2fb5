"""The float64-reference check of every operation: :meth:`Session.verify`,
what ``vkstat verify`` does on one device."""

from __future__ import annotations

TYPE_CHECKING = False  # typing is imported by type checkers only: it costs a first import 5 ms
if TYPE_CHECKING:
    from typing import Sequence

    from ._results import VerifyReport
    from ._session import Session


def verify(self: Session, ops: str | Sequence[str] | None = None, precisions: str | Sequence[str] | None = None) -> VerifyReport:
    """Check every operation on this session's device against the
    float64 reference, as ``vkstat verify`` does.

    Parameters
    ----------
    ops : str or sequence of str, optional
        Operations or suites (``map``, ``reduce``, ``cov``, ``chol``,
        ``paco``, ...); by default every one.
    precisions : str or sequence of str, optional
        ``float32`` and/or ``float64``; by default both.

    Returns
    -------
    VerifyReport
        The rows (op, case, precision, status, max_err, nmse, tol,
        detail), the counts and ``ok``. A failed row does not raise.
    """
    if isinstance(ops, str):
        ops = [o for o in ops.split(",") if o.strip()]
    if isinstance(precisions, str):
        precisions = [p for p in precisions.split(",") if p.strip()]
    _, info, _ = self._run("verify", {"ops": list(ops or []), "precisions": list(precisions or [])}, {})
    from ._results import VerifyReport  # at the first call: its dataclasses cost an import 8 ms
    return VerifyReport(device=self.device, results=info.get("results") or [], passed=info["passed"],
                        failed=info["failed"], skipped=info["skipped"], seconds=info["seconds"],
                        version=info.get("vkstat_version", ""), info=info)
