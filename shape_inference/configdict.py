"""ml_collections: what a ConfigDict stores for a field, FieldReference's lazy values,
and config_flags' DEFINE_config_dict.

* `cfg.input = dict(batch=2)` (or `cfg["input"] = {...}`, `setattr`): ConfigDict (and
  OmegaConf's DictConfig) turn a dict into one of themselves, so `cfg.input.batch` reads 2.
* `ref = FieldReference(128)`, `cfg.get_ref("n")`: a mutable cell shared by every field
  that holds it.  `ref - 1` (`+ - * / // % **`) is a reference computed from it when
  read, so `cfg.seq = ref - 1` follows a later `cfg.max_len = 255` (which sets the cell
  `max_len` holds).  A reference is an InstanceV of a synthetic class with attributes
  `_value` (a value, or the parent reference) and, for a computed one, `_op`, `_other`
  and `_reflected`.  A derived reference shares its parent's write counter, and setting
  a cell bumps the globals epoch, so no call memoised before the change is reused.
  Anything we cannot follow (a reference handed to unknown code, a method we do not
  model, a config's `update`) makes the reference Unknown, never stale.
* `_CONFIG = config_flags.DEFINE_config_dict("config", get_config())`: an absl flag
  (absl_flags.py) whose default is that ConfigDict, the very object (the command line's
  `--config.seq=...` overrides fields in place).  As for DEFINE_integer, the default is
  what the program sees when the flag is not given: `FLAGS.config` / `_CONFIG.value` are
  the ConfigDict; `FLAGS(argv)` with an argv other than sys.argv, `FLAGS.config = ...`
  or a flagsaver make it Unknown, and then the ConfigDict's fields too (they are
  overridden in place).
* `config_flags.DEFINE_config_file("config", "configs/lm.py:tiny")`: the default names
  a file that absl loads at parse time, relative to the working directory, and calls its
  `get_config("tiny")` (`get_config()` without the `:` part): where that path, from the
  defining module's folder or any folder above it (`python train.py` beside it, `python
  -m pkg.train` or `python scripts/train.py` from the repository's root), names exactly
  one file of the project, the flag's default is what its `get_config` returns (a
  ConfigDict), as for DEFINE_config_dict.  A file out of sight (the flake8 plugin sees one file), or two
  candidates: Unknown.  DEFINE_config_dataclass: Unknown.
"""

from __future__ import annotations

import ast
import os
from typing import TYPE_CHECKING

from jax_cudnn_lint.shape_inference import attribute_dicts
from jax_cudnn_lint.shape_inference.values import (
    FIELD_REFERENCE,
    UNKNOWN,
    BoundMethodV,
    ClassV,
    ConstV,
    DictV,
    ExternalV,
    FloatV,
    FunctionV,
    InstanceV,
    IntV,
    UnknownV,
    Value,
    join,
)

if TYPE_CHECKING:
    from jax_cudnn_lint.shape_inference.interpreter import Frame, Interpreter

_REF_OPS: dict[type[ast.operator], str] = {ast.Add: "Add", ast.Sub: "Sub", ast.Mult: "Mult", ast.Div: "Div", ast.FloorDiv: "FloorDiv", ast.Mod: "Mod", ast.Pow: "Pow"}
_OP_CLASSES: dict[str, type[ast.operator]] = {name: cls for cls, name in _REF_OPS.items()}
_REF_CLASS: list[ClassV] = []
# depth of reference chains followed when reading (a cycle is refused by ml_collections)
_MAX_CHAIN = 32

FIELD_REFERENCE_CTORS = tuple(
    f"{module}.FieldReference" for module in ("ml_collections", "ml_collections.config_dict", "ml_collections.config_dict.config_dict")
)
CONFIG_DICT_FLAGS = tuple(
    f"{module}.DEFINE_config_dict" for module in ("ml_collections.config_flags", "ml_collections.config_flags.config_flags")
)
CONFIG_FILE_FLAGS = tuple(
    f"{module}.{name}"
    for module in ("ml_collections.config_flags", "ml_collections.config_flags.config_flags")
    for name in ("DEFINE_config_file", "DEFINE_config_dataclass")
)
REF_GET = f"{FIELD_REFERENCE}.get"
REF_SET = f"{FIELD_REFERENCE}.set"
GET_REF = "ml_collections.ConfigDict.get_ref"
UPDATE = "ml_collections.ConfigDict.update"
TO_DICT = "ml_collections.ConfigDict.to_dict"
GET = "ml_collections.ConfigDict.get"  # (OmegaConf's DictConfig.get too: the same reading)


def is_ref(v: Value | None) -> bool:
    """A FieldReference we model."""
    return isinstance(v, InstanceV) and v.cls.qualname == FIELD_REFERENCE


def _ref_class(fr: Frame) -> ClassV:
    """The synthetic class of FieldReference instances (one per analysis process)."""
    if not _REF_CLASS:
        _REF_CLASS.append(ClassV(ast.ClassDef(name="FieldReference", bases=[], keywords=[], body=[], decorator_list=[]), fr.module, (), {}, [], FIELD_REFERENCE))
    return _REF_CLASS[0]


def _new_ref(interp: Interpreter, attrs: dict[str, Value], node: ast.AST, fr: Frame, parent: InstanceV | None = None) -> InstanceV:
    step = (interp.step(fr, node, "FieldReference"),)
    if parent is not None:  # a computed reference changes whenever its parent does
        return InstanceV(_ref_class(fr), attrs, False, step, False, parent.writes)
    return InstanceV(_ref_class(fr), attrs, False, step)


def field_reference(interp: Interpreter, args: list[Value], kwargs: dict[str, Value], node: ast.AST, fr: Frame) -> Value:
    """`FieldReference(default)`: a cell holding default; with a field_type, an op or
    required (casts, ops we do not model): Unknown."""
    if len(args) != 1 or kwargs and not _field_type_of(args[0], kwargs):
        interp.escape(args, kwargs)
        return UNKNOWN
    default = args[0]
    if (isinstance(default, ConstV) and default.value is None) or not isinstance(default, (IntV, ConstV, FloatV)):
        return UNKNOWN  # None: ValueError without a field_type; a dict or a config: converted, not modelled
    return _new_ref(interp, {"_value": default}, node, fr)


def _field_type_of(default: Value, kwargs: dict[str, Value]) -> bool:
    """`FieldReference(63, field_type=int)`: a field_type that the default already has,
    so nothing is cast (probe 86c)."""
    given = kwargs.get("field_type")
    if set(kwargs) != {"field_type"} or not isinstance(given, ExternalV):
        return False
    if isinstance(default, IntV):
        return given.qualname == "builtins.int"
    if isinstance(default, FloatV):
        return given.qualname == "builtins.float"
    return isinstance(default, ConstV) and type(default.value).__name__ == given.qualname.removeprefix("builtins.") and type(default.value) in (str, bool, float)


def deref(interp: Interpreter, v: Value, node: ast.AST, fr: Frame, depth: int = 0) -> Value:
    """What `ref.get()` gives now (a value that is not a reference: itself)."""
    if not isinstance(v, InstanceV) or not is_ref(v):
        return v
    if depth > _MAX_CHAIN:
        return UNKNOWN
    base = deref(interp, v.attrs.get("_value", UNKNOWN), node, fr, depth + 1)
    op = v.attrs.get("_op")
    if op is None:
        return base
    other = v.attrs.get("_other", UNKNOWN)
    reflected = v.attrs.get("_reflected")
    if not (isinstance(op, ConstV) and isinstance(op.value, str) and op.value in _OP_CLASSES and isinstance(reflected, ConstV)):
        return UNKNOWN
    other = deref(interp, other, node, fr, depth + 1)  # `get_ref("a") + get_ref("b")`
    if isinstance(base, UnknownV) or isinstance(other, UnknownV) or is_ref(other):
        return UNKNOWN
    if isinstance(base, ConstV) and base.value is None:
        return base  # ml_collections skips an op on None
    from jax_cudnn_lint.shape_inference import jax_api as A

    left, right = (other, base) if reflected.value is True else (base, other)
    return A.binop(interp, _OP_CLASSES[op.value](), left, right, node, fr)


def ref_binop(interp: Interpreter, op: ast.operator, left: Value, right: Value, node: ast.AST, fr: Frame) -> Value:
    """`ref - 1`, `1 + ref`, `ref_a // ref_b`: a reference computed from its operands
    when read (a reference among them read then too); an operator FieldReference does
    not lazily apply: Unknown."""
    name = _REF_OPS.get(type(op))
    if name is None:
        return UNKNOWN
    reflected = is_ref(right) and not is_ref(left)
    parent = right if reflected else left
    other = left if reflected else right
    if not isinstance(parent, InstanceV):
        return UNKNOWN
    attrs: dict[str, Value] = {"_value": parent, "_op": ConstV(name), "_other": other, "_reflected": ConstV(reflected)}
    return _new_ref(interp, attrs, node, fr, parent)


def resolved(interp: Interpreter, v: Value, node: ast.AST, fr: Frame, depth: int = 0) -> Value:
    """v with the references it holds (in dicts, to a few levels) read now, as
    FrozenConfigDict does: a later change of the reference does not reach it."""
    if is_ref(v):
        return deref(interp, v, node, fr)
    if isinstance(v, DictV) and depth < 8:
        return DictV(tuple((k, resolved(interp, x, node, fr, depth + 1)) for k, x in v.items), v.why, v.diff)
    if isinstance(v, InstanceV):
        return to_dict(interp, v, node, fr, depth)  # a ConfigDict: FrozenConfigDict copies its fields
    return v


def set_ref(interp: Interpreter, ref: InstanceV, value: Value, fr: Frame) -> None:
    """`ref.set(value)`, or `cfg.name = value` where the field holds ref: the cell takes
    value (a computed reference stops computing); inside a branch, what either path leaves."""
    if isinstance(value, DictV):
        value = UNKNOWN  # (set keeps a dict a dict: not modelled)
    if fr.may_skip(ref):
        old = _plain(interp, ref, fr)
        new = _plain(interp, value, fr)
        value = join(old, new) if not (isinstance(old, UnknownV) or isinstance(new, UnknownV)) else UNKNOWN
    ref.touch()
    ref.attrs.clear()
    ref.attrs["_value"] = value
    interp.globals_epoch += 1  # a call memoised before may have read the old value
    interp.mutations += 1


def _plain(interp: Interpreter, v: Value, fr: Frame) -> Value:
    """v's value now, references read (no node: the frame's function stands for it)."""
    return deref(interp, v, fr.func.node if fr.func is not None else ast.Pass(), fr) if is_ref(v) else v


def forget_ref(interp: Interpreter, ref: InstanceV) -> None:
    """Code we cannot follow may have set the reference."""
    ref.forget()
    interp.globals_epoch += 1


def set_field(interp: Interpreter, inst: InstanceV, key: str, value: Value, node: ast.AST, fr: Frame) -> None:
    """`cfg.key = value` (or `cfg[key] = value`, `setattr`) on a ConfigDict / DictConfig:
    a field holding a reference sets it; a dict becomes a namespace of the same kind."""
    from jax_cudnn_lint.shape_inference import layers

    old = inst.attrs.get(key)
    if isinstance(old, InstanceV) and is_ref(old):
        inst.touch()
        set_ref(interp, old, value, fr)
        return
    if isinstance(value, DictV) and inst.cls.qualname in layers.MAPPING_NAMESPACES:
        # (a class of the project whose attributes are its items keeps a dict a dict)
        value = layers.make_namespace(interp, inst.cls.qualname, [value], {}, node, fr) if layers.str_keyed(value) else UNKNOWN
    if fr.may_skip(inst):
        value = join(old, value) if old is not None else UNKNOWN
    inst.attrs[key] = value


def update(interp: Interpreter, args: list[Value], kwargs: dict[str, Value], node: ast.AST, fr: Frame) -> Value:
    """`cfg.update(max_target_length=127)` / `cfg.update({"k": v})` on a ConfigDict (or an
    attribute dict of the project, attribute_dicts.py): each field set as `cfg.k = v` would (an unknown value makes that field unknown).  A
    nested dict or namespace (merged field by field by ml_collections), a key we cannot
    name or positional arguments other than one dict forget the config."""
    inst = args[0] if args else None
    if not isinstance(inst, InstanceV):
        return UNKNOWN
    plain = attribute_dicts.is_attribute_dict(inst.cls)  # a dict of ours: dict's update, each value as it is
    items: list[tuple[object, Value]] = list(kwargs.items())
    others = args[1:]
    if len(others) == 1 and isinstance(others[0], DictV):
        items = [*others[0].items, *items]
    elif others:
        inst.forget()
        return UNKNOWN
    if not all(isinstance(key, str) for key, _ in items) or not plain and any(isinstance(value, InstanceV) or isinstance(value, DictV) and not _merges_into(inst, key) for key, value in items):
        inst.forget()
        return UNKNOWN
    inst.touch()
    for key, value in items:
        if isinstance(value, DictV) and not plain:
            # merged into the ConfigDict the field holds, as ml_collections does (probe 86c:
            # `cfg.update({"data": {"seq_len": 1023}})`)
            update(interp, [inst.attrs[str(key)], value], {}, node, fr)
        else:
            set_field(interp, inst, str(key), value, node, fr)
    return ConstV(None)


def _merges_into(inst: InstanceV, key: object) -> bool:
    """Does `inst` hold a ConfigDict at `key`, into which an update's dict is merged?
    (Not a dict of ours: its update replaces, as dict's does.)"""
    from jax_cudnn_lint.shape_inference import layers

    held = inst.attrs.get(key) if isinstance(key, str) else None
    return isinstance(held, InstanceV) and held.cls.qualname == inst.cls.qualname and inst.cls.qualname in layers.MAPPING_NAMESPACES


def get_ref(interp: Interpreter, args: list[Value], kwargs: dict[str, Value], node: ast.AST, fr: Frame) -> Value:
    """`cfg.get_ref("key")`: the field's reference, made one in place if it was a value
    (ml_collections does so); in a branch, or a key we cannot name: Unknown."""
    inst = args[0] if args else None
    key = args[1] if len(args) == 2 else None
    if kwargs or not isinstance(inst, InstanceV) or not (isinstance(key, ConstV) and isinstance(key.value, str)):
        return UNKNOWN
    field = inst.attrs.get(key.value)
    if field is None or isinstance(field, UnknownV) or (isinstance(field, ConstV) and field.value is None):
        return UNKNOWN
    if is_ref(field):
        return field
    if fr.branch_depth:
        inst.attrs[key.value] = UNKNOWN  # a reference on one path only: what it holds is not followed
        return UNKNOWN
    ref = _new_ref(interp, {"_value": field}, node, fr)
    inst.touch()
    inst.attrs[key.value] = ref
    return ref


def ref_method(interp: Interpreter, ref: InstanceV, name: str) -> Value:
    """`ref.get` / `ref.set`; any other method may change the reference: Unknown."""
    if name == "get":
        return BoundMethodV(ExternalV(REF_GET), ref)
    if name == "set":
        return BoundMethodV(ExternalV(REF_SET), ref)
    forget_ref(interp, ref)
    return UNKNOWN


def call_ref_method(interp: Interpreter, q: str, args: list[Value], kwargs: dict[str, Value], node: ast.AST, fr: Frame) -> Value:
    """`ref.get()` reads the reference, `ref.set(v)` sets it."""
    ref = args[0] if args else None
    if not isinstance(ref, InstanceV) or not is_ref(ref):
        return UNKNOWN
    if q == REF_GET and len(args) == 1 and not kwargs:
        return deref(interp, ref, node, fr)
    if q == REF_SET and len(args) == 2 and set(kwargs) <= {"type_safe"}:
        set_ref(interp, ref, args[1], fr)
        return ConstV(None)
    forget_ref(interp, ref)
    return UNKNOWN


def define_config_dict(interp: Interpreter, q: str, args: list[Value], kwargs: dict[str, Value], node: ast.AST, fr: Frame) -> Value:
    """`config_flags.DEFINE_config_dict(name, config)`: an absl flag whose default is the
    ConfigDict itself; DEFINE_config_file: what its default file's `get_config` returns
    (module docstring); DEFINE_config_dataclass: a flag whose value is Unknown."""
    from jax_cudnn_lint.shape_inference import absl_flags, layers
    from jax_cudnn_lint.shape_inference import jax_api as A

    name_v = args[0] if args else kwargs.get("name")
    config = args[1] if len(args) > 1 else kwargs.get("config")
    if not (isinstance(name_v, ConstV) and isinstance(name_v.value, str)):
        interp.absl_flags.forget_all()
        interp.escape(args, kwargs)
        return UNKNOWN
    value: Value = UNKNOWN
    from_file = q.endswith(".DEFINE_config_file")
    if from_file and "flag_values" not in kwargs and "sys_argv" not in kwargs:
        config = _config_file_default(interp, args[1] if len(args) > 1 else kwargs.get("default"), node, fr)
    if (
        (q in CONFIG_DICT_FLAGS or from_file)
        and isinstance(config, InstanceV)
        and A.is_mapping_namespace(config)
        and config.cls.qualname != "omegaconf.DictConfig"
        and "flag_values" not in kwargs
        and "sys_argv" not in kwargs
        and len(args) <= 3
    ):
        value = config
    else:
        interp.escape(args, kwargs)
    holder = layers.make_namespace(interp, absl_flags.HOLDER, [], {"value": value}, node, fr)
    holder = holder if isinstance(holder, InstanceV) else None
    interp.absl_flags.add(name_v.value, fr.module.path, value, holder)
    return holder or UNKNOWN


def _config_file_default(interp: Interpreter, default: Value | None, node: ast.AST, fr: Frame) -> Value | None:
    """What the `get_config` of the project file a DEFINE_config_file default names
    returns, or None where the file is not certain (module docstring): a stale copy
    deeper in the tree makes two (probe 119a)."""
    if not (isinstance(default, ConstV) and isinstance(default.value, str) and default.value):
        return None
    path, colon, argument = default.value.partition(":")
    if not path.endswith(".py"):
        return None
    here = os.path.dirname(os.path.abspath(fr.module.path))
    folders = [here]
    while os.path.dirname(here) != here:
        here = os.path.dirname(here)
        folders.append(here)
    found = {id(info): info for folder in folders if (info := interp.project.by_abs_path.get(os.path.normpath(os.path.join(folder, path)))) is not None}
    if len(found) != 1:
        return None
    (info,) = found.values()
    namespace = interp.module_namespace(info)
    get_config = interp.resolved(namespace, "get_config") if "get_config" in namespace else None
    if not isinstance(get_config, FunctionV):
        return None
    why = (interp.step(fr, node, f"default file {default.value!r} of the config flag: its get_config()"),)
    args: list[Value] = [ConstV(argument, why)] if colon else []
    return interp.call_function(get_config, args, {}, False, interp.callee_ctx(fr, node, get_config), fr)


def items(interp: Interpreter, inst: InstanceV, node: ast.AST, fr: Frame) -> list[tuple[str, Value]] | None:
    """A ConfigDict's fields as `**cfg` passes them (references read now); None unless
    every field is known to exist with a value we hold: after code we cannot follow
    changed it (`cfg.update(unknown)`, `cfg[key] = v` with an unknown key, handed to
    unknown code) every field is Unknown and fields may have been added, so a splat
    that passed only the fields we know would drop some (a class field's default would
    then stand in for a value we never saw).  A nested ConfigDict stays one."""
    from jax_cudnn_lint.shape_inference import jax_api as A

    if not A.is_mapping_namespace(inst) or not inst.attrs or any(v is UNKNOWN for v in inst.attrs.values()):
        return None
    return [(name, deref(interp, v, node, fr)) for name, v in inst.attrs.items()]


def to_dict(interp: Interpreter, inst: InstanceV, node: ast.AST, fr: Frame, depth: int = 0) -> Value:
    """`cfg.to_dict()`: a plain dict of its fields, nested ConfigDicts as dicts too."""
    from jax_cudnn_lint.shape_inference import jax_api as A

    fields = items(interp, inst, node, fr) if depth < 8 else None
    if fields is None:
        return UNKNOWN
    out: list[tuple[object, Value]] = []
    for name, v in fields:
        if isinstance(v, InstanceV) and A.is_mapping_namespace(v):
            v = to_dict(interp, v, node, fr, depth + 1)
        out.append((name, v))
    return DictV(tuple(out), inst.why)


def forget_config(value: Value) -> None:
    """A config flag's value overridden where we cannot see (its fields are set in place):
    the ConfigDict, its nested ones and the references they hold are Unknown (the flag
    table's change counter, part of every memo key, stands for the epoch)."""
    seen: set[int] = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if not isinstance(v, InstanceV) or id(v) in seen:
            continue
        seen.add(id(v))
        if is_ref(v):
            v.forget()
            continue
        stack.extend(v.attrs.values())
        v.forget()
