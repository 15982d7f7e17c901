"""Planning refuses the predefined protocol on a dataset without its own train/test split."""

import pytest

from svmlab.errors import ConfigError
from svmlab.runner.plan import build_plan


def test_plan_refuses_predefined_on_a_dataset_without_split(make_cfg, tmp_path):
    cfg = make_cfg(protocol={"name": "predefined20", "kind": "predefined", "n_repeats": 20})
    with pytest.raises(ConfigError) as err:
        build_plan(cfg, str(tmp_path), "r")
    message = str(err.value)
    assert "\n" not in message and "'predefined20'" in message and "'iris' has none" in message
