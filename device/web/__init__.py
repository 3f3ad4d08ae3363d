"""The players' web view: photo with recognised cards, corrections, hands and the evening's score sheet."""

from device.web.app import create_app
from device.web.deps import TableController

__all__ = ["TableController", "create_app"]
