#!/usr/bin/env bash
# GPU check: on a CUDA host with jax[cuda] already installed (this script installs
# nothing), run the GPU tests and the execute backend of --confirm over examples/,
# then print a short table.  Budget: under five minutes.
#
#   bash scripts/gpu-check.sh
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export XLA_PYTHON_CLIENT_PREALLOCATE=false
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

python - <<'PY' || { echo "no CUDA device visible to JAX: nothing to check"; exit 2; }
import jax, sys
sys.exit(0 if any(d.platform == "gpu" for d in jax.devices()) else 1)
PY

timeout 240 python -m pytest -m gpu -q -p no:cacheprovider tests/test_kernels_execute_gpu.py >"$out/pytest.log" 2>&1
pytest_status=$?
timeout 120 python -m jax_cudnn_lint --confirm --confirm-backend execute --no-cache --format json examples/ >"$out/confirm.json" 2>"$out/confirm.err"
confirm_status=$?

python - "$out" "$pytest_status" "$confirm_status" <<'PY'
import json, pathlib, re, sys
out, pytest_status, confirm_status = pathlib.Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
log = (out / "pytest.log").read_text(errors="replace")
summary = next((l for l in reversed(log.splitlines()) if re.search(r"\d+ (passed|failed|error)", l)), "no summary")
print(log[-3000:] if pytest_status not in (0, 5) else "", end="")
rows = [("pytest -m gpu", summary.strip("= "))]
try:
    report = json.loads((out / "confirm.json").read_text())
    for f in report["findings"]:
        verdict = (f.get("confirm") or {}).get("verdict", "none")
        detail = (f.get("confirm") or {}).get("detail", "")[:90]
        rows.append((f"{f['code']} {f['path']}:{f['line']}", f"{verdict}: {detail}"))
except Exception as exc:  # report what happened, never hide it
    rows.append(("--confirm execute", f"no report ({exc}); stderr: {(out / 'confirm.err').read_text()[-300:]}"))
width = max(len(a) for a, _ in rows)
print("\n" + "-" * (width + 60))
for a, b in rows:
    print(f"{a.ljust(width)}  {b}")
PY
[ "$pytest_status" -eq 0 ] || [ "$pytest_status" -eq 5 ] || exit 1
[ "$confirm_status" -le 1 ] || exit 1
