"""BIPaCK (AGENT paper, Section 4.1): Bayesian inverse planning with core knowledge of objects
and physics, on the states of the videos."""
