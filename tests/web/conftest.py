"""Fixtures for the web tests; the doubles live in web_doubles.py (a unique name: tests/calibration has a conftest too)."""
from web_doubles import *  # noqa: F403  (re-exports the fixtures to pytest)
