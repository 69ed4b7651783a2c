"""The argument rows a test framework calls a test function with.

A test analysed without a caller has unknown parameters, except where its decorators
say what it is called with: `pytest.mark.parametrize` (stacked marks are crossed),
absl's `parameterized.parameters` / `named_parameters` / `product`, and hypothesis'
`@example` (each one is run, besides the generated inputs, which stay unknown).  Each
row binds the parameters it names; the analysis runs the test once per row.  A test
that a skip decorator certainly skips is not run at all.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING

from jax_cudnn_lint.shape_inference.values import UNKNOWN, ClassV, DictV, ExternalV, FunctionV, TupleV, Value, const_value

if TYPE_CHECKING:
    import ast

    from jax_cudnn_lint.shape_inference.identity import IdentityTable

Row = dict[str, Value]
Truth = Callable[[Value], "bool | None"]  # a skip or xfail condition's truth (None: not known)
# (decorator, its args, its kwargs, whether it decorates a method: positional values
# then start after `self`)
Mark = tuple[str, list[Value], dict[str, Value], bool]

PYTEST = "pytest.mark.parametrize"
ABSL = "absl.testing.parameterized."
ABSL_DECORATORS = frozenset({ABSL + "parameters", ABSL + "named_parameters", ABSL + "product"})
EXAMPLE = "hypothesis.example"
# decorators that skip a test: always, or when their first argument is true (false for
# skipUnless).  A skipped test never runs, so nothing in it is analysed
XFAIL = "pytest.mark.xfail"
XFAIL_PARAM = "pytest.param.xfail"  # a row with an xfail mark: its values and the mark
EXPECTED = "<xfail>"  # the row key that holds a row's xfail mark (not a parameter name)
SKIP_ALWAYS = frozenset({"pytest.mark.skip", "unittest.skip", XFAIL, "unittest.expectedFailure"})
SKIP_WHEN = {"pytest.mark.skipif": True, "unittest.skipIf": True, "unittest.skipUnless": False}
GIVEN = "hypothesis.given"
SAMPLED = "hypothesis.strategies.sampled_from"  # a strategy over a literal list (CallResultV)
RECORDED = ABSL_DECORATORS | SKIP_ALWAYS | set(SKIP_WHEN) | {PYTEST, EXAMPLE, GIVEN}
MAX_ROWS = 16
MAX_SAMPLED = 8  # values of a sampled_from that hypothesis is taken to draw each of


def record(table: IdentityTable[ast.AST, list[Mark]], qualname: str, args: list[Value], kwargs: dict[str, Value], func: Value, in_class: bool) -> None:
    """Keep a row-giving or skipping decorator of a def (or a skip of a class)."""
    if qualname not in RECORDED:
        return
    if isinstance(func, FunctionV):
        node: ast.AST = func.node
    elif isinstance(func, ClassV) and (qualname in SKIP_ALWAYS or qualname in SKIP_WHEN):
        node = func.node
    else:
        return
    marks = table.get(node)
    if marks is None:
        marks = table[node] = []
    marks.append((qualname, args, kwargs, in_class))


def record_class_decorator(table: IdentityTable[ast.AST, list[Mark]], decorator: Value, cls: Value) -> None:
    """`@unittest.skip(...)` / `@pytest.mark.skip` on a test class."""
    from jax_cudnn_lint.shape_inference.jax_api import ExtCallDecoratorV

    if isinstance(decorator, ExtCallDecoratorV):
        record(table, decorator.qualname, decorator.args, decorator.kwargs, cls, False)
    elif isinstance(decorator, ExternalV):
        record(table, decorator.qualname, [], {}, cls, False)


def constant_truth(condition: Value) -> bool | None:
    """A skip condition's truth where it is a constant; None where it is not known."""
    ok, value = const_value(condition)
    return bool(value) if ok and isinstance(value, (bool, int)) else None


def module_marks(namespace: dict[str, Value]) -> list[Mark]:
    """The marks `pytestmark = ...` (one, or a list) puts on every test of a module or class."""
    from jax_cudnn_lint.shape_inference.jax_api import ExtCallDecoratorV

    marks = namespace.get("pytestmark")
    found: list[Mark] = []
    for mark in marks.items if isinstance(marks, TupleV) else (marks,) if marks is not None else ():
        if isinstance(mark, ExternalV):
            found.append((mark.qualname, [], {}, False))
        elif isinstance(mark, ExtCallDecoratorV):
            found.append((mark.qualname, mark.args, mark.kwargs, False))
    return found


def module_skipped(namespace: dict[str, Value], truth: Truth = constant_truth, xfail_runs: bool = False) -> bool:
    """`pytestmark = pytest.mark.skip(...)` (or a list holding one) skips the module."""
    return any(skips(qualname, args, kwargs, truth, xfail_runs) for qualname, args, kwargs, _ in module_marks(namespace))


def skipped(table: IdentityTable[ast.AST, list[Mark]], node: ast.AST, truth: Truth = constant_truth, xfail_runs: bool = False) -> bool:
    """A skip decorator of this def or class certainly skips it."""
    return any(skips(qualname, args, kwargs, truth, xfail_runs) for qualname, args, kwargs, _ in table.get(node) or ())


def skips(qualname: str, args: list[Value], kwargs: dict[str, Value], truth: Truth = constant_truth, xfail_runs: bool = False) -> bool:
    """Does this decorator certainly skip the test (or mark it as expected to fail)?
    With `xfail_runs`, an xfail skips only with `run=False` (the caller then reads what
    it expects as a handler: xfail_condition_holds)."""
    if qualname == XFAIL and xfail_runs:
        run = kwargs.get("run")
        return run is not None and truth(run) is False and xfail_condition_holds(args, kwargs, truth)
    if qualname in SKIP_ALWAYS:
        return True
    when = SKIP_WHEN.get(qualname)
    conditions = _conditions(args, kwargs)
    if when is None or not conditions:
        return False
    if qualname == "pytest.mark.skipif":
        return any(truth(condition) is True for condition in conditions)  # `skipif(a, b)`: any (probe 40a)
    return truth(conditions[0]) is when


def _conditions(args: list[Value], kwargs: dict[str, Value]) -> list[Value]:
    """A skipif's or xfail's conditions: pytest takes several, positionally."""
    condition = kwargs.get("condition")
    return list(args) if args else [condition] if condition is not None else []


def xfail_condition_holds(args: list[Value], kwargs: dict[str, Value], truth: Truth) -> bool:
    """An xfail mark applies unless each of its conditions is certainly false."""
    conditions = _conditions(args, kwargs)
    return not conditions or any(truth(condition) is not False for condition in conditions)


def rows(table: IdentityTable[ast.AST, list[Mark]], func: FunctionV) -> list[Row] | None:
    """The rows `func` is called with, when its decorators give them; None: no such
    decorator, or one the analysis cannot read (the test then runs once, unknown)."""
    marks = table.get(func.node)
    if not marks:
        return None
    crossed: list[Row] = [{}]
    listed: list[Row] = []  # rows run as they are, one test each
    for qualname, args, kwargs, in_class in marks:
        if qualname in SKIP_ALWAYS or qualname in SKIP_WHEN:
            continue
        if qualname == PYTEST:
            mark_rows = _pytest_rows(args, kwargs)
            if mark_rows is None:
                return None
            crossed = [{**a, **b} for a in crossed for b in mark_rows][:MAX_ROWS]
            continue
        names = _positional_names(func, in_class)
        if qualname == GIVEN:
            listed.extend(_sampled_rows(names, args, kwargs))
            continue
        if qualname == EXAMPLE:
            row = _bind(names, args, kwargs)
            if row is None:
                return None
            listed.append(row)
            continue
        absl_rows = _absl_rows(qualname, args, kwargs, names)
        if absl_rows is None:
            return None
        listed.extend(absl_rows)
    if listed:
        return [{**a, **b} for a in crossed for b in listed][:MAX_ROWS]
    return crossed


def _sampled_rows(names: list[str], args: list[Value], kwargs: dict[str, Value]) -> list[Row]:
    """`@given(seq_len=st.sampled_from([128, 255]))`: hypothesis draws each of a few
    listed values (probe 53b), one run each; crossed where several parameters are
    sampled.  A parameter of another strategy is left out of the rows (unknown); none when
    nothing is sampled (the generated runs are then the test's own unknown run)."""
    from jax_cudnn_lint.shape_inference.jax_api import CallResultV

    strategies = {**dict(zip(names[len(names) - len(args):] if args else [], args)), **kwargs}
    crossed: list[Row] = [{}]
    for name, strategy in strategies.items():
        if isinstance(strategy, CallResultV) and strategy.qualname == SAMPLED and isinstance(strategy.payload, TupleV) and 0 < len(strategy.payload.items) <= MAX_SAMPLED:
            crossed = [{**row, name: value} for row in crossed for value in strategy.payload.items][:MAX_ROWS]
    return crossed if crossed != [{}] else []


def _pytest_rows(args: list[Value], kwargs: dict[str, Value]) -> list[Row] | None:
    names_v = args[0] if args else kwargs.get("argnames")
    values_v = args[1] if len(args) > 1 else kwargs.get("argvalues")
    ok, names = const_value(names_v) if names_v is not None else (False, None)
    if not ok or values_v is None:
        return None
    if isinstance(names, str):
        name_list = [n.strip() for n in names.split(",") if n.strip()]
    elif isinstance(names, (list, tuple)) and all(isinstance(n, str) for n in names):  # type: ignore[union-attr]
        name_list = [str(n) for n in names]  # type: ignore[union-attr]
    else:
        return None
    if not isinstance(values_v, TupleV):
        return None
    indirect = _indirect(kwargs.get("indirect"), name_list)
    mark_rows: list[Row] = []
    for entry in values_v.items:
        if _skipped_param(entry):
            continue
        expected = _xfail_of(entry)
        entry = _unwrap_param(entry)
        if len(name_list) == 1:
            row = {name_list[0]: entry}
        elif isinstance(entry, TupleV) and len(entry.items) == len(name_list):
            row = dict(zip(name_list, entry.items))
        else:
            row = {n: UNKNOWN for n in name_list}
        row = {n: UNKNOWN if n in indirect else v for n, v in row.items()}
        mark_rows.append({**row, EXPECTED: expected} if expected is not None else row)
    return mark_rows


def _xfail_of(entry: Value) -> Value | None:
    """The xfail mark of a `pytest.param(..., marks=pytest.mark.xfail(...))` row."""
    from jax_cudnn_lint.shape_inference.jax_api import CallResultV

    if isinstance(entry, CallResultV) and entry.qualname == XFAIL_PARAM and isinstance(entry.payload, TupleV):
        return entry.payload.items[1]
    return None


def _indirect(value: Value | None, names: list[str]) -> set[str]:
    """The argnames `indirect=` hands to fixtures (`request.param`) rather than to the
    test: the test gets what the fixture makes of the value, which is not followed."""
    if value is None:
        return set()
    ok, flag = const_value(value)
    if ok and (flag is None or flag is False):
        return set()
    if ok and isinstance(flag, (list, tuple)) and all(isinstance(n, str) for n in flag):  # type: ignore[union-attr]
        return {str(n) for n in flag}  # type: ignore[union-attr]
    return set(names)  # True, or a value we cannot read


def _skipped_param(entry: Value) -> bool:
    from jax_cudnn_lint.shape_inference.jax_api import CallResultV

    return isinstance(entry, CallResultV) and entry.qualname == "pytest.param.skipped"


def _unwrap_param(entry: Value) -> Value:
    from jax_cudnn_lint.shape_inference.jax_api import CallResultV

    if isinstance(entry, CallResultV) and entry.qualname == XFAIL_PARAM and isinstance(entry.payload, TupleV) and isinstance(values := entry.payload.items[0], TupleV):
        entry = CallResultV("pytest.param", values)
    if isinstance(entry, CallResultV) and entry.qualname == "pytest.param" and isinstance(entry.payload, TupleV):
        items = entry.payload.items
        return items[0] if len(items) == 1 else TupleV(items)
    return entry


def _positional_names(func: FunctionV, in_class: bool) -> list[str]:
    node = func.node
    names = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
    return names[1:] if in_class and names else names


def _bind(names: list[str], args: tuple[Value, ...] | list[Value], kwargs: dict[str, Value] | tuple[tuple[object, Value], ...]) -> Row | None:
    """One call's values by parameter name; None where they do not fit the signature."""
    if len(args) > len(names):
        return None
    row: Row = dict(zip(names, args))
    for key, value in kwargs.items() if isinstance(kwargs, dict) else kwargs:
        if not isinstance(key, str) or key in row:
            return None
        row[key] = value
    return row


def _absl_rows(qualname: str, args: list[Value], kwargs: dict[str, Value], names: list[str]) -> list[Row] | None:
    """absl's parameterized: each test case a tuple (positional), a dict (keywords) or
    one value (a test of one parameter); named_parameters' cases also carry a name
    (a tuple's first item, or the dict's "testcase_name"); product crosses lists."""
    if qualname == ABSL + "product":
        return _absl_product(args, kwargs)
    if kwargs:
        return None
    cases: list[Value] = list(args)
    if len(cases) == 1 and not isinstance(cases[0], DictV) and not (isinstance(cases[0], TupleV) and not cases[0].is_list):
        # one iterable of test cases
        if not isinstance(cases[0], TupleV):
            return None
        cases = list(cases[0].items)
    out: list[Row] = []
    named = qualname == ABSL + "named_parameters"
    for case in cases:
        if isinstance(case, DictV):
            items = tuple((k, v) for k, v in case.items if not (named and k == "testcase_name"))
            row = _bind(names, [], items)
        elif isinstance(case, TupleV) and not case.is_list:
            values = case.items[1:] if named else case.items
            row = _bind(names, list(values), {})
        elif named:
            return None
        else:
            row = _bind(names, [case], {})
        if row is None:
            return None
        out.append(row)
    return out[:MAX_ROWS]


def _absl_product(args: list[Value], kwargs: dict[str, Value]) -> list[Row] | None:
    if args:
        return None
    choices: list[list[tuple[str, Value]]] = []
    for name, values in kwargs.items():
        if not isinstance(values, TupleV) or not values.items:
            return None
        choices.append([(name, v) for v in values.items])
    out = [dict(combination) for combination in itertools.islice(itertools.product(*choices), MAX_ROWS)]
    return out or None

