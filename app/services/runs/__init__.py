"""Runs: firing (admission, dispatch, promotion), executing a claim, finishing, recovery."""
