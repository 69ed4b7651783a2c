"""`python -m jax_cudnn_lint`: the same as the `jax-cudnn-lint` command."""

from jax_cudnn_lint.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
