"""Observers rated by the VOE protocol: shortcuts, inverse planning, learned models."""
