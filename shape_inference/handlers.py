"""Which of JAX's errors a `try` handler, a `suppress(...)` or a `pytest.raises` catches.

A finding is reported only where its error escapes: `except ValueError:` around a
training step handles a dtype or mask error but not the odd-length
NotImplementedError.  Handler classes are read by their names (Python's builtin
hierarchy); a class of the user's own (`except ModelError:`) catches none of JAX's.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from typing import cast

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
# the builtin exception classes names resolve to (jax_api.builtin), for handlers to read
BUILTIN_EXCEPTIONS = frozenset(
    "BaseException Exception ArithmeticError AssertionError AttributeError ImportError IndexError KeyError "
    "KeyboardInterrupt LookupError MemoryError NotImplementedError OSError RecursionError RuntimeError "
    "StopIteration SystemExit TypeError ValueError ZeroDivisionError".split()
)
# the last names of the calls that never return (jax_api.NO_RETURN says whose they are);
# `error` and `fatal` only where they are argparse's and absl's (a logger's return)
NO_RETURN_NAMES = frozenset({"skip", "xfail", "fail", "exit", "_exit", "quit", "abort", "skipTest", "error", "fatal", "reject"})
LOGGER_NAMES = frozenset({"error", "fatal"})
# what a handler calls that only reports, waits or collects: one calling nothing else is a
# logger, not a fallback
_REPORTING = frozenset(
    "print debug info warning warn error exception critical fatal log print_exc format_exc print_exception "
    "format_exception append extend add write flush update set_postfix set_description str repr format join "
    "type len isinstance getattr sleep collect clear_caches alert".split()
)


# the classes that catch an error some rule reports: a context keeps only these, so that a
# `try: ... except KeyError:` around a call does not analyse its callee again
_RELEVANT = frozenset({"NotImplementedError", "RuntimeError", "ValueError", "TypeError"}) | _ANY_ERROR


def relevant(names: frozenset[str]) -> frozenset[str]:
    return names & _RELEVANT


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
    """A `raise`, or a call that never returns by its name alone (`sys.exit`,
    `pytest.fail`; not `error` or `fatal`, which loggers have too)."""
    if isinstance(stmt, ast.Raise):
        return True
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    return isinstance(call, ast.Call) and isinstance(call.func, (ast.Name, ast.Attribute)) and name_of(call.func) in NO_RETURN_NAMES - LOGGER_NAMES


# what a test calls (or raises) to report an expected outcome rather than a failure
_SKIPS = frozenset({"skip", "xfail", "skipTest", "SkipTest", "importorskip"})


def skips_the_test(stmt: ast.stmt) -> bool:
    """`pytest.skip(...)`, `pytest.xfail(...)`, `self.skipTest(...)`, `raise
    unittest.SkipTest(...)`: in a handler, the failure is one the test expects (a
    configuration the hardware does not support: probe 36b), not a failed run."""
    if isinstance(stmt, ast.Raise):
        raised = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
        return isinstance(raised, (ast.Name, ast.Attribute)) and name_of(raised) in _SKIPS
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    return isinstance(call, ast.Call) and isinstance(call.func, (ast.Name, ast.Attribute)) and name_of(call.func) in _SKIPS


def falls_back(handler: ast.ExceptHandler) -> bool:
    """Does the handler do other work than reporting: call an attention or LSTM function, a
    reference implementation, a helper, the step again with other options (the fallback
    path), set a flag the code after it reads (`use_cudnn = False`), or return one to
    its caller (`return None`: a probe whose caller falls back, probe 32a)?  One that
    only logs, prints, collects the error or sleeps is a logger."""
    for node in ast.walk(handler):
        if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)) and name_of(node.func) not in _REPORTING:
            return True
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Constant):
            return True
        if isinstance(node, ast.Return) and (node.value is None or isinstance(node.value, ast.Constant)):
            return True
    return False


def recovered(names: frozenset[str], handler: ast.ExceptHandler, ends: Callable[[ast.stmt], bool] = ends_path, retried: bool = False) -> frozenset[str]:
    """The classes a handler naming `names` catches and carries on from (no statement of
    its body `ends` the path: a `raise`, an exit).  A handler of any error (`except
    Exception:`, bare) counts only where it falls back to other work, or where the code
    around the `try` does the work again another way (`retried`: tried_again): around a
    whole training run one that only logs is a logger, and the run still fails."""
    if any(skips_the_test(stmt) for stmt in handler.body):
        every: frozenset[str] = EVERY_ERROR if handler.type is None or names & _ANY_ERROR else frozenset()
        return names - _ANY_ERROR | every
    if any(ends(stmt) for stmt in handler.body):
        return frozenset()
    specific = names - _ANY_ERROR
    if (handler.type is None or names & _ANY_ERROR) and (retried or falls_back(handler)):
        return specific | (EVERY_ERROR if handler.type is None else names & _ANY_ERROR)
    return specific


def recovered_by(handlers: Sequence[ast.ExceptHandler], classes: Callable[[ast.ExceptHandler], frozenset[str]] | None = None, ends: Callable[[ast.stmt], bool] = ends_path, retried: bool = False) -> frozenset[str]:
    """The classes the handlers of a `try` catch and carry on from (`classes` reads what a
    handler names; by default, by its syntax)."""
    out: frozenset[str] = frozenset()
    for handler in handlers:
        out |= recovered(classes(handler) if classes is not None else class_names(handler.type), handler, ends, retried)
    return out


def tried_again(stmt: ast.Try, body: Sequence[ast.stmt], options: Callable[[ast.expr], list[object] | None] = lambda _: None) -> bool:
    """Does the code around the `try` (found in `body`, the enclosing function's or
    module's) do its work again another way when a handler only logs (keras' JAX
    backend, probe 32a)?  The `try` sits in a loop over constant options (`for impl in
    ("cudnn", "xla"):`; `options` reads an iterable that is not a literal, `for impl in
    IMPLS:`), or a statement after it in the same block calls what its body calls
    (`except Exception: pass` then `return dot_product_attention(..., "xla")`)."""
    found = _block_of(body, stmt, None)
    if found is None:
        return False
    block, index, loop = found
    if loop is not None and _retries_options(loop, stmt, block, index, options):
        return True
    called = {name_of(node.func) for part in stmt.body for node in ast.walk(part) if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute))}
    called -= _REPORTING | _GENERIC_CALLS
    return any(isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)) and name_of(node.func) in called for later in block[index + 1 :] for node in ast.walk(later))


def _retries_options(loop: ast.For, stmt: ast.Try, block: Sequence[ast.stmt], index: int, options: Callable[[ast.expr], list[object] | None]) -> bool:
    """`for impl in ("cudnn", "xla"):` around the `try`: distinct constant options (a
    literal, or what `options` reads: a module's list or dict, dtypes, through
    `enumerate`), the loop variable read in the `try` body or before it in the loop
    (`cfg.impl = impl`), and no handler nor later statement of the loop body that
    leaves the loop on the first pass (`break`, `return`; a handler that ends in
    `continue` skips them: probe 34a)."""
    iterable = loop.iter
    while isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id in ("enumerate", "list", "tuple") and len(iterable.args) == 1:
        iterable = iterable.args[0]
    if isinstance(iterable, (ast.List, ast.Tuple)) and all(isinstance(item, ast.Constant) for item in iterable.elts):
        values: list[object] | None = [item.value for item in iterable.elts if isinstance(item, ast.Constant)]
    else:
        values = options(iterable)
    variables = {node.id for node in ast.walk(loop.target) if isinstance(node, ast.Name)}
    readers = [*stmt.body, *(part for part in loop.body if part.lineno < stmt.lineno)]
    read = {node.id for part in readers for node in ast.walk(part) if isinstance(node, ast.Name) and node.id in variables and isinstance(node.ctx, ast.Load)}
    if not read:
        return False
    target = loop.target
    rows = [cast(tuple[object, ...], item) for item in values if isinstance(item, tuple)] if values is not None else []
    if values is not None and isinstance(target, ast.Tuple) and len(rows) == len(values) and all(len(row) == len(target.elts) for row in rows):
        # `for impl, label in zip(IMPLS, LABELS):` differs only by what the `try` reads (probe 37a)
        kept = [i for i, elt in enumerate(target.elts) if isinstance(elt, ast.Name) and elt.id in read]
        values = [tuple(row[i] for i in kept) for row in rows]
    if values is None or len(values) < 2 or len({repr(value) for value in values}) < 2:
        return False
    leaving = (ast.Break, ast.Return, ast.Raise)
    if any(isinstance(part, leaving) for handler in stmt.handlers for part in handler.body):
        return False
    if all(handler.body and isinstance(handler.body[-1], ast.Continue) for handler in stmt.handlers):
        return True  # the next option is tried before anything after the `try` runs
    return block is not loop.body or not any(isinstance(later, leaving) for later in block[index + 1 :])


# calls too common to say that the code after a `try` does its work again (`jax.grad`,
# `x.astype`, `jnp.asarray` appear in both a step and whatever follows it)
_GENERIC_CALLS = frozenset(
    {"grad", "value_and_grad", "jit", "vmap", "pmap", "eval_shape", "partial", "asarray", "array", "astype", "sum", "mean",
     "zeros", "ones", "zeros_like", "ones_like", "reshape", "transpose", "len", "float", "int", "str", "bool", "list", "dict",
     "tuple", "range", "isinstance", "getattr", "block_until_ready", "device_get", "device_put", "tree_map", "map", "format"}
)


def _block_of(body: Sequence[ast.stmt], target: ast.stmt, loop: ast.For | None) -> tuple[Sequence[ast.stmt], int, ast.For | None] | None:
    """The statement list holding `target`, its index there, and the innermost `for`
    loop whose body holds it (in this function: nested definitions are not entered)."""
    for index, stmt in enumerate(body):
        if stmt is target:
            return body, index, loop
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        inner_loop = stmt if isinstance(stmt, ast.For) else None if isinstance(stmt, (ast.While, ast.AsyncFor)) else loop
        for field in ("body", "orelse", "finalbody"):
            block = getattr(stmt, field, None)
            if isinstance(block, list) and block:
                found = _block_of(block, target, inner_loop if field == "body" else loop)  # pyright: ignore[reportUnknownArgumentType]
                if found is not None:
                    return found
        for handler in getattr(stmt, "handlers", ()):
            found = _block_of(handler.body, target, loop)
            if found is not None:
                return found
        for case in getattr(stmt, "cases", ()):
            found = _block_of(case.body, target, loop)
            if found is not None:
                return found
    return None


def swallowed_by_finally(stmt: ast.Try) -> bool:
    """`finally: return ...` (or `break` / `continue`) drops whatever the body or a
    handler raised."""
    return any(isinstance(final, (ast.Return, ast.Break, ast.Continue)) for final in stmt.finalbody)
