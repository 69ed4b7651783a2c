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
import threading
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
    """`ast.parse` with the same headroom wherever it is called from.  Where it runs out,
    once more on a fresh thread: the caller's stack may hold C calls that `_depth()` does
    not count (a pool worker's), so a file near the limit parsed in one process and
    failed in another (probe 35b); a new thread starts at depth 0, so its answer is the
    same wherever it is asked, and never worse than the first try's."""
    try:
        with headroom():
            return ast.parse(text, filename=filename)
    except RecursionError:
        return _parse_on_a_fresh_stack(text, filename)


def _parse_on_a_fresh_stack(text: str, filename: str) -> ast.Module:
    found: list[ast.Module] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            with headroom():
                found.append(ast.parse(text, filename=filename))
        except BaseException as error:  # noqa: BLE001 (re-raised on the caller's thread)
            failed.append(error)

    worker = threading.Thread(target=run, name="jax-cudnn-lint-parse")
    worker.start()
    worker.join()
    if failed:
        raise failed[0]
    return found[0]
