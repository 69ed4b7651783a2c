"""click and typer command lines' defaults as seeds, as argparse's are (argparse_seeds.py):

    @click.command()
    @click.option("--seq-len", default=127, type=int)
    def main(seq_len): ...

    if __name__ == "__main__":
        main()

On a run without options, click calls `main(seq_len=127)`; typer's `typer.run(main)`, or
an `app = typer.Typer()` with one `@app.command()` run as `app()`, calls the function
with its parameters' defaults (`seq_len: int = 127`, `seq_len: int = typer.Option(127)`).
A finding built on them holds for the run without those options (probe 119d).

Certain only where every parameter is: an option that is required, read from an
environment variable, prompted for, given a callback, a callable default or a type we do
not convert, an argument without a default, `@click.pass_context`, a group, an app with
several commands or a callback, and a call with arguments make the call Unknown.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jax_cudnn_lint.shape_inference.values import UNKNOWN, ConstV, ExternalV, FunctionV, TupleV, Value, const_value

if TYPE_CHECKING:
    from jax_cudnn_lint.shape_inference.interpreter import Frame, Interpreter

CLICK_PARAMS = ("click.option", "click.argument")
CLICK_COMMAND = "click.command"
# click decorators that give the function something besides its options: not followed
CLICK_OPAQUE = ("click.pass_context", "click.pass_obj", "click.group", "click.version_option", "click.help_option")
TYPER_APP = "typer.Typer"
TYPER_COMMAND = "typer.Typer.command"
TYPER_CALLBACK = "typer.Typer.callback"
TYPER_PARAMS = ("typer.Option", "typer.Argument")
# what a command's call may be given that changes no option (click's standalone mode)
_RUN_OPTIONS = frozenset({"standalone_mode", "prog_name"})
# click's and typer's conversions of a default we follow
_CONVERSIONS = {"builtins.int": int, "builtins.float": float, "builtins.str": str, "builtins.bool": bool}


class CliCommandV(Value):
    """A function made a command line by click: the defaults its options give
    (parameter name -> value), None where one is not certain; `command` once
    `@click.command()` made it one (before, the options are being collected)."""

    def __init__(self, func: Value, defaults: tuple[tuple[str, Value], ...] | None, command: bool) -> None:
        self.func = func
        self.defaults = defaults
        self.command = command

    def key(self) -> object:
        return ("cli-command", self.func.key(), self.command, None if self.defaults is None else tuple((n, v.key()) for n, v in self.defaults))


def click_decorate(qualname: str, args: list[Value], kwargs: dict[str, Value], func: Value) -> Value | None:
    """`@click.option(...)`, `@click.argument(...)`, `@click.command()` applied to a
    function (or to what the decorators below made of it); None for anything else."""
    inner, defaults = (func.func, func.defaults) if isinstance(func, CliCommandV) and not func.command else (func, ())
    if not isinstance(inner, FunctionV):
        return None
    if qualname in CLICK_PARAMS:
        param = _click_param(args, kwargs, qualname == "click.argument")
        return CliCommandV(inner, None if defaults is None or param is None else (param, *defaults), False)
    if qualname == CLICK_COMMAND:
        return CliCommandV(inner, defaults, True)
    if qualname in CLICK_OPAQUE:
        return CliCommandV(inner, None, qualname != "click.group" and isinstance(func, CliCommandV) and func.command)
    return None


def _click_param(args: list[Value], kwargs: dict[str, Value], argument: bool) -> tuple[str, Value] | None:
    """(parameter name, default) of a click option or argument, None where not certain."""
    decls: list[str] = []
    for arg in args:
        ok, text = const_value(arg)
        if not ok or not isinstance(text, str):
            return None
        decls.append(text)
    if set(kwargs) & {"required", "envvar", "prompt", "callback", "multiple", "nargs", "auto_envvar_prefix"} - ({"required"} if _off(kwargs.get("required")) else set()):
        return None
    name = _click_name(decls)
    if name is None:
        return None
    given = kwargs.get("default")
    if given is None:
        if argument:
            return None  # (required unless said otherwise: the run stops)
        flag = kwargs.get("is_flag")
        return name, ConstV(False) if flag is not None and const_value(flag) == (True, True) else ConstV(None)
    kind = kwargs.get("type")
    if kind is None:
        return (name, given) if _plain(given) else None
    convert = _CONVERSIONS.get(kind.qualname) if isinstance(kind, ExternalV) else None
    ok, raw = const_value(given)
    if convert is None or not ok or isinstance(raw, bool) != (convert is bool) and not isinstance(raw, str):
        return None
    try:
        converted = convert(raw)
    except (TypeError, ValueError):
        return None
    return name, ConstV(converted, given.why) if not isinstance(converted, int) or isinstance(converted, bool) else _int(converted, given)


def _click_name(decls: list[str]) -> str | None:
    """click's parameter name: a declaration without dashes, else the first of the
    longest-prefixed option strings, dashes stripped, `-` as `_`, lower case."""
    plain = [d for d in decls if d.isidentifier()]
    if plain:
        return plain[0]
    dashed = sorted((d for d in decls if d.startswith("-")), key=lambda d: -(len(d) - len(d.lstrip("-"))))
    if not dashed:
        return None
    name = dashed[0].lstrip("-").replace("-", "_").lower()
    return name if name.isidentifier() else None


def _off(value: Value | None) -> bool:
    return value is not None and const_value(value) == (True, False)


def _plain(value: Value) -> bool:
    """A default click passes as it is: a number, a string, a bool or None (a
    callable one is called; a list or tuple goes through the parameter's type)."""
    ok, raw = const_value(value)
    return ok and (raw is None or isinstance(raw, (int, float, str, bool)))


def _int(number: int, given: Value) -> Value:
    from jax_cudnn_lint.shape_inference.values import make_int

    return make_int(number, given.why)


def _no_options(args: list[Value], kwargs: dict[str, Value]) -> bool:
    """A command's call that gives no option: `main()`, or an empty argument list
    (`main([], standalone_mode=False)`, a test's), with run options only."""
    given = [*args[:1], *([kwargs["args"]] if "args" in kwargs else [])]
    return len(args) <= 1 and not set(kwargs) - _RUN_OPTIONS - {"args"} and all(isinstance(a, TupleV) and not a.items for a in given)


def call_command(interp: Interpreter, command: CliCommandV, args: list[Value], kwargs: dict[str, Value], node: ast.AST, fr: Frame) -> Value:
    """`main()` of a click command: the function, called with its options' defaults."""
    if not command.command or command.defaults is None or not _no_options(args, kwargs):
        interp.escape(args, kwargs)
        return UNKNOWN
    return interp.call(command.func, [], dict(command.defaults), False, node, fr)


def signature_defaults(func: Value) -> dict[str, Value] | None:
    """typer's parameters: each one's default, `typer.Option(127)`'s too; None where one
    has no default or a required one (`...`), or the function takes `*args`."""
    if not isinstance(func, FunctionV) or not isinstance(func.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    params = func.node.args
    positional = [*params.posonlyargs, *params.args]
    if params.vararg is not None or len(func.defaults) != len(positional) or params.posonlyargs:
        return None
    out: dict[str, Value] = {}
    names = [p.arg for p in positional] + [p.arg for p in params.kwonlyargs]
    keyword_defaults = dict(func.kw_defaults)
    values = [*func.defaults, *(keyword_defaults.get(p.arg) for p in params.kwonlyargs)]
    for name, value in zip(names, values):
        if value is None:
            return None
        if isinstance(value, TyperParamV):
            value = value.default
            if value is None or const_value(value) == (True, Ellipsis):
                return None
        out[name] = value
    return out


class TyperParamV(Value):
    """`typer.Option(127, "--seq-len")` as a parameter's default: what it defaults to
    (None: not given)."""

    def __init__(self, default: Value | None) -> None:
        self.default = default

    def key(self) -> object:
        return ("typer-param", None if self.default is None else self.default.key())


def typer_param(args: list[Value], kwargs: dict[str, Value]) -> Value:
    """typer.Option(default, *decls, **options) / typer.Argument(default, ...)."""
    if set(kwargs) & {"envvar", "prompt", "callback", "default_factory"}:
        return TyperParamV(None)
    return TyperParamV(args[0] if args else kwargs.get("default"))


def call_with_defaults(interp: Interpreter, func: Value, node: ast.AST, fr: Frame) -> Value:
    """`typer.run(main)`, or an app's one command: the function with its defaults."""
    defaults = signature_defaults(func)
    if defaults is None:
        return UNKNOWN
    return interp.call(func, [], defaults, False, node, fr)


def typer_register(interp: Interpreter, app: Value, func: Value, callback: bool) -> Value:
    """`@app.command()` (typer returns the function as it is) or `@app.callback()`."""
    commands = interp.cli_apps.get(id(app), [])
    interp.cli_apps[id(app)] = None if callback or commands is None else [*commands, func]
    interp.cli_app_objects[id(app)] = app  # (holds it: its id is not recycled)
    return func


def run_app(interp: Interpreter, app: Value, args: list[Value], kwargs: dict[str, Value], node: ast.AST, fr: Frame) -> Value:
    """`app()`: its one command, run with its defaults (several need a command name)."""
    commands = interp.cli_apps.get(id(app))
    if not _no_options(args, kwargs) or commands is None or len(commands) != 1:
        return UNKNOWN
    return call_with_defaults(interp, commands[0], node, fr)
