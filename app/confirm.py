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
) -> list[dict[str, Any]]:
    """One verdict dict per finding, in order; a finding without a repro is inconclusive.

    backend: "auto" (execute on a CUDA device, else trace; decided in the child),
    "trace" or "execute".  gpu / cudnn: the target the trace backend emulates.
    timeout: seconds per repro.  Raises ValueError for a bad backend, target or timeout.
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
    )


def _load_repros(path: str) -> list[tuple[str, dict[str, Any] | None]]:
    """(label, repro) pairs from a repro, a list of repros, or a `--format json` report."""
    if path == "-":
        data: Any = json.load(sys.stdin)
    else:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    report = json_object(data)
    findings = json_list(report.get("findings")) if report is not None else None
    if findings is not None:
        out: list[tuple[str, dict[str, Any] | None]] = []
        for entry in findings:
            item = json_object(entry)
            if item is not None:
                label = f"{item.get('code')} {item.get('path')}:{item.get('line')}"
                out.append((label, json_object(item.get("repro"))))
        return out
    entries = json_list(data)
    if entries is not None:
        return [(f"{path}[{i}]", json_object(e)) for i, e in enumerate(entries)]
    return [(path, report)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m jax_cudnn_lint.confirm",
        description="Confirm jax-cudnn-lint repro JSON files by tracing or running JAX.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="repro JSON ('-': stdin)")
    parser.add_argument("--backend", choices=BACKENDS, default="auto")
    parser.add_argument("--gpu", default=DEFAULT_GPU, help="target GPU (default: sm90)")
    parser.add_argument("--cudnn", default=DEFAULT_CUDNN, help="target cuDNN (default: 9.10)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per repro")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write verdicts")
    parser.add_argument("--json", action="store_true", help="print the verdicts as JSON")
    args = parser.parse_args(argv)
    pairs: list[tuple[str, dict[str, Any] | None]] = []
    for path in args.files:
        try:
            pairs.extend(_load_repros(path))
        except (OSError, ValueError) as exc:
            print(f"confirm: error: cannot read {path}: {exc}", file=sys.stderr)
            return 2
    try:
        verdicts = confirm_repros(
            [repro for _, repro in pairs],
            backend=args.backend,
            gpu=args.gpu,
            cudnn=args.cudnn,
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
