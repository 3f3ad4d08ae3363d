"""tarokcam: a camera-assisted trick-pile counter for Tarock clubs.

The command line has one subcommand per module in `device/commands`.
"""
from __future__ import annotations

import argparse
import importlib
import sys

# Order shown in --help.
COMMANDS = ("count", "score", "recognize", "hand", "calibrate", "mat", "enrol", "serve", "check_config")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tarokcam", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"tarokcam {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"device.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"device.commands.{name}":
                raise
            continue
        module.register(sub)
    return parser


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("tarokcam")
    except Exception:  # noqa: BLE001 - running from a checkout that was never installed, or a broken one
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
