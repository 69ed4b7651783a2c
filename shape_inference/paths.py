"""File paths the analysis knows: `os.path` of known strings and `pathlib.Path`.

`open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "configs", "lm.json"))`
and `(Path(__file__).parent / "configs" / "lm.yaml").read_text()` name the config a run
reads (data_files.py).  A path is a string; a `pathlib.Path` is an object that holds its
text (ExtObjectV(PATH, (ConstV(text),)), as pathlib's PurePosixPath reads it: `Path("./data/")`
is "data").  Only string operations are followed: `join`,
`dirname`, `parent`, `/`, `name`, `stem`, `suffix`; `abspath`, `realpath`, `resolve()` and
`absolute()` only of an absolute path (of a relative one they depend on the working
directory).  `Path.cwd()`, `Path.home()`, `expanduser` are not known.
"""

from __future__ import annotations

import ast
import os
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from jax_cudnn_lint.shape_inference.dims import Why
from jax_cudnn_lint.shape_inference.values import UNKNOWN, BoundMethodV, ConstV, ExternalV, ExtObjectV, Value, const_value

if TYPE_CHECKING:
    from jax_cudnn_lint.shape_inference.interpreter import Frame, Interpreter

Args = list[Value]
Kwargs = dict[str, Value]

PATH = "pathlib.Path"
CONSTRUCTORS = ("pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath", "pathlib.PurePosixPath")


def path_text(value: Value | None) -> str | None:
    """The text of a path: a known string, or a `pathlib.Path` of one."""
    if isinstance(value, ExtObjectV) and value.qualname == PATH and value.args:
        value = value.args[0]
    ok, text = const_value(value or UNKNOWN)
    return text if ok and isinstance(text, str) else None


def is_path(value: Value) -> bool:
    return isinstance(value, ExtObjectV) and value.qualname == PATH


def _path(text: str, why: Why = ()) -> Value:
    return ExtObjectV(PATH, (ConstV(text),), (), why)


def h_path(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`Path(__file__)`, `Path("configs", "lm.yaml")`: a path of known parts."""
    parts = [text for value in args if (text := path_text(value)) is not None]
    if kwargs or len(parts) != len(args):
        return UNKNOWN
    return _path(str(PurePosixPath(*parts)), (interp.step(fr, node, "a path"),))


def joined(left: Value, right: Value) -> Value:
    """`path / "configs"`."""
    base, part = path_text(left), path_text(right)
    if base is None or part is None:
        return UNKNOWN
    return _path(str(PurePosixPath(base) / part), left.why)


def attribute(base: ExtObjectV, name: str) -> Value:
    """`path.parent`, `.name`, `.stem`, `.suffix`; a method of it, bound."""
    text = path_text(base)
    if text is None:
        return UNKNOWN
    path = PurePosixPath(text)  # (pathlib's own reading: `Path("./data/")` is "data", `Path("/").parent` is "/")
    if name == "parent":
        return _path(str(path.parent), base.why)
    if name in ("name", "stem", "suffix"):
        return ConstV({"name": path.name, "stem": path.stem, "suffix": path.suffix}[name], base.why)
    return BoundMethodV(ExternalV(f"{PATH}.{name}"), base)


def h_method(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`path.read_text()`, `.open()`, `.exists()`, `.is_file()`, `.resolve()`,
    `.absolute()`, `.joinpath(...)` of a known path."""
    from jax_cudnn_lint.shape_inference import data_files

    name = q.rsplit(".", 1)[-1]
    text = path_text(args[0] if args else None)
    if text is None:
        return UNKNOWN
    rest = args[1:]
    if name == "joinpath":
        parts = [part for value in rest if (part := path_text(value)) is not None]
        return UNKNOWN if kwargs or len(parts) != len(rest) else _path(str(PurePosixPath(text).joinpath(*parts)), args[0].why)
    if name in ("resolve", "absolute"):
        if rest or not os.path.isabs(text) or set(kwargs) - {"strict"}:
            return UNKNOWN
        return _path(os.path.realpath(text) if name == "resolve" else os.path.normpath(text), args[0].why)
    if name in ("exists", "is_file"):
        return data_files.h_exists(interp, [ConstV(text)], kwargs, node, fr, q) if not rest else UNKNOWN
    if name == "open":
        return data_files.h_open(interp, [ConstV(text), *rest], kwargs, node, fr, q)
    if name in ("read_text", "read_bytes") and not rest and set(kwargs) <= {"encoding", "errors"}:
        opened = data_files.h_open(interp, [ConstV(text), ConstV("rb" if name == "read_bytes" else "r")], {}, node, fr, q)
        return opened.args[0] if isinstance(opened, ExtObjectV) and opened.args else UNKNOWN
    return UNKNOWN


METHODS = ("joinpath", "resolve", "absolute", "exists", "is_file", "open", "read_text", "read_bytes")


def h_path_of_file(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`os.path.dirname(os.path.abspath(__file__))`: of an absolute path known (never of a
    relative one, which depends on the working directory)."""
    path = path_text(args[0]) if len(args) == 1 and not kwargs else None
    if path is None or not os.path.isabs(path):
        return UNKNOWN
    short = q.rsplit(".", 1)[-1]
    made = os.path.dirname(path) if short == "dirname" else os.path.realpath(path) if short == "realpath" else os.path.normpath(path)
    return ConstV(made, args[0].why)


def h_path_join(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`os.path.join("configs", "lm.yaml")` of known strings (or paths)."""
    parts = [part for value in args if (part := path_text(value)) is not None]
    if not parts or kwargs or len(parts) != len(args):
        return UNKNOWN
    return ConstV(os.path.join(*parts), tuple(step for value in args for step in value.why))


def h_fspath(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`os.fspath(path)`, `str(path)` of a `pathlib.Path` we know: its text."""
    if len(args) != 1 or kwargs or not is_path(args[0]):
        return UNKNOWN
    text = path_text(args[0])
    return ConstV(text, args[0].why) if text is not None else UNKNOWN
