"""Does the trace backend say what the real GPU says?  Run on a CUDA host.

    python benchmarks/trace_fidelity.py --prepare repros.json   # any host: lint, keep repros
    python benchmarks/trace_fidelity.py --repros repros.json --json out.json   # a GPU host
    python benchmarks/trace_fidelity.py --cases --workers 8   # a GPU host: fixture cases

The trace backend (docs/confirm.md) sets JAX's three cuDNN probes to a target and traces;
its claim is that this raises exactly what that GPU raises.  This script measures the
claim: every distinct repro the command makes from the rule fixtures and examples/ is
confirmed twice on the same host, with the same JAX, once by executing it on the real
cuDNN and once by tracing it with the probes set to the host's own GPU and cuDNN.  It
prints the pairs of verdicts and every repro where they differ.

`--cases` runs every `case_*` of the traced fixtures (tests/trace_cases.py) with the probes
left alone, each `jax.eval_shape` also compiled, and checks its `# expect:` comment: what
the emulated sm90 / cuDNN 9.10 of tests/test_fixture_traces.py says, the host must say.

`--prepare` lints with `--jax-version` set to the JAX of the host that will run the
repros (`--jax-version`, default: the installed one), so that each repro's expected error
is that version's.  Nothing is timed against a baseline: the numbers are counts.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from common import REPO, machine_header
from jax_cudnn_lint.kernels.repro import API_NN_ATTENTION

SOURCES = ("tests/fixtures/rules", "examples")
# What a fixture expects where a CPU jaxlib stops an rnn.lstm past its checks: a CUDA
# host runs those cases clean.
NO_CUDA_JAXLIB = "^AttributeError: module 'jaxlib.gpu_rnn' has no attribute"
ENV_PROBE = (
    "import json; from jax_cudnn_lint.kernels.backends import environment_info; "
    "print(json.dumps(environment_info()))"
)


def prepare(jax_version: str | None) -> list[dict[str, Any]]:
    """Distinct repros of the command's findings on SOURCES, each with its labels."""
    cmd = [sys.executable, "-m", "jax_cudnn_lint", "--no-cache", "--exit-zero", "--format", "json"]
    if jax_version:
        cmd += ["--jax-version", jax_version]
    proc = subprocess.run([*cmd, *SOURCES], cwd=REPO, capture_output=True, text=True, check=False)
    report = json.loads(proc.stdout)
    by_key: dict[str, dict[str, Any]] = {}
    for f in report["findings"]:
        repro = f.get("repro")
        if not repro:
            continue
        key = json.dumps(repro, sort_keys=True)
        entry = by_key.setdefault(key, {"repro": repro, "labels": []})
        entry["labels"].append(f"{f['code']} {f['path']}:{f['line']}")
    return list(by_key.values())


def even_variant(repro: dict[str, Any]) -> dict[str, Any] | None:
    """The repro of an odd-length finding (JCD201/JCD202) with T and S rounded up to even.

    Its expected error is unchanged, so both backends must refute it: the other side of
    the claim (where the trace says the call runs, the GPU runs it).
    """
    if repro.get("code") not in ("JCD201", "JCD202") or repro.get("api") != API_NN_ATTENTION:
        return None
    arrays = json.loads(json.dumps(repro["arrays"]))
    q, k = arrays["query"]["shape"], arrays["key"]["shape"]
    axis = 1 if len(q) == 4 else 0
    t, s = q[axis], k[axis]
    even_t, even_s = t + t % 2, s + s % 2
    for name, length in (("query", even_t), ("key", even_s), ("value", even_s)):
        arrays[name]["shape"][axis] = length
    for name in ("bias", "mask"):
        shape = arrays.get(name, {}).get("shape")
        if shape and len(shape) >= 2:
            shape[-2] = even_t if shape[-2] == t else shape[-2]
            shape[-1] = even_s if shape[-1] == s else shape[-1]
    return {**repro, "arrays": arrays}


def host_target() -> tuple[str, str, dict[str, Any]]:
    """(gpu, cudnn) of this host's first device as --gpu/--cudnn take them, and the info."""
    out = subprocess.run(
        [sys.executable, "-c", ENV_PROBE], capture_output=True, text=True, check=True
    ).stdout
    info = json.loads(out.strip().splitlines()[-1])
    if not info.get("cuda") or not info.get("cudnn_version"):
        raise SystemExit(f"no CUDA device with cuDNN visible to JAX: {info}")
    major, minor = str(info["compute_capability"]).split(".")
    v = int(info["cudnn_version"])
    return f"sm{major}{minor}", f"{v // 10000}.{v % 10000 // 100}.{v % 100}", info


def confirm_in_parallel(
    repros: list[dict[str, Any]],
    labels: list[str],
    backend: str,
    gpu: str,
    cudnn: str,
    timeout: float,
    workers: int,
) -> list[dict[str, Any]]:
    """confirm_repros over `workers` interleaved slices at once (one child each), in order."""
    from jax_cudnn_lint.kernels.runner import confirm_repros

    workers = max(1, min(workers, len(repros)))

    def one(k: int) -> list[dict[str, Any]]:
        return confirm_repros(
            repros[k::workers],
            backend=backend,
            gpu=gpu,
            cudnn=cudnn,
            use_cache=False,
            timeout=timeout,
            progress=True,
            labels=labels[k::workers],
        )

    with ThreadPoolExecutor(workers) as pool:
        slices = list(pool.map(one, range(workers)))
    out: list[dict[str, Any]] = [{}] * len(repros)
    for k, part in enumerate(slices):
        out[k::workers] = part
    return out


def fixture_cases(workers: int, timeout: float) -> int:
    """Every fixture case on this host's own GPU: probes left alone, graphs compiled.

    Each `# expect:` of a traced fixture (tests/test_fixture_traces.py checks them against
    the emulated sm90 / cuDNN 9.10) is checked against the real device; fixtures that name
    another target (`# target: sm80 9.8`) or another JAX (`# jax-version:`) are skipped.
    """
    sys.path.insert(0, str(REPO / "tests"))
    from importlib import metadata

    from rule_fixtures import config_overrides, traced_fixture_files
    from trace_cases import expectations, fixture_target

    def runs_here(text: str) -> bool:
        wanted = config_overrides(text).get("jax_version")
        return not fixture_target(text) and wanted in (None, metadata.version("jax"))

    files = [p for p in traced_fixture_files() if runs_here(p.read_text("utf-8"))]
    env = dict(os.environ, JCD_TRACE_COMPILE="1", XLA_PYTHON_CLIENT_PREALLOCATE="false")

    def run(path: Path) -> dict[str, list[str]]:
        paths = [str(path.parent), env.get("PYTHONPATH", "")]
        proc = subprocess.run(
            [sys.executable, str(REPO / "tests" / "trace_cases.py"), str(path), "real", "real"],
            env={**env, "PYTHONPATH": os.pathsep.join(filter(None, paths))},
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if proc.returncode != 0:
            return {"(file)": ["other", proc.stderr[-1500:]]}
        return json.loads(proc.stdout.strip().splitlines()[-1])

    start = time.perf_counter()
    with ThreadPoolExecutor(max(1, workers)) as pool:
        observed = list(pool.map(run, files))
    counts: collections.Counter[tuple[str, str]] = collections.Counter()
    wrong: list[str] = []
    for path, seen in zip(files, observed):
        expected = {
            case: "clean" if want == "raises" and regex.startswith(NO_CUDA_JAXLIB) else want
            for case, (want, regex) in expectations(path.read_text(encoding="utf-8")).items()
        }
        for case in sorted(set(expected) | set(seen)):
            want = expected.get(case, "undeclared")
            got, detail = seen.get(case, ["missing", "case not run"])
            counts[(want, got)] += 1
            if want != got:
                wrong.append(
                    f"{path.relative_to(REPO)}::{case}: expected {want}, got {got} {detail[:400]}"
                )
    print(
        f"\nfixture cases on the real device: {len(files)} files in {time.perf_counter() - start:.0f} s"
    )
    for (want, got), n in sorted(counts.items()):
        print(f"  expect {want:<10} -> {got:<10} {n}")
    for line in wrong:
        print("WRONG " + line)
    return 1 if wrong else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--prepare", help="write the distinct repros here and stop")
    parser.add_argument("--jax-version", help="with --prepare: the JAX the repros target")
    parser.add_argument("--repros", help="repros written by --prepare (default: lint now)")
    parser.add_argument("--json", help="write every pair of verdicts here")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per repro")
    parser.add_argument(
        "--even-variants", action="store_true", help="add each odd-length repro made even"
    )
    parser.add_argument("--workers", type=int, default=1, help="children run side by side")
    parser.add_argument(
        "--cases", action="store_true", help="instead: every fixture case on the real device"
    )
    args = parser.parse_args(argv)
    if args.cases:
        print(machine_header())
        return fixture_cases(args.workers, 600.0)
    if args.prepare:
        entries = prepare(args.jax_version)
        Path(args.prepare).write_text(json.dumps(entries, indent=1), encoding="utf-8")
        print(f"{len(entries)} distinct repros -> {args.prepare}")
        return 0
    entries = (
        json.loads(Path(args.repros).read_text(encoding="utf-8")) if args.repros else prepare(None)
    )
    if args.even_variants:
        for entry in list(entries):
            variant = even_variant(entry["repro"])
            if variant is not None:
                entries.append({"repro": variant, "labels": ["even " + entry["labels"][0]]})
    gpu, cudnn, info = host_target()
    print(machine_header())
    print(f"host: {info['device']} ({gpu}), cuDNN {cudnn}, jax {info['jax']}")
    repros = [e["repro"] for e in entries]
    labels = [e["labels"][0] for e in entries]
    verdicts: dict[str, list[dict[str, Any]]] = {}
    for backend in ("execute", "trace"):
        start = time.perf_counter()
        verdicts[backend] = confirm_in_parallel(
            repros, labels, backend, gpu, cudnn, args.timeout, args.workers
        )
        print(f"{backend}: {len(repros)} repros in {time.perf_counter() - start:.0f} s")
    pairs = collections.Counter(
        (entry["labels"][0].startswith("even "), t["verdict"], e["verdict"])
        for entry, t, e in zip(entries, verdicts["trace"], verdicts["execute"])
    )
    print("\ntrace verdict -> execute verdict: repros")
    for (even, t, e), n in sorted(pairs.items()):
        kind = "even variants" if even else "as found"
        print(f"  {kind:<14} {t:>12} -> {e:<12} {n}")
    differ = [
        (entry, t, e)
        for entry, t, e in zip(entries, verdicts["trace"], verdicts["execute"])
        if t["verdict"] != e["verdict"]
    ]
    for entry, t, e in differ:
        print(f"\nDIFFER {entry['labels'][0]} (+{len(entry['labels']) - 1} alike)")
        print(f"  trace:   {t['verdict']}: {t['detail'][:300]}")
        print(f"  execute: {e['verdict']}: {e['detail'][:300]}")
    if args.json:
        rows = [
            {"labels": entry["labels"], "repro": entry["repro"], "trace": t, "execute": e}
            for entry, t, e in zip(entries, verdicts["trace"], verdicts["execute"])
        ]
        Path(args.json).write_text(json.dumps({"host": info, "rows": rows}, indent=1))
    print(f"\n{len(entries) - len(differ)} of {len(entries)} repros: same verdict")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
