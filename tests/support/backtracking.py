"""A corpus of regular expressions that backtracking engines take exponential or polynomial time on."""

import pytest

# Patterns that make a backtracking engine take exponential or polynomial time, each with an input
# that triggers it. Python's `re` needs minutes to hours for most of these; the suite's timeout would
# end the test long before, so each case passing shows the check ran in linear time.
BACKTRACKING = [
    pytest.param(r"^(a+)+$", "a" * 5000 + "!", id="nested-plus"),
    pytest.param(r"^(a|a)*$", "a" * 5000 + "!", id="overlapping-alternation"),
    pytest.param(r"^(a|aa)+$", "a" * 5000 + "!", id="alternation-of-prefixes"),
    pytest.param(r"^(\w+\s?)*$", "word " * 2000 + "!", id="words-and-optional-spaces"),
    pytest.param(r"(x+x+)+y", "x" * 5000, id="adjacent-plus-groups"),
    pytest.param(r"^(\d+)*$", "1" * 5000 + "a", id="digits-star"),
    pytest.param(
        r"^(([a-z])+.)+[A-Z]([a-z])+$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!" * 100, id="classic-owasp"
    ),
    pytest.param(
        r"^([a-zA-Z0-9])(([\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}(([a-z]{2,3})|([a-z]{2,3}[.]{1}[a-z]{2,3}))$",
        "a" * 5000 + "@",
        id="email-validation",
    ),
    pytest.param(r".*.*.*.*=.*", "a" * 20000, id="polynomial-dot-stars"),
    pytest.param(r"^(.*?,){11}P", "1," * 5000, id="polynomial-lazy-repeat"),
    pytest.param(r"\s+$", " " * 20000 + "x", id="polynomial-trailing-space"),
]
