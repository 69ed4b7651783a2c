"""python train.py: a few steps of next-token training."""

import functools

import jax
import jax.numpy as jnp
import optax

from tinylm.config import Config
from tinylm.data import random_batch
from tinylm.model import TinyLM


def loss_fn(params, model, inputs, targets):
    logits = model.apply({"params": params}, inputs).astype(jnp.float32)
    return optax.softmax_cross_entropy_with_integer_labels(logits, targets).mean()


@functools.partial(jax.jit, static_argnums=(1, 2))
def train_step(params, model, optimizer, opt_state, inputs, targets):
    loss, grads = jax.value_and_grad(loss_fn)(params, model, inputs, targets)
    updates, opt_state = optimizer.update(grads, opt_state)
    return optax.apply_updates(params, updates), opt_state, loss


def main() -> None:
    cfg = Config()
    model = TinyLM(cfg)
    key = jax.random.PRNGKey(0)
    inputs, targets = random_batch(cfg, key)
    params = model.init(key, inputs)["params"]
    optimizer = optax.adamw(3e-4)
    opt_state = optimizer.init(params)
    for step in range(10):
        params, opt_state, loss = train_step(params, model, optimizer, opt_state, inputs, targets)
        print(step, float(loss))


if __name__ == "__main__":
    main()
