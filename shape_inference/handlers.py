"""Which of JAX's errors a `try` handler, a `suppress(...)` or a `pytest.raises` catches.

A finding is reported only where its error escapes: `except ValueError:` around a
training step handles a dtype or mask error but not the odd-length
NotImplementedError.  Handler classes are read by their names (Python's builtin
hierarchy); a class of the user's own (`except ModelError:`) catches none of JAX's.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

# what `pytest.raises(...)` and a bare `except:` catch: everything (a test of these very
# failures expects them, whatever the class it names)
EVERY_ERROR = frozenset({"BaseException"})
# the builtin classes above each class JAX's checks raise
_BASES = {
    "NotImplementedError": ("RuntimeError", "Exception", "BaseException"),
    "RuntimeError": ("Exception", "BaseException"),
    "ValueError": ("Exception", "BaseException"),
    "TypeError": ("Exception", "BaseException"),
    "KeyError": ("LookupError", "Exception", "BaseException"),
    "AttributeError": ("Exception", "BaseException"),
}
_ANY_ERROR = frozenset({"Exception", "BaseException"})
# the last names of the calls that never return (jax_api.NO_RETURN says whose they are)
NO_RETURN_NAMES = frozenset({"skip", "xfail", "fail", "exit", "_exit", "quit", "skipTest", "error"})


def caught(handled: frozenset[str], exception: str) -> bool:
    """Do the handled classes catch an `exception` (a builtin class's name)?"""
    return bool(handled) and (exception in handled or any(base in handled for base in _BASES.get(exception, ("Exception", "BaseException"))))


def catches_every_error(handled: frozenset[str]) -> bool:
    """Is every error a rule reports caught (each is an Exception)?"""
    return bool(handled & _ANY_ERROR)


def name_of(func: ast.Name | ast.Attribute) -> str:
    return func.id if isinstance(func, ast.Name) else func.attr


def class_names(kind: ast.expr | None) -> frozenset[str]:
    """The names an `except` clause (or a tuple constant) lists: `(ValueError, errors.X)`."""
    items = kind.elts if isinstance(kind, ast.Tuple) else [kind] if kind is not None else []
    return frozenset(name_of(n) for n in items if isinstance(n, (ast.Name, ast.Attribute)))


def ends_path(stmt: ast.stmt) -> bool:
    """A `raise`, or a call that never returns (`sys.exit`, `pytest.fail`)."""
    if isinstance(stmt, ast.Raise):
        return True
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    return isinstance(call, ast.Call) and isinstance(call.func, (ast.Name, ast.Attribute)) and name_of(call.func) in NO_RETURN_NAMES


def falls_back(handler: ast.ExceptHandler) -> bool:
    """Does the handler call an attention or LSTM function (the fallback path)?"""
    for node in ast.walk(handler):
        if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
            name = name_of(node.func).lower()
            if "attention" in name or "attn" in name or "lstm" in name or any(k.arg == "implementation" for k in node.keywords):
                return True
    return False


def recovered(names: frozenset[str], handler: ast.ExceptHandler) -> frozenset[str]:
    """The classes a handler naming `names` catches and carries on from (no `raise`, no
    exit).  A handler of any error (`except Exception:`, bare) counts only where it falls
    back to another attention or LSTM call: around a whole training run it is a logger,
    and the run still fails."""
    if any(ends_path(stmt) for stmt in handler.body):
        return frozenset()
    specific = names - _ANY_ERROR
    if (handler.type is None or names & _ANY_ERROR) and falls_back(handler):
        return specific | (EVERY_ERROR if handler.type is None else names & _ANY_ERROR)
    return specific


def recovered_by(handlers: Sequence[ast.ExceptHandler]) -> frozenset[str]:
    """The classes the handlers of a `try` catch and carry on from."""
    out: frozenset[str] = frozenset()
    for handler in handlers:
        out |= recovered(class_names(handler.type), handler)
    return out


def suppressed_by(call: ast.expr, expects_failure: bool) -> frozenset[str]:
    """`suppress(NotImplementedError)` catches its classes; `pytest.raises(...)` /
    `assertRaises(...)` (`expects_failure`) every error."""
    if not isinstance(call, ast.Call):
        return frozenset()
    if expects_failure:
        return EVERY_ERROR
    return frozenset(name_of(arg) for arg in call.args if isinstance(arg, (ast.Name, ast.Attribute)))
