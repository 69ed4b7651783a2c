"""absl flag defaults as seeds, as argparse defaults are (argparse_seeds.py): after

    flags.DEFINE_integer("seq_len", 255, "tokens per example")
    FLAGS = flags.FLAGS
    ...
    x = jnp.zeros((FLAGS.batch_size, FLAGS.seq_len, 64))

`FLAGS.seq_len` is 255, with the DEFINE line as its provenance; so is `.value` of the
holder that `DEFINE_integer` returns (`_SEQ_LEN = flags.DEFINE_integer(...)`).  A
default is what the program sees when the flag is not given on its command line, so a
finding built on it holds for the run without that flag.

Certain only where nothing we see may have changed it:

* a read through `FLAGS` resolves only in the module that defines the flag or in one
  that imports that module: every program that runs the reader then runs that
  definition, and absl allows one definition per name.  A module that reads a flag
  defined elsewhere is run by whichever program defines it, which we may not see (a
  holder is tied to its definition: `.value` resolves anywhere);
* `FLAGS.x = v` makes x Unknown (the code that sets it, a test, is rarely the program
  whose default we report); `flagsaver.flagsaver(x=v)` (decorator or context) makes x
  Unknown, and makes every flag Unknown when it names them by holder; `FLAGS(argv)` with an argv other than `sys.argv` or a literal one that names no
  flag (`FLAGS(["train.py"])` keeps the defaults), and any method of
  `FLAGS` but a few readers, make every flag Unknown.  From then on: the change bumps
  the interpreter's globals epoch, so no call memoised before is reused;
* a flag defined twice in one module (on two branches), defined with `required=True`,
  or passed to `mark_flag_as_required`: Unknown.  Two programs of one project that each
  define it (in their own modules) keep their own defaults: a reader sees the definition
  of its module or of the modules it imports, and none where it sees two.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from jax_cudnn_lint.shape_inference.values import (
    UNKNOWN,
    ConstV,
    ExternalV,
    InstanceV,
    IntV,
    TupleV,
    Value,
    make_int,
)

if TYPE_CHECKING:
    from jax_cudnn_lint.shape_inference.interpreter import Frame, Interpreter

FLAGS = "absl.flags.FLAGS"
HOLDER = "absl.flags.FlagHolder"
# DEFINE function -> how a string default is converted (absl parses it like a command-line value)
DEFINES = {
    "absl.flags.DEFINE_integer": int,
    "absl.flags.DEFINE_float": float,
    "absl.flags.DEFINE_bool": bool,
    "absl.flags.DEFINE_boolean": bool,
    "absl.flags.DEFINE_string": str,
    "absl.flags.DEFINE_enum": str,
}
SAVERS = ("absl.testing.flagsaver.flagsaver", "absl.testing.flagsaver.as_parsed")
REQUIRED = ("absl.flags.mark_flag_as_required", "absl.flags.mark_flags_as_required")
# methods of FLAGS that read and change nothing
_READERS = frozenset({"is_parsed", "mark_as_parsed", "flag_values_dict", "get_flag_value", "is_gnu_getopt"})


@dataclass
class AbslFlag:
    """One flag as defined: where, its default (UNKNOWN once anything may have changed
    it), and the holder DEFINE returned."""

    module_path: str
    value: Value
    holder: InstanceV | None


class FlagTable:
    """The flags one analysis has seen defined, by name, one entry per defining module:
    two programs of one project may each define `--seq_len` (absl objects only when one
    process imports both definitions)."""

    def __init__(self) -> None:
        self.flags: dict[str, list[AbslFlag]] = {}
        self.changes = 0

    def read(self, name: str, module_path: str, imported: Callable[[], frozenset[str]]) -> Value | None:
        """`FLAGS.name` in the module at `module_path`, which imports the modules at
        `imported()`; None: not a flag we may resolve there (no definition it sees, or
        two: that program fails with DuplicateFlagError before it reads anything)."""
        definitions = self.flags.get(name)
        if not definitions:
            return None
        seen = [flag for flag in definitions if flag.module_path == module_path]
        if not seen:
            paths = imported()
            seen = [flag for flag in definitions if flag.module_path in paths]
        return seen[0].value if len(seen) == 1 else None

    def forget(self, name: str) -> None:
        """`FLAGS.name = ...` or the like: Unknown from now on, in every definition."""
        for flag in self.flags.get(name, ()):
            self._forget(flag)

    def _forget(self, flag: AbslFlag) -> None:
        if flag.value is UNKNOWN:
            return
        if isinstance(flag.value, InstanceV):  # a config flag's ConfigDict: overridden in place
            from jax_cudnn_lint.shape_inference import configdict

            configdict.forget_config(flag.value)
        flag.value = UNKNOWN
        if flag.holder is not None:
            flag.holder.touch()
            flag.holder.attrs["value"] = UNKNOWN
        self.changes += 1

    def add(self, name: str, module_path: str, value: Value, holder: InstanceV | None) -> None:
        """A DEFINE; a second one of a name in the same module (it ran on two branches:
        which one ran, or absl raised DuplicateFlagError) makes that flag and both
        holders Unknown."""
        definitions = self.flags.setdefault(name, [])
        again = next((flag for flag in definitions if flag.module_path == module_path), None)
        if again is None:
            definitions.append(AbslFlag(module_path, value, holder))
            return
        self._forget(again)
        if holder is not None:
            holder.touch()
            holder.attrs["value"] = UNKNOWN

    def forget_all(self) -> None:
        for name in self.flags:
            self.forget(name)


def define(interp: Interpreter, qualname: str, args: list[Value], kwargs: dict[str, Value], node: ast.AST, fr: Frame) -> Value:
    """`flags.DEFINE_integer(name, default, help, ...)`: records the default, returns its holder."""
    from jax_cudnn_lint.shape_inference import layers

    name_v = args[0] if args else kwargs.get("name")
    default = args[1] if len(args) > 1 else kwargs.get("default")
    if not (isinstance(name_v, ConstV) and isinstance(name_v.value, str)):
        interp.absl_flags.forget_all()  # a flag we cannot name may be one that is read
        return UNKNOWN
    name = name_v.value
    value = _converted(default, DEFINES[qualname]) if default is not None else None
    required = kwargs.get("required")
    if value is None or "flag_values" in kwargs or not (required is None or (isinstance(required, ConstV) and required.value is False)):
        value = UNKNOWN
    elif isinstance(value, IntV):
        value = IntV(value.dim.with_why(interp.step(fr, node, f"default of --{name} (absl flags)")))
    holder = layers.make_namespace(interp, HOLDER, [], {"value": value}, node, fr)
    holder = holder if isinstance(holder, InstanceV) else None
    interp.absl_flags.add(name, fr.module.path, value, holder)
    return holder or UNKNOWN


def _converted(default: Value, kind: type) -> Value | None:
    """The default as the flag holds it; None where we cannot tell."""
    if isinstance(default, ConstV) and isinstance(default.value, str) and kind is not str:
        text = default.value.strip()
        if kind is int:
            try:
                return make_int(int(text, 0), default.why)
            except ValueError:
                return None
        if kind is bool and text.lower() in ("true", "false"):
            return ConstV(text.lower() == "true", default.why)
        return None
    if kind is int and isinstance(default, IntV):
        return default
    if isinstance(default, ConstV) and (default.value is None or isinstance(default.value, kind)):
        return default
    return None


def call(interp: Interpreter, qualname: str, args: list[Value], kwargs: dict[str, Value]) -> Value:
    """A call of FLAGS itself, of one of its methods, of a flagsaver or of
    mark_flag(s)_as_required: forget what it may change."""
    if qualname in SAVERS:
        if args:
            interp.absl_flags.forget_all()  # flags named by holder, or a function to wrap
        for name in kwargs:
            interp.absl_flags.forget(name)
        return UNKNOWN
    if qualname in REQUIRED:
        names = args[0] if args else kwargs.get("flag_name") or kwargs.get("flag_names")
        items = names.items if isinstance(names, TupleV) else (names,) if names is not None else ()
        if not items or not all(isinstance(n, ConstV) and isinstance(n.value, str) for n in items):
            interp.absl_flags.forget_all()
        for n in items:
            if isinstance(n, ConstV) and isinstance(n.value, str):
                interp.absl_flags.forget(n.value)
        return ConstV(None)
    if qualname == FLAGS:  # FLAGS(argv): parses argv
        argv = args[0] if args else None
        if not (isinstance(argv, ExternalV) and argv.qualname == "sys.argv") and not _without_flags(argv):
            interp.absl_flags.forget_all()
        return UNKNOWN
    if qualname[len(FLAGS) + 1 :] not in _READERS:
        interp.absl_flags.forget_all()
    return UNKNOWN


def _without_flags(argv: Value | None) -> bool:
    """An argv we read whole that names no flag (`FLAGS(["train.py"])`): the defaults hold."""
    if not isinstance(argv, TupleV) or not argv.items:
        return False
    return all(isinstance(a, ConstV) and isinstance(a.value, str) for a in argv.items) and not any(
        isinstance(a, ConstV) and isinstance(a.value, str) and a.value.startswith("-") for a in argv.items[1:]
    )
