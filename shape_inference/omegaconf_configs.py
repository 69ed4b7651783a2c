"""OmegaConf configs built in code: `create`, `structured`, `merge`, `from_dotlist`,
`from_cli`, and `load` of a YAML file where the command reads data configs.

    base = OmegaConf.structured(ExpConfig)                 # a dataclass's defaults
    cfg = OmegaConf.merge(base, {"data": {"seq_len": 255}}, OmegaConf.from_cli())
    cfg.data.seq_len                                       # 255 on a run without options

A DictConfig is held as a mapping namespace (layers.make_namespace), a nested one for
each nested mapping or dataclass.  `merge` merges key by key into a new config, as
OmegaConf does, mappings into mappings; a value that would change type (a string over a
number: OmegaConf converts or rejects it) is Unknown.  `from_dotlist` reads `a.b=255`
items whose values are integers, booleans or null (anything else is Unknown);
`from_cli()` is the command line, empty on the run without options (argparse's
convention: argparse_seeds) unless analysed code sets `sys.argv`.  A dataclass class
gives its fields' defaults (OmegaConf runs no `__post_init__`), an instance its fields; a
field without a default, or any value not known, is Unknown (probe 137b).
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, cast

from jax_cudnn_lint.shape_inference import argparse_seeds, data_files, layers, paths
from jax_cudnn_lint.shape_inference.jax_api import field_default, init_fields, is_dataclass_like
from jax_cudnn_lint.shape_inference.values import (
    UNKNOWN,
    ClassV,
    ConstV,
    DictV,
    FloatV,
    InstanceV,
    IntV,
    TupleV,
    Value,
    class_chain,
    const_value,
    make_int,
)

if TYPE_CHECKING:
    from jax_cudnn_lint.shape_inference.interpreter import Frame, Interpreter

Args = list[Value]
Kwargs = dict[str, Value]

DICT_CONFIG = "omegaconf.DictConfig"
_MAX_DEPTH = 16  # nested configs followed (a dataclass that nests itself through a factory)


def is_config(value: Value) -> bool:
    return isinstance(value, InstanceV) and value.cls.qualname == DICT_CONFIG


def h_create(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """OmegaConf.create({...}): a DictConfig; of a dataclass, as `structured`; from a
    list or a YAML string: Unknown."""
    if len(args) != 1 or kwargs:
        interp.escape(args, kwargs)
        return UNKNOWN
    return _config_of(interp, args[0], node, fr, 0)


def h_structured(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """OmegaConf.structured(ExpConfig) / structured(ExpConfig(seq_len=255))."""
    if len(args) != 1 or kwargs or not isinstance(args[0], (ClassV, InstanceV)):
        interp.escape(args, kwargs)
        return UNKNOWN
    return _config_of(interp, args[0], node, fr, 0)


def h_merge(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """OmegaConf.merge(base, *overrides): a new config, later ones winning key by key."""
    if not args or kwargs:
        interp.escape(args, kwargs)
        return UNKNOWN
    merged: Value = _config_of(interp, args[0], node, fr, 0)
    for override in args[1:]:
        merged = _merged(interp, merged, _config_of(interp, override, node, fr, 0), node, fr, 0)
    return merged


def h_from_dotlist(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """OmegaConf.from_dotlist(["data.seq_len=255"]) (from_cli of a given list alike)."""
    items = args[0] if len(args) == 1 and not kwargs else None
    if not isinstance(items, TupleV):
        interp.escape(args, kwargs)
        return UNKNOWN
    tree: dict[str, object] = {}
    for item in items.items:
        ok, text = const_value(item)
        if not ok or not isinstance(text, str) or "=" not in text:
            return UNKNOWN
        key, _, raw = text.partition("=")
        parts = key.strip().split(".")
        if not all(part.isidentifier() for part in parts):
            return UNKNOWN
        holder = tree
        for part in parts[:-1]:
            inner: object = holder.setdefault(part, cast("dict[str, object]", {}))
            if not isinstance(inner, dict):
                return UNKNOWN
            holder = cast("dict[str, object]", inner)
        holder[parts[-1]] = _scalar(raw.strip())
    return _namespace(interp, tree, node, fr)


def h_from_cli(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """OmegaConf.from_cli(): the command line's `a.b=v` items, none on the run without
    options, where no analysed code sets sys.argv; of a given list, as from_dotlist."""
    if args or kwargs:
        return h_from_dotlist(interp, args, kwargs, node, fr, q)
    if not argparse_seeds.command_line_as_given(interp, fr):
        return UNKNOWN
    return _namespace(interp, {}, node, fr)


def h_load(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """OmegaConf.load("configs/exp.yaml"): the project's YAML file as a config, where the
    command reads data configs (data_files.py); else Unknown."""
    given = args[0] if len(args) == 1 and not kwargs else None
    path = paths.path_text(given) if given is not None else None
    found = data_files.read(interp, path, fr) if path is not None else None
    if found is None:
        return UNKNOWN
    loaded = data_files.h_load(interp, [ConstV(found[1])], {}, node, fr, "yaml.safe_load")
    return _config_of(interp, loaded, node, fr, 0) if isinstance(loaded, DictV) else UNKNOWN


def _scalar(raw: str) -> object:
    if re.fullmatch(r"[-+]?\d+", raw):
        return int(raw)
    lowered = raw.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("null", "~"):
        return None
    return UNKNOWN


def _namespace(interp: Interpreter, tree: dict[str, object], node: ast.AST, fr: Frame) -> Value:
    """A config of parsed dotlist values (nested dicts of ints, booleans, None)."""
    attrs: dict[str, Value] = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            attrs[key] = _namespace(interp, cast("dict[str, object]", value), node, fr)
        elif isinstance(value, Value):
            attrs[key] = value
        elif isinstance(value, bool) or value is None:
            attrs[key] = ConstV(value, (interp.step(fr, node, "given in the dotlist"),))
        elif isinstance(value, int):
            attrs[key] = make_int(value, (interp.step(fr, node, "given in the dotlist"),))
    return _new_config(interp, attrs, node, fr)


def _new_config(interp: Interpreter, attrs: dict[str, Value], node: ast.AST, fr: Frame) -> InstanceV:
    made = layers.make_namespace(interp, DICT_CONFIG, [], {}, node, fr)
    assert isinstance(made, InstanceV)
    made.attrs.update(attrs)
    return made


def _config_of(interp: Interpreter, value: Value, node: ast.AST, fr: Frame, depth: int) -> Value:
    """What OmegaConf makes of a value it is given as a config: a config as it is, a dict
    of string keys, a dataclass (its class's defaults, or an instance's fields); Unknown
    for anything else."""
    if depth > _MAX_DEPTH:
        return UNKNOWN
    if isinstance(value, InstanceV) and is_config(value):
        return _copy(interp, value, node, fr, depth)  # (OmegaConf copies what it is given: a change to one is not seen in the other)
    if isinstance(value, DictV):
        attrs: dict[str, Value] = {}
        for key, item in value.items:
            if not isinstance(key, str):
                return UNKNOWN
            attrs[key] = _config_of(interp, item, node, fr, depth + 1) if _nested(item) else item
        return _new_config(interp, attrs, node, fr)
    if isinstance(value, ClassV) and _dataclass(value):
        # the class's field defaults, its factories' results: OmegaConf reads the fields
        # and runs no __init__ or __post_init__ (traced: a rounding __post_init__ left 255)
        attrs = {}
        for name, default, _ in init_fields(value):
            item = field_default(interp, default, node, fr) if default is not None else UNKNOWN
            attrs[name] = _config_of(interp, item, node, fr, depth + 1) if _nested(item) else item
        return _new_config(interp, attrs, node, fr)
    if isinstance(value, InstanceV) and _dataclass(value.cls):
        attrs = {}
        for name, _, _ in init_fields(value.cls):
            item = value.attrs.get(name, UNKNOWN)
            attrs[name] = _config_of(interp, item, node, fr, depth + 1) if _nested(item) else item
        return _new_config(interp, attrs, node, fr)
    return UNKNOWN


def _copy(interp: Interpreter, config: InstanceV, node: ast.AST, fr: Frame, depth: int) -> Value:
    """A deep copy of a config: new nested configs, the same leaves."""
    if depth > _MAX_DEPTH:
        return UNKNOWN
    attrs = {key: _copy(interp, item, node, fr, depth + 1) if isinstance(item, InstanceV) and is_config(item) else item for key, item in config.attrs.items()}
    return _new_config(interp, attrs, node, fr)


def _nested(value: Value) -> bool:
    """A value OmegaConf nests as a config of its own (a dict, a dataclass)."""
    return isinstance(value, DictV) or is_config(value) or isinstance(value, InstanceV) and _dataclass(value.cls) or isinstance(value, ClassV) and _dataclass(value)


def _dataclass(cls: ClassV) -> bool:
    """A dataclass (of the dataclasses family) without an `__init__` of its own."""
    return is_dataclass_like(cls) and not any("__init__" in current.attrs for current in class_chain(cls))


def _merged(interp: Interpreter, base: Value, override: Value, node: ast.AST, fr: Frame, depth: int) -> Value:
    """OmegaConf's merge of two configs: a new config, key by key."""
    if not (isinstance(base, InstanceV) and is_config(base) and isinstance(override, InstanceV) and is_config(override)) or depth > _MAX_DEPTH:
        return UNKNOWN
    copied = _copy(interp, base, node, fr, depth)
    if not isinstance(copied, InstanceV):
        return UNKNOWN
    attrs = dict(copied.attrs)
    for key, value in override.attrs.items():
        before = attrs.get(key)
        if before is not None and is_config(before) and is_config(value):
            attrs[key] = _merged(interp, before, value, node, fr, depth + 1)
        elif before is None or _same_kind(before, value):
            attrs[key] = value
        else:
            attrs[key] = UNKNOWN  # (a string over a number: converted or rejected)
    return _new_config(interp, attrs, node, fr)


def _same_kind(before: Value, after: Value) -> bool:
    """Do two values have a type OmegaConf merges without converting (both numbers,
    both strings, either None or unknown)?"""
    ok_before, old = const_value(before)
    ok_after, new = const_value(after)
    if not ok_before or not ok_after or old is None or new is None:
        return not (isinstance(before, (IntV, FloatV)) and ok_after and isinstance(new, str))
    return type(old) is type(new) or isinstance(old, (int, float)) and isinstance(new, (int, float)) and not isinstance(new, bool)
