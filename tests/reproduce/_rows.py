"""Result rows for the reproduction tests."""


def ok_row(dataset: str, solver: str) -> dict:
    """The columns every finished binary task's row has, for ``solver`` on ``dataset``."""
    return {
        "dataset": dataset,
        "method": solver,
        "solver": solver,
        "task_type": "binary",
        "status": "ok",
        "selected": True,
    }
