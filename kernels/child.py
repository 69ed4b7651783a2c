"""The confirm child: `python -m jax_cudnn_lint.kernels.child`.

Protocol (one JSON object per line):

* child -> parent, once, after `import jax`:
  `{"op": "ready", "env": {jax, jaxlib, platform, device, cuda, compute_capability,
  cudnn_version, pid, memory_limit}}` or `{"op": "ready", "error": "..."}`;
* parent -> child: `{"op": "run", "id": N, "repro": {...}, "backend": "auto|trace|execute",
  "target": {"gpu": "sm90", "cudnn": "9.10"}}`, answered by
  `{"op": "verdict", "id": N, "verdict": ..., "detail": ..., "backend": ...,
  "environment": {...}}`;
* parent -> child `{"op": "exit"}` or end of stdin: the child exits.

The protocol runs on a private copy of the original stdout; file descriptor 1 is pointed at
stderr so that nothing JAX or a library prints can corrupt it.  The parent enforces the
time limit and survives the child's crashes (kernels/runner.py).

Without a CUDA device the child caps its address space (RLIMIT_AS; docs/confirm.md).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import traceback
from typing import IO, Any

from . import repro as R
from .targets import Target, target_from_json

MEMORY_ENV = "JCD_CONFIRM_MEMORY_MB"


def _send(channel: IO[str], obj: dict[str, Any]) -> None:
    channel.write(json.dumps(obj) + "\n")
    channel.flush()


def _physical_memory() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def _vm_size() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def limit_memory(cuda: bool) -> int | None:
    """Cap the address space at what is mapped now plus a budget (bytes; None: no cap).

    Budget: $JCD_CONFIRM_MEMORY_MB, else half the physical memory (at least 2 GiB).
    Never with a CUDA device: the driver reserves far more address space than it uses,
    and RLIMIT_AS / RLIMIT_DATA make CUDA initialisation fail.
    """
    if cuda:
        return None
    try:
        import resource
    except ImportError:  # not on POSIX
        return None
    raw = os.environ.get(MEMORY_ENV)
    if raw is not None:
        try:
            budget = int(raw) * 2**20
        except ValueError:
            return None
        if budget <= 0:
            return None
    else:
        physical = _physical_memory() or 0
        budget = max(2 * 2**30, physical // 2)
    limit = _vm_size() + budget
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ValueError, OSError):
        return None
    return limit


def _test_hook(api: str) -> None:
    """Crash, hang or exit on purpose (only with JCD_CONFIRM_TEST_HOOKS=1)."""
    if api == "test.segfault":
        os.kill(os.getpid(), signal.SIGSEGV)
    elif api == "test.hang":
        while True:
            pass
    elif api == "test.exit":
        os._exit(3)


def handle(msg: dict[str, Any], env: dict[str, Any], hooks: bool) -> dict[str, Any]:
    from . import backends as B

    raw_repro = msg.get("repro")
    repro = R.json_object(raw_repro)
    requested = str(msg.get("backend", "auto"))
    backend = B.resolve_backend(requested, env)
    target: Target | None = None
    try:
        target = target_from_json(msg.get("target") or {})
    except (TypeError, ValueError) as e:
        return _verdict(msg, B.INCONCLUSIVE, f"bad target: {e}", backend, env, None)
    if hooks and repro is not None:
        api = repro.get("api")
        if isinstance(api, str) and api in R.TEST_APIS:
            _test_hook(api)
            return _verdict(msg, B.INCONCLUSIVE, f"test hook {api} returned", backend, env, target)
    problems = R.validate_repro(raw_repro)
    if problems:
        return _verdict(
            msg, B.INCONCLUSIVE, "malformed repro: " + "; ".join(problems), backend, env, target
        )
    assert repro is not None
    try:
        outcome = B.run_repro(repro, backend, target, env)
    except Exception as e:  # noqa: BLE001 - a bug of ours or of JAX: still one verdict
        tb = traceback.format_exc(limit=3)
        detail = f"the confirm backend failed: {B.describe_exception(e)}\n{tb}"
        return _verdict(msg, B.INCONCLUSIVE, detail, backend, env, target)
    return _verdict(msg, outcome.verdict, outcome.detail, outcome.backend, env, target)


def _verdict(
    msg: dict[str, Any],
    verdict: str,
    detail: str,
    backend: str,
    env: dict[str, Any],
    target: Target | None,
) -> dict[str, Any]:
    from .backends import result_environment

    return {
        "op": "verdict",
        "id": msg.get("id"),
        "verdict": verdict,
        "detail": detail,
        "backend": backend,
        "environment": result_environment(env, backend, target),
    }


def watch_parent(period: float = 1.0) -> None:
    """End this process when its parent is gone.  The child runs in its own session (the
    parent kills its group on a time limit), so a parent killed outright, by SIGKILL or a
    CI job's cancellation, would leave it running a hung repro for ever (a test run
    killed mid-way left one spinning for an hour)."""
    import threading
    import time

    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(period)
            if os.getppid() != parent:
                os._exit(70)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def main() -> int:
    watch_parent()
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    hooks = R.test_hooks_enabled()
    try:
        from .backends import environment_info

        env = environment_info()
    except Exception as e:  # noqa: BLE001 - reported to the parent
        _send(channel, {"op": "ready", "error": f"cannot start JAX: {type(e).__name__}: {e}"})
        return 1
    env["pid"] = os.getpid()
    env["memory_limit"] = limit_memory(bool(env.get("cuda")))
    if not env.get("cuda"):
        # Without a CUDA device nothing is compared numerically (LSTM repros only raise or
        # not): XLA:CPU compiles several times faster without its optimisation passes.
        from . import _jax

        _jax.jax().config.update("jax_disable_most_optimizations", True)
    _send(channel, {"op": "ready", "env": env})

    last_target: object = None
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            _send(
                channel,
                {
                    "op": "verdict",
                    "id": None,
                    "verdict": "inconclusive",
                    "detail": "the parent sent a line that is not JSON",
                },
            )
            continue
        message = R.json_object(msg)
        if message is None:
            continue
        if message.get("op") == "exit":
            break
        if message.get("op") != "run":
            continue
        if message.get("target") != last_target:
            # Cached traces from another target must not skip JAX's checks.
            if last_target is not None:
                from . import _jax

                _jax.jax().clear_caches()
            last_target = message.get("target")
        _send(channel, handle(message, env, hooks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
