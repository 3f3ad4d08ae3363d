#!/usr/bin/env bash
# Remove the tarokcam service and its venv. The configuration (/etc/tarokcam), the database and photos
# (/var/lib/tarokcam) and the tarokcam user stay unless --purge is given.
#
#   sudo systemd/uninstall.sh [--purge]         TAROKCAM_DRY_RUN=1 systemd/uninstall.sh   (print only)
set -euo pipefail

ROOT=${TAROKCAM_ROOT:-}
DRY=${TAROKCAM_DRY_RUN:-0}
UNIT=/etc/systemd/system/tarokcam.service
PURGE=0
case "${1:-}" in
    --purge) PURGE=1 ;;
    "") ;;
    *) echo "usage: $0 [--purge]" >&2; exit 2 ;;
esac

changes=0
say() { printf 'tarokcam-uninstall: %s\n' "$*"; }
act() {
    changes=$((changes + 1))
    if [[ $DRY == 1 ]]; then printf 'would run: %s\n' "$*"; else printf '+ %s\n' "$*"; "$@"; fi
}

if [[ $DRY != 1 && -z $ROOT && $EUID -ne 0 ]]; then
    say "run as root (sudo $0), or with TAROKCAM_DRY_RUN=1 to see what it would do"
    exit 1
fi

if systemctl is-active --quiet tarokcam.service 2>/dev/null || \
   systemctl is-enabled --quiet tarokcam.service 2>/dev/null; then
    act systemctl disable --now tarokcam.service
fi
if [[ -e $ROOT$UNIT ]]; then
    act rm -f "$ROOT$UNIT"
    act systemctl daemon-reload
fi
[[ -e $ROOT/opt/tarokcam ]] && act rm -rf "$ROOT/opt/tarokcam"
if ((PURGE)); then
    [[ -e $ROOT/etc/tarokcam ]] && act rm -rf "$ROOT/etc/tarokcam"
    [[ -e $ROOT/var/lib/tarokcam ]] && act rm -rf "$ROOT/var/lib/tarokcam"
    getent passwd tarokcam >/dev/null && act userdel tarokcam
else
    say "kept /etc/tarokcam and /var/lib/tarokcam (the evening's scores and photos); --purge removes them"
fi
((changes == 0)) && say "nothing to remove"
exit 0
