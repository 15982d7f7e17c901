"""Set-up of the statistics tests: pytest rewrites the asserts of the golden helpers too."""

import pytest

pytest.register_assert_rewrite("_golden", "_misprints")
