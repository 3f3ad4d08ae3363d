"""`tarokcam check-config`: check the configuration file without starting anything (systemd's ExecStartPre)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check-config", help="check the configuration file and exit",
                       description="Check every key and value of the TOML configuration, and that the files it "
                                   "names exist; print one line per problem and exit non-zero if there are any.")
    p.add_argument("--config", type=Path, default=None,
                   help="TOML configuration (default: /etc/tarokcam/tarokcam.toml)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from device.config import DEFAULT_CONFIG_PATH, ConfigError, check_paths, load_config

    path = args.config or DEFAULT_CONFIG_PATH
    if args.config is None and not path.exists():
        path = None  # serve runs on the built-in defaults then; say so rather than fail
    try:
        config = load_config(path)
    except ConfigError as exc:
        problems = list(exc.problems)
    else:
        problems = check_paths(config)
    label = path or "built-in defaults"
    if problems:
        for line in problems:
            print(line if line.startswith(str(label)) else f"{label}: {line}", file=sys.stderr)
        print(f"{label}: {len(problems)} problem{'s' * (len(problems) != 1)}", file=sys.stderr)
        return 2
    print(f"{label}: ok (camera {config.camera.backend}, web {config.web.host}:{config.web.port}, "
          f"state {config.storage.state_dir})")
    return 0
