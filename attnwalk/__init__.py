"""attnwalk: step-by-step worked examples of attention, with numbers PyTorch agrees with."""

__version__ = "0.1.0"

__all__ = ["walk", "Trace", "ConfigError", "__version__"]


def __getattr__(name: str):
    """Lazy exports: ``import attnwalk.cli`` must not import NumPy before the CLI has set up
    BLAS threads (engine/blas.py), and start-up time is most of a small render."""
    if name == "walk":
        from .api import walk

        return walk
    if name == "Trace":
        from .trace import Trace

        return Trace
    if name == "ConfigError":
        from .errors import ConfigError

        return ConfigError
    raise AttributeError(f"module 'attnwalk' has no attribute {name!r}")
