"""Enum classes: what `Mode.TRAIN`, `Mode.TRAIN.value`, `.name` and `Mode["TRAIN"]` are.

A member of an enum with an int or str mixin (`IntEnum`, `StrEnum`, `class Impl(str,
Enum)`) equals its value, so the analysis holds it as that value: `implementation=
Impl.CUDNN` is "cudnn" to JAX's check, `jnp.zeros((B, Context.SHORT))` is a length.  A
member of a plain `Enum` equals nothing but itself (`Mode.SHORT == 127` is False, and it
is no length): it is held as a ConstV of an EnumMember, which compares by identity and
keeps the value for `.value`.  An enum with its own `__new__` gives its members values
that the body does not show: they are unknown.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from jax_cudnn_lint.shape_inference.values import (
    UNKNOWN,
    ClassV,
    ConstV,
    FunctionV,
    UnknownV,
    Value,
    const_value,
    make_int,
    same_key,
)

# a mixin that makes members equal to their values
_VALUE_MIXINS = ("enum.IntEnum", "enum.StrEnum", "enum.IntFlag", "builtins.int", "builtins.str", "builtins.float")


@dataclass(frozen=True)
class EnumMember:
    """A plain Enum's member: equal only to itself (by class and name)."""

    owner: str
    name: str
    value: Value = field(compare=False, hash=False, repr=False)


def is_enum(cls: Value) -> bool:
    return isinstance(cls, ClassV) and any(b.startswith("enum.") for b in cls.external_bases())


def _is_member(name: str, value: Value) -> bool:
    return not name.startswith("_") and not isinstance(value, (FunctionV, ClassV))


def finish_class(cls: ClassV) -> None:
    """After an enum class body ran: its members as the module docstring says (an
    alias, a later name with an earlier member's value, is that member)."""
    bases = cls.external_bases()
    _auto_values(cls, bases)
    custom_new = isinstance(cls.lookup("__new__"), FunctionV)
    plain = not any(base in _VALUE_MIXINS for base in bases)
    firsts: dict[object, Value] = {}
    for name, value in list(cls.attrs.items()):
        if not _is_member(name, value):
            continue
        if custom_new:
            cls.attrs[name] = UNKNOWN
            continue
        if not plain:
            continue
        ok, py = const_value(value)
        key = py if ok and _hashable(py) else None  # (as Python's value map: 1 == True == 1.0 alias)
        held = firsts.get(key) if key is not None else None
        if held is None:
            held = ConstV(EnumMember(cls.qualname, name, value), value.why)
            if key is not None:
                firsts[key] = held
        cls.attrs[name] = held


def _auto_values(cls: ClassV, bases: set[str]) -> None:
    """`CUDNN = enum.auto()`: a StrEnum's member is its name lowercased; another enum's
    is one more than the member before it (1 for the first).  A Flag's, or a class
    that chooses its own (`_generate_next_value_`), stays unknown."""
    if any("Flag" in base for base in bases) or cls.lookup("_generate_next_value_") is not None:
        return
    previous: object = 0
    for stmt in cls.node.body:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            continue
        name = stmt.targets[0].id
        call = stmt.value
        if isinstance(call, ast.Call) and not call.args and not call.keywords and (
            (isinstance(call.func, ast.Name) and call.func.id == "auto") or (isinstance(call.func, ast.Attribute) and call.func.attr == "auto")
        ):
            if "enum.StrEnum" in bases:
                cls.attrs[name] = ConstV(name.lower())
            elif type(previous) is int:
                previous += 1
                cls.attrs[name] = make_int(previous)
            continue
        ok, py = const_value(cls.attrs.get(name, UNKNOWN))
        previous = py if ok else None


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def member(cls: Value, name: str) -> Value | None:
    """`Cls.NAME` of an enum class (None: not an enum, or no such member)."""
    if not is_enum(cls) or not isinstance(cls, ClassV):
        return None
    found = cls.attrs.get(name)
    return found if found is not None and _is_member(name, found) else None


def by_value(cls: ClassV, args: Sequence[Value], kwargs: Mapping[str, Value]) -> Value:
    """`Impl("cudnn")`: the member whose value that is (a plain Enum's, a mixin's alike);
    Unknown where a member's value is not known, or none has it (JAX is not reached:
    Python raises ValueError, or a `_missing_` hook decides)."""
    if len(args) != 1 or kwargs or isinstance(cls.lookup("__new__"), FunctionV):
        return UNKNOWN
    ok, wanted = const_value(args[0])
    if not ok:
        return UNKNOWN
    for name, held in cls.attrs.items():
        if not _is_member(name, held):
            continue
        if isinstance(held, ConstV) and isinstance(held.value, EnumMember) and held.value == wanted:
            return held  # `Impl(Impl.CUDNN)` is the member itself
        ok, value = const_value(value_of(held))
        if not ok:
            return UNKNOWN
        if value == wanted and type(value) is type(wanted):
            return held
    return UNKNOWN


def members(cls: Value) -> list[Value] | None:
    """`for stage in Stage:`: the members in definition order, aliases left out; None
    where that order or aliasing is not certain (a member's value unknown, a Flag, whose
    iteration skips combined members, a custom `__new__`)."""
    if not is_enum(cls) or not isinstance(cls, ClassV) or any("Flag" in base for base in cls.external_bases()):
        return None
    if "_ignore_" in cls.attrs or any(isinstance(node, (ast.FunctionDef, ast.Call)) and _marks_members(node) for node in ast.walk(cls.node)):
        return None  # `_ignore_`, `@enum.member` / `enum.nonmember(...)`: which names are members is not followed
    found: list[Value] = []
    seen: list[object] = []
    in_body = {t.id for stmt in cls.node.body if isinstance(stmt, (ast.Assign, ast.AnnAssign)) for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]) if isinstance(t, ast.Name)}
    for name, held in cls.attrs.items():
        if not _is_member(name, held) or name not in in_body:
            continue  # (a name set on the class after it was made is no member)
        if isinstance(held, ConstV) and isinstance(held.value, EnumMember):
            if not const_value(held.value.value)[0]:
                return None  # it may be an alias of another member
            if held.value.name == name:
                found.append(held)  # (an alias holds its first member, whose name differs)
            continue
        ok, value = const_value(held)
        if not ok:
            return None
        if not any(same_key(value, other) for other in seen):  # (an alias: equal to an earlier value, as the value map finds it)
            seen.append(value)
            found.append(held)
    return found


def _marks_members(node: ast.FunctionDef | ast.Call) -> bool:
    """`@enum.member` on a def, or a call of `member(...)` / `nonmember(...)`."""
    names = [d for d in node.decorator_list] if isinstance(node, ast.FunctionDef) else [node.func]
    return any((isinstance(n, ast.Name) and n.id in ("member", "nonmember")) or (isinstance(n, ast.Attribute) and n.attr in ("member", "nonmember")) for n in names)


def value_of(held: Value) -> Value:
    """`.value` of a member as the analysis holds it."""
    if isinstance(held, ConstV) and isinstance(held.value, EnumMember):
        return held.value.value
    return held  # a mixin member is its value


def name_of(cls: ClassV, name: str) -> Value:
    """`Cls.NAME.name`: NAME, or the first member's name when NAME is an alias of it."""
    mine = cls.attrs.get(name)
    if mine is None or isinstance(mine, UnknownV):
        return UNKNOWN
    if isinstance(mine, ConstV) and isinstance(mine.value, EnumMember):
        return ConstV(mine.value.name)  # a plain Enum's alias already holds its member
    ok, mine_value = const_value(mine)
    if not ok:
        return UNKNOWN
    for other, held in cls.attrs.items():
        if other == name:
            break
        if not _is_member(other, held):
            continue
        other_ok, other_value = const_value(held)
        if not other_ok:
            return UNKNOWN
        if other_value == mine_value and type(other_value) is type(mine_value):
            return ConstV(other)
    return ConstV(name)
