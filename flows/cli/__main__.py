"""`python -m flows.cli ...` is `gpuprices ...`."""

import sys

from flows.cli.main import main

sys.exit(main())
