"""attnwalk: step-by-step worked examples of attention, with numbers PyTorch agrees with."""

__version__ = "0.1.0"

from .api import walk  # noqa: E402
from .errors import ConfigError  # noqa: E402
from .trace import Trace  # noqa: E402

__all__ = ["walk", "Trace", "ConfigError", "__version__"]
