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
environment variable, prompted for, given a callback, a flag value, a callable default or
a type we do not convert, an argument without a default, `@click.pass_context`, a group
run without a list, an app with several commands, a callback or `add_typer`, code reading the command's
attributes, and a command line analysed code sets (`sys.argv = ...` in a function, a
patch of it) make the call Unknown.  Where the defaults are not what runs (context
settings with a default_map or an env-var prefix, `Annotated` options with an env var,
the only runs in sight given options: `app(["--seq-len", "256"])`,
`CliRunner().invoke(cli, [...])`), the function's own analysis does not take them either
(`Interpreter.cli_unfollowed`), as a function every caller passes a value to.  A click
command given a list of literals (`main(["--seq-len", "321"], standalone_mode=False)`,
`CliRunner().invoke(main, [...])`) runs with the options it gives, where each is one we
follow (`given_options`: `--opt value`, `--opt=value`, flags and `--no-x` switches, as
click converts them; a positional, an unknown option or `--help` is not followed); a
typer app's one command alike (`typer_options`), and of a plain click group's commands
(`@cli.command()`, `cli.add_command`) the one the list's first token names (a group with
options, the context or settings is not followed; run without a list, no command runs).
"""

from __future__ import annotations

import ast
import shlex
from typing import TYPE_CHECKING, NamedTuple, cast

from jax_cudnn_lint.shape_inference.dims import Step
from jax_cudnn_lint.shape_inference.values import UNKNOWN, ClassV, ConstV, DictV, ExternalV, ExtObjectV, FunctionV, TupleV, Value, const_value, imported_qualname

if TYPE_CHECKING:
    from jax_cudnn_lint.shape_inference.interpreter import Frame, Interpreter

CLICK_PARAMS = ("click.option", "click.argument")
CLICK_COMMAND = "click.command"
# click decorators that give the function something besides its options: not followed
CLICK_OPAQUE = ("click.pass_context", "click.pass_obj", "click.version_option", "click.help_option")
TYPER_APP = "typer.Typer"
TYPER_COMMAND = "typer.Typer.command"
TYPER_CALLBACK = "typer.Typer.callback"
TYPER_ADD = "typer.Typer.add_typer"
TYPER_PARAMS = ("typer.Option", "typer.Argument")
# what makes a command's defaults other than its parameters' (a default_map, a context class)
_SETTINGS = frozenset({"context_settings", "cls"})
# context settings that change no default (help and layout)
_HARMLESS_SETTINGS = frozenset({"help_option_names", "max_content_width", "terminal_width", "show_default", "ignore_unknown_options", "allow_extra_args", "allow_interspersed_args"})
# a click option's keywords that decide its value otherwise than its default
_CLICK_UNFOLLOWED = frozenset({"envvar", "prompt", "callback", "multiple", "nargs", "flag_value", "count", "expose_value", "default_map", "auto_envvar_prefix", "cls"})
# what a command's call may be given that changes no option (click's standalone mode)
_RUN_OPTIONS = frozenset({"standalone_mode", "prog_name"})
# click's and typer's conversions of a default we follow
_CONVERSIONS = {"builtins.int": int, "builtins.float": float, "builtins.str": str, "builtins.bool": bool}
# click's parameter types made by a call: the conversion each applies to its default
# (a range checks it too: a default outside it stops the run before anything is traced)
CLICK_TYPES = ("click.Choice", "click.IntRange", "click.FloatRange")
_RANGES = {"click.IntRange": "builtins.int", "click.FloatRange": "builtins.float"}


class CliCommandV(Value):
    """A function made a command line by click: the defaults its options give
    (parameter name -> value), None where one is not certain; `command` once
    `@click.command()` made it one (before, the options are being collected)."""

    def __init__(self, func: Value, defaults: tuple[tuple[str, Value], ...] | None, command: bool, options: tuple[OptionSpec, ...] | None = ()) -> None:
        self.func = func
        self.defaults = defaults
        self.command = command
        self.options = options  # how an argument list sets each option (None: one we cannot read)
        self.settings: Value | None = None  # its context_settings, read when it runs (changed since: not followed)
        self.opened = False  # code read its attributes (`main.params[0].default = 128`): not followed
        # a click group's commands by name (`@cli.command()`, `cli.add_command(cmd)`), None
        # for a command, or for a group we do not follow (its callback takes options or the
        # context, it chains or runs without a command)
        self.commands: dict[str, CliCommandV] | None = None
        self.group = False
        self.name: Value | None = None  # the name it was given (`@click.command("fit")`), None: its function's
        self.ambiguous: set[str] = set()  # names a command of the group may have (click 8.2 drops `_cmd`...)

    def key(self) -> object:
        return ("cli-command", self.func.key(), self.command, None if self.defaults is None else tuple((n, v.key()) for n, v in self.defaults))


def click_decorate(interp: Interpreter, qualname: str, args: list[Value], kwargs: dict[str, Value], func: Value) -> Value | None:
    """`@click.option(...)`, `@click.argument(...)`, `@click.command()` applied to a
    function (or to what the decorators below made of it); None for anything else."""
    inner, defaults, options = (func.func, func.defaults, func.options) if isinstance(func, CliCommandV) and not func.command else (func, (), ())
    if not isinstance(inner, FunctionV):
        return None
    if qualname in CLICK_PARAMS:
        param = _click_param(args, kwargs, qualname == "click.argument")
        spec = _option_spec(args, kwargs, param) if qualname == "click.option" and param is not None else None
        return CliCommandV(inner, None if defaults is None or param is None else (param, *defaults), False, None if options is None or spec is None else (spec, *options))
    if qualname == CLICK_COMMAND:
        # (`context_settings` may hold a default_map or an env-var prefix, `cls` a command
        # class that sets them: probe 120a)
        if _decisive_settings(kwargs):
            not_followed(interp, inner)
            return CliCommandV(inner, None, True)
        if defaults is not None and (decided := frozenset(name for name, value in defaults if value is UNKNOWN)):
            not_followed(interp, inner, decided)
        command = CliCommandV(inner, defaults, True, options)
        command.settings = kwargs.get("context_settings")
        command.name = args[0] if args else kwargs.get("name")  # (`@click.command("fit")`: a group knows it so)
        interp.cli_apps_seen = True
        return command
    if qualname == CLICK_GROUP:
        group = CliCommandV(inner, None, True)
        group.group = True
        # a plain group (`@click.group()` over `def cli(): pass`): a list runs the command
        # its first token names (probe 140b); one with options, the context, settings or
        # chaining is not followed
        group.commands = {} if defaults == () and not kwargs and len(args) <= 1 else None  # (a second positional is its class)
        interp.cli_apps_seen = True
        return group
    if qualname == GROUP_COMMAND and args and isinstance(args[0], CliCommandV):
        owner, given = args[0], args[1] if len(args) > 1 else kwargs.get("name")
        if len(args) > 2:
            owner.commands = None  # (`@cli.command("fit", CustomCommand)`)
        command = click_decorate(interp, CLICK_COMMAND, [], {k: v for k, v in kwargs.items() if k != "name"}, func)
        if isinstance(command, CliCommandV):
            register(owner, command, given)
        return command
    if qualname in CLICK_OPAQUE:
        return CliCommandV(inner, None, isinstance(func, CliCommandV) and func.command)
    return None


CLICK_GROUP = "click.group"
GROUP_COMMAND = "click.Group.command"
GROUP_ADD = "click.Group.add_command"


def register(group: CliCommandV, command: Value, given: Value | None) -> None:
    """A command of a click group, by the name it is given here, else its own
    (`@click.command("fit")`), else its function's (`train_model` is `train-model`); a
    function name ending in `_command`, `_cmd`, `_group` or `_grp` is named by the
    installed click (8.2 drops the suffix: probe 142a), and a name not known makes the
    group not followed."""
    if group.commands is None:
        return
    if not isinstance(command, CliCommandV) or not isinstance(command.func, FunctionV):
        group.commands = None
        return
    given = given if given is not None else command.name
    ok, name = const_value(given) if given is not None else (True, None)
    node = command.func.node
    if name is None and ok and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        name = node.name.lower().replace("_", "-")
        stem, _, suffix = name.rpartition("-")
        if stem and suffix in ("command", "cmd", "group", "grp"):
            group.ambiguous |= {name, stem}  # (either may be its name, as the installed click says)
            return
    if not ok or not isinstance(name, str) or name in group.commands:
        group.commands = None  # (two commands of one name: which one runs is not followed)
        return
    group.commands[name] = command


def _decisive_settings(kwargs: dict[str, Value]) -> bool:
    """Does a command's `cls=` or `context_settings` decide its defaults (a default_map,
    an env-var prefix: anything but help and layout settings)?"""
    if "cls" in kwargs:
        return True
    settings = kwargs.get("context_settings")
    if settings is None:
        return False
    keys = [key for key, _ in settings.items] if isinstance(settings, DictV) else None
    return keys is None or bool(set(map(str, keys)) - _HARMLESS_SETTINGS)


def _click_param(args: list[Value], kwargs: dict[str, Value], argument: bool) -> tuple[str, Value] | None:
    """(parameter name, default) of a click option or argument, None where not certain."""
    decls: list[str] = []
    for arg in args:
        ok, text = const_value(arg)
        if not ok or not isinstance(text, str):
            return None
        decls.append(text)
    # (what says the default: `required=False`, `multiple=False`, `nargs=1`)
    harmless = {key for key, plain in (("required", False), ("multiple", False), ("nargs", 1)) if key in kwargs and const_value(kwargs[key]) == (True, plain)}
    name = _click_name(decls)
    if name is None or "required" in set(kwargs) - harmless:
        return None  # (a required option: the run without it stops)
    if set(kwargs) & _CLICK_UNFOLLOWED - harmless:
        return name, UNKNOWN  # (this option's value only: an env var, a callback, a flag value...)
    given = kwargs.get("default")
    if given is None:
        if argument:
            return None  # (required unless said otherwise: the run stops)
        flag = kwargs.get("is_flag")
        return name, ConstV(False) if flag is not None and const_value(flag) == (True, True) else ConstV(None)
    kind = kwargs.get("type")
    if kind is None:
        return (name, given) if _plain(given) else None
    from jax_cudnn_lint.shape_inference.jax_api import CallResultV

    choice = kind.qualname if isinstance(kind, CallResultV) else None
    if choice == "click.Choice":
        return (name, given) if _plain(given) else None  # (a choice keeps its default as it is)
    convert = _CONVERSIONS.get(kind.qualname) if isinstance(kind, ExternalV) else _CONVERSIONS.get(_RANGES.get(choice or "", ""))
    ok, raw = const_value(given)
    if convert is None or not ok or isinstance(raw, bool) != (convert is bool) and not isinstance(raw, str):
        return None
    try:
        converted = convert(cast("str | int | float", raw))
    except (TypeError, ValueError):
        return None
    return name, ConstV(converted, given.why) if not isinstance(converted, int) or isinstance(converted, bool) else _int(converted, given)


_KIND_OF = {"int": "builtins.int", "float": "builtins.float", "str": "builtins.str", "bool": "builtins.bool"}  # (a type's name: its conversion)


class OptionSpec(NamedTuple):
    """How a click option reads from an argument list: its option strings (a switch's
    `--no-x` among `off`), whether it is a flag (no value), and the conversion of its
    value (a builtin's name, "checked" for a Choice's or a range's, or None: as given)."""

    name: str
    on: tuple[str, ...]
    off: tuple[str, ...]
    flag: bool
    kind: str | None


def _option_spec(args: list[Value], kwargs: dict[str, Value], param: tuple[str, Value]) -> OptionSpec | None:
    """The OptionSpec of a click option we follow, None where its value comes otherwise."""
    if param[1] is UNKNOWN:
        return None
    decls = [text for arg in args if (text := const_value(arg)[1]) is not None and isinstance(text, str)]
    on: list[str] = []
    off: list[str] = []
    for decl in decls:
        first, _, second = decl.partition("/")
        on += [first.strip()] if first.strip().startswith("-") else []
        off += [second.strip()] if second.strip().startswith("-") else []
    flag = bool(off) or const_value(kwargs.get("is_flag") or ConstV(False)) == (True, True)
    kind = kwargs.get("type")
    from jax_cudnn_lint.shape_inference.jax_api import CallResultV

    if kind is None:
        default = const_value(param[1])[1]
        name = None if default is None else _KIND_OF.get(type(default).__name__, "builtins.str")
    elif isinstance(kind, CallResultV) and kind.qualname in CLICK_TYPES:
        name = "checked"  # (a Choice's, a range's: a given value is checked, cased or clamped: not followed)
    elif isinstance(kind, ExternalV) and kind.qualname in _CONVERSIONS:
        name = kind.qualname
    else:
        return None
    return OptionSpec(param[0], tuple(on), tuple(off), flag, name) if on else None


def given_options(options: tuple[OptionSpec, ...], tokens: list[str], why: tuple[Step, ...]) -> dict[str, Value] | None:
    """The values an argument list gives (`["--seq-len", "321"]`, `--seq-len=321`, a flag,
    `--no-cls`), as click converts them; None for anything else (a positional, an option
    we do not know or follow, a value that does not convert: click stops)."""
    by_string = {string: (spec, string in spec.on) for spec in options for string in (*spec.on, *spec.off)}
    values: dict[str, Value] = {}
    i = 0
    while i < len(tokens):
        token, i = tokens[i], i + 1
        # (click splits `--opt=value` at `=`, never a short option's: `-n=255` is "=255";
        # a short option's value may be attached, `-L63`: probe 142a)
        string, eq, raw = token.partition("=") if token.startswith("--") else (token, "", "")
        attached = not token.startswith("--") and token.startswith("-") and len(token) > 2 and token not in by_string
        if attached:
            string, eq, raw = token[:2], "=", token[2:]
            if (short := by_string.get(string)) is None or short[0].flag:
                return None  # (`-vq`: flags run together, not followed)
        found = by_string.get(string) if token.startswith("-") else None
        if found is None:
            return None
        spec, on = found
        if spec.flag:
            if eq:
                return None
            values[spec.name] = ConstV(on, why)
            continue
        if not eq:
            if i >= len(tokens):
                return None
            raw, i = tokens[i], i + 1
        value = _converted(spec.kind, raw, why)
        if value is None:
            return None
        values[spec.name] = value
    return values


def _converted(kind: str | None, raw: str, why: tuple[Step, ...]) -> Value | None:
    if kind == "checked":
        return None
    if kind in (None, "builtins.str"):
        return ConstV(raw, why)
    if kind == "builtins.bool":
        lowered = raw.strip().lower()
        truth = {"1": True, "true": True, "t": True, "yes": True, "y": True, "on": True, "0": False, "false": False, "f": False, "no": False, "n": False, "off": False}.get(lowered)
        return None if truth is None else ConstV(truth, why)
    try:
        number = _CONVERSIONS[kind](raw) if kind in _CONVERSIONS else None
    except ValueError:
        return None
    if isinstance(number, int) and not isinstance(number, bool):
        from jax_cudnn_lint.shape_inference.values import make_int

        return make_int(number, why)
    return ConstV(number, why) if number is not None else None


def _click_name(decls: list[str]) -> str | None:
    """click's parameter name: a declaration without dashes, else the first of the
    longest-prefixed option strings, dashes stripped, `-` as `_`, lower case."""
    plain = [d for d in decls if d.isidentifier()]
    if plain:
        return plain[0]
    decls = [d.split("/", 1)[0].strip() for d in decls]  # (a boolean switch: `--cls/--no-cls` is named by its first)
    dashed = sorted((d for d in decls if d.startswith("-")), key=lambda d: -(len(d) - len(d.lstrip("-"))))
    if not dashed:
        return None
    name = dashed[0].lstrip("-").replace("-", "_").lower()
    return name if name.isidentifier() else None


def _plain(value: Value) -> bool:
    """A default click passes as it is: a number, a string, a bool or None (a
    callable one is called; a list or tuple goes through the parameter's type)."""
    ok, raw = const_value(value)
    return ok and (raw is None or isinstance(raw, (int, float, str, bool)))


def _int(number: int, given: Value) -> Value:
    from jax_cudnn_lint.shape_inference.values import make_int

    return make_int(number, given.why)


def _no_options(interp: Interpreter, args: list[Value], kwargs: dict[str, Value], fr: Frame) -> bool:
    """A command's call that gives no option: `main()` where analysed code does not set
    the command line (`sys.argv = [...]`, a patch), or an empty argument list (`main([],
    standalone_mode=False)`, a test's), with run options only."""
    from jax_cudnn_lint.shape_inference.argparse_seeds import command_line_as_given

    given = [*args[:1], *([kwargs["args"]] if "args" in kwargs else [])]
    if len(args) > 1 or set(kwargs) - _RUN_OPTIONS - {"args"} or not all(isinstance(a, TupleV) and not a.items for a in given):
        return False
    return bool(given) or command_line_as_given(interp, fr)


def exits(callee: Value, call: ast.Call) -> bool:
    """Does a call of a click command or a typer app end the program (standalone mode,
    click's default, exits once the command ran: code after it never runs, probe 134a;
    `typer.run(main)` too, probe 135a)?  A `standalone_mode` not known: not said to."""
    if isinstance(callee, ExternalV):
        return callee.qualname == "typer.run"
    command = isinstance(callee, CliCommandV) and callee.command or isinstance(callee, ExtObjectV) and callee.qualname == TYPER_APP
    if not command or any(k.arg is None for k in call.keywords):
        return False
    mode = next((k.value for k in call.keywords if k.arg == "standalone_mode"), None)
    return mode is None or isinstance(mode, ast.Constant) and mode.value is True


def _listed_tokens(args: list[Value], kwargs: dict[str, Value]) -> list[str] | None:
    """The strings of a command's argument list given as a list of literals, None else."""
    given = args[0] if args else kwargs.get("args")
    if len(args) > 1 or set(kwargs) - _RUN_OPTIONS - {"args"} or not (isinstance(given, TupleV) and given.items):
        return None
    tokens = [text for item in given.items if (text := const_value(item)[1]) is not None and isinstance(text, str)]
    return tokens if len(tokens) == len(given.items) else None


def not_followed(interp: Interpreter, func: Value | None, params: frozenset[str] | None = None) -> Value:
    """A command line we do not follow runs `func`: analysed on its own, its parameters'
    defaults (`params`, or all) are not what runs (an env var, a default_map or the
    arguments may set them)."""
    if isinstance(func, FunctionV):
        known = interp.cli_unfollowed.get(id(func.node), frozenset())
        interp.cli_unfollowed[id(func.node)] = None if params is None or known is None else known | params
    return UNKNOWN


def call_command(interp: Interpreter, command: CliCommandV, args: list[Value], kwargs: dict[str, Value], node: ast.AST, fr: Frame) -> Value:
    """`main()` of a click command: the function, called with its options' defaults;
    `main(["--seq-len", "321"], standalone_mode=False)` (or a CliRunner's invoke), with
    the options the list gives (probe 130b)."""
    if command.settings is not None and command.settings.changed_in_place:
        # (`settings["default_map"] = {...}` after the decorator: click reads the dict when it
        # runs, probe 134a)
        interp.escape(args, kwargs)
        return not_followed(interp, command.func)
    listed = _listed_tokens(args, kwargs)
    if command.group:
        # `cli(["train", "--max-len", "64"], standalone_mode=False)`: the command the first
        # token names, given the rest; without a list, no command runs (click's help)
        given = args[0] if args else kwargs.get("args")
        chosen = command.commands.get(listed[0]) if command.commands is not None and not command.opened and listed and listed[0] not in command.ambiguous else None
        if chosen is None or not isinstance(given, TupleV):
            interp.escape(args, kwargs)
            for sub in (command.commands or {}).values():
                not_followed(interp, sub.func)
            return UNKNOWN
        rest = TupleV(given.items[1:], True)
        return call_command(interp, chosen, [rest], {k: v for k, v in kwargs.items() if k != "args"}, node, fr)
    if command.command and command.defaults is not None and command.options is not None and not command.opened and listed:
        given = given_options(command.options, listed, (interp.step(fr, node, "given in the argument list"),))
        if given is not None:
            not_followed(interp, command.func, frozenset(given))  # (their defaults are not this run's)
            return interp.call(command.func, [], {**dict(command.defaults), **given}, False, node, fr)
    if not command.command or command.defaults is None or command.opened or not _no_options(interp, args, kwargs, fr):
        # (a run given options, or one we do not follow: its defaults are not what runs)
        interp.escape(args, kwargs)
        return not_followed(interp, command.func)
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
    decided = _annotated_options(func, func.node)
    for name, value in zip(names, values):
        if value is None:
            return None
        if name in decided:
            out[name] = UNKNOWN  # (an env var or a callback decides it)
            continue
        if isinstance(value, TyperParamV):
            value = value.default
            if value is None or const_value(value) == (True, Ellipsis):
                return None
        out[name] = value
    return out


def _annotated_options(func: FunctionV, node: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """The parameters whose annotation gives typer options that decide their value
    (`Annotated[int, typer.Option(envvar="SEQ")]`, a callback, a prompt), or may (a
    module alias of one: `EvenLen = Annotated[int, typer.Option(callback=...)]`, probe
    142a)."""
    params = node.args
    return frozenset(
        param.arg
        for param in (*params.posonlyargs, *params.args, *params.kwonlyargs)
        if param.annotation is not None
        and any(isinstance(inner, ast.Call) and any(k.arg in _TYPER_UNFOLLOWED for k in inner.keywords) or _alias(inner, func) for inner in ast.walk(param.annotation))
    )


def _alias(node: ast.AST, func: FunctionV) -> bool:
    """A name the module binds to something else than a class or an import (a type
    alias, which may carry typer options)."""
    if not isinstance(node, ast.Name) or node.id in _KIND_OF:
        return False
    bound = func.module.namespace.get(node.id)
    return bound is not None and not isinstance(bound, (ClassV, ExternalV))


_TYPER_UNFOLLOWED = frozenset({"envvar", "prompt", "callback", "default_factory", "parser", "click_type"})


class TyperParamV(Value):
    """`typer.Option(127, "--seq-len")` as a parameter's default: what it defaults to
    (None: not given)."""

    def __init__(self, default: Value | None, decls: tuple[str, ...] | None = (), argument: bool = False, checked: bool = False) -> None:
        self.default = default
        self.decls = decls  # its option strings (None: not literals)
        self.argument = argument
        self.checked = checked  # a given value is checked, clamped or counted (min=, max=, count=...): not followed

    def key(self) -> object:
        return ("typer-param", None if self.default is None else self.default.key(), self.decls, self.argument)


def typer_param(args: list[Value], kwargs: dict[str, Value], argument: bool = False) -> Value:
    """typer.Option(default, *decls, **options) / typer.Argument(default, ...)."""
    if set(kwargs) & _TYPER_UNFOLLOWED:
        return TyperParamV(None)
    decls = [const_value(arg)[1] for arg in args[1:]]
    strings = tuple(text for text in decls if isinstance(text, str))
    checked = bool(set(kwargs) & _TYPER_CHECKED)
    return TyperParamV(args[0] if args else kwargs.get("default"), strings if len(strings) == len(decls) else None, argument, checked)


# typer.Option's settings that make a given value something else
_TYPER_CONVERTS = frozenset({"callback", "parser", "click_type"})
# typer.Option's settings that check, clamp or count a given value, or read no value
_TYPER_CHECKED = frozenset({"min", "max", "clamp", "count", "is_flag", "flag_value", "case_sensitive"})


def typer_options(func: Value) -> tuple[OptionSpec, ...] | None:
    """How typer reads a command's options from an argument list: `--seq-len` for
    `seq_len: int = 127` (the declared strings of a `typer.Option(127, "--len", "-l")`),
    `--flag/--no-flag` for a bool, converted by the annotation (int, float, str, bool) or
    the default's type; None where a parameter is an argument or anything else."""
    if not isinstance(func, FunctionV) or not isinstance(func.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    defaults = signature_defaults(func)
    if defaults is None:
        return None
    params = {p.arg: p for p in (*func.node.args.args, *func.node.args.kwonlyargs)}
    declared = dict(zip([p.arg for p in func.node.args.args], func.defaults)) | dict(func.kw_defaults)
    specs: list[OptionSpec] = []
    for name, value in defaults.items():
        given = declared.get(name)
        annotation = params[name].annotation if name in params else None
        if annotation is not None:
            annotated = _annotated_option(annotation, func)
            if annotated is None:
                return None  # (an argument, or an option that checks or counts what it is given)
            annotation, option = annotated
            given = option if option is not None else given
        kind = _KIND_OF.get(annotation.id) if isinstance(annotation, ast.Name) else None
        if annotation is not None and kind is None:
            return None  # (a type typer converts otherwise: a Path, an Enum, a list)
        if kind is None:
            default = const_value(value)[1]
            kind = _KIND_OF.get(type(default).__name__)
            if kind is None:
                return None
        decls: tuple[str, ...] | None = ()
        if isinstance(given, TyperParamV):
            if given.argument or given.checked:
                return None
            decls = given.decls
        if decls is None:
            return None
        dashed = "--" + name.replace("_", "-")
        on = tuple(d.split("/", 1)[0].strip() for d in decls) or (dashed,)
        off = tuple(d.split("/", 1)[1].strip() for d in decls if "/" in d)
        flag = kind == "builtins.bool"
        if flag and not decls:
            off = ("--no-" + name.replace("_", "-"),)
        specs.append(OptionSpec(name, on, off, flag, kind))
    return tuple(specs)


def _annotated_option(annotation: ast.expr, func: FunctionV) -> tuple[ast.expr | None, Value | None] | None:
    """A parameter's annotation as typer reads it: `Annotated[int, typer.Option("--len")]`
    gives `int` and the option's declared strings (as the default-style TyperParamV),
    `Optional[int]` and `int | None` give `int` (typer converts the value alike); None
    where the annotation makes an argument, or an option whose given value is checked,
    clamped or counted, or its strings are not literals."""
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr) and _is_none(annotation.right):
        return annotation.left, None
    if not isinstance(annotation, ast.Subscript):
        return annotation, None
    generic = imported_qualname(annotation.value, func.module.namespace)
    if generic == "typing.Optional":
        return annotation.slice, None
    if generic not in ("typing.Annotated", "typing_extensions.Annotated") or not isinstance(annotation.slice, ast.Tuple):
        return annotation, None
    base, *extras = annotation.slice.elts
    unwrapped = _annotated_option(base, func)  # (`Annotated[Optional[int], typer.Option()]`)
    base = unwrapped[0] if unwrapped is not None and unwrapped[1] is None and unwrapped[0] is not None else base
    option: Value | None = None
    for extra in extras:
        maker = imported_qualname(extra.func, func.module.namespace) if isinstance(extra, ast.Call) else None
        if maker == "typer.Argument":
            return None
        if maker == "typer.Option" and isinstance(extra, ast.Call):
            decls = [arg.value for arg in extra.args if isinstance(arg, ast.Constant) and isinstance(arg.value, str)]
            if len(decls) != len(extra.args) or any(k.arg is None or k.arg in _TYPER_CHECKED | _TYPER_CONVERTS for k in extra.keywords):
                return None
            option = TyperParamV(None, tuple(decls))
    return base, option


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def call_with_defaults(interp: Interpreter, func: Value, node: ast.AST, fr: Frame) -> Value:
    """`typer.run(main)`, or an app's one command: the function with its defaults."""
    defaults = signature_defaults(func)
    if defaults is None:
        return not_followed(interp, func)
    decided = frozenset(name for name, value in defaults.items() if value is UNKNOWN)
    if decided:
        not_followed(interp, func, decided)
    return interp.call(func, [], defaults, False, node, fr)


# what a typer app or command may be made with that changes no default or command
_TYPER_OPTIONS = frozenset({"name", "help", "short_help", "epilog", "add_completion", "no_args_is_help", "rich_markup_mode", "rich_help_panel",
                            "pretty_exceptions_enable", "pretty_exceptions_show_locals", "pretty_exceptions_short", "hidden", "deprecated"})


def typer_app(args: list[Value], kwargs: dict[str, Value], step: Step) -> Value:
    """`typer.Typer(...)`: an app, not followed when made with a callback, context
    settings (a default_map) or anything else that decides what runs."""
    marks: list[tuple[str, Value]] = []
    if args or _unfollowed_options(kwargs):
        marks.append(("not_followed", ConstV(True)))
    if _decisive_settings(kwargs):
        marks.append(("settings", ConstV(True)))  # (its commands' defaults are not what runs)
    return ExtObjectV(TYPER_APP, (), tuple(marks), (step,))



def typer_register(interp: Interpreter, app: Value, func: Value | None, callback: bool, options: dict[str, Value] | None = None, name: Value | None = None) -> Value:
    """`@app.command()` (typer returns the function as it is), `@app.callback()`, or
    `app.add_typer(...)` (a group then: `func` None); `name`, the command's given name."""
    commands = interp.cli_apps.get(id(app), [])
    interp.cli_app_objects[id(app)] = app  # (holds it: its id is not recycled)
    if func is None:
        interp.cli_apps[id(app)] = None
        return UNKNOWN
    if options is not None and _decisive_settings(options) or _marked(app, "settings"):
        not_followed(interp, func)  # (its context settings decide its defaults)
    unfollowed = callback or options is not None and _unfollowed_options(options) or _marked(app, "not_followed")
    interp.cli_apps[id(app)] = None if unfollowed or commands is None else [*commands, func]
    if isinstance(func, FunctionV):
        # run through the app, with what its runs give (a test's `app(["--seq-len", "256"])`):
        # on its own, its defaults are not certain, as a click command's are judged only
        # where a run is in sight (probe 135b)
        interp.registered.add(id(func.node))
    interp.cli_app_commands.setdefault(id(app), []).append(func)
    named = const_value(name)[1] if name is not None else func.node.name.lower().replace("_", "-") if isinstance(func, FunctionV) and isinstance(func.node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
    if isinstance(named, str):
        names = interp.cli_command_names.setdefault(id(app), {})
        names[named] = None if named in names else func  # (a name given twice: not known which)
    return func


def _unfollowed_options(kwargs: dict[str, Value]) -> bool:
    """Is a typer app or command made with anything that decides what runs, besides its
    help, its layout and harmless context settings?"""
    return bool(set(kwargs) - _TYPER_OPTIONS - ({"context_settings"} if not _decisive_settings(kwargs) else set()))


def _marked(app: Value, mark: str) -> bool:
    """Was the typer app made with what `mark` names (typer_app)?"""
    return isinstance(app, ExtObjectV) and app.kwarg(mark) is not None


def run_app(interp: Interpreter, app: Value, args: list[Value], kwargs: dict[str, Value], node: ast.AST, fr: Frame) -> Value:
    """`app()`: its one command, run with its defaults (several need a command name)."""
    commands = interp.cli_apps.get(id(app))
    listed = _listed_tokens(args, kwargs)
    if listed and commands is not None and not _marked(app, "not_followed") and not _marked(app, "settings"):
        # `app(["--seq-len", "321"])`, `CliRunner().invoke(app, [...])`: its one command, or
        # of several the one the first token names (`app(["train", ...])`, probe 136a), with
        # the options the list gives (probe 130b, as click's: call_command)
        command: Value | None = commands[0] if len(commands) == 1 else interp.cli_command_names.get(id(app), {}).get(listed[0])
        tokens = listed if len(commands) == 1 else listed[1:]
        options = typer_options(command) if command is not None else None
        defaults = signature_defaults(command) if command is not None else None
        given = given_options(options, tokens, (interp.step(fr, node, "given in the argument list"),)) if options is not None else None
        if command is not None and given is not None and defaults is not None:
            not_followed(interp, command, frozenset(given))
            return interp.call(command, [], {**defaults, **given}, False, node, fr)
    if not _no_options(interp, args, kwargs, fr):
        # a run given options (`app(["eval", "--seq-len", "256"])`): which command runs with
        # what is not followed, so no command's defaults are known to run (probe 120b)
        for func in interp.cli_app_commands.get(id(app), ()):
            not_followed(interp, func)
        return UNKNOWN
    if commands is None or len(commands) != 1 or _marked(app, "not_followed"):
        return UNKNOWN
    return call_with_defaults(interp, commands[0], node, fr)


RUNNERS = ("click.testing.CliRunner", "typer.testing.CliRunner")
_HARMLESS_INVOKE = frozenset({"cli", "args", "catch_exceptions", "color", "input"})


def invoke(interp: Interpreter, args: list[Value], kwargs: dict[str, Value], node: ast.AST, fr: Frame) -> Value:
    """`CliRunner().invoke(cli, ["--seq-len", "256"])`, a test's run of a command or an
    app: with an empty list, as the command runs without options; with any other,
    what runs is not followed (no command's defaults are known to run).  A string is
    split as a shell splits it (`invoke(cli, "train --max-len 64")`, as click does)."""
    cli = args[1] if len(args) > 1 else kwargs.get("cli")
    given = args[2] if len(args) > 2 else kwargs.get("args")
    ok, line = const_value(given) if given is not None else (False, None)
    if ok and isinstance(line, str):
        try:
            given = TupleV(tuple(ConstV(word, cast("ConstV", given).why) for word in shlex.split(line)), True)
        except ValueError:  # (an unclosed quote: click stops)
            given = UNKNOWN
    argv: list[Value] = [given if given is not None else TupleV((), True)]
    runner = args[0] if args else None
    if set(kwargs) - _HARMLESS_INVOKE or len(args) > 3 or isinstance(runner, ExtObjectV) and runner.kwarg("env") is not None:
        # (`invoke(cli, [...], default_map=...)` goes to the command's context; an `env=` sets
        # what options and the body read: probe 134a) not followed
        argv = [UNKNOWN]
    if isinstance(cli, CliCommandV):
        call_command(interp, cli, argv, {}, node, fr)
    elif isinstance(cli, ExtObjectV) and cli.qualname == TYPER_APP:
        run_app(interp, cli, argv, {}, node, fr)
    else:
        interp.escape([cli] if cli is not None else [], {})
    return UNKNOWN
