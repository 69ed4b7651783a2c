"""fiddle's configs: `fdl.Config(Trainer, seq_len=512)`, its arguments set as attributes
(`cfg.seq_len = 1023`, `cfg.model = fdl.Config(Model, ...)`), and `fdl.build(cfg)`,
which calls `Trainer(seq_len=1023, model=Model(...))` (probe 125b: a paxml-style
experiment built so).  praxis' `pax_fiddle.Config` / `instantiate` are the same.

A config is a namespace (layers.make_namespace) whose attributes are the arguments set
(`del cfg.seq_len` unsets one), with the function or class it calls under a key no
attribute can spell; where analysed code reaches inside configs (`cfg.__arguments__`,
`cfg.__fn_or_cls__`), no build is known.  Code we cannot
follow that gets the config forgets every attribute, that key included: a build then is
unknown, as it must be, since that code may have set an argument the build would have
left to its default.  Positional arguments (`fdl.Config(f, 1, 2)`) and `fdl.Partial` of
a config are not followed; a `fdl.Partial` builds a `functools.partial`.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, TypeGuard

from jax_cudnn_lint.shape_inference import layers
from jax_cudnn_lint.shape_inference.values import STORED_UNSPELLED, UNKNOWN, DictV, InstanceV, PartialV, TupleV, Value

if TYPE_CHECKING:
    from jax_cudnn_lint.shape_inference.interpreter import Frame, Interpreter

Args = list[Value]
Kwargs = dict[str, Value]

_CALLED = "\0fiddle: what it calls"  # (the attribute key of the function or class)
CONFIGS = ("fiddle.Config", "praxis.pax_fiddle.Config")
PARTIALS = ("fiddle.Partial", "praxis.pax_fiddle.Partial")
BUILDS = ("fiddle.build", "praxis.pax_fiddle.build", "praxis.pax_fiddle.instantiate", "praxis.base_hyperparams.instantiate")
_MAX_DEPTH = 16


def is_config(value: Value) -> TypeGuard[InstanceV]:
    """Is it a fiddle config (or Partial) of ours?"""
    return isinstance(value, InstanceV) and value.cls.qualname in (*CONFIGS, *PARTIALS)


def h_config(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`fdl.Config(fn, **arguments)`: the config, its arguments as attributes."""
    if len(args) != 1:
        return UNKNOWN
    config = layers.make_namespace(interp, q, [], kwargs, node, fr)
    if not isinstance(config, InstanceV):
        return UNKNOWN
    config.attrs[_CALLED] = args[0]
    return config


def h_build(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`fdl.build(cfg)`: each config of it called with its arguments, built first."""
    if len(args) != 1 or kwargs:
        return UNKNOWN
    if any(interp.project.scan(info, _reaches_inside) for info in interp.project.parsed):
        return UNKNOWN  # (`cfg.__arguments__["seq_len"] = 128`: a config changed past its attributes, probe 129a)
    return _built(interp, args[0], node, fr, {}, 0)


_INSIDE = frozenset({"__arguments__", "__fn_or_cls__", "__argument_tags__", "__argument_history__", "__signature_info__"})


def _reaches_inside(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr in _INSIDE


def _built(interp: Interpreter, value: Value, node: ast.AST, fr: Frame, made: dict[int, Value], depth: int) -> Value:
    if depth > _MAX_DEPTH:
        return UNKNOWN
    if isinstance(value, TupleV):
        return TupleV(tuple(_built(interp, item, node, fr, made, depth + 1) for item in value.items), value.is_list, value.why, value.diff)
    if isinstance(value, DictV):
        return DictV(tuple((key, _built(interp, item, node, fr, made, depth + 1)) for key, item in value.items), value.why)
    if not is_config(value):
        return value
    if id(value) in made:
        return made[id(value)]  # (a config used twice is built once: one object)
    called = value.attrs.get(_CALLED)
    if called is None or called is UNKNOWN or STORED_UNSPELLED in value.attrs:
        return UNKNOWN
    arguments = {name: _built(interp, item, node, fr, made, depth + 1) for name, item in value.attrs.items() if not name.startswith("\0")}
    if value.cls.qualname in PARTIALS:
        result: Value = PartialV(called, (), tuple(arguments.items()), value.why)
    else:
        result = interp.call(called, [], arguments, False, node, fr)
    made[id(value)] = result
    return result
