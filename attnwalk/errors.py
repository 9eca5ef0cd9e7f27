"""The one error type a user sees: a bad option, named, with what is allowed."""


class ConfigError(ValueError):
    """A bad value for one option; ``str(err)`` is the single line shown to the user."""

    def __init__(self, option: str, message: str):
        self.option = option
        super().__init__(f"{option}: {message}")


def short(value, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters, so that an error stays one readable line (an integer of
    thousands of digits, a list of a million entries or one nested thousands deep included)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        return f"an integer of {value.bit_length()} bits"
    if isinstance(value, (list, tuple, dict)) and len(value) > 1000:
        return f"a {type(value).__name__} of {len(value):,} entries"
    try:
        text = repr(value)
    except (ValueError, RecursionError):  # an integer too long to print, a structure nested thousands deep
        return f"a {type(value).__name__}"
    return text if len(text) <= limit else text[:limit] + "…"
