#!/usr/bin/env bash
# Install tarokcam as a systemd service on Raspberry Pi OS Bookworm, from this source tree.
#
#   sudo systemd/install.sh                     install or update; running it again changes nothing
#   TAROKCAM_DRY_RUN=1 systemd/install.sh       print the actions that would run, change nothing
#
# Steps, each skipped when already done: apt packages; the gpio group and the tarokcam system user; a venv in
# /opt/tarokcam/venv with --system-site-packages (picamera2 and libcamera come from apt, not pip); the project with
# its `pi` extra (reinstalled only when the source changed); /etc/tarokcam/tarokcam.toml (only if absent: your
# edits are never overwritten); the unit, enabled and started (restarted when the project or unit changed).
set -euo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROOT=${TAROKCAM_ROOT:-}           # install into a scratch tree (tests); empty on a real Pi
DRY=${TAROKCAM_DRY_RUN:-0}
PYTHON=${TAROKCAM_PYTHON:-python3}
VENV=/opt/tarokcam/venv
CONF=/etc/tarokcam/tarokcam.toml
UNIT=/etc/systemd/system/tarokcam.service
SERVICE_USER=tarokcam
STAMP=$VENV/.tarokcam-source      # fingerprint of the source tree last installed
APT_PACKAGES=(python3-venv python3-pip python3-numpy python3-picamera2 python3-libcamera python3-gpiozero
              python3-lgpio)

changes=0
say() { printf 'tarokcam-install: %s\n' "$*"; }
act() {
    changes=$((changes + 1))
    if [[ $DRY == 1 ]]; then printf 'would run: %s\n' "$*"; else printf '+ %s\n' "$*"; "$@"; fi
}
write_stamp() { printf '%s\n' "$2" > "$1"; }

fingerprint() {
    # Names, sizes and times of what pip installs: cheap, and any edit or new checkout changes it.
    local paths=() p
    for p in pyproject.toml scoring vision models calibration device; do
        [[ -e $SRC/$p ]] && paths+=("$p")
    done
    (cd "$SRC" && { echo "$SRC"; find "${paths[@]}" -type f ! -path '*/__pycache__/*' ! -name '*.pyc' \
        -printf '%p %s %T@\n' | LC_ALL=C sort; } | sha256sum | cut -d' ' -f1)
}

if [[ $DRY != 1 && -z $ROOT && $EUID -ne 0 ]]; then
    say "run as root (sudo $0), or with TAROKCAM_DRY_RUN=1 to see what it would do"
    exit 1
fi

# 1. apt packages
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
    [[ $status == installed ]] || missing+=("$pkg")
done
if ((${#missing[@]})); then
    act apt-get update
    act apt-get install -y --no-install-recommends "${missing[@]}"
fi

# 2. groups and the service user (the unit adds video and gpio as supplementary groups)
getent group gpio >/dev/null || act groupadd --system gpio
getent passwd "$SERVICE_USER" >/dev/null || act useradd --system --user-group --home-dir /var/lib/tarokcam \
    --no-create-home --shell /usr/sbin/nologin "$SERVICE_USER"

# 3. the venv; --system-site-packages so that the apt picamera2/libcamera bindings are importable
[[ -x $ROOT$VENV/bin/python ]] || act "$PYTHON" -m venv --system-site-packages "$ROOT$VENV"

# 4. the project, only when the source changed
project_changed=0
stamp=$(fingerprint)
if [[ $(cat "$ROOT$STAMP" 2>/dev/null || true) != "$stamp" ]]; then
    project_changed=1
    # Keep the venv on the system numpy: picamera2's simplejpeg is built against it, and a pip numpy 2.x
    # would break it. pip then picks opencv/onnxruntime wheels that work with it.
    constraints=$(mktemp)
    trap 'rm -f "$constraints"' EXIT
    sys_numpy=$("$PYTHON" -c 'import numpy; print(numpy.__version__)' 2>/dev/null || true)
    [[ -n $sys_numpy ]] && echo "numpy==$sys_numpy" > "$constraints"
    act "$ROOT$VENV/bin/pip" install --quiet --upgrade --constraint "$constraints" "${SRC}[pi]"
    act write_stamp "$ROOT$STAMP" "$stamp"
fi

# 5. configuration: only if absent, never overwritten
if [[ ! -d $ROOT/etc/tarokcam ]]; then
    act install -d -m 0750 -o root -g "$SERVICE_USER" "$ROOT/etc/tarokcam"
fi
if [[ -e $ROOT$CONF ]]; then
    say "keeping existing $CONF"
else
    act install -m 0640 -o root -g "$SERVICE_USER" "$SRC/systemd/tarokcam.toml" "$ROOT$CONF"
fi

# 6. the unit
unit_changed=0
if ! cmp -s "$SRC/systemd/tarokcam.service" "$ROOT$UNIT"; then
    unit_changed=1
    act install -D -m 0644 "$SRC/systemd/tarokcam.service" "$ROOT$UNIT"
    act systemctl daemon-reload
fi
systemctl is-enabled --quiet tarokcam.service 2>/dev/null || act systemctl enable tarokcam.service
if ! systemctl is-active --quiet tarokcam.service 2>/dev/null; then
    act systemctl start tarokcam.service
elif ((project_changed || unit_changed)); then
    act systemctl restart tarokcam.service
fi

if ((changes == 0)); then
    say "nothing to change: tarokcam is installed and up to date"
elif [[ $DRY == 1 ]]; then
    say "dry run: $changes actions would run"
else
    say "done ($changes actions); status: systemctl status tarokcam; logs: journalctl -u tarokcam -f"
fi
