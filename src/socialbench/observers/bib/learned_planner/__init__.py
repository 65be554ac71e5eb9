"""A learned BIB observer: amortised inverse planning with a differentiable planner
(``--observer learned-planner``; docs/beyond.md)."""
