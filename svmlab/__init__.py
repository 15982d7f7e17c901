"""svmlab: a laboratory for support vector machine research."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("svmlab")
except PackageNotFoundError:  # running from a checkout without installation
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
