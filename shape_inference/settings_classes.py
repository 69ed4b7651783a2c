"""pydantic-settings classes: each field is an environment read with its default.

    class Settings(BaseSettings):
        model_config = SettingsConfigDict(env_prefix="TRAIN_")
        seq_len: int = 255

`Settings().seq_len` is `$TRAIN_SEQ_LEN` where it is set, 255 where it is not: the same
convention as `os.environ.get("TRAIN_SEQ_LEN", "255")` (environment.py).  The default
holds only where no analysed module may set that variable (nor names it does not spell),
the class reads no other source (an env file, a secrets folder, the command line, its
own `settings_customise_sources`), and the field is read under its own name (no alias);
else the field is Unknown (probe 137b: a test that set the variable before building the
settings got a false JCD201 from the default).  Keywords given to the constructor win
over the environment, as pydantic's init settings do.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jax_cudnn_lint.shape_inference import environment, pydantic_models
from jax_cudnn_lint.shape_inference.values import (
    UNKNOWN,
    ClassV,
    ConstV,
    InstanceV,
    IntV,
    Value,
    class_chain,
)

if TYPE_CHECKING:
    from jax_cudnn_lint.shape_inference.interpreter import Frame, Interpreter

BASES = frozenset({"pydantic_settings.BaseSettings", "pydantic_settings.main.BaseSettings", "pydantic.BaseSettings", "pydantic.v1.BaseSettings", "pydantic.env_settings.BaseSettings"})
# model_config entries that change nothing about where a field's value comes from
_HARMLESS = frozenset({"env_prefix", "case_sensitive", "extra", "frozen", "validate_default", "validate_assignment", "validate_all", "env_ignore_empty", "use_enum_values",
                       "arbitrary_types_allowed", "env_nested_delimiter", "title", "str_strip_whitespace", "populate_by_name", "protected_namespaces"})
# how a field's own options rename what it reads
_RENAMES = frozenset({"alias", "validation_alias", "env", "alias_priority", "default_factory"})


def is_settings_class(cls: ClassV) -> bool:
    return bool(cls.external_bases() & BASES)


def set_fields(interp: Interpreter, inst: InstanceV, cls: ClassV, args: list[Value], kwargs: dict[str, Value], node: ast.AST, fr: Frame) -> None:
    """Give a settings object its fields: what the constructor is given, else each
    field's default where the environment certainly leaves it, else Unknown."""
    config = None if args else _config(cls)
    for name, default, _annotation in cls.all_fields():
        if name in kwargs:
            inst.attrs[name] = kwargs[name]
            continue
        value = _default(default, config)
        if value is None or config is None or _renamed(cls, name):
            inst.attrs[name] = UNKNOWN
            continue
        variable = f"{config.get('env_prefix', '')}{name}"
        # (pydantic-settings reads a name in any case unless told to match it as written)
        spellings = {variable} if config.get("case_sensitive") is True else {variable, variable.upper(), variable.lower()}
        if any(environment.may_be_set(interp, fr, spelled) for spelled in spellings):
            inst.attrs[name] = UNKNOWN
            continue
        shown = variable if config.get("case_sensitive") is True else variable.upper()
        step = interp.step(fr, node, f"default of ${shown} (unset in the environment)")
        inst.attrs[name] = IntV(value.dim.with_why(step)) if isinstance(value, IntV) else ConstV(value.value, (*value.why, step)) if isinstance(value, ConstV) else value


def _default(default: Value | None, config: dict[str, object] | None) -> Value | None:
    """A field's default written as a value (`seq_len: int = 255`), or a nested model's
    (`data: DataModel = DataModel()`, read from one variable, as JSON, unless a nested
    delimiter lets others set its fields); None for one made by `Field(...)`, a factory,
    or none."""
    if isinstance(default, (IntV, ConstV)):
        return default
    if isinstance(default, InstanceV) and config is not None and "env_nested_delimiter" not in config:
        return default
    return None


def _config(cls: ClassV) -> dict[str, object] | None:
    """The class's settings config (pydantic_models.model_config); None where it reads
    another source (an env file, secrets, the command line), is not written in literals
    (or module constants), or a class of its chain customises its sources."""
    if any(isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == "settings_customise_sources" for current in class_chain(cls) for stmt in current.node.body):
        return None
    config = pydantic_models.model_config(cls)
    if config is None or set(config) - _HARMLESS or not isinstance(config.get("env_prefix", ""), str):
        return None
    return config


def _renamed(cls: ClassV, name: str) -> bool:
    """Does a class of the chain declare the field with options that rename what it
    reads (`Field(255, alias="LEN")`, pydantic 1's `env=`)?"""
    for current in class_chain(cls):
        for stmt in current.node.body:
            made = stmt.value if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == name else None
            if isinstance(made, ast.Call) and any(k.arg is None or k.arg in _RENAMES for k in made.keywords):
                return True
    return False
