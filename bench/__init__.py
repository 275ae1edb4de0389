"""Performance harnesses, run as `python -m bench.<name>`; each reports ratios to a floor."""
