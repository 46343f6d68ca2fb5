"""The float64-reference check of every operation: :meth:`Session.verify`,
what ``vkstat verify`` does on one device."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from ._results import VerifyReport

if TYPE_CHECKING:
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
    return VerifyReport(device=self.device, results=info.get("results") or [], passed=info["passed"],
                        failed=info["failed"], skipped=info["skipped"], seconds=info["seconds"],
                        version=info.get("vkstat_version", ""), info=info)
