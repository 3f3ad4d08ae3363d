"""Settings: the evening's players, game, scoring system and group tariffs, automatic capture, the list of
evenings; camera and calibration status in the players' words."""

from __future__ import annotations

import time
from typing import Annotated

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import RedirectResponse

from device.storage import StoreError, check_evening
from device.web import events, validate
from device.web import scoring_adapter as rules
from device.web.deps import Ctx, Evening, WebContext, render, require_write
from device.web.routers.health import all_ok

AUTO_CAPTURE_KEY = "auto_capture"  # store meta read by device.service.TableService.auto_capture_on
# What the status parts are, said as a player would (device.service.TableService.status names them).
STATUS_NAMES = {
    "camera": "Camera",
    "model": "Card reader",
    "calibration": "Table mat (calibration)",
    "store": "Score sheet storage",
    "disk": "Room for photos",
    "loop": "Automatic capture",
    "controller": "Table service",
}

router = APIRouter(tags=["settings"])


class SettingsError(ValueError):
    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field


@router.get("/settings")
def settings_page(request: Request, c: Ctx, session: Evening):
    return _page(request, c, session, None, None)


def _page(
    request: Request,
    c: WebContext,
    session: dict,
    error: str | None,
    field: str | None,
    status_code: int = 200,
):
    try:
        status = c.controller.status()
    except Exception as exc:  # noqa: BLE001 -- the page must still open to show what is wrong
        status = {"controller": {"ok": False, "message": f"{type(exc).__name__}: {exc}"}}
    return render(
        request,
        "settings.html",
        status_code=status_code,
        session=session,
        games=rules.games(),
        systems=rules.SYSTEMS,
        status=status,
        status_ok=all_ok(status),
        game=rules.game(session["game"]),
        tariffs_text="\n".join(
            f"{k} = {v}" for k, v in _flatten(session["tariffs"]) if k not in _option_keys(session["game"])
        ),
        error=error,
        field=field,
        hands_played=len(c.store.hands(session["id"])),
        status_lines=status_lines(status),
        auto_capture=c.store.meta(AUTO_CAPTURE_KEY, "on") != "off",
        printing_switched=getattr(c.controller, "printing_switched", None),
        # False when the configuration has no still-scene trigger (trigger.auto = false): the switch waits.
        trigger_configured=getattr(getattr(getattr(c.controller, "config", None), "trigger", None), "auto", None),
        known_options=rules.known_options(session["game"])[:-1],
        tariff_entries=rules.tariff_entries(session["game"]),
    )


def status_lines(status: dict) -> list[dict]:
    """The table's status as {"name", "ok" (True, False or None for a plain fact), "text"} lines."""
    lines = []
    for part, value in status.items():
        if isinstance(value, dict):
            ok = bool(value.get("ok", True))
            text = str(value.get("message") or ("working" if ok else "not working"))
            lines.append({"name": STATUS_NAMES.get(part, part.replace("_", " ").capitalize()), "ok": ok,
                          "text": text})
        elif part == "disk_free_mb" and isinstance(value, (int, float)):
            free = f"{value / 1024:.1f} GB" if value >= 1024 else f"{value:.0f} MB"
            lines.append({"name": "Free space", "ok": None, "text": free})
        elif part == "last_capture_age_s":
            lines.append({"name": "Last photo", "ok": None, "text": _ago(value)})
        else:
            lines.append({"name": part.replace("_", " ").capitalize(), "ok": None, "text": str(value)})
    return lines


def _ago(seconds) -> str:
    if seconds is None:
        return "none yet"
    seconds = float(seconds)
    if seconds < 90:
        return f"{seconds:.0f} seconds ago"
    if seconds < 5400:
        return f"{seconds / 60:.0f} minutes ago"
    return f"{seconds / 3600:.1f} hours ago"


def parse_settings(form) -> dict:
    """Evening fields from the form; SettingsError names the field that is wrong."""
    game_id = form.get("game", "")
    try:
        game = rules.game(game_id)
    except ValueError as exc:
        raise SettingsError("game", str(exc)) from None
    players = [p.strip() for p in str(form.get("players", "")).replace(",", "\n").splitlines() if p.strip()]
    if len(players) not in game.players:
        raise SettingsError(
            "players",
            f"{len(players)} players; {game.name} is played by {' or '.join(map(str, game.players))}",
        )
    if len(set(players)) != len(players):
        raise SettingsError("players", "a name appears twice")
    try:   # the store's own checks, here too, so the form is shown again with the reason
        players = validate.player_names(players)
    except ValueError as exc:
        raise SettingsError("players", str(exc).split(": ", 1)[-1]) from None
    system = form.get("system", "")
    if system not in rules.SYSTEMS:
        raise SettingsError("system", f"expected one of {', '.join(rules.SYSTEMS)}")
    tariffs: dict = {}
    lines: dict[str, int] = {}  # first key of each line -> line number, to say where a wrong key is
    for n, line in enumerate(str(form.get("tariffs", "")).splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, sep, value = line.partition("=")
        if not sep or not key.strip():
            raise SettingsError("tariffs", f"line {n}: expected 'name = value'")
        *path, leaf = key.strip().split(".")  # "tariff.rules.radli = false" -> nested options
        node = tariffs
        for part in path:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise SettingsError("tariffs", f"line {n}: {key.strip()} mixes a value and a group")
        node[leaf] = _number(value.strip())
        lines.setdefault(key.strip(), n)
    _apply_options(form, game, tariffs)
    try:
        validate.finite_tariffs(tariffs)
        check_evening(players, tariffs)
    except StoreError as exc:
        field, _, message = str(exc).partition(": ")
        raise SettingsError(field if field in ("players", "tariffs") else "players", message) from None
    except ValueError as exc:
        raise SettingsError("tariffs", str(exc).removeprefix("tariffs.")) from None
    try:
        rules.check_options(game.id, tariffs)
    except ValueError as exc:
        where = getattr(exc, "field", "").removeprefix("options.")
        n = next((n for k, n in lines.items() if k == where or where.startswith(k + ".")
                  or k.startswith(where + ".")), None)
        message = str(exc).split(": ", 1)[1] if ": " in str(exc) else str(exc)
        raise SettingsError("tariffs", f"{f'line {n}: ' if n else ''}{where}: {message}") from None
    return {
        "game": game.id,
        "players": players,
        "system": system,
        "tariffs": tariffs,
        "name": str(form.get("name", "")).strip()[:80],
    }


def _option_keys(game_id: str) -> set[str]:
    return {key for key, _ in rules.game(game_id).options}


def _apply_options(form, game: rules.GameView, options: dict) -> None:
    """The evening's option boxes of the game in play. The page shows the boxes of the game the evening
    plays (`options_for`); a box it showed decides, ticked or not, over a line in the text."""
    if form.get("options_for") != game.id:
        return
    for key, _label in game.options:
        if form.get(f"option_{key}") == "on":
            options[key] = True
        else:
            options.pop(key, None)


def _number(text: str):
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


@router.post("/settings", dependencies=[Depends(require_write)])
async def save_settings(request: Request, c: Ctx, session: Evening):
    form = await request.form()
    try:
        fields = parse_settings(form)
        if (
            form.get("new_evening") != "1"
            and c.store.hands(session["id"])
            and (fields["game"] != session["game"] or fields["players"] != session["players"])
        ):
            raise SettingsError(
                "players",
                "hands are on this evening's sheet; start a new evening to change the game or the players",
            )
    except SettingsError as exc:
        return _page(request, c, session, str(exc), exc.field, status_code=422)
    if form.get("new_evening") == "1":
        if form.get("confirmed") != "1":  # ask first: the players see what happens to tonight's sheet
            return render(request, "settings_new_evening.html", session=session, fields=fields,
                          form=dict(form), hands_played=len(c.store.hands(session["id"])),
                          game=rules.game(fields["game"]))
        c.store.add_session(**fields)
        events.changed("hands")
    else:
        c.store.update_session(session["id"], **fields)
        events.changed("settings")
    return RedirectResponse("/settings?saved=1", status_code=303)


@router.post("/settings/capture", dependencies=[Depends(require_write)])
def save_auto_capture(c: Ctx, auto_capture: Annotated[str, Form()] = ""):
    """The automatic-capture switch: "on" lets the table shoot by itself when the piles lie still."""
    c.store.set_meta(AUTO_CAPTURE_KEY, "on" if auto_capture == "on" else "off")
    events.changed("settings")
    return RedirectResponse("/settings?saved=1#capture", status_code=303)


@router.post("/settings/printing", dependencies=[Depends(require_write)])
def use_reference_printing(request: Request, c: Ctx, session: Evening):
    """Back to the bundled release after the table switched to the one for other printings by itself."""
    back = getattr(c.controller, "use_reference_printing", None)
    if back is None:
        return _page(request, c, session, "This table cannot change its card reader.", "printing", 409)
    try:
        back()
    except Exception as exc:  # noqa: BLE001 -- vision.ModelError and the like: say why, change nothing
        return _page(request, c, session, f"The bundled card reader could not be loaded: {exc}", "printing", 503)
    events.changed("settings")
    return RedirectResponse("/settings?saved=1#printing", status_code=303)


@router.get("/evenings")
def evenings_page(request: Request, c: Ctx, session: Evening):
    """Every evening kept in the store, newest first, each with its sheet and CSV."""
    rows = []
    for s in reversed(c.store.sessions()):
        hands = c.store.hands(s["id"])
        rows.append({"session": s, "game": rules.game(s["game"]), "hands": len(hands),
                     "current": s["id"] == session["id"],
                     "started": time.strftime("%d %b %Y, %H:%M", time.localtime(s["created_at"]))})
    return render(request, "evenings.html", evenings=rows)


def _flatten(options: dict, prefix: str = ""):
    """Nested options back to the "a.b = value" lines the form shows."""
    for key, value in options.items():
        if isinstance(value, dict):
            yield from _flatten(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", str(value).lower() if isinstance(value, bool) else value
