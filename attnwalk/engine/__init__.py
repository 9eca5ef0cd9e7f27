"""Pure-NumPy float64 forward passes, one module per variant, each filling a Trace."""
