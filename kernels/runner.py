"""The parent side of confirm: cache, child processes, time limits, progress.

Repros run in `python -m jax_cudnn_lint.kernels.child`, one repro at a time, several per
child so that `import jax` is paid once.  A repro that crashes its child (a segfault in
XLA or cuDNN), hangs past the time limit, or kills it any other way costs only its own
verdict (inconclusive); the repros after it run in a fresh child.  Ctrl-C stops the run:
the verdicts obtained so far are already in the cache and are returned, the rest are
inconclusive.

This module never imports jax.
"""

from __future__ import annotations

import importlib.machinery
import json
import os
import queue
import shutil
import signal
import site
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from typing import IO, Any, TextIO

from .cache import VerdictCache, cache_key, installed_versions
from .repro import json_object, validate_repro
from .targets import Target, make_target

BACKENDS = ("auto", "trace", "execute")
CHILD_MODULE = "jax_cudnn_lint.kernels.child"
INCONCLUSIVE = "inconclusive"
NO_REPRO = "no repro (a value was not resolved, or an argument the repro schema cannot carry: an fp8 scale, sequence lengths, a packed layout)"
_STDERR_TAIL = 1500


class ChildFailure(Exception):
    """The child died or stopped answering."""


class ChildTimeout(ChildFailure):
    pass


def _signal_name(returncode: int) -> str:
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exited with status {returncode}"


class ChildProcess:
    """One child: spawn, wait for `ready`, send repros, read verdicts, kill."""

    def __init__(self, env: Mapping[str, str], startup_timeout: float) -> None:
        # Closed in _cleanup (the child outlives this call).
        self._stderr: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115
        # The child runs in a folder of its own, isolated (-I): see child_command.
        self._workdir = tempfile.mkdtemp(prefix="jcd-confirm-")
        self.proc = subprocess.Popen(
            child_command(),
            cwd=self._workdir,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=dict(env),
            start_new_session=True,  # its own process group: killed as one
            text=True,
            encoding="utf-8",
            bufsize=1,
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        reader = threading.Thread(target=self._read_stdout, daemon=True)
        reader.start()
        try:
            ready = self._next(startup_timeout, "starting (import jax)")
        except BaseException:  # a failure, or Ctrl-C while jax imports: leave no orphan
            self.kill()
            raise
        if ready.get("op") != "ready":
            self.kill()
            raise ChildFailure(f"the child did not say ready: {ready!r}")
        if "error" in ready:
            self.close()
            raise ChildFailure(str(ready["error"]))
        self.env: dict[str, Any] = dict(ready.get("env") or {})

    def _read_stdout(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        try:
            for line in stream:
                self._lines.put(line)
        except (OSError, ValueError):
            pass
        self._lines.put(None)

    def stderr_tail(self) -> str:
        try:
            self._stderr.seek(0, os.SEEK_END)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - _STDERR_TAIL))
            text = self._stderr.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""
        return text

    def _died(self, doing: str) -> ChildFailure:
        try:
            rc = self.proc.wait(timeout=5)
            how = _signal_name(rc)
        except subprocess.TimeoutExpired:
            how = "closed its output"
        tail = self.stderr_tail()
        msg = f"the child process {how} while {doing}"
        if tail:
            msg += f"; its stderr ends with: {tail[-400:]}"
        return ChildFailure(msg)

    def _next(self, timeout: float, doing: str) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ChildTimeout(f"timed out after {timeout:g} s while {doing}")
            try:
                line = self._lines.get(timeout=remaining)
            except queue.Empty:
                raise ChildTimeout(f"timed out after {timeout:g} s while {doing}") from None
            if line is None:
                raise self._died(doing)
            try:
                msg = json.loads(line)
            except ValueError:
                continue  # not protocol: ignore
            obj = json_object(msg)
            if obj is not None:
                return obj

    def run(self, ident: int, request: Mapping[str, Any], timeout: float) -> dict[str, Any]:
        stdin = self.proc.stdin
        assert stdin is not None
        try:
            stdin.write(json.dumps({"op": "run", "id": ident, **request}) + "\n")
            stdin.flush()
        except (OSError, ValueError):
            raise self._died("receiving a repro") from None
        while True:
            msg = self._next(timeout, "running the repro")
            if msg.get("op") == "verdict" and msg.get("id") == ident:
                return msg

    def kill(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        self._cleanup()

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.write(json.dumps({"op": "exit"}) + "\n")
                self.proc.stdin.close()
            except (OSError, ValueError):
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        self.kill()

    def _cleanup(self) -> None:
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                try:
                    stream.close()
                except (OSError, ValueError):
                    pass
        try:
            self._stderr.close()
        except OSError:
            pass
        shutil.rmtree(self._workdir, ignore_errors=True)


# The top-level modules the child imports (jax's own requirements and plugins included).
CHILD_IMPORTS = (
    "jax_cudnn_lint",
    "jax",
    "jaxlib",
    "jax_plugins",
    "numpy",
    "ml_dtypes",
    "opt_einsum",
    "scipy",
)
# Puts the folders given as JSON in argv[1] first on sys.path, then runs the child module.
_BOOTSTRAP = (
    "import json, runpy, sys; sys.path[:0] = json.loads(sys.argv.pop(1)); "
    f"runpy.run_module({CHILD_MODULE!r}, run_name='__main__', alter_sys=True)"
)


def isolation_dropped_paths() -> list[str]:
    """The import folders `python -I` leaves out that the child may need back.

    PYTHONPATH's absolute entries and the user site, never the working folder: a relative
    entry or one that is the working folder is where a project's own jax/ would be.
    """
    cwd = os.path.realpath(os.getcwd())
    entries = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    if site.ENABLE_USER_SITE:
        entries.append(site.getusersitepackages())
    return [e for e in entries if e and os.path.isabs(e) and os.path.realpath(e) != cwd]


def child_import_dirs() -> list[str]:
    """The folders of isolation_dropped_paths() that hold one of CHILD_IMPORTS, in order.

    Found with importlib's path finder, which locates a top-level module without running
    it; a module also on the isolated path keeps this order, as it has in this process.
    """
    candidates = isolation_dropped_paths()
    dirs: list[str] = []
    for name in CHILD_IMPORTS:
        try:
            spec = importlib.machinery.PathFinder.find_spec(name, candidates)
        except (ImportError, ValueError, OSError):
            continue
        if spec is None:
            continue
        places = list(spec.submodule_search_locations or []) or [spec.origin or ""]
        for place in places:
            folder = os.path.dirname(place)
            if folder in candidates and folder not in dirs:
                dirs.append(folder)
    return dirs


def child_command() -> list[str]:
    """`python -I` running the child module, with only the folders it needs on its path.

    Isolated (-I): neither the working folder, nor PYTHONPATH, nor the user site is on the
    child's sys.path, so a jax/ or numpy.py in the user's project can never shadow JAX.
    But jax, or this package, may be installed in such a place (PYTHONPATH, `pip install
    --target`, `pip install --user`): those folders that hold them are put back
    (child_import_dirs), the working folder never.
    """
    return [sys.executable, "-I", "-c", _BOOTSTRAP, json.dumps(child_import_dirs())]


def child_environment(backend: str) -> dict[str, str]:
    env = dict(os.environ)
    env["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    if backend == "trace" and "JAX_PLATFORMS" not in env:
        # Tracing needs no device: do not initialise (or occupy) a GPU for it.
        env["JAX_PLATFORMS"] = "cpu"
    return env


def start_child(backend: str, startup_timeout: float) -> ChildProcess:
    """Spawn a child (a seam for the tests)."""
    return ChildProcess(child_environment(backend), startup_timeout)


class Progress:
    """A bar on a terminal (runs of more than one repro); plain lines otherwise."""

    def __init__(self, total: int, enabled: bool, stream: TextIO | None = None) -> None:
        self.stream: TextIO = stream if stream is not None else sys.stderr
        self.total = total
        self.enabled = enabled
        isatty = getattr(self.stream, "isatty", None)
        self.bar = enabled and total > 1 and bool(isatty and isatty())
        self.done = 0

    def update(self, label: str, verdict: str) -> None:
        if not self.enabled:
            return
        self.done += 1
        if self.bar:
            width = 24
            filled = width * self.done // max(1, self.total)
            line = f"confirm [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total}"
            line += f" {label}: {verdict}"
            self.stream.write("\r" + line[:120].ljust(120))
            if self.done >= self.total:
                self.stream.write("\n")
        else:
            self.stream.write(f"confirm {self.done}/{self.total}: {label}: {verdict}\n")
        self.stream.flush()

    def finish(self) -> None:
        if self.bar and 0 < self.done < self.total:
            self.stream.write("\n")
            self.stream.flush()


def _environment(versions: Mapping[str, Any], target: Target) -> dict[str, Any]:
    return {
        "jax": versions.get("jax"),
        "jaxlib": versions.get("jaxlib"),
        "cudnn": None,
        "device": None,
        "target": target.to_json(),
    }


def _release(version: str | None) -> tuple[int, ...] | None:
    """(0, 4, 35) of '0.4.35' / '0.4.35.dev1'; None for no version."""
    parts: list[int] = []
    for piece in (version or "").split(".")[:3]:
        digits = "".join(c for c in piece if c.isdigit()) if piece[:1].isdigit() else ""
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts) or None


def for_target_version(result: dict[str, Any], installed: str | None, target: str | None) -> dict[str, Any]:
    """A verdict of the installed JAX for code that targets another release: a refutation
    becomes inconclusive, a confirmation says which JAX confirmed it."""
    if target is None or installed is None or _release(target) is None or _release(target) == _release(installed):
        return result
    note = f"with the installed JAX {installed}; the code targets JAX {target}"
    if result.get("verdict") == "refuted":
        return {**result, "verdict": INCONCLUSIVE, "detail": f"refuted {note}: {result.get('detail', '')}"}
    if result.get("verdict") == "confirmed":
        return {**result, "detail": f"{result.get('detail', '')} ({note})"}
    return result


def confirm_repros(
    repros: Sequence[Mapping[str, Any] | None],
    *,
    backend: str = "auto",
    gpu: str = "sm90",
    cudnn: str = "9.10",
    use_cache: bool = True,
    timeout: float = 120.0,
    progress: bool = False,
    labels: Sequence[str] | None = None,
    cache: VerdictCache | None = None,
    jax_version: str | None = None,
) -> list[dict[str, Any]]:
    """One verdict dict per repro, in order (None: no repro).  jax_version: the version
    the linted code targets; where the installed JAX is another, a refutation is only
    inconclusive (the check may have changed between them: probe 39a)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if not timeout > 0:
        raise ValueError(f"timeout must be positive, got {timeout!r}")
    target = make_target(gpu, cudnn)
    versions = installed_versions()
    labels = list(labels) if labels is not None else [f"repro {i + 1}" for i in range(len(repros))]
    store = (cache or VerdictCache()) if use_cache else None
    bar = Progress(len(repros), progress)
    results: list[dict[str, Any] | None] = [None] * len(repros)
    keys: list[str | None] = [None] * len(repros)
    pending: list[int] = []

    def inconclusive(detail: str) -> dict[str, Any]:
        return {
            "verdict": INCONCLUSIVE,
            "detail": detail,
            "backend": backend,
            "environment": _environment(versions, target),
            "cached": False,
        }

    def settle(i: int, result: dict[str, Any]) -> None:
        result = for_target_version(result, versions.get("jax"), jax_version)
        results[i] = result
        bar.update(labels[i], str(result["verdict"]))

    for i, repro in enumerate(repros):
        if repro is None:
            settle(i, inconclusive(NO_REPRO))
            continue
        problems = validate_repro(repro)
        if problems:
            settle(i, inconclusive("malformed repro: " + "; ".join(problems)))
            continue
        if versions["jax"] is None or versions["jaxlib"] is None:
            settle(
                i,
                inconclusive(
                    "jax is not installed: confirm needs it (pip install 'jax-cudnn-lint[confirm]')"
                ),
            )
            continue
        if store is not None:
            key = cache_key(repro, backend=backend, target=target.to_json(), versions=versions)
            keys[i] = key
            hit = store.get(key)
            if hit is not None:
                settle(i, {**hit, "cached": True})
                continue
        pending.append(i)

    child: ChildProcess | None = None
    startup_timeout = max(60.0, timeout)
    position = 0
    interrupted = False
    try:
        while position < len(pending):
            i = pending[position]
            if child is not None and child.proc.poll() is not None:
                child.kill()  # it died between repros: not this repro's fault
                child = None
            if child is None:
                try:
                    child = start_child(backend, startup_timeout)
                except ChildFailure as e:
                    for j in pending[position:]:
                        settle(j, inconclusive(f"the confirm child failed to start: {e}"))
                    break
            request = {
                "repro": repros[i],
                "backend": backend,
                "target": {"gpu": target.gpu, "cudnn": target.cudnn},
            }
            try:
                reply = child.run(i, request, timeout)
            except ChildFailure as e:
                child.kill()
                child = None
                suffix = " (the child was killed)" if isinstance(e, ChildTimeout) else ""
                settle(i, inconclusive(f"{e}{suffix}"))
                position += 1
                continue
            result = {
                "verdict": reply.get("verdict", INCONCLUSIVE),
                "detail": reply.get("detail", ""),
                "backend": reply.get("backend", backend),
                "environment": reply.get("environment") or _environment(versions, target),
                "cached": False,
            }
            key = keys[i]
            if store is not None and key is not None:
                store.put(key, result)
            settle(i, result)
            position += 1
    except KeyboardInterrupt:
        interrupted = True
        for j in pending[position:]:
            if results[j] is None:
                results[j] = inconclusive("not run: interrupted (Ctrl-C)")
    finally:
        if child is not None:
            if interrupted:
                child.kill()
            else:
                child.close()
        bar.finish()
    return [r if r is not None else inconclusive("not run") for r in results]
