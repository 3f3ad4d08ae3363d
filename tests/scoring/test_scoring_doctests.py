"""Every docstring example in `scoring` runs (STYLE.md rule 4)."""
from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import scoring

MODULES = sorted(m.name for m in pkgutil.walk_packages(scoring.__path__, "scoring."))


def test_scoring_has_examples():
    total = sum(len(doctest.DocTestFinder().find(importlib.import_module(m))) for m in MODULES)
    assert total > 20


@pytest.mark.parametrize("name", MODULES)
def test_examples_in(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
