"""Fixtures for the web tests; the doubles live in web_doubles.py (a unique name: tests/calibration has a conftest too)."""
from web_doubles import *
