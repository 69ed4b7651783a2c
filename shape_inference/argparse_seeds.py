"""argparse defaults as seeds (SHAPES.md): after

    parser.add_argument("--seq-len", type=int, default=511)
    args = parser.parse_args()

`args.seq_len` is 511, with the add_argument line as its provenance.  A default is what
the code sees when the option is not given, so a finding built on it says where the
value came from and holds for the run without that option.

The parser is an instance of a stand-in class whose hidden attributes (keys that are
no identifier) record each option's default and how its value converts.  Certain only
when every option is seen: an option whose destination cannot be resolved,
sub-commands, parents we cannot read or a namespace passed in make `parse_args()`
Unknown as a whole.  An explicit argument list of literals (`parse_args(["--seq-len",
"511"])`, a notebook's or a test's) sets the options it names, converted as argparse
does; one we cannot follow (a positional, an abbreviation, nargs) is Unknown as a
whole.  An option without an explicit default (or a required one, or a positional) is
simply absent, so reading it gives Unknown; a positional with `nargs="?"` is optional and
has its default.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, cast

from jax_cudnn_lint.shape_inference.dims import Step
from jax_cudnn_lint.shape_inference.modules import LIST_CHANGERS
from jax_cudnn_lint.shape_inference.scopes import dotted_name, in_prelude
from jax_cudnn_lint.shape_inference.values import (
    UNKNOWN,
    BoundMethodV,
    ClassV,
    ConstV,
    ExternalV,
    FunctionV,
    InstanceV,
    IntV,
    TupleV,
    Value,
    const_value,
    make_int,
)

if TYPE_CHECKING:
    from jax_cudnn_lint.shape_inference.interpreter import Frame, Interpreter

PARSER = "argparse.ArgumentParser"
NAMESPACE = "argparse.Namespace"
# the namespaces the analysis builds whole: a parse's, and one built from keywords alone
PLAIN_NAMESPACES = (NAMESPACE, "types.SimpleNamespace")
_DEFAULT = "\0default:"  # + dest: the default of an option
_PARSER_DEFAULT = "\0set_defaults:"  # + dest: parser-level defaults, which win over the defaults of arguments added before them
_BLIND = "\0blind"  # something was added that we cannot follow
_OPTION = "\0option:"  # + an option string: (dest, how its value converts, action)
_CHOICES = "\0choices:"  # + dest: the `choices=` of an option
_POSITIONAL = "\0positional"  # the parser takes positional arguments
_DEST = "\0dest:"  # + dest: an attribute every namespace it parses has
# True while no code we cannot see has had the parser: Interpreter.escape turns every
# attribute Unknown, this one too (such code may have called set_defaults, which wins)
_INTACT = "\0intact"
WHOLE = "\0whole"  # on a namespace: it has no attributes but those listed
EXITS = frozenset({"error", "exit"})  # print a message and raise SystemExit
METHODS = frozenset(
    {"add_argument", "set_defaults", "add_argument_group", "add_mutually_exclusive_group",
     "add_subparsers", "parse_args", "parse_known_args", "parse_intermixed_args"}
)


def is_parser(value: Value) -> bool:
    return isinstance(value, InstanceV) and value.cls.qualname == PARSER


def not_followed(values: Iterable[Value]) -> None:
    """A call the analysis does not enter (too deep, recursive) may have changed these
    parsers (a `set_defaults` wins over every default): none is certain any more."""
    for value in values:
        if is_parser(value):
            assert isinstance(value, InstanceV)
            value.attrs[_INTACT] = UNKNOWN


def method(inst: InstanceV, name: str) -> Value | None:
    """`parser.add_argument` and the like, bound to the parser (`parser.error`, which
    exits); None for other names."""
    if name in METHODS or name in EXITS:
        return BoundMethodV(ExternalV(f"{PARSER}.{name}"), inst)
    return None


def new_parser(interp: Interpreter, kwargs: dict[str, Value], node: ast.AST, fr: Frame) -> Value:
    from jax_cudnn_lint.shape_inference import layers

    parser = layers.make_namespace(interp, PARSER, [], {}, node, fr)
    if not isinstance(parser, InstanceV):
        return UNKNOWN
    parser.attrs[_INTACT] = ConstV(True)
    parents = kwargs.get("parents")
    if parents is not None:
        if isinstance(parents, TupleV) and all(is_parser(p) for p in parents.items):
            for parent in parents.items:
                assert isinstance(parent, InstanceV)
                parser.attrs.update(parent.attrs)
        else:
            parser.attrs[_BLIND] = UNKNOWN
    return parser


def call_method(interp: Interpreter, name: str, args: list[Value], kwargs: dict[str, Value], node: ast.AST, fr: Frame) -> Value:
    """`name` called on the parser `args[0]`."""
    if not args or not isinstance(args[0], InstanceV):
        return UNKNOWN
    parser, rest = args[0], args[1:]
    if name in ("add_argument_group", "add_mutually_exclusive_group"):
        return parser  # their options land in the parser's namespace
    if name == "add_argument":
        _add_argument(parser, rest, kwargs, lambda flag: interp.step(fr, node, f"default of {flag} (argparse)"))
        return UNKNOWN
    if name == "set_defaults":
        if rest:
            parser.attrs[_BLIND] = UNKNOWN
        for dest, value in kwargs.items():
            key = _PARSER_DEFAULT + dest
            parser.attrs[key] = UNKNOWN if key in parser.attrs else value  # two branches
        return ConstV(None)
    if name == "add_subparsers":
        parser.attrs[_BLIND] = UNKNOWN
        return UNKNOWN
    given = kwargs.get("namespace", rest[1] if len(rest) > 1 else None)
    if isinstance(given, InstanceV):
        given.forget_all()  # `parse_args(namespace=ns)` sets the options on ns
    namespace = _parsed(interp, parser, rest, kwargs, node, fr)
    if name == "parse_known_args":
        return TupleV((namespace, UNKNOWN)) if namespace is not UNKNOWN else UNKNOWN
    return namespace


def _add_argument(parser: InstanceV, flags: list[Value], kwargs: dict[str, Value], step: Callable[[str], Step]) -> None:
    names = [f.value for f in flags if isinstance(f, ConstV) and isinstance(f.value, str)]
    if len(names) != len(flags) or not names:
        parser.attrs[_BLIND] = UNKNOWN
        return
    dest = _dest(names, kwargs.get("dest"))
    if dest is None:
        parser.attrs[_BLIND] = UNKNOWN
        return
    parser.attrs[_DEST + dest] = ConstV(True)
    action = kwargs.get("action")
    if not names[0].startswith("-"):
        parser.attrs[_POSITIONAL] = ConstV(True)
        nargs = kwargs.get("nargs")
        if not (isinstance(nargs, ConstV) and nargs.value in ("?", "*") and action is None):
            return  # a positional: given on every run, no default to rely on
        # `nargs="?"`: optional, its default on a run without it (probe 110d); `nargs="*"`
        # too, an empty list where it has none (`overrides`, `key=value` pairs: probe 128b)
        if nargs.value == "*" and kwargs.get("default") is None:
            kwargs = {**kwargs, "default": TupleV((), True, (step(names[0]),))}
    else:
        kind = kwargs.get("type")
        meta = ConstV((dest, _conversion(kind), action.value if isinstance(action, ConstV) and isinstance(action.value, str) else "store" if action is None else None, "nargs" in kwargs))
        if "choices" in kwargs:
            # a given value must be one of them, else argparse exits (probe 48a)
            parser.attrs[_CHOICES + dest] = kwargs["choices"]
        for name in names:
            parser.attrs[_OPTION + name] = meta
    if "default" in kwargs:
        # an argument's own default wins over an earlier `set_defaults` of its dest (a
        # later one wins over it: argparse sets both; probe 120b)
        parser.attrs.pop(_PARSER_DEFAULT + dest, None)
    required = kwargs.get("required")
    if required is not None and not (isinstance(required, ConstV) and required.value is False):
        return
    default = kwargs.get("default")
    if default is None and isinstance(action, ConstV) and action.value in ("store_true", "store_false"):
        default = ConstV(action.value == "store_false")
    if default is None:
        return
    converted = _converted(default, kwargs.get("type"))
    if isinstance(converted, IntV):
        converted = IntV(converted.dim.with_why(step(names[0])))
    key = _DEFAULT + dest
    # argparse rejects an option added twice: seen twice, it was added on two branches
    parser.attrs[key] = UNKNOWN if converted is None or key in parser.attrs else converted


def _dest(names: list[str], dest: Value | None) -> str | None:
    """argparse's rule: `dest=`, else the first long option, else the first short one,
    with dashes turned into underscores."""
    if dest is not None:
        return dest.value if isinstance(dest, ConstV) and isinstance(dest.value, str) else None
    if not names[0].startswith("-"):
        return names[0]
    longs = [n for n in names if n.startswith("--")]
    chosen = (longs or names)[0].lstrip("-")
    return chosen.replace("-", "_") or None


def _conversion(kind: Value | None) -> str | None:
    """How argparse converts an option's text: "str" (no type, or str), "int", "float",
    or None (a type we do not follow)."""
    if kind is None:
        return "str"
    if isinstance(kind, ExternalV) and kind.qualname in ("builtins.int", "builtins.str", "builtins.float"):
        return kind.qualname.rsplit(".", 1)[1]
    return None


def _given(parser: InstanceV, argv: TupleV, values: dict[str, Value], why: Step) -> bool:
    """The options an explicit argument list sets (`parse_args(["--seq-len", "511"])`),
    into `values`; False where the list holds anything we cannot follow (a positional,
    an abbreviation, a value that is not a literal, an option with nargs, a value not
    among an option's choices)."""
    tokens = [item.value if isinstance(item, ConstV) and isinstance(item.value, str) else None for item in argv.items]
    if any(token is None for token in tokens) or _POSITIONAL in parser.attrs:
        return False
    i = 0
    while i < len(tokens):
        token = tokens[i]
        assert token is not None
        name, eq, inline = token.partition("=")
        meta = parser.attrs.get(_OPTION + name) if name.startswith("-") else None
        option = meta.value if isinstance(meta, ConstV) else None
        if not isinstance(option, tuple):
            return False
        dest, conversion, action, nargs = cast("tuple[str, str | None, str | None, bool]", option)
        i += 1
        if action in ("store_true", "store_false") and not eq:
            values[dest] = ConstV(action == "store_true", (why,))
            continue
        if action not in ("store", "append") or nargs or (not eq and i >= len(tokens)):
            return False
        text = inline if eq else tokens[i]
        i += 0 if eq else 1
        assert text is not None
        value = _from_text(text, conversion, why)
        if action == "append":
            # `--set a=1 --set b=2`: each one appended to the default list (probe 80b)
            held = values.get(dest)
            if isinstance(held, ConstV) and held.value is None:
                held = None  # (`default=None`: argparse starts a new list)
            if _CHOICES + dest in parser.attrs or not (held is None or isinstance(held, TupleV)):
                return False
            values[dest] = TupleV((*(held.items if held is not None else ()), value), True, (why,))
            continue
        values[dest] = value
        if _CHOICES + dest in parser.attrs and not _one_of(values[dest], parser.attrs[_CHOICES + dest]):
            return False  # not a choice (argparse exits), or the choices are not known
    return True


def _from_text(text: str, conversion: str | None, why: Step) -> Value:
    """An option's value as its `type` converts the text given."""
    if conversion == "str":
        return ConstV(text, (why,))
    if conversion == "int" and text.strip().lstrip("+-").isdigit():
        return make_int(int(text), (why,))
    if conversion == "float" and (number := _float(text)) is not None:
        return ConstV(number, (why,))  # (`--dropout 0.25`: probe 62c)
    return UNKNOWN


def _one_of(value: Value, choices: Value) -> bool:
    """Is a given value certainly one of an option's known `choices`?"""
    ok, given = const_value(value)
    items = choices.items if isinstance(choices, TupleV) else None
    if not ok or items is None:
        return False
    return any(const_value(item) == (True, given) for item in items)


def _converted(default: Value, kind: Value | None) -> Value | None:
    """A string default goes through `type` (argparse converts it); others are kept."""
    if not (isinstance(default, ConstV) and isinstance(default.value, str)) or kind is None:
        return default
    if isinstance(kind, ExternalV) and kind.qualname == "builtins.int":
        try:
            return make_int(int(default.value), default.why)
        except ValueError:
            return None
    if isinstance(kind, ExternalV) and kind.qualname == "builtins.str":
        return default
    if isinstance(kind, ExternalV) and kind.qualname == "builtins.float":
        number = _float(default.value)
        return None if number is None else ConstV(number, default.why)
    return None  # a custom parser: not worth guessing


def _float(text: str) -> float | None:
    """float(text) as argparse's `type=float` makes it, or None where it fails."""
    try:
        return float(text)
    except ValueError:
        return None


def _argv_set_by(tree: ast.Module) -> TupleV | None | bool:
    """The arguments of the one `sys.argv = [...]` of a module (a list display of string
    literals, at its top level before anything runs), without the program's name; False
    where the module writes no `sys.argv` (another object's `.argv`); None for any other
    write of it (set after a parse may have run, in a function, changed in place)."""
    found: list[ast.stmt] = []
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        if any(isinstance(inner, ast.Attribute) and inner.attr == "argv" and dotted_name(inner) == "sys.argv" for target in targets for inner in ast.walk(target)):
            found.append(cast("ast.stmt", node))
    if not found:
        return False
    stmt = found[0] if len(found) == 1 else None
    literal = stmt.value if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Attribute) else None
    if stmt is None or not isinstance(literal, ast.List) or not literal.elts or not in_prelude(tree, stmt):
        return None
    if not all(isinstance(item, ast.Constant) and isinstance(item.value, str) for item in literal.elts):
        return None
    return TupleV(tuple(ConstV(cast("ast.Constant", item).value) for item in literal.elts[1:]), True)


def _patches_argv(node: ast.AST) -> bool:
    """Does the node replace or change sys.argv other than by assigning it (a mock's
    `patch.object(sys, "argv", [...])`, `patch("sys.argv", ...)`, pytest's
    `monkeypatch.setattr(sys, "argv", ...)`, `sys.argv.append(...)`)?"""
    if not isinstance(node, ast.Call):
        return False
    args = node.args
    if any(isinstance(a, ast.Constant) and a.value == "sys.argv" for a in args):
        return True
    if len(args) >= 2 and dotted_name(args[0]) == "sys" and isinstance(args[1], ast.Constant) and args[1].value == "argv":
        return True
    return isinstance(node.func, ast.Attribute) and node.func.attr in LIST_CHANGERS and dotted_name(node.func.value) == "sys.argv"


def argv_patched(interp: Interpreter, fr: Frame) -> bool:
    """May analysed code change the command line a parse reads: the reading module, the
    entry modules or a conftest patching sys.argv (probe 120b: a test's
    `mock.patch.object(sys, "argv", [...])` around `main()`)?"""
    modules = {id(info): info for info in (fr.module, *interp.project.roots, *interp.project.conftests())}
    if any(interp.project.scan(info, _patches_argv) for info in modules.values()):
        return True
    # another module that sets it (`sys.argv = ["train.py", "--config", path]; train.main()`
    # in a sweep: probe 131b); the reading module's own setting is read as its list (_parsed)
    return any(interp.project.scan(info, _sets_argv) for key, info in modules.items() if key != id(fr.module))


def _sets_argv(node: ast.AST) -> bool:
    """`sys.argv = [...]`, `sys.argv[1:] = [...]`."""
    if not isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        return False
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return any(dotted_name(target.value if isinstance(target, ast.Subscript) else target) == "sys.argv" for target in targets)


def command_line_as_given(interp: Interpreter, fr: Frame) -> bool:
    """Is the command line a click, typer or tyro parse reads the run's own, written
    nowhere in analysed code (`sys.argv = [...]` in a function, or a patch)?"""
    return "argv" not in fr.module.facts.attribute_stores()[0] and not argv_patched(interp, fr) and argv_read_as_run(interp, fr)


def argv_read_as_run(interp: Interpreter, fr: Frame) -> bool:
    """Is `sys.argv[1:]` / `len(sys.argv)` here the run without arguments: the reading
    module and the conftests hold sys.argv only to read it (no write, slice assignment,
    append, patch or alias: probes 146a, 147a)?  (Entry modules are not asked, as they
    are for a parse: each walk of a module costs, and this is asked at every read.)"""
    if "argv" in fr.module.facts.attribute_stores()[0]:
        return False
    modules = {id(info): info for info in (fr.module, *interp.project.conftests())}
    return not any(interp.project.read_once(info, argv_escapes) for info in modules.values())


# calls that only read the list they are given (`print(sys.argv)`, `" ".join(sys.argv)`)
_READS_A_LIST = frozenset({"len", "print", "list", "tuple", "str", "repr", "sorted", "enumerate", "set", "any", "all"})


def argv_escapes(tree: ast.Module) -> bool:
    """Does the module hold sys.argv other than to read it: written (`sys.argv = ...`,
    `sys.argv[1:] = ...`), patched, the list bound to another name (`argv = sys.argv`,
    `from sys import argv`), handed to a call that is not a plain read, changed through a
    method, reached through `vars(sys)` / `sys.__dict__`, or named by a patch target built
    at run time (an f-string holding "argv")?  Read by parents before children (ast.walk's
    breadth-first order)."""
    read_only: set[int] = set()
    defs = {stmt.name: stmt for stmt in tree.body if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for node in ast.walk(tree):
        if _patches_argv(node):
            return True  # (`mock.patch.object(sys, "argv", [...])`, `patch("sys.argv", ...)`)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (called := defs.get(node.func.id)) is not None:
            # `main(sys.argv)` where main only reads its parameter (`parse_args(argv[1:])`)
            read_only.update(id(arg) for index, arg in enumerate(node.args) if dotted_name(arg) == "sys.argv" and _parameter_only_read(called, index))
        if isinstance(node, ast.ImportFrom) and node.module == "sys" and any(alias.name in ("argv", "*") for alias in node.names):
            return True
        if isinstance(node, ast.JoinedStr) and any(isinstance(part, ast.Constant) and "argv" in str(part.value) for part in node.values):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "vars" and node.args and dotted_name(node.args[0]) == "sys":
            return True
        if isinstance(node, ast.Attribute) and node.attr == "__dict__" and dotted_name(node.value) == "sys":
            return True
        if _note_read_only(node, read_only):
            continue
        if isinstance(node, ast.Attribute) and node.attr == "argv" and dotted_name(node) == "sys.argv" and id(node) not in read_only:
            return True
    return False


def _note_read_only(node: ast.AST, read_only: set[int]) -> bool:
    """Note the children `node` only reads as a list (`x[1:]`, `len(x)`, `print(x)`,
    `" ".join(x)`, `f"{x}"`, `"-v" in x`, a loop over x); was it such a parent?  For walks
    in ast.walk's order, parents before children."""
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
        read_only.add(id(node.value))
    elif isinstance(node, ast.Call) and (isinstance(node.func, ast.Name) and node.func.id in _READS_A_LIST or isinstance(node.func, ast.Attribute) and node.func.attr == "join"):
        read_only.update(id(arg) for arg in node.args)
    elif isinstance(node, ast.FormattedValue):
        read_only.add(id(node.value))
    elif isinstance(node, ast.Compare) and all(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
        read_only.update(id(c) for c in node.comparators)
    elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
        read_only.add(id(node.iter))
    else:
        return False
    return True


def _parsed(interp: Interpreter, parser: InstanceV, rest: list[Value], kwargs: dict[str, Value], node: ast.AST, fr: Frame) -> Value:
    from jax_cudnn_lint.shape_inference import layers

    argv = rest[0] if rest else kwargs.get("args")
    listed = isinstance(argv, TupleV) and argv.is_list or isinstance(argv, TupleV) and not argv.items
    from_command_line = argv is None or (isinstance(argv, ConstV) and argv.value is None)
    intact = parser.attrs.get(_INTACT)
    if not (isinstance(intact, ConstV) and intact.value is True) or _BLIND in parser.attrs:
        return UNKNOWN
    if not (listed or from_command_line) or "namespace" in kwargs or len(rest) > 1:
        return UNKNOWN
    if from_command_line and argv_patched(interp, fr):
        return UNKNOWN
    if from_command_line and "argv" in fr.module.facts.attribute_stores()[0]:
        # the script sets its own command line (`sys.argv = ["train.py", "--seq-len",
        # "512"]`, a notebook's habit: probe 47c): read as that list where it is one
        set_by = _argv_set_by(fr.module.tree)
        if set_by is None:
            return UNKNOWN
        if set_by is not False:
            argv = set_by
    values: dict[str, Value] = {}
    for key in parser.attrs:
        if key.startswith(_DEST):
            values[key[len(_DEST):]] = UNKNOWN  # (no default: None, or the value given)
    for key, value in parser.attrs.items():
        if key.startswith(_DEFAULT):
            values[key[len(_DEFAULT):]] = value
    for key, value in parser.attrs.items():
        if key.startswith(_PARSER_DEFAULT):
            values[key[len(_PARSER_DEFAULT):]] = value
    if isinstance(argv, TupleV) and argv.items and not _given(parser, argv, values, interp.step(fr, node, "given in the argument list")):
        return UNKNOWN
    namespace = layers.make_namespace(interp, NAMESPACE, [], values, node, fr)
    if isinstance(namespace, InstanceV) and not any(isinstance(v, ExternalV) and v.qualname == "argparse.SUPPRESS" for v in values.values()):
        # every option seen: an attribute the namespace lacks is not there, and
        # `getattr(args, "dropout", 0.1)` is the default (probe 106e)
        namespace.attrs[WHOLE] = ConstV(True)
    return namespace


def _parameter_only_read(func: ast.FunctionDef | ast.AsyncFunctionDef, index: int) -> bool:
    """Does `func` only read its positional parameter `index` (as _note_read_only reads),
    with no nested scope naming it and no `+=` to it?"""
    positional = [*func.args.posonlyargs, *func.args.args]
    if index >= len(positional):
        return False
    name = positional[index].arg
    read_only: set[int] = set()
    for node in ast.walk(ast.Module(body=list(func.body), type_ignores=[])):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            if any(isinstance(inner, ast.Name) and inner.id == name for inner in ast.walk(node)):
                return False
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            return False  # (`argv += [...]` extends the list it was given)
        elif _note_read_only(node, read_only):
            continue
        elif isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load) and id(node) not in read_only:
            return False
    return True


def certainly_lacks(interp: Interpreter, value: Value, name: str, fr: Frame) -> bool:
    """Does this namespace certainly lack `name` where it is read: built or parsed whole,
    and the module stores that name on no object (`x.name = ...`), assigns no object's
    `__dict__`, and spells the name as a string nowhere but in getattr/hasattr reads (a
    dict of fields, `setattr(cfg, "name", v)` in a lambda, `map(setattr, ...)` over a list
    of names: code run in ways the analysis may not follow, probe 147a)?"""
    if not has_no_attribute(value, name):
        return False
    strings, stored = cast("tuple[frozenset[str], frozenset[str]]", interp.project.read_once(fr.module, names_set_somewhere))
    return name not in strings and name not in stored and "__dict__" not in stored


def names_set_somewhere(tree: ast.Module) -> tuple[frozenset[str], frozenset[str]]:
    """The strings a module spells (but as the name a getattr or hasattr reads), and
    the attribute names it stores on anything."""
    strings: set[str] = set()
    stored: set[str] = set()
    asked: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr") and len(node.args) >= 2:
            asked.add(id(node.args[1]))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in asked and node.value.isidentifier():
            strings.add(node.value)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
            stored.add(node.attr)
    return frozenset(strings), frozenset(stored)


def has_no_attribute(value: Value, name: str) -> bool:
    """Does this namespace certainly lack the attribute `name`?  Only for one parsed with
    every option seen and not handed since to code that may have added attributes (which
    makes every attribute Unknown, this marker too)."""
    whole = value.attrs.get(WHOLE) if isinstance(value, InstanceV) else None
    return isinstance(whole, ConstV) and whole.value is True and name not in cast("InstanceV", value).attrs and not name.startswith("__")


# what `tyro.cli` may be given besides the class or function: options of its help and
# parsing that change no default (`default=` does, and `args=` unless empty: not followed)
_TYRO_OPTIONS = frozenset({"prog", "description", "use_underscores", "console_outputs", "config"})


def tyro_cli(interp: Interpreter, args: list[Value], kwargs: dict[str, Value], node: ast.AST, fr: Frame) -> Value:
    """`tyro.cli(Args)` / `tyro.cli(main)`: a command line made from a dataclass's fields
    or a function's parameters, read from sys.argv; on a run without options, the
    dataclass built from its defaults (or the function called with them), as argparse's
    defaults are (probe 118c).  Unknown where a field or parameter has no default (tyro
    then stops the run), or anything else decides the values."""
    from jax_cudnn_lint.shape_inference import cli_commands
    from jax_cudnn_lint.shape_inference import jax_api as A

    target = args[0] if len(args) == 1 else None
    given = kwargs.get("args")
    no_options = given is None and command_line_as_given(interp, fr) or isinstance(given, TupleV) and not given.items  # (`args=[]`: a test's)
    if target is None or set(kwargs) - _TYRO_OPTIONS - {"args"} or not no_options:
        return cli_commands.not_followed(interp, target)
    if isinstance(target, ClassV) and A.is_dataclass_like(target) and all(default is not None for _, default, _ in target.all_fields()):
        return interp.call(target, [], {}, False, node, fr)
    if isinstance(target, FunctionV) and isinstance(target.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        params = target.node.args
        positional = [*params.posonlyargs, *params.args]
        if len(params.defaults) == len(positional) and all(d is not None for d in params.kw_defaults) and params.vararg is None:
            return interp.call(target, [], {}, False, node, fr)
    return UNKNOWN
