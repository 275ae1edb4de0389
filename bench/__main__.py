"""`python -m bench [--smoke] [--output PATH] [benchmark ...]`: see bench/README.md."""

import sys

from bench.suite import main

sys.exit(main(sys.argv[1:]))
