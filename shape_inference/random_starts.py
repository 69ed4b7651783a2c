"""Slices at a random start that the start's own bound keeps inside the array.

Python clamps a slice at the end of its array, so `data[i:i + n]` is n long only when
`i + n <= len(data)`; the analysis does not know i.  Data loaders draw i so that it holds
(nanoGPT's `get_batch` and its ports, replay buffers; probes 57b, 63b, 64c, 66b):

    ix = np.random.randint(len(data) - block_size, size=(batch_size,))
    x = np.stack([data[i:i + block_size] for i in ix])
    y = np.stack([data[i + 1:i + 1 + block_size] for i in ix])

The window is n long when the start is the target of the comprehension or loop around
the slice, iterating over the draw (or a name bound once to it), or a name its function
binds once to a draw of one start, and the draw is
`randint(high)` / `randint(low, high, ...)` (NumPy's, or a Generator's `integers`) or
`jax.random.randint(key, shape, minval, maxval)` with `low >= 0` and `high` written as
`len(data) - m` (or `data.shape[k] - m` for the axis k sliced) of the very array sliced, with
`offset + n <= m + 1`.  Every start of `range(low, high, stride)` / `np.arange` (a
forecaster's lookback windows, probe 118b) counts as a draw in [low, high); the high may
be a name the function binds once (`n = len(series) - lookback - horizon + 1`), and the
offset any ints (`series[s + lookback:s + lookback + horizon]`).  Everything here is
read from the code as written; where any of it is not certain the length stays unknown:
the start, the draw, the array and the names of the bound are bound once, or not again
after the draw (probe 67a).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jax_cudnn_lint.shape_inference.values import const_value, int_value

if TYPE_CHECKING:
    from jax_cudnn_lint.shape_inference.interpreter import Frame, Interpreter


def window_length(interp: Interpreter, sliced: ast.expr, part: ast.Slice, axis_index: int, axis: int | None, fr: Frame) -> int | None:
    """The length of `sliced[..., part, ...]` on its axis `axis_index` (`axis` long where
    known) where the bound of a random start proves it, else None."""
    if part.lower is None or part.upper is None or part.step is not None:
        return None
    start, offsets = _name_and_offsets(part.lower)
    added = _added_terms(part.lower, part.upper)
    if start is None or not added:
        return None  # (read from the code alone, before anything is evaluated or searched)
    path = _path_to(fr.module.tree, part)
    function = next((node for node in reversed(path or []) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
    draw = _draw_iterated_by(path, start) if path is not None else None
    if draw is None or function is None:
        return None
    lengths = [int_value(interp.ev(term, fr)) for term in added]
    shifts = [int_value(interp.ev(term, fr)) for term in offsets]
    bounds = _bounds(interp, draw, fr)
    if bounds is None or any(n is None for n in lengths) or any(n is None or n < 0 for n in shifts):
        return None
    length = sum(n for n in lengths if n is not None)
    offset = sum(n for n in shifts if n is not None)
    low, high, inclusive, may_be_empty = bounds
    if length < 0:
        return None
    low_value = 0 if low is None else int_value(interp.ev(low, fr))
    if low_value is None or low_value < 0:
        return None
    # a bound held by a name the function binds once (`n = len(series) - lookback -
    # horizon + 1; for s in range(0, n, stride)`, probe 118b), read as written there
    named = _assigned_expression(function, high.id) if isinstance(high, ast.Name) else None
    # what the draw measured is what is sliced: neither the array nor the names of the
    # bound are bound again after the draw (probe 67a: `data = data[MAGIC:]`)
    measured = [node.id for part_read in (high, sliced, *((low,) if low is not None else ()), *((named,) if named is not None else ())) for node in ast.walk(part_read) if isinstance(node, ast.Name)]
    if any(line > draw.lineno for name in measured for line in _writes(function, name)) or _stored_as_attribute_after(function, sliced, draw.lineno):
        return None
    last = 0 if inclusive else 1  # (the high itself is drawn only where inclusive)
    margin = _margin_below_length_of(interp, named if named is not None else high, sliced, axis_index, fr)
    if margin is not None:
        if may_be_empty and (axis is None or axis - margin <= low_value):
            return None  # (jax.random.randint gives minval from an empty range: probe 67a)
        # the start is at most len - margin - 1: the window ends by len
        return length if offset + length <= margin + last else None
    top = int_value(interp.ev(high, fr))
    if top is not None and axis is not None and top > low_value:
        return length if top - last + offset + length <= axis else None  # (`integers(0, 800)` of 1000 rows)
    return None


def _stored_as_attribute_after(function: ast.FunctionDef | ast.AsyncFunctionDef, sliced: ast.expr, line: int) -> bool:
    """`self.tokens = ...` after the draw, where `self.tokens` is sliced."""
    if not isinstance(sliced, ast.Attribute):
        return False
    dumped = ast.dump(sliced.value), sliced.attr
    return any(
        isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and (ast.dump(node.value), node.attr) == dumped and node.lineno > line
        for node in ast.walk(function)
    )


def _name_and_offsets(expr: ast.expr) -> tuple[str | None, list[ast.expr]]:
    """`i` -> ("i", []); `i + 1` -> ("i", [1]); `s + lookback` -> ("s", [lookback]):
    the start's name, first, and the terms added to it (ints when evaluated)."""
    terms = _addends(expr)
    first = terms[0]
    return (first.id, terms[1:]) if isinstance(first, ast.Name) else (None, [])


def _assigned_expression(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> ast.expr | None:
    """What the function binds `name` to, once and nowhere else (no other binding or
    write into it)."""
    assigns = [stmt for stmt in ast.walk(function) if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == name]
    return assigns[0].value if len(assigns) == 1 and _stores(function, name) == 1 else None


def _added_terms(lower: ast.expr, upper: ast.expr) -> list[ast.expr]:
    """The terms an upper bound adds to the lower one (`i + n`, `n + i`, `i + 1 + n` of
    `i + 1`, `s + n + 1`); empty where it is not written so."""
    rest = _addends(upper)
    for term in _addends(lower):
        dumped = ast.dump(term)
        match = next((i for i, other in enumerate(rest) if ast.dump(other) == dumped), None)
        if match is None:
            return []
        del rest[match]
    return rest


def _addends(expr: ast.expr) -> list[ast.expr]:
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return [*_addends(expr.left), *_addends(expr.right)]
    return [expr]


def _draw_iterated_by(path: list[ast.AST], name: str) -> ast.Call | None:
    """The draw `name` iterates over: the comprehension or `for` loop around the slice
    (the last node of `path`) that binds it, over the draw itself or over a name its
    function assigns once to the draw; or the draw its function assigns it to once."""
    for depth in range(len(path) - 1, -1, -1):
        node = path[depth]
        iterable: ast.expr | None = None
        if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)) and len(node.generators) == 1:
            loop = node.generators[0]
            iterable = loop.iter if isinstance(loop.target, ast.Name) and loop.target.id == name and not loop.ifs else None
        elif isinstance(node, ast.For) and path[depth + 1] in node.body:
            function = next((outer for outer in reversed(path[:depth]) if isinstance(outer, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
            bound_once = function is not None and _stores(function, name) == 1  # (`i = i + HEADER` in the body: probe 67a)
            iterable = node.iter if isinstance(node.target, ast.Name) and node.target.id == name and bound_once else None
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # no loop binds it: one draw the function assigns it to (`s = rng.integers(0,
            # len(corpus) - n - 1)`; probe 66a)
            return _assigned_once(path[: depth + 1], name)
        elif isinstance(node, (ast.Lambda, ast.ClassDef)):
            return None  # (not bound in this function: not followed)
        else:
            continue
        if iterable is None:
            return None
        if isinstance(iterable, ast.Call):
            return iterable
        if isinstance(iterable, ast.Name):
            return _assigned_once(path[:depth], iterable.id)
        return None
    return None


def _assigned_once(outer: list[ast.AST], name: str) -> ast.Call | None:
    """The call the innermost enclosing function assigns `name` to, once and nowhere else."""
    function = next((node for node in reversed(outer) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
    value = _assigned_expression(function, name) if function is not None else None
    return value if isinstance(value, ast.Call) else None  # (written into too, `ix[ix < HEADER] = HEADER`: probe 67a)


def _stores(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> int:
    """How many times the function binds `name` or writes into it."""
    return len(_writes(function, name))


def _writes(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> list[int]:
    """The lines where the function binds `name` (a parameter, an assignment, a loop
    target) or writes into it (`name[...] = `, `ix[ix < 0] = 0`)."""
    lines: list[int] = []
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, (ast.Store, ast.Del)):
            lines.append(node.lineno)
        elif isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)) and isinstance(node.value, ast.Name) and node.value.id == name:
            lines.append(node.lineno)
        elif isinstance(node, ast.arg) and node.arg == name:
            lines.append(node.lineno)
    return lines


def _bounds(interp: Interpreter, draw: ast.Call, fr: Frame) -> tuple[ast.expr | None, ast.expr, bool, bool] | None:
    """(low, high, inclusive, may_be_empty) of a draw of integers in [low, high) (or
    [low, high] where `inclusive`: the standard library's `random.randint`, NumPy's
    `endpoint=True`); low None for 0.  NumPy and the standard library raise for an empty
    range; `jax.random.randint` gives its minval (`may_be_empty`).  The function is the
    one the analysis resolves the call to."""
    func = interp.ev(draw.func, fr)
    held = getattr(func, "func", func)  # (a bound method: `rng.integers`)
    qualname = str(getattr(held, "qualname", ""))
    keywords = {k.arg: k.value for k in draw.keywords if k.arg is not None}
    args = [a for a in draw.args if not isinstance(a, ast.Starred)]
    if len(args) != len(draw.args) or len(keywords) != len(draw.keywords):
        return None
    if qualname == "jax.random.randint":  # (key, shape, minval, maxval)
        low = keywords.get("minval", args[2] if len(args) > 2 else None)
        high = keywords.get("maxval", args[3] if len(args) > 3 else None)
        return (low, high, False, True) if high is not None else None
    stdlib = qualname.replace("random.Random.", "random.", 1)  # (a seeded `random.Random(0)`)
    if stdlib in ("random.randint", "random.randrange"):
        if len(args) == 2 and not keywords:
            return args[0], args[1], stdlib == "random.randint", False
        return (None, args[0], False, False) if stdlib == "random.randrange" and len(args) == 1 and not keywords else None
    if qualname in ("builtins.range", "numpy.arange", "jax.numpy.arange") and not keywords and 1 <= len(args) <= 3:
        # every start of `range(0, n, stride)` in order (sliding windows): [low, high)
        step = int_value(interp.ev(args[2], fr)) if len(args) == 3 else 1
        if step is None or step <= 0:
            return None
        return (args[0], args[1], False, False) if len(args) > 1 else (None, args[0], False, False)
    if not qualname.endswith(("numpy.random.randint", "numpy.random.RandomState.randint", ".integers")):
        return None
    inclusive = False
    if "endpoint" in keywords:
        ok, endpoint = const_value(interp.ev(keywords.pop("endpoint"), fr))
        if not ok or not isinstance(endpoint, bool):
            return None
        inclusive = endpoint
    # NumPy: randint(high) / randint(low, high, size); Generator.integers(low, high, size)
    if "high" in keywords:
        return keywords.get("low", args[0] if args else None), keywords["high"], inclusive, False
    if len(args) >= 2:
        return args[0], args[1], inclusive, False
    if len(args) == 1 and "low" not in keywords:
        return None, args[0], inclusive, False
    return None


def _margin_below_length_of(interp: Interpreter, high: ast.expr, array: ast.expr, axis_index: int, fr: Frame) -> int | None:
    """m of `len(array) - a - b ...` (for axis 0) or `array.shape[axis_index] - ...`, the
    sum of ints the analysis knows; `array` is the very expression sliced (probe 67a:
    `docs[:, s:s + n]` below `docs.shape[1] - n`)."""
    terms: list[ast.expr] = []
    added: list[ast.expr] = []  # (`len(x) - n + 1`: the last start is len - n)
    while isinstance(high, ast.BinOp) and isinstance(high.op, (ast.Sub, ast.Add)):
        (terms if isinstance(high.op, ast.Sub) else added).append(high.right)
        high = high.left
    target = ast.dump(array)
    of_array = (
        axis_index == 0 and isinstance(high, ast.Call) and isinstance(high.func, ast.Name) and high.func.id == "len" and len(high.args) == 1 and ast.dump(high.args[0]) == target
    ) or (
        isinstance(high, ast.Subscript) and isinstance(high.value, ast.Attribute) and high.value.attr == "shape"
        and ast.dump(high.value.value) == target and isinstance(high.slice, ast.Constant) and type(high.slice.value) is int and high.slice.value == axis_index
    )
    if not terms or not of_array:
        return None
    values = [int_value(interp.ev(term, fr)) for term in terms]
    plus = [int_value(interp.ev(term, fr)) for term in added]
    if not all(v is not None and v >= 0 for v in (*values, *plus)):
        return None
    return sum(v for v in values if v is not None) - sum(v for v in plus if v is not None)


def _path_to(tree: ast.AST, target: ast.AST) -> list[ast.AST] | None:
    """The nodes from `tree` down to `target` (both included)."""
    stack: list[tuple[ast.AST, list[ast.AST]]] = [(tree, [tree])]
    while stack:
        node, path = stack.pop()
        if node is target:
            return path
        for child in ast.iter_child_nodes(node):
            stack.append((child, [*path, child]))
    return None
