"""The one error type a user sees: a bad option, named, with what is allowed."""


class ConfigError(ValueError):
    """A bad value for one option; ``str(err)`` is the single line shown to the user."""

    def __init__(self, option: str, message: str):
        self.option = option
        super().__init__(f"{option}: {message}")
