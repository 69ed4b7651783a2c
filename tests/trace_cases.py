"""Run every `case_*` of a fixture file with JAX's cuDNN probes set to a target.

Used by test_fixture_traces.py in a child process (it imports jax, and runs only
our own fixture files).  Prints one JSON object: case -> [outcome, detail], where
outcome is "raises" (NotImplementedError 'Unsupported sequence length'),
"clean", or "other" (any other exception: a broken fixture).
"""

from __future__ import annotations

import importlib.util
import json
import sys


def main() -> int:
    path, gpu, cudnn = sys.argv[1], sys.argv[2], sys.argv[3]
    from jax_cudnn_lint.kernels.probes import patched_probes
    from jax_cudnn_lint.kernels.targets import make_target

    spec = importlib.util.spec_from_file_location("fixture_under_trace", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    results: dict[str, list[str]] = {}
    with patched_probes(make_target(gpu, cudnn)):
        spec.loader.exec_module(module)
        for name in sorted(vars(module)):
            if not name.startswith("case_"):
                continue
            try:
                getattr(module, name)()
            except NotImplementedError as exc:
                text = str(exc)
                results[name] = ["raises" if "Unsupported sequence length" in text else "other", f"NotImplementedError: {text}"]
            except Exception as exc:  # a fixture that is wrong in another way
                results[name] = ["other", f"{type(exc).__name__}: {exc}"]
            else:
                results[name] = ["clean", ""]
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
