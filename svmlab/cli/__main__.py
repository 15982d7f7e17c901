"""``python -m svmlab.cli``: the ``svmlab`` command."""

from svmlab.cli import main

raise SystemExit(main())
