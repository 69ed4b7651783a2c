"""`# noqa` comments, read as flake8 reads them, so that the command and the plugin
report the same findings: a bare `# noqa` on the reported line silences every finding
there, `# noqa: JCD201,JCD202` (or a prefix, `# noqa: JCD2`) those codes only."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from jax_cudnn_lint.finding import Finding

# flake8's pattern (flake8/defaults.py NOQA_INLINE_REGEXP), case-insensitive as there; the
# codes it lists are then compared as written (`# noqa: jcd202` silences nothing)
_NOQA = re.compile(r"# noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?", re.IGNORECASE)


def suppresses(line: str, code: str) -> bool:
    """Does a `# noqa` comment on `line` silence `code`, as flake8 decides it?"""
    match = _NOQA.search(line) if "noqa" in line.lower() else None
    if match is None:
        return False
    codes = match.group("codes")
    if codes is None:
        return True
    listed = {part for part in re.split(r"[,\s]", codes) if part}
    return code in listed or code.startswith(tuple(listed))


def unsuppressed(findings: Sequence[Finding], line_of: Callable[[str, int], str | None]) -> list[Finding]:
    """The findings no `# noqa` comment on their line silences."""
    kept: list[Finding] = []
    for finding in findings:
        line = line_of(finding.path, finding.line)
        if line is None or not suppresses(line, finding.code):
            kept.append(finding)
    return kept
