"""The violation-of-expectation protocol shared by BIB and AGENT: observers, evaluation loop."""
