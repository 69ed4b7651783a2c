"""Run every `case_*` of a fixture file with JAX's cuDNN probes set to a target.

Used by test_fixture_traces.py in a child process (it imports jax, and runs only
our own fixture files).  Prints one JSON object: case -> [outcome, detail], where
outcome is "raises" (the case raised what its `# expect: raises <regex>` comment
says), "clean", or "other" (any other exception: a broken fixture).

* `# expect: raises <regex>`: `re.search(regex, "ExceptionType: message")` must match.
  A bare `# expect: raises` keeps the original meaning: NotImplementedError with
  "Unsupported sequence length" (the JCD201/JCD202 fixtures).
* `# expect: clean`: no exception; an exception is reported as "raises" when it is
  the odd-sequence-length error, else as "other".
* `# target: sm80 9.8` anywhere in the fixture: trace for that GPU and cuDNN instead of
  the target given on the command line (the rule fixture test lints it for the same).
* `# cpu-devices: 2`: JAX's CPU platform gets that many devices (pmap, shard_map meshes).
* The fixture runs as its script would without arguments: `sys.argv` is `[FILE]`, as the
  analysis reads a command line no code writes.

On a CUDA host, `trace_cases.py FILE real real` leaves the probes alone: the cases meet
the host's own GPU and cuDNN (benchmarks/trace_fidelity.py --cases). With
JCD_TRACE_COMPILE=1, each `jax.eval_shape(f, *args)` of a case also lowers and compiles
`jax.jit(f)` for those arguments, so cuDNN itself builds every attention graph the case
makes (compile-time rejections included), without running it.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import re
import sys
import tokenize

DEFAULT_RAISES = r"^NotImplementedError: (?s:.*)Unsupported sequence length"

_CASE = re.compile(r"^\s*def (case_\w+)\(")
_EXPECT = re.compile(r"^#\s*expect:\s*(raises|clean)\b\s*(.*?)\s*$")
_TARGET = re.compile(r"^#\s*target:\s*(\S+)\s+(\S+)\s*$")


def _comments(text: str) -> dict[int, str]:
    out: dict[int, str] = {}
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            out[tok.start[0]] = tok.string
    return out


def expectations(text: str) -> dict[str, tuple[str, str]]:
    """case name -> (expected outcome, regex that identifies the expected exception)."""
    notes = _comments(text)
    out: dict[str, tuple[str, str]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        case = _CASE.match(line)
        if case and number in notes:
            expect = _EXPECT.match(notes[number])
            if expect:
                out[case.group(1)] = (expect.group(1), expect.group(2) or DEFAULT_RAISES)
    return out


def fixture_target(text: str) -> tuple[str, str] | None:
    """The `# target: sm80 9.8` comment of a fixture, if it has one."""
    for comment in _comments(text).values():
        match = _TARGET.match(comment)
        if match:
            return match.group(1), match.group(2)
    return None


def classify(exc: BaseException | None, regex: str) -> list[str]:
    if exc is None:
        return ["clean", ""]
    text = f"{type(exc).__name__}: {exc}"
    return ["raises" if re.search(regex, text) else "other", text]


def _compile_in_eval_shape() -> None:
    """Make jax.eval_shape also lower and compile the function for its arguments."""
    import jax

    eval_shape = jax.eval_shape

    def compile_then_eval_shape(fun, *args, **kwargs):  # type: ignore[no-untyped-def]
        # A fresh function: jit hashes what it wraps, and a module or filter_vmap is not hashable.
        jax.jit(lambda *a, **k: fun(*a, **k)).lower(*args, **kwargs).compile()
        return eval_shape(fun, *args, **kwargs)

    jax.eval_shape = compile_then_eval_shape


def main() -> int:
    path, gpu, cudnn = sys.argv[1], sys.argv[2], sys.argv[3]
    sys.argv = [path]  # the run without arguments
    from jax_cudnn_lint.kernels.probes import patched_probes
    from jax_cudnn_lint.kernels.targets import make_target

    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    expected = expectations(text)
    gpu, cudnn = fixture_target(text) or (gpu, cudnn)
    devices = re.search(r"^#\s*cpu-devices:\s*(\d+)\s*$", text, re.MULTILINE)
    if devices:  # before jax is imported
        os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} --xla_force_host_platform_device_count={devices.group(1)}"
    spec = importlib.util.spec_from_file_location("fixture_under_trace", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    results: dict[str, list[str]] = {}
    if os.environ.get("JCD_TRACE_COMPILE") == "1":
        _compile_in_eval_shape()
    probes = contextlib.nullcontext() if gpu == "real" else patched_probes(make_target(gpu, cudnn))
    with probes:
        spec.loader.exec_module(module)
        for name in sorted(vars(module)):
            if not name.startswith("case_"):
                continue
            regex = expected.get(name, ("clean", DEFAULT_RAISES))[1]
            try:
                getattr(module, name)()
            except Exception as exc:  # noqa: BLE001 - an observation, classified by its regex
                results[name] = classify(exc, regex)
            else:
                results[name] = classify(None, regex)
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
