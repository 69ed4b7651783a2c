"""The builtins and itertools that reorder or combine short known sequences: `sorted`,
`reversed`, `itertools.product`, `itertools.chain` (sets only through `sorted`), and
`set` / `frozenset` of constants (for membership).

A hyper-parameter grid (`for T, H in itertools.product([127, 256], [4, 8]):`) or a
sweep in order (`for T in sorted(LENGTHS):`) runs each item in turn when the result is
a known list (the for loop unrolls it); anything not known stays unknown (probe 47c).
"""

from __future__ import annotations

import ast
import itertools
from typing import TYPE_CHECKING, cast

from jax_cudnn_lint.shape_inference import jax_api as A
from jax_cudnn_lint.shape_inference.values import UNKNOWN, InstanceV, IterV, SetV, TupleV, UnknownV, Value, const_value, int_value

if TYPE_CHECKING:
    from jax_cudnn_lint.shape_inference.interpreter import Frame, Interpreter

Args = list[Value]
Kwargs = dict[str, Value]

_MAX_ITEMS = 64  # the most items a combination is built with (a grid beyond is not unrolled anyway)
# the most combinations made (a loop runs 16 one by one; beyond, they are a length: 105
# voxels of `list(product(range(3), range(5), range(7)))`, probe 118b), as a list display's
_MAX_COMBINATIONS = 1024


def _items(value: Value) -> list[Value] | None:
    """The items of a known list or tuple (not a set's: CPython's order is the hash
    table's, not the display's, and a `break` makes the order matter: probe 48a)."""
    return A.known_items(value, _MAX_ITEMS)


def h_sorted(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`sorted(xs)` / `sorted(xs, reverse=True)` of known numbers or strings, or of tuples
    of numbers (BART's `sorted(spans)`: probe 75c) (of a set display too: sorted, its
    order is known)."""
    given = args[0] if len(args) == 1 and set(kwargs) <= {"reverse"} else None
    items = list(given.items) if isinstance(given, SetV) and len(given.items) <= _MAX_ITEMS else _items(given) if given is not None else None
    reverse = A.truth(kwargs["reverse"]) if "reverse" in kwargs else False
    if items is None or reverse is None:
        return UNKNOWN
    keyed: list[tuple[object, Value]] = []
    for item in items:
        ok, py = const_value(item)
        if not ok or not (_number_or_string(py) or _numbers(py)):
            return UNKNOWN
        keyed.append((py, item))
    if len({type(py) is str if not isinstance(py, tuple) else tuple for py, _ in keyed}) > 1:
        return UNKNOWN  # (numbers, strings and tuples: Python refuses to compare them)
    keyed.sort(key=lambda pair: pair[0], reverse=reverse)  # type: ignore[arg-type,return-value]
    return TupleV(tuple(item for _, item in keyed), True)


def h_set(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`frozenset({31, 127})`, `set(("a", "b"))`: a set of constants (SetV), as a set
    display is, for membership (probe 100b: a frozenset of evaluation-only lengths kept
    out of the gradient, `if t in frozenset({31})`); Unknown where an item is not a
    hashable constant."""
    if kwargs or len(args) > 1:
        return UNKNOWN
    given = args[0] if args else TupleV(())
    items = list(given.items) if isinstance(given, SetV) and len(given.items) <= _MAX_ITEMS else _items(given)
    if items is None:
        return UNKNOWN
    distinct: dict[tuple[type, object], Value] = {}
    for item in items:
        ok, py = const_value(item)
        if not ok:
            return UNKNOWN
        try:
            hash(py)
        except TypeError:
            return UNKNOWN  # (a list item: Python raises)
        distinct.setdefault((type(py), py), item)
    return SetV(tuple(distinct.values()), (interp.step(fr, node, A.src(node)),))


def _number(py: object) -> bool:
    return isinstance(py, (int, float)) and not isinstance(py, bool)


def _numbers(py: object) -> bool:
    """A tuple of numbers (compared item by item)."""
    return isinstance(py, tuple) and all(_number(part) for part in cast("tuple[object, ...]", py))


def _number_or_string(py: object) -> bool:
    return _number(py) or isinstance(py, str)


def h_reversed(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`reversed(xs)` of a known tuple, or of a list display (a named list may change
    before the lazy iterator reads it: probe 48a)."""
    displayed = isinstance(node, ast.Call) and len(node.args) == 1 and isinstance(node.args[0], (ast.List, ast.Tuple))
    items = A.known_items(args[0], _MAX_ITEMS) if len(args) == 1 and not kwargs and isinstance(args[0], TupleV) and (displayed or not args[0].is_list) else None
    return TupleV(tuple(reversed(items)), True) if items is not None else UNKNOWN


def h_product(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`itertools.product(a, b, ...)`: every combination, in order, as tuples."""
    if kwargs or not args:
        return UNKNOWN
    combos: list[tuple[Value, ...]] = [()]
    for given in args:
        items = _items(given)
        if items is None or len(combos) * len(items) > _MAX_COMBINATIONS:
            return UNKNOWN
        combos = [(*combo, item) for combo in combos for item in items]
    return TupleV(tuple(TupleV(combo) for combo in combos), True)


def h_combinations(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`itertools.combinations(range(6), 2)` (and `permutations`,
    `combinations_with_replacement`): every one, in order, as tuples (probe 103c: the 15 bond tokens of a 6-atom graph)."""
    given = args[0] if args else kwargs.get("iterable")
    size = args[1] if len(args) > 1 else kwargs.get("r")
    items = _items(given) if given is not None else None
    r = int_value(size) if size is not None else (len(items) if items is not None and q.endswith("permutations") else None)
    if items is None or r is None or r < 0 or set(kwargs) - {"iterable", "r"}:
        return UNKNOWN
    makers = {"combinations": itertools.combinations, "permutations": itertools.permutations, "combinations_with_replacement": itertools.combinations_with_replacement}
    picks = makers[q.rsplit(".", 1)[-1]](range(len(items)), r)
    combos = list(itertools.islice(picks, _MAX_COMBINATIONS + 1))
    if len(combos) > _MAX_COMBINATIONS:
        return UNKNOWN
    return TupleV(tuple(TupleV(tuple(items[i] for i in combo)) for combo in combos), True)


def h_islice(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`itertools.islice(batches, n)`: some of the items of an iterator, each what the
    iterator yields (probe 65a: a few batches of a data generator); of a known list,
    the items the literal bounds select."""
    if not args or kwargs or len(args) > 4:
        return UNKNOWN
    given = args[0]
    bounds = [None if const_value(b) == (True, None) else int_value(b) for b in args[1:]]
    items = _items(given)
    if items is not None and all(b is not None or const_value(raw) == (True, None) for b, raw in zip(bounds, args[1:])):
        window = slice(*bounds) if len(bounds) > 1 else slice(bounds[0] if bounds else None)
        return TupleV(tuple(items[window]), True)
    if isinstance(given, InstanceV) and not _takes_the_first(args[1:]):
        return UNKNOWN  # (its first item, which describes the object's next, is skipped: probe 99a)
    if isinstance(given, (IterV, InstanceV)):
        # (an object of ours: its first item, what `__next__` yields on its state now, is
        # one the loop certainly sees: probe 93e's loader)
        element = A.iter_element(interp, given, node, fr)
        return UNKNOWN if isinstance(element, UnknownV) else IterV(element, False, given.why)
    return UNKNOWN


def _takes_the_first(bounds: Args) -> bool:
    """`islice(it, stop)` / `islice(it, 0 or None, stop, ...)` with a stop of at least 1
    or None: the iterator's first item is among those taken."""
    start = bounds[0] if len(bounds) > 1 else None
    stop = bounds[1] if len(bounds) > 1 else bounds[0] if bounds else None
    ok_start, first = const_value(start) if start is not None else (True, None)
    ok_stop, last = const_value(stop) if stop is not None else (True, None)
    if not (ok_start and first in (None, 0)) or not ok_stop:
        return False
    return last is None or isinstance(last, int) and last >= 1


def h_chain(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`itertools.chain(a, b, ...)`: the items of each in turn."""
    chained: list[Value] = []
    for given in args:
        items = _items(given)
        if items is None or len(chained) + len(items) > _MAX_ITEMS or kwargs:
            return UNKNOWN
        chained.extend(items)
    return TupleV(tuple(chained), True)
