"""The one record every layer passes around: what was found, where, and why.

A finding carries its own proof: `evidence` is the derivation of every value the
verdict used (each step with its line), `repro` a JSON object that the kernels can
run with nothing else (present only when every value it needs was resolved).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Location:
    """A place in a file that a finding's evidence chain passes through."""

    path: str
    line: int
    col: int = 0
    note: str = ""


@dataclass(frozen=True)
class Finding:
    """One violation. `col` is 0-based (as in `ast`); adapters add 1 where a tool wants it."""

    code: str
    path: str
    line: int
    col: int
    message: str
    evidence: tuple[str, ...] = ()
    repro: dict[str, Any] | None = None
    related: tuple[Location, ...] = field(default=())

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.line, self.col, self.code)

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "path": self.path,
            "line": self.line,
            "col": self.col + 1,
            "message": self.message,
            "evidence": list(self.evidence),
            "repro": self.repro,
            "related": [
                {"path": r.path, "line": r.line, "col": r.col + 1, "note": r.note}
                for r in self.related
            ],
        }
