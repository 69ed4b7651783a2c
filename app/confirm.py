"""--confirm: prove each finding by running JAX itself (docs/confirm.md).

`run_confirm(findings)` gives one verdict per finding, in order:

    {"verdict": "confirmed" | "refuted" | "inconclusive",
     "detail": str,            # what was observed (exception text, errors of the fix)
     "backend": "trace" | "execute" | the requested one when nothing ran,
     "environment": {"jax", "jaxlib", "cudnn", "device", "target"},
     "cached": bool}

Nothing of the user's code is imported or run: only each finding's repro JSON, in a child
process (jax_cudnn_lint.kernels.runner).  This module does not import jax either.

`python -m jax_cudnn_lint.confirm FILE...` confirms repro JSON files (a repro object, a
list of them, or the command's `--format json` report) without linting anything.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from jax_cudnn_lint.finding import Finding
from jax_cudnn_lint.kernels.repro import json_list, json_object
from jax_cudnn_lint.kernels.runner import BACKENDS, confirm_repros
from jax_cudnn_lint.kernels.targets import DEFAULT_CUDNN, DEFAULT_GPU


def run_confirm(
    findings: Sequence[Finding],
    *,
    backend: str = "auto",
    gpu: str = DEFAULT_GPU,
    cudnn: str = DEFAULT_CUDNN,
    use_cache: bool = True,
    timeout: float = 120.0,
    progress: bool = False,
    jax_version: str | None = None,
) -> list[dict[str, Any]]:
    """One verdict dict per finding, in order; a finding without a repro is inconclusive.

    backend: "auto" (execute on a CUDA device, else trace; decided in the child),
    "trace" or "execute".  gpu / cudnn: the target the trace backend emulates.
    timeout: seconds per repro.  jax_version: the JAX the code targets (a refutation by
    another installed JAX is inconclusive).  Raises ValueError for a bad backend, target or
    timeout.
    """
    return confirm_repros(
        [f.repro for f in findings],
        backend=backend,
        gpu=gpu,
        cudnn=cudnn,
        use_cache=use_cache,
        timeout=timeout,
        progress=progress,
        labels=[f"{f.code} {f.path}:{f.line}" for f in findings],
        jax_version=jax_version,
    )


def _load_repros(path: str) -> tuple[list[tuple[str, dict[str, Any] | None]], dict[str, Any] | None]:
    """(label, repro) pairs from a repro, a list of repros, or a `--format json` report,
    and the report's targets (None for repros alone)."""
    if path == "-":
        data: Any = json.load(sys.stdin)
    else:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    report = json_object(data)
    findings = json_list(report.get("findings")) if report is not None else None
    if report is not None and findings is not None:
        out: list[tuple[str, dict[str, Any] | None]] = []
        for entry in findings:
            item = json_object(entry)
            if item is not None:
                label = f"{item.get('code')} {item.get('path')}:{item.get('line')}"
                out.append((label, json_object(item.get("repro"))))
        return out, json_object(report.get("targets"))
    entries = json_list(data)
    if entries is not None:
        return [(f"{path}[{i}]", json_object(e)) for i, e in enumerate(entries)], None
    return [(path, report)], None


def _report_target(found: list[dict[str, Any]], key: str, given: str | None, default: str) -> str:
    """A target the command line gives, else the one the reports were linted for (probe
    39a: a report linted for sm80 was confirmed for sm90), else the default."""
    if given is not None:
        return given
    named = {str(targets[key]) for targets in found if targets.get(key) is not None}
    if len(named) > 1:
        raise ValueError(f"the reports were linted for different {key} targets ({', '.join(sorted(named))}): give --{key}")
    return named.pop() if named else default


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m jax_cudnn_lint.confirm",
        description="Confirm jax-cudnn-lint repro JSON files by tracing or running JAX.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="repro JSON ('-': stdin)")
    parser.add_argument("--backend", choices=BACKENDS, default="auto")
    parser.add_argument("--gpu", default=None, help="target GPU (default: a report's, else sm90)")
    parser.add_argument("--cudnn", default=None, help="target cuDNN (default: a report's, else 9.10)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per repro")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write verdicts")
    parser.add_argument("--json", action="store_true", help="print the verdicts as JSON")
    args = parser.parse_args(argv)
    pairs: list[tuple[str, dict[str, Any] | None]] = []
    targets: list[dict[str, Any]] = []
    for path in args.files:
        try:
            loaded, linted_for = _load_repros(path)
        except (OSError, ValueError) as exc:
            print(f"confirm: error: cannot read {path}: {exc}", file=sys.stderr)
            return 2
        pairs.extend(loaded)
        targets.extend([linted_for] if linted_for is not None else [])
    try:
        verdicts = confirm_repros(
            [repro for _, repro in pairs],
            backend=args.backend,
            gpu=_report_target(targets, "gpu", args.gpu, DEFAULT_GPU),
            cudnn=_report_target(targets, "cudnn", args.cudnn, DEFAULT_CUDNN),
            jax_version=_report_target(targets, "jax_version", None, "") or None,
            use_cache=not args.no_cache,
            timeout=args.timeout,
            progress=sys.stderr.isatty(),
            labels=[label for label, _ in pairs],
        )
    except ValueError as exc:
        print(f"confirm: error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(verdicts, indent=1))
    else:
        for (label, _), v in zip(pairs, verdicts):
            print(f"{label}: {v['verdict']} ({v['backend']}): {v['detail']}")
    return 0 if all(v["verdict"] == "confirmed" for v in verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
