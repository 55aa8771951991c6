"""A script of benchmarks/ loaded as a module for a test, without leaving benchmarks/ on sys.path."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def load_benchmark(name: str) -> ModuleType:
    """benchmarks/NAME.py as a module named NAME. While it loads, benchmarks/ is on sys.path (its imports of sibling
    scripts are found) and the module is in sys.modules (dataclasses look their module up while a class is built)."""
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(BENCHMARKS))
    previous = sys.modules.get(name)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCHMARKS))
        if previous is None:
            del sys.modules[name]
        else:
            sys.modules[name] = previous
    return module
