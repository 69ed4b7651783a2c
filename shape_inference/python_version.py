"""Tests of the running Python's version (`sys.version_info >= (3, 10)`,
`sys.version_info[:2] >= (3, 8)`, `sys.version_info.minor >= 8`): decided where every
Python that runs a JAX the rules judge gives the same answer, so that a package
`__init__` importing its modules under such a guard runs them (probes 94a, 96d); else
Unknown.

The oldest such Python is 3.10 (JAX 0.4.31 and later need it; the rules' default JAX,
0.10.2, needs 3.11), and every later one counts: a test that a newer Python answers
otherwise stays Unknown."""

from __future__ import annotations

import ast
from typing import cast

from jax_cudnn_lint.shape_inference.values import UNKNOWN, ConstV, ExternalV, Value, const_value

OLDEST_PYTHON = (3, 10, 0)

# the parts of sys.version_info a left side holds, as the oldest Python gives them
_ATTRIBUTE_PARTS = {"sys.version_info.major": OLDEST_PYTHON[:1], "sys.version_info.minor": OLDEST_PYTHON[1:2]}


def version_parts(left_node: ast.expr, left: Value, base: Value | None) -> tuple[int, ...] | None:
    """The oldest Python's value of a comparison's left side where it is a part of
    `sys.version_info`: `.major`, `.minor`, `[0]`, `[1]`, `[:2]`, `[:3]` (`base` is the
    value of a subscript's receiver); None for anything else (the whole tuple included,
    which `version_check` decides)."""
    if isinstance(left, ExternalV) and left.qualname in _ATTRIBUTE_PARTS:
        return _ATTRIBUTE_PARTS[left.qualname]
    if not (isinstance(left_node, ast.Subscript) and isinstance(base, ExternalV) and base.qualname == "sys.version_info"):
        return None
    index = left_node.slice
    if isinstance(index, ast.Constant) and type(index.value) is int and 0 <= index.value < 2:
        return OLDEST_PYTHON[index.value : index.value + 1]
    if isinstance(index, ast.Slice) and index.step is None and _is_int(index.upper, range(1, 4)) and (index.lower is None or _is_int(index.lower, range(1))):
        upper = cast(int, cast("ast.Constant", index.upper).value)
        return OLDEST_PYTHON[:upper]
    return None


def _is_int(node: ast.expr | None, allowed: range) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value in allowed


def version_check(op: ast.cmpop, bound: Value, oldest_parts: tuple[int, ...] | None) -> Value:
    """`sys.version_info >= (3, 8)` (oldest_parts None: the whole tuple, longer than any
    bound) or a part of it against a bound: True or False where the oldest Python and
    every later one agree, else Unknown."""
    ok, given = const_value(bound)
    parts: tuple[object, ...] = (given,) if ok and type(given) is int else cast("tuple[object, ...]", given) if ok and isinstance(given, tuple) else ()
    numbers = tuple(part for part in parts if type(part) is int)
    if not numbers or len(numbers) != len(parts):
        return UNKNOWN
    if oldest_parts is None:
        # the whole tuple has more parts than a bound (3, 10, 0, 'final', 0): where its
        # first ones equal the bound, it is the greater
        at_least, greater = numbers <= OLDEST_PYTHON[: len(numbers)], numbers <= OLDEST_PYTHON[: len(numbers)]
    else:
        at_least, greater = oldest_parts >= numbers, oldest_parts > numbers
    # later Pythons are greater still: a lower bound the oldest passes, every one passes
    if isinstance(op, ast.GtE) and at_least or isinstance(op, ast.Gt) and greater:
        return ConstV(True)
    if isinstance(op, ast.Lt) and at_least or isinstance(op, ast.LtE) and greater:
        return ConstV(False)
    if isinstance(op, (ast.Eq, ast.NotEq)):
        # `sys.version_info[0] == 2`, `.minor == 8`: a value below the oldest is no
        # Python's; `.major == 3` every one's (probe 101a)
        same = False if greater else True if oldest_parts == OLDEST_PYTHON[:1] == numbers else None
        if same is not None:
            return ConstV(same if isinstance(op, ast.Eq) else not same)
    return UNKNOWN
