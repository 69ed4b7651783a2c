"""The same recursion headroom wherever the work runs.

Python's recursion limit counts the frames already on the stack, and both `ast.parse`
(building the tree of a deeply nested expression) and the interpreter (evaluating one)
recurse.  The command parses and analyses in the main process with `-j1` and in pool
workers otherwise, a few dozen frames deeper, so a file near the limit parsed in one and
failed in the other: the output depended on `-j`.  Each parse and each analysis run gets
a fixed number of frames above wherever it starts.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Generator
from contextlib import contextmanager

HEADROOM = 1000  # frames above the caller's: Python's default limit, as if called from the top


def _depth() -> int:
    frame = sys._getframe()  # pyright: ignore[reportPrivateUsage]
    depth = 0
    while frame is not None:
        depth += 1
        frame = frame.f_back
    return depth


@contextmanager
def headroom(frames: int = HEADROOM) -> Generator[None]:
    """Run the block with `frames` frames of recursion above the current depth."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(_depth() + frames)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def parse(text: str, filename: str) -> ast.Module:
    """`ast.parse` with the same headroom wherever it is called from."""
    with headroom():
        return ast.parse(text, filename=filename)
