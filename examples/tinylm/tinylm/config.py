import dataclasses


@dataclasses.dataclass(frozen=True)
class Config:
    vocab_size: int = 1024
    context: int = 256
    width: int = 256
    heads: int = 4
    layers: int = 2
    batch_size: int = 8
    lstm_hidden: int = 64
    lstm_dropout: float = 0.1
    attention: str = "cudnn"
