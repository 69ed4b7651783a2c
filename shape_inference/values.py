"""Abstract values: what the analysis knows about a Python expression.

Everything is immutable except instances (objects whose attributes code assigns,
like `self.proj = nn.Dense(...)` in a flax `setup`).  `diff` marks a value that
certainly depends on what an enclosing `jax.grad`-like transform differentiates:
for containers and instances it means every array drawn from them does too.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

from jax_cudnn_lint.shape_inference.dims import Dim, Step, Why, const, merge_why, symbol
from jax_cudnn_lint.shape_inference.dims import join as join_dim
from jax_cudnn_lint.shape_inference.dims import unknown as unknown_dim
from jax_cudnn_lint.shape_inference.scopes import dotted_name

if TYPE_CHECKING:
    from jax_cudnn_lint.shape_inference.lazy_defs import LazyDef
    from jax_cudnn_lint.shape_inference.modules import ModuleInfo


class Value:
    """Base of all abstract values."""

    diff: bool = False
    why: Why = ()
    # a dict or list changed in place after this value was made (`d[k] = v`, `xs.append`):
    # every name, attribute and container holding this very object sees the change, so
    # what this value says no longer holds (the name that made the change is rebound)
    changed_in_place: bool = False

    def key(self) -> object:
        """A hashable identity for memoising calls; provenance is not part of it."""
        return ("obj", id(self))

    def tainted(self, diff: bool) -> Value:
        """This value, marked as depending (or not) on differentiated inputs."""
        return self


_set = object.__setattr__


def mark_changed_in_place(value: Value) -> None:
    """A dict or list was changed in place: its other holders' view of it is stale.  A
    `vars(namespace)` dict is the namespace's own: the namespace forgets its attributes."""
    if isinstance(value, (DictV, SetV)) or is_mutable_list(value):
        _set(value, "changed_in_place", True)
        for view in getattr(value, "live_views", ()):
            _set(view, "changed_in_place", True)
        owner = getattr(value, "view_of", None)
        if isinstance(owner, InstanceV):
            owner.forget()


def is_mutable_list(value: Value) -> bool:
    """A list, known item by item or of unknown length (a comprehension's): what code
    may change in place."""
    return isinstance(value, (TupleV, IterV)) and value.is_list


def still_describes(lst: IterV, added: Sequence[Value]) -> bool:
    """A list of unknown length whose element describes each of `added` as well (joined
    with it, it is as it was): changed in place by them (an append, an insert, a sort), it is still
    the list `lst` says (probe 149: rows appended like the comprehension made them)."""
    element = lst.element.key()
    return all(join(lst.element, item).key() == element for item in added)


def not_a_sequence(items: TupleV) -> TupleV:
    """Items known one by one that are no sequence to a `match` pattern: a generator's, a
    dict view's (probe 53a: `match (x for x in xs):` took a sequence pattern)."""
    _set(items, "not_sequence", True)
    return items


def live_view(view: TupleV, of: DictV) -> TupleV:
    """`view` is `of.keys()` (or values, items): Python's view follows the dict, so a
    change to the dict in place makes what the view held stale too (probe 53a:
    `ks = d.keys(); d.pop("a")`)."""
    _set(of, "live_views", (*getattr(of, "live_views", ()), view))
    return view


def mark_lora(param: ArrayV) -> ArrayV:
    """An nnx.LoRAParam's array: what a DiffState's nnx.LoRAParam filter selects."""
    _set(param, "lora", True)
    return param


def mark_variable_classes(param: ArrayV, classes: frozenset[int]) -> ArrayV:
    """The array of an nnx.Param subclass of the analysed code (`class LoRAWeight(nnx.Param)`),
    with its class and their analysed bases (by their nodes' ids): what a DiffState filter
    naming one of them selects."""
    _set(param, "variable_classes", classes)
    return param


def mark_registry(registry: DictV) -> None:
    """A module's registry (Interpreter.registries): a key it lacks may be added later."""
    _set(registry, "registry", True)


def view_of(view: DictV, owner: Value) -> DictV:
    """`view` is `vars(owner)`: changing it changes `owner` (mark_changed_in_place)."""
    _set(view, "view_of", owner)
    return view


class FrozenValue(Value):
    """An immutable value: attributes are set once, by `__init__`.

    Written out by hand rather than as frozen dataclasses: creating the generated
    methods of 16 dataclasses was a third of the analysis import, which every flake8
    run that meets a gated file pays (benchmarks/editor.py).  Equality is identity
    (as with `eq=False`); `key()` is what compares values.
    """

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({fields})"


class UnknownV(FrozenValue):
    diff: bool
    why: Why

    def __init__(self, diff: bool = False, why: Why = ()) -> None:
        _set(self, "diff", diff)
        _set(self, "why", why)

    def key(self) -> object:
        return ("?", self.diff)

    def tainted(self, diff: bool) -> Value:
        return self if diff == self.diff else UnknownV(diff, self.why)


UNKNOWN = UnknownV()
# what a call that certainly raises gives (every path of the callee ends in a raise, a
# failed assert or sys.exit): Unknown as a value; a statement made of that call ends the
# caller's path (`validate(T)` raising on an odd T guards the attention after it)
NEVER = UnknownV()
# ml_collections' FieldReference, modelled as an InstanceV of a synthetic class (configdict.py)
FIELD_REFERENCE = "ml_collections.config_dict.FieldReference"
UNKNOWN_DIFF = UnknownV(True)


class IntV(FrozenValue):
    """A Python int (a size, an axis, a shape entry)."""

    dim: Dim

    def __init__(self, dim: Dim) -> None:
        _set(self, "dim", dim)

    @property
    def why(self) -> Why:  # type: ignore[override]
        return self.dim.why

    def key(self) -> object:
        return ("int", self.dim.key())


class ConstV(FrozenValue):
    """A Python constant other than an int: str, float, bool, None, complex, bytes."""

    value: object
    why: Why

    def __init__(self, value: object, why: Why = ()) -> None:
        _set(self, "value", value)
        _set(self, "why", why)

    def key(self) -> object:
        return ("const", type(self.value).__name__, repr(self.value))


class FloatV(FrozenValue):
    """A Python float whose value is unknown (`d ** -0.5`, `1 / math.sqrt(d)` of an
    unknown d): certainly a scalar, and weakly typed, so an array it meets keeps its
    shape and (a float array) its dtype."""

    why: Why

    def __init__(self, why: Why = ()) -> None:
        _set(self, "why", why)

    def key(self) -> object:
        return ("float?",)


class SliceV(FrozenValue):
    """`slice(lo, hi, step)` with literal bounds: an index kept in a name
    (`drop_first = slice(1, None); x[:, drop_first]`: probe 35c)."""

    bounds: tuple[int | None, int | None, int | None]

    def __init__(self, bounds: tuple[int | None, int | None, int | None]) -> None:
        _set(self, "bounds", bounds)

    def key(self) -> object:
        return ("slice", self.bounds)


class DTypeV(FrozenValue):
    """A dtype: jnp.float32, 'bfloat16', np.dtype('int32')."""

    name: str
    why: Why

    def __init__(self, name: str, why: Why = ()) -> None:
        _set(self, "name", name)
        _set(self, "why", why)

    def key(self) -> object:
        return ("dtype", self.name)


class TupleV(FrozenValue):
    """A tuple or list of known length (shapes are tuples of IntV)."""

    items: tuple[Value, ...]
    is_list: bool
    why: Why
    diff: bool

    def __init__(self, items: tuple[Value, ...], is_list: bool = False, why: Why = (), diff: bool = False) -> None:
        _set(self, "items", items)
        _set(self, "is_list", is_list)
        _set(self, "why", why)
        _set(self, "diff", diff)

    def key(self) -> object:
        # (a list changed in place is stale: a memoised call must not answer it with what
        # its old contents gave, probe 90a)
        return ("tuple", tuple(i.key() for i in self.items), self.diff, self.changed_in_place)

    def tainted(self, diff: bool) -> Value:
        return TupleV(tuple(i.tainted(diff) for i in self.items), self.is_list, self.why, diff)


class SetV(FrozenValue):
    """A set display of constants (`{Impl.XLA, "cudnn"}`), read for membership, length
    and truth only: its order is not its display's, so it is no tuple anywhere else.
    Changed in place (`.add`, `|=`) it is forgotten, as a list is."""

    items: tuple[Value, ...]
    why: Why

    def __init__(self, items: tuple[Value, ...], why: Why = ()) -> None:
        _set(self, "items", items)
        _set(self, "why", why)

    def key(self) -> object:
        return ("set", tuple(i.key() for i in self.items), self.changed_in_place)


def same_key(a: object, b: object) -> bool:
    """Are `a` and `b` one dict key, as Python finds it (equal and hash-equal: 1, 1.0
    and True are one key)?"""
    try:
        return hash(a) == hash(b) and bool(a == b)
    except Exception:
        return False


def with_key(items: Sequence[tuple[object, Value]], key: object, value: Value) -> tuple[tuple[object, Value], ...]:
    """`d[key] = value` on a dict's items: an equal key keeps its place (and its first
    spelling) and takes the value; a new one goes last."""
    out = list(items)
    for i, (held, _) in enumerate(out):
        if same_key(held, key):
            out[i] = (held, value)
            return tuple(out)
    out.append((key, value))
    return tuple(out)


def store_in_place(registry: DictV, key: object, value: Value) -> None:
    """`registry[key] = value` on the dict object itself: every holder of it sees the
    entry (a module's registry, filled by decorators: Interpreter._register)."""
    _set(registry, "items", with_key(registry.items, key, value))


def without_key(items: Sequence[tuple[object, Value]], key: object) -> tuple[tuple[object, Value], ...]:
    return tuple((k, v) for k, v in items if not same_key(k, key))


class DictV(FrozenValue):
    """A dict with constant keys, all of them known."""

    items: tuple[tuple[object, Value], ...]
    why: Why
    diff: bool

    def __init__(self, items: tuple[tuple[object, Value], ...], why: Why = (), diff: bool = False) -> None:
        _set(self, "items", items)
        _set(self, "why", why)
        _set(self, "diff", diff)

    def get(self, k: object) -> Value | None:
        for key, value in self.items:
            if same_key(key, k):
                return value
        return None

    def key(self) -> object:
        return ("dict", tuple((repr(k), v.key()) for k, v in self.items), self.diff, self.changed_in_place)

    def tainted(self, diff: bool) -> Value:
        return DictV(tuple((k, v.tainted(diff)) for k, v in self.items), self.why, diff)


class IterV(FrozenValue):
    """An iterable of unknown length whose every item is described by `element`: a
    generator's result (what it yields on any path), an iterator, a zip or enumerate of
    such, or (`is_list`) a list built by a comprehension of unknown length.

    `stamp`: where the items were computed from a mutable object (a generator's body
    reads what its arguments hold when it runs), the interpreter's mutation count at
    the call; consumed after a later mutation, the items are unknown.

    `items`: a generator whose body yields a few items one after the other, outside any
    undecided branch or widened loop (`yield 64; yield 33`): each, in order, so that a
    loop over it runs a pass per item (probe 104b)."""

    element: Value
    is_list: bool
    why: Why
    stamp: int | None
    items: tuple[Value, ...] | None

    def __init__(self, element: Value, is_list: bool = False, why: Why = (), stamp: int | None = None, items: tuple[Value, ...] | None = None) -> None:
        _set(self, "element", element)
        _set(self, "is_list", is_list)
        _set(self, "why", why)
        _set(self, "stamp", stamp)
        _set(self, "items", items)

    @property
    def diff(self) -> bool:  # type: ignore[override]
        return self.element.diff

    def key(self) -> object:
        return ("iter", self.element.key(), self.is_list, self.stamp, None if self.items is None else tuple(item.key() for item in self.items))

    def tainted(self, diff: bool) -> Value:
        items = None if self.items is None else tuple(item.tainted(diff) for item in self.items)
        return IterV(self.element.tainted(diff), self.is_list, self.why, self.stamp, items)


class ArrayV(FrozenValue):
    """An array: shape (None = unknown rank), dtype (None = unknown)."""

    shape: tuple[Dim, ...] | None
    dtype: str | None
    diff: bool
    why: Why
    name: str  # a symbol base for the dims of an unknown shape (x.shape[i])
    stopped: bool  # certainly carries no tangent (jax.lax.stop_gradient)
    weak: bool  # weakly typed, as jnp.array(0.125) or jnp.full(s, 0.5): bf16 * it stays bf16

    def __init__(
        self, shape: tuple[Dim, ...] | None, dtype: str | None = None, diff: bool = False, why: Why = (), name: str = '', stopped: bool = False, weak: bool = False
    ) -> None:
        _set(self, "shape", shape)
        _set(self, "dtype", dtype)
        _set(self, "diff", diff)
        _set(self, "why", why)
        _set(self, "name", name)
        _set(self, "stopped", stopped)
        _set(self, "weak", weak)

    @property
    def rank(self) -> int | None:
        return None if self.shape is None else len(self.shape)

    def key(self) -> object:
        dims = None if self.shape is None else tuple(d.key() for d in self.shape)
        return ("array", dims, self.dtype, self.diff, self.name, self.weak)

    def tainted(self, diff: bool) -> Value:
        if self.stopped or (diff and self.dtype is not None and self.dtype.startswith(("int", "uint", "bool"))):
            return self  # (stop_gradient, a non-Param nnx variable, an int or bool array: no tangent, whatever holds it)
        return ArrayV(self.shape, self.dtype, diff, self.why, self.name, weak=self.weak)

    def with_shape(self, shape: tuple[Dim, ...] | None, step: Step | None = None) -> ArrayV:
        why = merge_why(self.why, (step,)) if step else self.why
        return ArrayV(shape, self.dtype, self.diff, why, "", weak=self.weak)

    def shape_words(self) -> str:
        """" (2, 8, 4, 64)" for a message, or nothing where the shape is not known."""
        return f" {self.render_shape()}" if self.shape is not None else ""

    def render_shape(self) -> str:
        if self.shape is None:
            return "(?)"
        inner = ", ".join(d.render() for d in self.shape)
        return f"({inner},)" if len(self.shape) == 1 else f"({inner})"


class ExternalV(FrozenValue):
    """Something from outside the analysed project, known by its qualified name."""

    qualname: str
    why: Why

    def __init__(self, qualname: str, why: Why = ()) -> None:
        _set(self, "qualname", qualname)
        _set(self, "why", why)

    def key(self) -> object:
        return ("ext", self.qualname)


class ExtObjectV(FrozenValue):
    """An object built by calling an external class we model (a flax layer, a config)."""

    qualname: str
    args: tuple[Value, ...]
    kwargs: tuple[tuple[str, Value], ...]
    why: Why
    diff: bool

    def __init__(self, qualname: str, args: tuple[Value, ...], kwargs: tuple[tuple[str, Value], ...], why: Why = (), diff: bool = False) -> None:
        _set(self, "qualname", qualname)
        _set(self, "args", args)
        _set(self, "kwargs", kwargs)
        _set(self, "why", why)
        _set(self, "diff", diff)

    def kwarg(self, name: str) -> Value | None:
        for k, v in self.kwargs:
            if k == name:
                return v
        return None

    def key(self) -> object:
        return ("extobj", self.qualname, tuple(a.key() for a in self.args), tuple((k, v.key()) for k, v in self.kwargs), self.diff)

    def tainted(self, diff: bool) -> Value:
        return ExtObjectV(self.qualname, self.args, self.kwargs, self.why, diff)


class FunctionV(FrozenValue):
    """A function or lambda defined in the analysed code, with its defining scope."""

    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
    module: ModuleInfo
    closure: tuple[dict[str, Value], ...]  # enclosing function scopes, innermost first
    defaults: tuple[Value, ...]
    kw_defaults: tuple[tuple[str, Value], ...]
    qualname: str
    decorators: tuple[Value, ...]
    owner: ClassV | None

    def __init__(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, module: ModuleInfo, closure: tuple[dict[str, Value], ...], defaults: tuple[Value, ...] = (), kw_defaults: tuple[tuple[str, Value], ...] = (), qualname: str = '', decorators: tuple[Value, ...] = (), owner: ClassV | None = None) -> None:
        _set(self, "node", node)
        _set(self, "module", module)
        _set(self, "closure", closure)
        _set(self, "defaults", defaults)
        _set(self, "kw_defaults", kw_defaults)
        _set(self, "qualname", qualname)
        _set(self, "decorators", decorators)
        _set(self, "owner", owner)

    def key(self) -> object:
        # defaults count: one def made per loop pass (`lambda n=n: ...`) binds its own
        return ("fn", id(self.node), tuple(id(c) for c in self.closure), tuple(d.key() for d in self.defaults), tuple((k, v.key()) for k, v in self.kw_defaults))


class PartialV(FrozenValue):
    """functools.partial(func, *args, **kwargs)."""

    func: Value
    args: tuple[Value, ...]
    kwargs: tuple[tuple[str, Value], ...]
    why: Why

    def __init__(self, func: Value, args: tuple[Value, ...], kwargs: tuple[tuple[str, Value], ...], why: Why = ()) -> None:
        _set(self, "func", func)
        _set(self, "args", args)
        _set(self, "kwargs", kwargs)
        _set(self, "why", why)

    def key(self) -> object:
        return ("partial", self.func.key(), tuple(a.key() for a in self.args), tuple((k, v.key()) for k, v in self.kwargs))


class TransformV(FrozenValue):
    """A JAX transform applied to a function: grad, value_and_grad, vjp, jit, vmap, ..."""

    kind: str  # canonical qualified name of the transform
    func: Value
    params: tuple[tuple[str, Value], ...]
    why: Why

    def __init__(self, kind: str, func: Value, params: tuple[tuple[str, Value], ...] = (), why: Why = ()) -> None:
        _set(self, "kind", kind)
        _set(self, "func", func)
        _set(self, "params", params)
        _set(self, "why", why)

    def param(self, name: str) -> Value | None:
        for k, v in self.params:
            if k == name:
                return v
        return None

    def key(self) -> object:
        return ("transform", self.kind, self.func.key(), tuple((k, v.key()) for k, v in self.params))


@dataclass(eq=False)
class ClassV(Value):
    """A class defined in the analysed code."""

    node: ast.ClassDef
    module: ModuleInfo
    bases: tuple[Value, ...]
    attrs: dict[str, Value] = field(default_factory=lambda: {})
    fields: list[tuple[str, Value | None, ast.expr | None]] = field(default_factory=lambda: [])  # dataclass-style: name, default, annotation
    qualname: str = ""
    decorators: tuple[Value, ...] = ()
    linearised: list[ClassV] | None = field(default=None, repr=False, compare=False)  # (mro(), cached)
    metaclass_call: bool = False  # its metaclass (of the analysed code) has a `__call__`: it makes the instances
    rewritten: frozenset[str] = frozenset()  # what a metaclass of ours writes onto it as it is made ("*": names it computes)
    meta_reads: bool = False  # its metaclass answers reads on the class itself (a property, `__getattribute__`)
    made_by_meta: bool = False  # it or a base names a metaclass not of a library's (whose `__new__` may rename it)
    intercepts: bool | None = field(default=None, repr=False, compare=False)  # defines `__getattribute__` (itself or a base; computed when first read)
    item_attributes: str | None = field(default=None, repr=False, compare=False)  # attribute_dicts: its attributes are its items ("": not; computed when first asked)

    def key(self) -> object:
        return ("class", id(self.node))

    def mro(self) -> list[ClassV] | None:
        """The class and its analysed bases in Python's method resolution order (C3:
        `class Model(Left, Right)` with both over Base is Model, Left, Right, Base); None
        where the bases admit no such order, or nest too deep."""
        if self.linearised is None:
            found = _c3(self, 0)
            self.linearised = found if found is not None else []
        return self.linearised or None

    def lookup(self, name: str, seen: frozenset[int] = frozenset()) -> Value | None:
        if name in self.attrs:
            return self.attrs[name]
        order = self.mro() if not seen else None
        if order is not None:
            for current in order[1:]:
                if name in current.attrs:
                    return current.attrs[name]
            return None
        for base in self.bases:
            if isinstance(base, ClassV) and id(base) not in seen:
                found = base.lookup(name, seen | {id(self)})
                if found is not None:
                    return found
        return None

    def all_fields(self, seen: frozenset[int] = frozenset(), makes_fields: Callable[[ClassV], bool] | None = None) -> list[tuple[str, Value | None, ast.expr | None]]:
        """The dataclass fields in the order `__init__` takes them: the bases' (the last
        base's first, as dataclasses walks the MRO backwards), then the class's own; a
        field declared again keeps its first place with its new default (`B(1, 64)` of
        a subclass that writes `t` before `h` still binds h=1: probe 93b).  With
        `makes_fields`, a class's own annotations count only where it says the class
        makes fields of the kind asked for (a plain base's `seq_len: int = 128` is a class
        attribute under a dataclass: probe 96b)."""
        out: dict[str, tuple[str, Value | None, ast.expr | None]] = {}
        for base in reversed(self.bases):
            if isinstance(base, ClassV) and id(base) not in seen:
                for inherited in base.all_fields(seen | {id(self)}, makes_fields):
                    out[inherited[0]] = inherited
        own_fields = self.fields if makes_fields is None or makes_fields(self) else []
        if self.is_attrs_class():
            # attrs takes a redefined attribute out of the inherited ones: the class's own
            # come last, in the order it writes them (probe 94a)
            for own in own_fields:
                out.pop(own[0], None)
        for own in own_fields:
            out[own[0]] = own
        return list(out.values())

    def is_attrs_class(self) -> bool:
        """Decorated by attrs (`attrs.define`, `attr.s`, ...)."""
        return any(str(getattr(deco, "qualname", "")).startswith(("attr.", "attrs.")) for deco in self.decorators)

    def declared_frozen(self) -> bool:
        """A NamedTuple, flax struct or frozen dataclass: instances equal by value (so
        two of them can be joined field by field, and no call changes them)."""
        if self.external_bases() & {"typing.NamedTuple", "flax.struct.PyTreeNode"}:
            return True
        for deco in self.decorators:
            name = getattr(deco, "qualname", None)
            if name == "flax.struct.dataclass":
                return True
            frozen = cast("dict[str, Value]", getattr(deco, "kwargs", {})).get("frozen") if name == "dataclasses.dataclass" else None
            if isinstance(frozen, ConstV) and frozen.value is True:
                return True
        return False

    def external_bases(self, seen: frozenset[int] = frozenset()) -> set[str]:
        out: set[str] = set()
        for base in self.bases:
            if isinstance(base, ExternalV):
                out.add(base.qualname)
            elif isinstance(base, ClassV) and id(base) not in seen:
                out |= base.external_bases(seen | {id(self)})
        return out


def imported_qualname(node: ast.expr, namespace: Mapping[str, Value]) -> str | None:
    """The qualified name a module's import gives a dotted expression (`typer.Option`,
    `Annotated` from typing, `after_check` imported as pydantic's model_validator), read
    from the module's namespace without evaluating anything; None for anything else."""
    dotted = dotted_name(node)
    if dotted is None:
        return None
    head, _, rest = dotted.partition(".")
    bound = namespace.get(head)
    if not isinstance(bound, ExternalV):
        return None
    return f"{bound.qualname}.{rest}" if rest else bound.qualname


# on an object: code stored attributes on it that it does not spell (`vars(cfg)[k] = v`,
# in any module): a read it lacks may be one of them (an attribute no code can spell)
STORED_UNSPELLED = "\0stored unspelled"

_SERIAL = [0]  # the serial the next instance made will have


def _new_serial() -> int:
    serial = _SERIAL[0]
    _SERIAL[0] = serial + 1
    return serial


_BORN = [0]  # the birth number of the next instance made or copied


def _new_born() -> int:
    born = _BORN[0]
    _BORN[0] = born + 1
    return born


def next_born() -> int:
    """The birth number the next instance made or copied will have."""
    return _BORN[0]


def next_serial() -> int:
    """The serial the next instance made will have."""
    return _SERIAL[0]


def fresh_copies(value: Value, first: int, last: int, copies: dict[int, Value] | None = None, depth: int = 0, deepest: int = 4) -> Value:
    """`value` with the instances made in serials [first, last) copied, attributes and all
    (once each: what the original shared, the copies share), `deepest` levels down."""
    if copies is None:
        copies = {}
    if isinstance(value, InstanceV):
        if not first <= value.serial < last or depth > deepest:
            return value
        done = copies.get(id(value))
        if done is not None:
            return done
        copy = InstanceV(value.cls, {}, value.diff, value.why, value.ready, [value.writes[0]], False, value.serial)
        copies[id(value)] = copy
        copy.attrs.update({k: fresh_copies(v, first, last, copies, depth + 1, deepest) for k, v in value.attrs.items()})
        return copy
    if isinstance(value, TupleV) and depth <= deepest and value.items:
        items = tuple(fresh_copies(item, first, last, copies, depth + 1, deepest) for item in value.items)
        return value if all(a is b for a, b in zip(items, value.items)) else TupleV(items, value.is_list, value.why, value.diff)
    if isinstance(value, DictV) and depth <= deepest and value.items:
        pairs = tuple((k, fresh_copies(v, first, last, copies, depth + 1, deepest)) for k, v in value.items)
        return value if all(a[1] is b[1] for a, b in zip(pairs, value.items)) else DictV(pairs, value.why, value.diff)
    return value


@dataclass(eq=False)
class InstanceV(Value):
    """An instance of a class of the analysed code; attributes are mutable."""

    cls: ClassV
    attrs: dict[str, Value] = field(default_factory=lambda: {})
    diff: bool = False
    why: Why = ()
    ready: bool = False  # flax linen: setup() has run
    # writes to `attrs` once built (shared with the tainted copies that share `attrs`):
    # part of the key, so that a call memoised before `cfg.seq = 256` is not taken for
    # one after it.  Writes while __init__ / __post_init__ / setup run are not counted:
    # they build the object, and counting them would re-run every helper they call.
    writes: list[int] = field(default_factory=lambda: [0])
    building: bool = False
    # the order in which instances were made: a memoised call hands out fresh copies of
    # the instances it made (`serial` in its range), as each real call makes new objects
    serial: int = field(default_factory=_new_serial)
    # when this object came to be, a copy included (a memoised call's copies are new
    # objects of this call, though they keep the serial of what they copy): see
    # Frame.may_skip
    born: int = field(default_factory=_new_born)
    # a generic instance (the `self` of a method analysed as any caller's): what it was
    # built from, the same for every generic instance of its class built alike, so that
    # a call memoised for one serves another (Interpreter.call_function); None otherwise
    recipe: object = None
    # one item of a list known only by what describes all its items (`boxes[0]` of
    # `[Box(i) for i in range(n)]`): the same attrs stand for every item, so a write
    # through this one joins (Frame.may_skip) instead of changing the others
    one_of_many: bool = False

    def key(self) -> object:
        return ("inst", id(self), self.diff, self.state())

    def state(self) -> int:
        """Grows with every write to this object or to an object it holds (one level):
        `model.cfg.seq = 256` changes what `model`'s methods may compute."""
        total = self.writes[0]
        for value in self.attrs.values():
            if isinstance(value, InstanceV):
                total += value.writes[0]
        return total

    def touch(self) -> None:
        """Count a write to `attrs` (see `writes`)."""
        if not self.building:
            self.writes[0] += 1

    def forget(self) -> None:
        """Code we cannot follow may have changed any attribute: each is Unknown."""
        if any(value is not UNKNOWN for value in self.attrs.values()):
            self.touch()
        for name, value in self.attrs.items():
            if isinstance(value, InstanceV) and value is not self and value.cls.qualname == FIELD_REFERENCE:
                value.forget()  # a reference other fields may share: it may be set too
            self.attrs[name] = UNKNOWN

    def forget_all(self) -> None:
        """Code has stored attributes it does not spell (`setattr(self, k, v)` over a
        config, `self.__dict__.update(kw)`): each is Unknown, its class's values too,
        which an instance attribute may now shadow; and a name it lacks may be one of
        them, not its class's `__getattr__`'s to answer (STORED_UNSPELLED)."""
        self.forget()
        for name in class_value_names(self.cls):
            if name not in self.attrs:
                self.touch()
                self.attrs[name] = UNKNOWN
        self.attrs[STORED_UNSPELLED] = UNKNOWN

    def tainted(self, diff: bool) -> Value:
        if diff == self.diff:
            return self
        return InstanceV(self.cls, self.attrs, diff, self.why, self.ready, self.writes, serial=self.serial, one_of_many=self.one_of_many)

    def one_item(self) -> InstanceV:
        """This object as one item of many it describes (see `one_of_many`)."""
        return InstanceV(self.cls, self.attrs, self.diff, self.why, self.ready, self.writes, serial=self.serial, born=self.born, recipe=self.recipe, one_of_many=True)


def _c3(cls: ClassV, depth: int) -> list[ClassV] | None:
    """C3 linearisation over the analysed bases (library bases are left out, as
    everywhere the analysis walks bases)."""
    if depth > 50:
        return None
    bases = [base for base in cls.bases if isinstance(base, ClassV)]
    pending: list[list[ClassV]] = []
    for base in bases:
        if base is cls:
            return None
        order = _c3(base, depth + 1)
        if order is None:
            return None
        pending.append(list(order))
    pending.append(list(bases))
    result = [cls]
    while True:
        pending = [seq for seq in pending if seq]
        if not pending:
            return result
        for seq in pending:
            head = seq[0]
            if not any(head is other for rest in pending for other in rest[1:]):
                break
        else:
            return None  # no consistent order: Python refuses the class too
        result.append(head)
        for seq in pending:
            if seq[0] is head:
                del seq[0]


def class_chain(cls: ClassV) -> Iterator[ClassV]:
    """The class and its analysed bases, each once."""
    todo, seen = [cls], set[int]()
    while todo:
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        todo.extend(base for base in current.bases if isinstance(base, ClassV))


def class_value_names(cls: ClassV) -> set[str]:
    """The names a class and its analysed bases bind to something other than a function."""
    return {name for current in class_chain(cls) for name, member in current.attrs.items() if not isinstance(member, FunctionV)}


class BoundMethodV(FrozenValue):
    func: Value
    self_value: Value

    def __init__(self, func: Value, self_value: Value) -> None:
        _set(self, "func", func)
        _set(self, "self_value", self_value)

    def key(self) -> object:
        return ("bound", self.func.key(), self.self_value.key())


class SuperV(FrozenValue):
    """`super()` in a method of `owner`: attributes looked up past `owner`, bound to `self_value`."""

    owner: ClassV
    self_value: Value

    def __init__(self, owner: ClassV, self_value: Value) -> None:
        _set(self, "owner", owner)
        _set(self, "self_value", self_value)

    def key(self) -> object:
        return ("super", id(self.owner.node), self.self_value.key())


class ModuleV(FrozenValue):
    """A module of the analysed project (its namespace is evaluated lazily)."""

    info: ModuleInfo

    def __init__(self, info: ModuleInfo) -> None:
        _set(self, "info", info)

    def key(self) -> object:
        return ("module", self.info.name)


# -- helpers -------------------------------------------------------------------------
def int_value(v: Value) -> int | None:
    if isinstance(v, IntV):
        return v.dim.value
    if isinstance(v, ConstV) and isinstance(v.value, bool):
        return int(v.value)
    return None


def make_int(n: int, why: Why = ()) -> IntV:
    return IntV(const(n, why))


def const_value(v: Value) -> tuple[bool, object]:
    """(True, python value) when v is a certain Python constant (ints included)."""
    if isinstance(v, ConstV):
        return True, v.value
    if isinstance(v, IntV) and v.dim.value is not None:
        return True, v.dim.value
    if isinstance(v, TupleV):
        out: list[object] = []
        for item in v.items:
            ok, value = const_value(item)
            if not ok:
                return False, None
            out.append(value)
        return True, (out if v.is_list else tuple(out))
    return False, None


def shape_of(v: Value) -> tuple[Dim, ...] | None:
    """A shape tuple (of ints) as dims, when every entry is an int value."""
    if isinstance(v, IntV):
        return (v.dim,)
    if isinstance(v, TupleV):
        dims: list[Dim] = []
        for item in v.items:
            if isinstance(item, IntV):
                dims.append(item.dim)
            elif isinstance(item, OpaqueV):
                dims.append(symbol(item.name, item.why))
            elif isinstance(item, UnknownV):
                dims.append(unknown_dim(item.why))
            else:
                return None
        return tuple(dims)
    return None


def map_arrays(value: Value, change: Callable[[ArrayV], Value], rest: Callable[[Value], Value], depth: int = 0) -> Value:
    """`change` applied to each array of a pytree (tuples, lists, dicts, 8 deep), `rest`
    to any other leaf: a collective's tree of blocks, a custom rule's outputs."""
    if isinstance(value, ArrayV):
        return change(value)
    if isinstance(value, TupleV) and depth < 8:
        return TupleV(tuple(map_arrays(item, change, rest, depth + 1) for item in value.items), value.is_list, value.why, value.diff)
    if isinstance(value, DictV) and depth < 8:
        return DictV(tuple((k, map_arrays(v, change, rest, depth + 1)) for k, v in value.items), value.why, value.diff)
    return rest(value)


def any_diff(*values: Value) -> bool:
    return any(v.diff for v in values)


def contains_diff(value: Value, depth: int = 0) -> bool:
    """The value, or something it holds, depends on differentiated inputs."""
    if value.diff:
        return True
    if depth > 6:
        return False
    if isinstance(value, TupleV):
        return any(contains_diff(v, depth + 1) for v in value.items)
    if isinstance(value, DictV):
        return any(contains_diff(v, depth + 1) for _, v in value.items)
    return False


def join(a: Value, b: Value) -> Value:
    """What is certain of a value that is `a` on one path and `b` on another."""
    if a is b:
        return a
    diff = a.diff and b.diff
    if isinstance(a, IntV) and isinstance(b, IntV):
        return IntV(join_dim(a.dim, b.dim))
    if isinstance(a, ConstV) and isinstance(b, ConstV):
        if type(a.value) is type(b.value) and a.value == b.value:
            return a
        if type(a.value) is float and type(b.value) is float:
            return FloatV(merge_why(a.why, b.why))
        return UnknownV(diff, merge_why(a.why, b.why))
    if is_float_scalar(a) and is_float_scalar(b):
        return FloatV(merge_why(a.why, b.why))
    if isinstance(a, DTypeV) and isinstance(b, DTypeV):
        return a if a.name == b.name else UNKNOWN
    if isinstance(a, TupleV) and isinstance(b, TupleV) and len(a.items) == len(b.items):
        return TupleV(tuple(join(x, y) for x, y in zip(a.items, b.items)), a.is_list, a.why, diff)
    if isinstance(a, ArrayV) and isinstance(b, ArrayV):
        shape: tuple[Dim, ...] | None = None
        if a.shape is not None and b.shape is not None and len(a.shape) == len(b.shape):
            shape = tuple(join_dim(x, y) for x, y in zip(a.shape, b.shape))
        dtype = a.dtype if a.dtype == b.dtype else None
        return ArrayV(shape, dtype, diff, merge_why(a.why, b.why))
    if isinstance(a, DictV) and isinstance(b, DictV):
        keys_a = [k for k, _ in a.items]
        keys_b = [k for k, _ in b.items]
        if keys_a == keys_b:
            return DictV(tuple((k, join(x, y)) for (k, x), (_, y) in zip(a.items, b.items)), a.why, diff)
        return UnknownV(diff)
    if isinstance(a, InstanceV) and isinstance(b, InstanceV) and a.cls is b.cls and a.cls.declared_frozen() and a.attrs.keys() == b.attrs.keys():
        # two NamedTuples / frozen dataclasses of one class (a batch yielded on two paths);
        # the first itself where the second adds nothing, so that a loop's state settles
        joined = {k: join(v, b.attrs[k]) for k, v in a.attrs.items()}
        if a.diff == diff and all(same(v, a.attrs[k]) for k, v in joined.items()):
            return a
        return InstanceV(a.cls, joined, diff, merge_why(a.why, b.why))
    if isinstance(a, IterV) and isinstance(b, IterV) and a.is_list == b.is_list:
        stamp = a.stamp if a.stamp == b.stamp else -1  # -1: never current
        items = a.items if a.items is not None and b.items is not None and a.key() == b.key() else None
        return IterV(join(a.element, b.element), a.is_list, merge_why(a.why, b.why), stamp, items)
    if a.key() == b.key():
        return a
    return UnknownV(diff)


def absent(value: Value | None) -> bool:
    """Left out (None here) or passed as None: what a keyword's None default means."""
    return value is None or (isinstance(value, ConstV) and value.value is None)


def is_float_scalar(v: Value) -> bool:
    """A Python float, known or not."""
    return isinstance(v, FloatV) or (isinstance(v, ConstV) and type(v.value) is float)


def same(a: Value, b: Value) -> bool:
    return a is b or a.key() == b.key()


class LazyImportV(FrozenValue):
    """`from pkg.mod import name` before pkg.mod has run: resolved on first use, so a
    module is evaluated only if something the analysis follows needs it."""

    info: ModuleInfo
    name: str
    resolution: Value | None  # what it was resolved to (Interpreter.resolved), once it is

    def __init__(self, info: ModuleInfo, name: str) -> None:
        _set(self, "info", info)
        _set(self, "name", name)
        _set(self, "resolution", None)

    def key(self) -> object:
        return ("lazy", self.info.name, self.name)

    def resolved_as(self, value: Value) -> None:
        """The import is `value`: a branch that resolved it and one that did not hold the
        same name (a join of the two is not unknown: probe 44b)."""
        _set(self, "resolution", value)


def same_import(a: Value, b: Value) -> Value | None:
    """`b` where `a` is the import that resolved to it (or the reverse), else None."""
    if isinstance(a, LazyImportV) and a.resolution is b:
        return b
    if isinstance(b, LazyImportV) and b.resolution is a:
        return a
    return None


class LazyDefV(FrozenValue):
    """A top-level def or class of a reached module, not parsed yet (lazy_defs.py):
    parsed and run the first time a lookup needs it (`Interpreter.materialize`)."""

    info: ModuleInfo
    node: LazyDef

    def __init__(self, info: ModuleInfo, node: LazyDef) -> None:
        _set(self, "info", info)
        _set(self, "node", node)

    def key(self) -> object:
        return ("lazydef", self.info.path, self.node.lineno)


class OpaqueV(FrozenValue):
    """A value known only by name (a parameter analysed without a caller).

    Used as an int it is a symbol; used as an array its dimensions are symbols
    (`x.shape[1]`), so reshapes with -1 and arithmetic still resolve in closed form.
    """

    name: str
    diff: bool
    why: Why

    def __init__(self, name: str, diff: bool = False, why: Why = ()) -> None:
        _set(self, "name", name)
        _set(self, "diff", diff)
        _set(self, "why", why)

    def key(self) -> object:
        return ("opaque", self.name, self.diff)

    def tainted(self, diff: bool) -> Value:
        return OpaqueV(self.name, diff, self.why)


def call_arg(args: list[Value], kwargs: dict[str, Value], i: int, name: str) -> Value | None:
    """A call's argument by position `i`, else by keyword `name`; None: not passed."""
    if i < len(args):
        return args[i]
    return kwargs.get(name)


def as_array(v: Value | None) -> ArrayV | None:
    """An array argument: an opaque parameter is an array of unknown shape and dtype."""
    if isinstance(v, ArrayV):
        return v
    if isinstance(v, OpaqueV):
        return ArrayV(None, None, v.diff, v.why, v.name)
    return None
