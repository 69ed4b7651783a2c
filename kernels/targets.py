"""The GPU and cuDNN a trace emulates: `--gpu sm90 --cudnn 9.10`.

JAX's probes compare compute capabilities as "major.minor" strings and cuDNN versions as
the integer cuDNN reports (major*10000 + minor*100 + patch for cuDNN 9: 9.10 -> 91000).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, cast

from .gpu_names import DEFAULT_CUDNN, DEFAULT_GPU, parse_cc as _parse_cc, parse_gpu

__all__ = ["DEFAULT_CUDNN", "DEFAULT_GPU", "Target", "format_cudnn", "make_target", "parse_cudnn", "parse_gpu", "target_from_json"]

_CUDNN_RE = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?$")


@dataclass(frozen=True)
class Target:
    """A GPU generation and a cuDNN release."""

    gpu: str  # canonical "sm90"
    cc_major: int
    cc_minor: int
    cudnn: str  # as given, "9.10"
    cudnn_version: int  # 91000

    @property
    def compute_capability(self) -> str:
        return f"{self.cc_major}.{self.cc_minor}"

    def cc_at_least(self, capability: str) -> bool:
        """`check_compute_capability(c)`: target >= c."""
        return (self.cc_major, self.cc_minor) >= _parse_cc(capability)

    def cc_equal(self, capability: str) -> bool:
        """`is_cuda_compute_capability_equal(c)`: target == c."""
        return (self.cc_major, self.cc_minor) == _parse_cc(capability)

    def to_json(self) -> dict[str, Any]:
        return {
            "gpu": self.gpu,
            "compute_capability": self.compute_capability,
            "cudnn": self.cudnn,
            "cudnn_version": self.cudnn_version,
        }


def parse_cudnn(cudnn: str) -> int:
    """'9.10' -> 91000, '9.10.2' -> 91002, '8.9.4' -> 8904 (cuDNN 8 used major*1000)."""
    m = _CUDNN_RE.match(cudnn.strip())
    if not m:
        raise ValueError(f"unknown cuDNN version {cudnn!r}: use major.minor such as 9.10")
    major, minor, patch = int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)
    if minor > 99 or patch > 99:
        raise ValueError(f"unknown cuDNN version {cudnn!r}")
    if major < 9:
        return major * 1000 + minor * 100 + patch
    return major * 10000 + minor * 100 + patch


def format_cudnn(version: int) -> str:
    """91000 -> '9.10.0' (the inverse of `parse_cudnn`)."""
    if version >= 90000:
        major, rest = divmod(version, 10000)
    else:
        major, rest = divmod(version, 1000)
    minor, patch = divmod(rest, 100)
    return f"{major}.{minor}.{patch}"


def make_target(gpu: str = DEFAULT_GPU, cudnn: str = DEFAULT_CUDNN) -> Target:
    major, minor = parse_gpu(gpu)
    return Target(
        gpu=f"sm{major}{minor}",
        cc_major=major,
        cc_minor=minor,
        cudnn=cudnn.strip(),
        cudnn_version=parse_cudnn(cudnn),
    )


def target_from_json(obj: Any) -> Target:
    """The inverse of `Target.to_json` (also accepts just {"gpu", "cudnn"})."""
    if not isinstance(obj, dict):
        raise TypeError(f"a target must be an object, got {obj!r}")
    fields = cast("dict[str, object]", obj)
    gpu = fields.get("gpu", DEFAULT_GPU)
    cudnn = fields.get("cudnn", DEFAULT_CUDNN)
    if not isinstance(gpu, str) or not isinstance(cudnn, str):
        raise TypeError(f"bad target {obj!r}")
    return make_target(gpu, cudnn)
