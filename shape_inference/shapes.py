"""Shape rules of array operations: indexing, reshape, layout, einsum, matmul,
concatenation, splitting, padding and broadcasting.

Each rule returns a shape whose dimensions carry a provenance step naming the
operation and its line, so a finding can say "T = 511 = 512 - 1 (tokens[:, :-1])".
A rule that cannot be certain returns Unknown dimensions, never a guess.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from jax_cudnn_lint.shape_inference import dims as D
from jax_cudnn_lint.shape_inference import random_starts
from jax_cudnn_lint.shape_inference.dims import Dim, Step
from jax_cudnn_lint.shape_inference.dtypes import is_float, promote
from jax_cudnn_lint.shape_inference.values import (
    UNKNOWN,
    ArrayV,
    ConstV,
    FloatV,
    IntV,
    OpaqueV,
    SliceV,
    TupleV,
    UnknownV,
    Value,
    any_diff,
    const_value,
    int_value,
)
from jax_cudnn_lint.shape_inference.dims import merge_why

if TYPE_CHECKING:
    from jax_cudnn_lint.shape_inference.interpreter import Frame, Interpreter

Shape = tuple[Dim, ...]


def _src(node: ast.AST) -> str:
    try:
        text = ast.unparse(node)
    except Exception:
        return "?"
    return text if len(text) <= 60 else text[:57] + "..."


def _step(interp: Interpreter, fr: Frame, node: ast.AST, text: str) -> Step:
    return interp.step(fr, node, text)


def result(arr: ArrayV | None, shape: Shape | None, dtype: str | None, diff: bool, why: D.Why = ()) -> ArrayV:
    return ArrayV(shape, dtype, diff, merge_why(arr.why if arr is not None else (), why))


class SymShapeV(Value):
    """`x.shape` of an array of unknown rank: its entries are symbols `x.shape[i]`."""

    def __init__(self, name: str, why: D.Why) -> None:
        self.name = name
        self.why = why

    def key(self) -> object:
        return ("symshape", self.name)

    def item(self, i: int) -> IntV:
        return IntV(D.symbol(f"{self.name}.shape[{i}]", self.why))

    def items(self, n: int) -> list[Value]:
        return [self.item(i) for i in range(n)]


def shape_tuple(interp: Interpreter, arr: ArrayV, base: Value, node: ast.AST, fr: Frame) -> Value:
    if arr.shape is not None:
        return TupleV(tuple(IntV(d) for d in arr.shape), False, arr.why)
    name = arr.name or (base.name if isinstance(base, OpaqueV) else "")
    if name:
        return SymShapeV(name, arr.why)
    return UNKNOWN


def norm_axis(axis: int, rank: int) -> int | None:
    if -rank <= axis < rank:
        return axis % rank
    return None


# -- indexing ---------------------------------------------------------------------------
def _slice_len(n: Dim, lo: int | None, hi: int | None, step: int | None, why: D.Why) -> Dim:
    if lo is None and hi is None and step in (None, 1):
        return n  # the whole axis: the same dimension, provenance and all
    if n.value is not None:
        count = D.slice_len(n.value, lo, hi, step)
        return D.const(count, why) if count is not None else D.unknown(why)
    if step not in (None, 1):
        return D.unknown(why)
    # symbolic length: only the forms whose result is certain for every n >= |bounds|
    if lo is None and hi is None:
        return n
    if lo is None and hi is not None and hi < 0:
        return D.sub(n, D.const(-hi), why)
    if hi is None and lo is not None and lo >= 0:
        return D.sub(n, D.const(lo), why)
    if hi is None and lo is not None and lo < 0:
        return D.const(-lo, why) if n.lo is not None and n.lo >= -lo else D.unknown(why)
    if lo is None and hi is not None and hi >= 0:
        return D.const(hi, why) if n.lo is not None and n.lo >= hi else D.unknown(why)
    if lo is not None and hi is not None and lo >= 0 and hi < 0:
        return D.sub(n, D.const(lo - hi), why)
    if lo is not None and hi is not None and lo >= 0 and hi >= lo:
        return D.const(hi - lo, why) if n.lo is not None and n.lo >= hi else D.unknown(why)
    return D.unknown(why)


def index_value(interp: Interpreter, index: ast.expr, fr: Frame, as_tuple: bool) -> Value:
    """What `np.s_[...]` / `jnp.index_exp[...]` give: the index as a value (a SliceV, an
    int, None, or a tuple of them; index_exp always a tuple), where every part is known."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    items: list[Value] = []
    for part in parts:
        if isinstance(part, ast.Slice):
            bounds = [int_value(interp.ev(b, fr)) if b is not None else None for b in (part.lower, part.upper, part.step)]
            if any(b is None and given is not None for b, given in zip(bounds, (part.lower, part.upper, part.step))):
                return UNKNOWN
            items.append(SliceV((bounds[0], bounds[1], bounds[2])))
        else:
            items.append(interp.ev(part, fr))
    return TupleV(tuple(items)) if as_tuple or isinstance(index, ast.Tuple) else items[0]


def _index_parts(interp: Interpreter, index: ast.expr, fr: Frame) -> Sequence[ast.expr]:
    """An index's parts as expressions: the tuple's items, or a name holding a tuple of
    known slices, ints and Nones written back as the literals they are (`idx = (slice(
    None), slice(1, None)); x[idx]`, `x[np.s_[:, 1:]]`: probe 40a)."""
    if isinstance(index, ast.Tuple):
        # `x[(Ellipsis, slice(1, None))]`: the builtin's name is the `...` it holds
        return [ast.copy_location(ast.Constant(Ellipsis), elt) if isinstance(elt, ast.Name) and elt.id == "Ellipsis" and const_value(interp.ev(elt, fr)) == (True, Ellipsis) else elt for elt in index.elts]
    if isinstance(index, (ast.Name, ast.Attribute, ast.Subscript)):
        value = interp.ev(index, fr)
        if isinstance(value, TupleV) and not value.is_list and value.items:
            parts: list[ast.expr] = []
            for item in value.items:
                if isinstance(item, SliceV):
                    lo, hi, step = item.bounds
                    parts.append(ast.Slice(*(ast.Constant(b) if b is not None else None for b in (lo, hi, step))))
                elif isinstance(item, IntV) and item.dim.value is not None:
                    parts.append(ast.Constant(item.dim.value))
                elif isinstance(item, ConstV) and item.value is None:
                    parts.append(ast.Constant(None))
                elif isinstance(item, ConstV) and item.value is Ellipsis:
                    parts.append(ast.Constant(Ellipsis))
                else:
                    return [index]
            return [ast.copy_location(part, index) for part in parts]
    return [index]


def index_array(interp: Interpreter, arr: ArrayV, node: ast.Subscript, fr: Frame) -> Value:
    index = node.slice
    parts: Sequence[ast.expr] = _index_parts(interp, index, fr)
    if arr.shape is None:
        for p in parts:
            _eval_index_part(interp, p, fr)
        return ArrayV(None, arr.dtype, arr.diff, arr.why)
    shape = list(arr.shape)
    out: list[Dim] = []
    pos = 0
    # integer and integer-array indices: (position in the index, the shape it indexes with,
    # where in `out` it stands); numpy's advanced indexing once one of them is an array
    advanced: list[tuple[int, Shape, int]] = []
    gathers: list[ArrayV] = []  # the integer-array indices among them
    n_real = sum(1 for p in parts if not _is_none(p) and not _is_ellipsis(p))
    desc = _src(node)
    for number, p in enumerate(parts):
        if _is_ellipsis(p):
            skip = len(shape) - n_real
            if skip < 0:
                return ArrayV(None, arr.dtype, arr.diff, arr.why)
            out.extend(shape[pos : pos + skip])
            pos += skip
            continue
        if _is_none(p):
            out.append(D.const(1, (_step(interp, fr, node, f"new axis in {desc}"),)))
            continue
        if pos >= len(shape):
            return ArrayV(None, arr.dtype, arr.diff, arr.why)
        dim = shape[pos]
        if isinstance(p, ast.Slice):
            bounds: list[int | None] = []
            unknown_bound = False
            for b in (p.lower, p.upper, p.step):
                if b is None:
                    bounds.append(None)
                    continue
                bound_v = interp.ev(b, fr)
                v = int_value(bound_v)
                if v is None:
                    # x[:, :T] with T symbolic and the axis at least T long is T itself
                    if isinstance(bound_v, IntV) and b is p.upper and p.lower is None and p.step is None and bound_v.dim.same_as(dim):
                        bounds.append(None)
                        continue
                    unknown_bound = True
                bounds.append(v)
            if unknown_bound:
                # a slice keeps its axis whatever its bounds are: only the length is unknown,
                # unless a random start's own bound keeps the window inside the array
                window = random_starts.window_length(interp, node.value, p, pos, dim.value, fr)
                step = _step(interp, fr, node, f"{window} = the window {_src(node)} at a start drawn to fit it") if window is not None else None
                out.append(D.const(window, (step,)) if window is not None and step is not None else D.unknown())
                pos += 1
                continue
            out.append(_sliced(interp, fr, node, dim, (bounds[0], bounds[1], bounds[2])))
            pos += 1
            continue
        value = _eval_index_part(interp, p, fr)
        if isinstance(value, SliceV):  # `x[:, drop_first]` with `drop_first = slice(1, None)`
            out.append(_sliced(interp, fr, node, dim, value.bounds))
            pos += 1
            continue
        if isinstance(value, TupleV) and value.is_list and value.items and all(isinstance(item, IntV) and item.dim.value is not None for item in value.items):
            # `x[:, [0, 5, 10]]`: a list of ints is an index array of that many entries (probe 35c)
            indices = (D.const(len(value.items), (_step(interp, fr, node, f"{len(value.items)} indices in {desc}"),)),)
            gathers.append(ArrayV(indices, "int32"))
            advanced.append((number, indices, len(out)))
            pos += 1
            continue
        if isinstance(value, IntV):
            advanced.append((number, (), len(out)))
            pos += 1  # an integer index drops the axis
            continue
        if isinstance(value, ArrayV) and value.shape is not None and value.dtype is not None and value.dtype.startswith(("int", "uint")):
            # a gather: the index array's axes take the place of the axis it indexes
            # (embedding[ids] is ids.shape + the row shape; x[:, pos] keeps x's first axis)
            gathers.append(value)
            advanced.append((number, value.shape, len(out)))
            pos += 1
            continue
        return ArrayV(None, arr.dtype, arr.diff, arr.why)
    out.extend(shape[pos:])
    if gathers:
        # the advanced indices broadcast together (`x[jnp.arange(B), eos]`, a pooled token:
        # probe 51a); their shape stands where they are if they are adjacent in the index,
        # else in front (numpy's rule)
        together: Shape | None = advanced[0][1]
        for _, indexed, _ in advanced[1:]:
            together = broadcast_shapes(together, indexed)
        if together is None:
            return ArrayV(None, arr.dtype, arr.diff, arr.why)
        numbers = [number for number, _, _ in advanced]
        at = advanced[0][2] if numbers == list(range(numbers[0], numbers[0] + len(numbers))) else 0
        out[at:at] = together
    return ArrayV(tuple(out), arr.dtype, arr.diff, merge_why(arr.why, *(g.why for g in gathers)))


def _sliced(interp: Interpreter, fr: Frame, node: ast.Subscript, dim: Dim, bounds: tuple[int | None, int | None, int | None]) -> Dim:
    """The length of `dim` sliced to bounds, with the step that says so."""
    desc = _src(node)
    step = _step(interp, fr, node, f"slice {desc}")
    new = _slice_len(dim, bounds[0], bounds[1], bounds[2], ())
    if not new.same_as(dim):
        lo, hi, st = bounds
        text = f"{new.render()} = {dim.render()}"
        if hi is not None and hi < 0 and lo is None and st is None:
            text += f" - {-hi}"
        elif lo is not None and lo > 0 and hi is None and st is None:
            text += f" - {lo}"
        else:  # x[:, :255] of 1024 is 255 long: "255 = 1024 sliced to [:255]"
            text += f" sliced to [{'' if lo is None else lo}:{'' if hi is None else hi}{'' if st is None else f':{st}'}]"
        new = new.with_why(dim.why, Step(step.path, step.line, f"{text}, slice {desc}"))
    return new


def _eval_index_part(interp: Interpreter, part: ast.expr, fr: Frame) -> Value:
    if isinstance(part, ast.Slice):
        for b in (part.lower, part.upper, part.step):
            if b is not None:
                interp.ev(b, fr)
        return UNKNOWN
    return interp.ev(part, fr)


def _is_none(node: ast.expr) -> bool:
    """`None`, or NumPy's name for it, `np.newaxis` / `jnp.newaxis`: a new axis."""
    return isinstance(node, ast.Constant) and node.value is None or isinstance(node, ast.Attribute) and node.attr == "newaxis"


def _is_ellipsis(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis


# -- reshape and layout ---------------------------------------------------------------------
def reshape(interp: Interpreter, arr: ArrayV, target: Sequence[Value], node: ast.AST, fr: Frame) -> ArrayV:
    step = _step(interp, fr, node, f"reshape {_src(node)}")
    dims: list[Dim | None] = []
    minus_one = None
    for i, v in enumerate(target):
        if isinstance(v, IntV) and v.dim.value == -1:
            if minus_one is not None:
                return ArrayV(None, arr.dtype, arr.diff, arr.why)
            minus_one = i
            dims.append(None)
        elif isinstance(v, (IntV, OpaqueV)):
            d = v.dim if isinstance(v, IntV) else D.symbol(v.name)
            dims.append(d.with_why(step))
        else:
            dims.append(D.unknown((step,)))
    if minus_one is not None:
        inferred: Dim = D.unknown((step,))
        if arr.shape is not None and all(d.poly is not None for d in dims if d is not None):
            total = D.const(1)
            for d in arr.shape:
                total = D.mul(total, d)
            known = D.const(1)
            for d in dims:
                if d is not None:
                    known = D.mul(known, d)
            inferred = D.floordiv(total, known)
            if inferred.poly is None:
                inferred = D.unknown((step,))
            else:
                # the derivation's own arithmetic step comes last, so that a message
                # names it rather than a factor that cancelled out
                own = step
                if inferred.value is not None and total.value is not None and known.value is not None:
                    own = Step(step.path, step.line, f"{inferred.value} = {total.value} / {known.value}, the -1 of {step.text}")
                inferred = inferred.replace_why(merge_why(*(d.why for d in arr.shape), (own,)))
        dims[minus_one] = inferred
    return ArrayV(tuple(d if d is not None else D.unknown() for d in dims), arr.dtype, arr.diff, arr.why)


def transpose(interp: Interpreter, arr: ArrayV, axes: Sequence[Value] | None, node: ast.AST, fr: Frame) -> ArrayV:
    if arr.shape is None:
        return ArrayV(None, arr.dtype, arr.diff, arr.why)
    if axes is None:
        return ArrayV(tuple(reversed(arr.shape)), arr.dtype, arr.diff, arr.why)
    perm = [int_value(a) for a in axes]
    if any(p is None for p in perm) or len(perm) != len(arr.shape):
        return ArrayV(None, arr.dtype, arr.diff, arr.why)
    rank = len(arr.shape)
    out: list[Dim] = []
    for p in perm:
        assert p is not None
        axis = norm_axis(p, rank)
        if axis is None:
            return ArrayV(None, arr.dtype, arr.diff, arr.why)
        out.append(arr.shape[axis])
    return ArrayV(tuple(out), arr.dtype, arr.diff, arr.why)


def _two_axes(arr: ArrayV, a: int | None, b: int | None, move: bool) -> ArrayV:
    """swapaxes (move=False) or moveaxis (move=True) of two axes, when both are valid."""
    if arr.shape is None or a is None or b is None:
        return ArrayV(None, arr.dtype, arr.diff, arr.why)
    rank = len(arr.shape)
    ia, ib = norm_axis(a, rank), norm_axis(b, rank)
    if ia is None or ib is None:
        return ArrayV(None, arr.dtype, arr.diff, arr.why)
    shape = list(arr.shape)
    if move:
        shape.insert(ib, shape.pop(ia))
    else:
        shape[ia], shape[ib] = shape[ib], shape[ia]
    return ArrayV(tuple(shape), arr.dtype, arr.diff, arr.why)


def swapaxes(arr: ArrayV, a: int | None, b: int | None) -> ArrayV:
    return _two_axes(arr, a, b, move=False)


def moveaxis(arr: ArrayV, src: int | None, dst: int | None) -> ArrayV:
    return _two_axes(arr, src, dst, move=True)


def expand_dims(arr: ArrayV, axes: Sequence[int | None]) -> ArrayV:
    if arr.shape is None or any(a is None for a in axes):
        return ArrayV(None, arr.dtype, arr.diff, arr.why)
    rank = len(arr.shape) + len(axes)
    normalised: list[int] = []
    for a in axes:
        n = norm_axis(a, rank) if a is not None else None
        if n is None:
            return ArrayV(None, arr.dtype, arr.diff, arr.why)
        normalised.append(n)
    shape = list(arr.shape)
    for n in sorted(normalised):
        shape.insert(n, D.const(1))
    return ArrayV(tuple(shape), arr.dtype, arr.diff, arr.why)


def squeeze(arr: ArrayV, axes: Sequence[int | None] | None) -> ArrayV:
    if arr.shape is None:
        return ArrayV(None, arr.dtype, arr.diff, arr.why)
    rank = len(arr.shape)
    if axes is None:
        if all(d.value is not None for d in arr.shape):
            return ArrayV(tuple(d for d in arr.shape if d.value != 1), arr.dtype, arr.diff, arr.why)
        return ArrayV(None, arr.dtype, arr.diff, arr.why)
    drop: set[int] = set()
    for a in axes:
        if a is None:
            return ArrayV(None, arr.dtype, arr.diff, arr.why)
        n = norm_axis(a, rank)
        if n is None:
            return ArrayV(None, arr.dtype, arr.diff, arr.why)
        drop.add(n)
    return ArrayV(tuple(d for i, d in enumerate(arr.shape) if i not in drop), arr.dtype, arr.diff, arr.why)


# -- broadcasting and products ----------------------------------------------------------------
def broadcast_dims(a: Dim, b: Dim) -> Dim:
    if a.same_as(b):
        return a
    if a.value == 1:
        return b
    if b.value == 1:
        return a
    if a.value is not None and b.value is not None:
        return D.unknown()  # incompatible: the program fails; we say nothing
    # a valid program broadcasts an unknown against k to k (the unknown is 1 or k)
    if a.value is not None and b.value is None and b.poly is None:
        return a
    if b.value is not None and a.value is None and a.poly is None:
        return b
    return D.unknown()


def broadcast_shapes(a: Shape | None, b: Shape | None) -> Shape | None:
    if a is None or b is None:
        return None
    rank = max(len(a), len(b))
    pa = (D.const(1),) * (rank - len(a)) + a
    pb = (D.const(1),) * (rank - len(b)) + b
    return tuple(broadcast_dims(x, y) for x, y in zip(pa, pb))


def _operand_shape(value: Value) -> tuple[Shape | None, str | None, str | None]:
    """(shape, dtype, weak) of an operand of an arithmetic expression: weak is the kind
    ("bool", "int", "float") of a Python scalar, which JAX types weakly, else None."""
    if isinstance(value, ArrayV):
        if value.weak and value.dtype is not None:
            kind = "float" if value.dtype.startswith(("float", "bfloat")) else "int" if value.dtype.startswith(("int", "uint")) else None
            if kind is not None:
                return value.shape, None, kind
        return value.shape, value.dtype, None
    if isinstance(value, IntV):
        return (), None, "int"
    if isinstance(value, FloatV):
        return (), None, "float"
    if isinstance(value, ConstV) and type(value.value) in (int, float, bool):
        return (), None, type(value.value).__name__
    return None, None, None


def _default_dtype(kind: str, fr: Frame) -> str:
    """The dtype JAX gives a weak int or float that meets a bool (or int) array."""
    from jax_cudnn_lint.shape_inference.externals import x64_enabled

    wide = x64_enabled(fr)
    if kind == "int":
        return "int64" if wide else "int32"
    return "float64" if wide else "float32"


def _with_weak(dtype: str | None, kind: str, fr: Frame) -> str | None:
    """The dtype of an array of `dtype` combined with a Python scalar of `kind`
    (jnp.promote_types with weak types: int32 * 2 is int32, int32 * 0.5 float32,
    bfloat16 * 2.0 bfloat16, bool * 2 int32)."""
    if dtype is None or kind == "bool":
        return dtype
    if kind == "int":
        return _default_dtype("int", fr) if dtype == "bool" else dtype
    if is_float(dtype) or dtype.startswith("complex"):
        return dtype
    if dtype == "bool" or dtype.startswith(("int", "uint")):
        return _default_dtype("float", fr)
    return None


def broadcast_binary(interp: Interpreter, left: Value, right: Value, node: ast.AST, fr: Frame, true_divide: bool | None = None) -> Value:
    """An elementwise binary operation (`a * b`, jnp.add...): the broadcast shape and
    JAX's promotion of the dtypes; `/` (true division) of integers gives a float."""
    sa, da, wa = _operand_shape(left)
    sb, db, wb = _operand_shape(right)
    shape = broadcast_shapes(sa, sb)
    weak = False
    if wa and wb:
        # two weak operands (jnp.where(mask, 3.0, 2.0)): a weak array of the default
        # dtype of the wider kind; Python bools are not weak
        kind = max(wa, wb, key=("bool", "int", "float").index)
        dtype = "bool" if kind == "bool" else _default_dtype(kind, fr)
        weak = kind != "bool"
    elif wa:
        dtype = _with_weak(db, wa, fr)
    elif wb:
        dtype = _with_weak(da, wb, fr)
    else:
        dtype = promote(da, db)
    if true_divide is None:
        true_divide = isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)
    if true_divide and dtype is not None and (dtype == "bool" or dtype.startswith(("int", "uint"))):
        dtype = _default_dtype("float", fr)
    return ArrayV(shape, dtype, any_diff(left, right), merge_why(left.why if isinstance(left, ArrayV) else (), right.why if isinstance(right, ArrayV) else ()), weak=weak)


def matmul(interp: Interpreter, a: ArrayV, b: ArrayV, node: ast.AST, fr: Frame) -> ArrayV:
    dtype = promote(a.dtype, b.dtype)
    diff = a.diff or b.diff
    if a.shape is None or b.shape is None or not a.shape or not b.shape:
        return ArrayV(None, dtype, diff)
    step = _step(interp, fr, node, f"matmul {_src(node)}")
    if len(b.shape) == 1:
        return ArrayV(a.shape[:-1], dtype, diff, a.why)
    if len(a.shape) == 1:
        return ArrayV(b.shape[:-2] + b.shape[-1:], dtype, diff, b.why)
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    if batch is None:
        return ArrayV(None, dtype, diff)
    last = b.shape[-1].with_why(step)
    return ArrayV(batch + (a.shape[-2], last), dtype, diff, merge_why(a.why, b.why))


_EINSUM_TERM = re.compile(r"^[A-Za-z.]*$")


def einsum(interp: Interpreter, spec: str, operands: Sequence[Value], node: ast.AST, fr: Frame) -> Value:
    spec = spec.replace(" ", "")
    if "->" in spec:
        lhs, out = spec.split("->", 1)
    else:
        lhs = spec
        letters = [c for c in lhs if c.isalpha()]
        out = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
        if "..." in lhs:
            out = "..." + out
    terms = lhs.split(",")
    if len(terms) != len(operands) or not all(_EINSUM_TERM.match(t) for t in terms + [out]):
        return UNKNOWN
    arrays = [o if isinstance(o, ArrayV) else None for o in operands]
    dtype: str | None = None
    for i, a in enumerate(arrays):
        dtype = a.dtype if i == 0 and a is not None else promote(dtype, a.dtype if a is not None else None)
    diff = any(o.diff for o in operands)
    step = _step(interp, fr, node, f"einsum '{spec}'")
    sizes: dict[str, Dim] = {}
    ellipsis: Shape | None = ()
    for term, arr in zip(terms, arrays):
        if arr is None or arr.shape is None:
            if "..." in term:
                ellipsis = None
            continue
        named = term.replace("...", "")
        n_ell = len(arr.shape) - len(named)
        if ("..." in term and n_ell < 0) or ("..." not in term and n_ell != 0):
            return ArrayV(None, dtype, diff)
        shape = list(arr.shape)
        if "..." in term:
            before, _after = term.split("...")
            ell = tuple(shape[len(before) : len(before) + n_ell])
            shape = shape[: len(before)] + shape[len(before) + n_ell :]
            if ellipsis is not None:
                ellipsis = broadcast_shapes(ellipsis, ell) if ellipsis else ell
        for letter, dim in zip(named, shape):
            if letter in sizes:
                if sizes[letter].value == 1 and dim.value != 1:
                    sizes[letter] = dim
            else:
                sizes[letter] = dim
    out_dims: list[Dim] = []
    for part in re.findall(r"\.\.\.|[A-Za-z]", out):
        if part == "...":
            if ellipsis is None:
                return ArrayV(None, dtype, diff)
            out_dims.extend(ellipsis)
        elif part in sizes:
            out_dims.append(sizes[part].with_why(step) if sizes[part].why else sizes[part])
        else:
            out_dims.append(D.unknown((step,)))
    return ArrayV(tuple(out_dims), dtype, diff)


def dot_general(interp: Interpreter, lhs: ArrayV, rhs: ArrayV, numbers: Value, node: ast.AST, fr: Frame) -> ArrayV:
    dtype = promote(lhs.dtype, rhs.dtype)
    diff = lhs.diff or rhs.diff
    ok, dn = const_value(numbers)
    if not ok or lhs.shape is None or rhs.shape is None:
        return ArrayV(None, dtype, diff)
    try:
        (lc, rc), (lb, rb) = dn  # type: ignore[misc]
        lc_l = [int(x) for x in lc]  # type: ignore[union-attr]
        rc_l = [int(x) for x in rc]  # type: ignore[union-attr]
        lb_l = [int(x) for x in lb]  # type: ignore[union-attr]
        rb_l = [int(x) for x in rb]  # type: ignore[union-attr]
    except Exception:
        return ArrayV(None, dtype, diff)
    lrank, rrank = len(lhs.shape), len(rhs.shape)
    lc_l = [x % lrank for x in lc_l]
    lb_l = [x % lrank for x in lb_l]
    rc_l = [x % rrank for x in rc_l]
    rb_l = [x % rrank for x in rb_l]
    out = [lhs.shape[i] for i in lb_l]
    out += [d for i, d in enumerate(lhs.shape) if i not in lc_l and i not in lb_l]
    out += [d for i, d in enumerate(rhs.shape) if i not in rc_l and i not in rb_l]
    return ArrayV(tuple(out), dtype, diff, merge_why(lhs.why, rhs.why))


# -- joining and splitting ------------------------------------------------------------------
def concatenate(interp: Interpreter, parts: Sequence[Value], axis: int | None, node: ast.AST, fr: Frame) -> ArrayV:
    arrays = [p for p in parts if isinstance(p, ArrayV)]
    diff = any(p.diff for p in parts)
    dtype: str | None = arrays[0].dtype if arrays else None
    for a in arrays[1:]:
        dtype = promote(dtype, a.dtype)
    if len(arrays) != len(parts) or axis is None or any(a.shape is None for a in arrays) or not arrays:
        return ArrayV(None, dtype, diff)
    rank = len(arrays[0].shape or ())
    if any(len(a.shape or ()) != rank for a in arrays):
        return ArrayV(None, dtype, diff)
    ax = norm_axis(axis, rank)
    if ax is None:
        return ArrayV(None, dtype, diff)
    total = D.const(0)
    for a in arrays:
        assert a.shape is not None
        total = D.add(total, a.shape[ax])
    rendered = " + ".join(a.shape[ax].render() for a in arrays if a.shape is not None)
    total = total.with_why(_step(interp, fr, node, f"{total.render()} = {rendered}, concatenate at axis {axis}"))
    first = arrays[0].shape
    assert first is not None
    shape = list(first)
    for i in range(rank):
        if i == ax:
            continue
        for a in arrays[1:]:
            assert a.shape is not None
            if not shape[i].same_as(a.shape[i]):
                shape[i] = shape[i] if shape[i].value is not None and shape[i].value == a.shape[i].value else D.join(shape[i], a.shape[i])
    shape[ax] = total
    return ArrayV(tuple(shape), dtype, diff, merge_why(*(a.why for a in arrays)))


def stack(interp: Interpreter, parts: Sequence[Value], axis: int | None, node: ast.AST, fr: Frame) -> ArrayV:
    arrays = [p for p in parts if isinstance(p, ArrayV)]
    diff = any(p.diff for p in parts)
    if len(arrays) != len(parts) or axis is None or not arrays or arrays[0].shape is None:
        return ArrayV(None, arrays[0].dtype if arrays else None, diff)
    base = arrays[0].shape
    assert base is not None
    ax = norm_axis(axis, len(base) + 1)
    if ax is None:
        return ArrayV(None, arrays[0].dtype, diff)
    shape = list(base)
    shape.insert(ax, D.const(len(arrays), (_step(interp, fr, node, f"stack of {len(arrays)}"),)))
    return ArrayV(tuple(shape), arrays[0].dtype, diff, arrays[0].why)


def split(interp: Interpreter, arr: ArrayV, sections: Value, axis: int | None, node: ast.AST, fr: Frame, uneven: bool = False) -> Value:
    """`jnp.split(x, n or cuts, axis)`; `uneven`: `array_split`, whose first `len % n`
    pieces are one longer (NumPy's rule) where `split` fails."""
    if arr.shape is None or axis is None:
        n = int_value(sections)
        if n is not None and 0 < n <= 64:
            return TupleV(tuple(ArrayV(None, arr.dtype, arr.diff) for _ in range(n)))
        return UnknownV(arr.diff)
    rank = len(arr.shape)
    ax = norm_axis(axis, rank)
    if ax is None:
        return UnknownV(arr.diff)
    dim = arr.shape[ax]
    step = _step(interp, fr, node, f"split {_src(node)}")
    n = int_value(sections)
    pieces: list[Dim] = []
    if n is not None:
        if not 0 < n <= 64:
            return UnknownV(arr.diff)
        each = D.floordiv(dim, D.const(n))
        if dim.value is not None and dim.value % n:
            if not uneven:
                return UnknownV(arr.diff)
            longer = dim.value % n
            pieces = [D.const(dim.value // n + (i < longer), (step,)) for i in range(n)]
        else:
            if each.poly is None and dim.value is None:
                each = D.unknown()
            pieces = [each.with_why(step)] * n
    elif isinstance(sections, TupleV):
        cuts = [int_value(i) for i in sections.items]
        if any(c is None for c in cuts):
            return UnknownV(arr.diff)
        previous = 0
        for c in cuts:
            assert c is not None
            if c < previous or (dim.value is not None and c > dim.value):
                return UnknownV(arr.diff)  # jnp.split fails on cuts out of order or past the end
            pieces.append(D.const(c - previous, (step,)))
            previous = c
        pieces.append(D.sub(dim, D.const(previous), (step,)))
    else:
        return UnknownV(arr.diff)
    out: list[Value] = []
    for piece in pieces:
        shape = list(arr.shape)
        shape[ax] = piece
        out.append(ArrayV(tuple(shape), arr.dtype, arr.diff, arr.why))
    return TupleV(tuple(out))


def pad(interp: Interpreter, arr: ArrayV, width: Value, node: ast.AST, fr: Frame) -> ArrayV:
    if arr.shape is None:
        return ArrayV(None, arr.dtype, arr.diff)
    rank = len(arr.shape)
    step = _step(interp, fr, node, f"pad {_src(node)}")
    pairs: list[tuple[Dim, Dim]] = []
    if isinstance(width, IntV):
        pairs = [(width.dim, width.dim)] * rank
    elif isinstance(width, TupleV):
        items = list(width.items)
        if len(items) == 2 and all(isinstance(i, IntV) for i in items):
            a, b = items
            assert isinstance(a, IntV) and isinstance(b, IntV)
            pairs = [(a.dim, b.dim)] * rank
        elif len(items) == 1 and isinstance(items[0], TupleV):
            inner = items[0].items
            if len(inner) == 2 and all(isinstance(i, IntV) for i in inner):
                pairs = [(inner[0].dim, inner[1].dim)] * rank  # type: ignore[union-attr]
        elif len(items) == rank:
            for item in items:
                if isinstance(item, TupleV) and len(item.items) == 2 and all(isinstance(i, IntV) for i in item.items):
                    pairs.append((item.items[0].dim, item.items[1].dim))  # type: ignore[union-attr]
                elif isinstance(item, IntV):
                    pairs.append((item.dim, item.dim))
                else:
                    return ArrayV(None, arr.dtype, arr.diff)
    if len(pairs) != rank:
        return ArrayV(None, arr.dtype, arr.diff)
    shape: list[Dim] = []
    for d, (before, after) in zip(arr.shape, pairs):
        if before.value == 0 and after.value == 0:
            shape.append(d)
        else:
            new = D.add(D.add(d, before), after)
            shape.append(new.with_why(Step(step.path, step.line, f"{new.render()} = {d.render()} + {before.render()} + {after.render()}, {step.text}")))
    return ArrayV(tuple(shape), arr.dtype, arr.diff, arr.why)


def repeat(interp: Interpreter, arr: ArrayV, repeats: Value, axis: int | None, node: ast.AST, fr: Frame) -> ArrayV:
    n = repeats.dim if isinstance(repeats, IntV) else None
    if arr.shape is None or n is None:
        return ArrayV(None, arr.dtype, arr.diff)
    if axis is None:
        total = D.const(1)
        for d in arr.shape:
            total = D.mul(total, d)
        return ArrayV((D.mul(total, n),), arr.dtype, arr.diff)
    ax = norm_axis(axis, len(arr.shape))
    if ax is None:
        return ArrayV(None, arr.dtype, arr.diff)
    shape = list(arr.shape)
    shape[ax] = D.mul(shape[ax], n, (_step(interp, fr, node, f"repeat {_src(node)}"),))
    return ArrayV(tuple(shape), arr.dtype, arr.diff, arr.why)


def reduce(arr: ArrayV, axis: Value | None, keepdims: bool, out_dtype: str | None) -> ArrayV:
    """`arr` reduced over `axis`; `out_dtype` is the result's (None: unknown)."""
    if axis is None or (isinstance(axis, ConstV) and axis.value is None):
        return ArrayV(tuple(D.const(1) for _ in arr.shape) if keepdims and arr.shape is not None else (() if not keepdims else None), out_dtype, arr.diff)
    if arr.shape is None:
        return ArrayV(None, out_dtype, arr.diff)
    rank = len(arr.shape)
    axes: list[int] = []
    items = axis.items if isinstance(axis, TupleV) else (axis,)
    for item in items:
        v = int_value(item)
        n = norm_axis(v, rank) if v is not None else None
        if n is None:
            return ArrayV(None, out_dtype, arr.diff)
        axes.append(n)
    if keepdims:
        return ArrayV(tuple(D.const(1) if i in axes else d for i, d in enumerate(arr.shape)), out_dtype, arr.diff, arr.why)
    return ArrayV(tuple(d for i, d in enumerate(arr.shape) if i not in axes), out_dtype, arr.diff, arr.why)


# -- einops --------------------------------------------------------------------------------
_EINOPS_TOKEN = re.compile(r"\(|\)|\.\.\.|[A-Za-z_][A-Za-z0-9_]*|\d+")


def _einops_side(text: str) -> list[list[str]] | None:
    groups: list[list[str]] = []
    current: list[str] | None = None
    for tok in _EINOPS_TOKEN.findall(text):
        if tok == "(":
            if current is not None:
                return None
            current = []
        elif tok == ")":
            if current is None:
                return None
            groups.append(current)
            current = None
        elif current is not None:
            current.append(tok)
        else:
            groups.append([tok])
    return None if current is not None else groups


def element_count(shape: tuple[Dim, ...]) -> Dim:
    """How many elements an array of this shape holds (`x.size`, `x.ravel()`)."""
    total = D.const(1)
    for d in shape:
        total = D.mul(total, d)
    return total


def einops(interp: Interpreter, kind: str, arr: ArrayV, pattern: str, sizes: dict[str, Value], node: ast.AST, fr: Frame) -> ArrayV:
    if "->" not in pattern:
        return ArrayV(None, arr.dtype, arr.diff)
    left_text, right_text = pattern.split("->", 1)
    left = _einops_side(left_text)
    right = _einops_side(right_text)
    if left is None or right is None or arr.shape is None:
        return ArrayV(None, arr.dtype, arr.diff)
    step = _step(interp, fr, node, f"einops.{kind} '{pattern.strip()}'")
    known: dict[str, Dim] = {}
    for name, value in sizes.items():
        if isinstance(value, IntV):
            known[name] = value.dim
    ell: Shape | None = None
    n_fixed = sum(1 for g in left if g != ["..."])
    shape = list(arr.shape)
    pos = 0
    for group in left:
        if group == ["..."]:
            count = len(shape) - n_fixed
            if count < 0:
                return ArrayV(None, arr.dtype, arr.diff)
            ell = tuple(shape[pos : pos + count])
            pos += count
            continue
        if pos >= len(shape):
            return ArrayV(None, arr.dtype, arr.diff)
        dim = shape[pos]
        pos += 1
        if len(group) == 1:
            tok = group[0]
            if not tok.isdigit():
                known.setdefault(tok, dim)
            continue
        unknown_names = [t for t in group if not t.isdigit() and t not in known]
        prod = D.const(1)
        for t in group:
            if t.isdigit():
                prod = D.mul(prod, D.const(int(t)))
            elif t in known:
                prod = D.mul(prod, known[t])
        if len(unknown_names) == 1:
            inferred = D.floordiv(dim, prod)
            known[unknown_names[0]] = inferred if inferred.poly is not None else D.unknown()
    if pos != len(shape):
        return ArrayV(None, arr.dtype, arr.diff)
    out: list[Dim] = []
    for group in right:
        if group == ["..."]:
            if ell is None:
                return ArrayV(None, arr.dtype, arr.diff)
            out.extend(ell)
            continue
        prod = D.const(1)
        for t in group:
            if t.isdigit():
                prod = D.mul(prod, D.const(int(t)))
            elif t in known:
                prod = D.mul(prod, known[t])
            else:
                prod = D.unknown()
        out.append(prod.with_why(step))
    return ArrayV(tuple(out), arr.dtype, arr.diff, arr.why)
