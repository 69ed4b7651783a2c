import flax.linen as nn
import jax
import jax.numpy as jnp

from tinylm.config import Config


class CausalSelfAttention(nn.Module):
    config: Config

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        cfg = self.config
        B, T, C = x.shape
        head_dim = C // cfg.heads
        qkv = nn.Dense(3 * C, dtype=jnp.bfloat16, name="qkv")(x)
        q, k, v = jnp.split(qkv, 3, axis=-1)
        q = q.reshape(B, T, cfg.heads, head_dim)
        k = k.reshape(B, T, cfg.heads, head_dim)
        v = v.reshape(B, T, cfg.heads, head_dim)
        y = jax.nn.dot_product_attention(q, k, v, is_causal=True, implementation=cfg.attention)
        return nn.Dense(C, dtype=jnp.bfloat16, name="proj")(y.reshape(B, T, C))


class Block(nn.Module):
    config: Config

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        x = x + CausalSelfAttention(self.config)(nn.LayerNorm(dtype=jnp.bfloat16)(x))
        h = nn.Dense(4 * self.config.width, dtype=jnp.bfloat16)(nn.LayerNorm(dtype=jnp.bfloat16)(x))
        return x + nn.Dense(self.config.width, dtype=jnp.bfloat16)(nn.gelu(h))


class TinyLM(nn.Module):
    config: Config

    @nn.compact
    def __call__(self, tokens: jax.Array) -> jax.Array:
        cfg = self.config
        x = nn.Embed(cfg.vocab_size, cfg.width, dtype=jnp.bfloat16)(tokens)
        for _ in range(cfg.layers):
            x = Block(cfg)(x)
        return nn.Dense(cfg.vocab_size, dtype=jnp.bfloat16)(nn.LayerNorm(dtype=jnp.bfloat16)(x))
