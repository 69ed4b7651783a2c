import jax
import jax.numpy as jnp

from tinylm.config import Config


def random_batch(cfg: Config, key: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Inputs and targets for next-token prediction."""
    tokens = jax.random.randint(key, (cfg.batch_size, cfg.context), 0, cfg.vocab_size)
    return tokens[:, :-1], tokens[:, 1:]
