"""The score sheet of an evening (tonight's, or an earlier one's): totals, radli, session end, settlement,
chart and CSV export."""

from __future__ import annotations

import csv
import io

from fastapi import APIRouter, Request
from fastapi.responses import Response

from device.web import chart
from device.web import scoring_adapter as rules
from device.web.deps import Ctx, Evening, WebContext, render
from device.web.evening import build_sheet, end_lines
from device.web.validate import csv_row

router = APIRouter(tags=["sheet"])


def _system(system: str | None, session: dict) -> str:
    return system if system in rules.SYSTEMS else session["system"]


def _evening(c: WebContext, current: dict, evening: int | None) -> dict:
    """The evening asked for (?evening=id), else tonight's; 404 (NotFoundError) for no such evening."""
    return current if evening is None or evening == current["id"] else c.store.get_session(evening)


@router.get("/sheet")
def sheet_page(
    request: Request, c: Ctx, session: Evening, system: str | None = None, evening: int | None = None
):
    shown = _evening(c, session, evening)
    system = _system(system, shown)
    sheet = build_sheet(c.store, shown, system)
    return render(
        request,
        "sheet.html",
        session=shown,
        tonight=shown["id"] == session["id"],
        sheet=sheet,
        end=end_lines(sheet.get("end") or {}, shown["players"]),
        game=rules.game(shown["game"]),
        chart=chart.totals_chart(shown["players"], sheet["rows"]),
        other=next(s for s in rules.SYSTEMS if s != system),
        query="" if shown["id"] == session["id"] else f"&evening={shown['id']}",
    )


@router.get("/api/sheet")
def sheet_json(c: Ctx, session: Evening, system: str | None = None, evening: int | None = None):
    shown = _evening(c, session, evening)
    sheet = build_sheet(c.store, shown, _system(system, shown))
    sheet["rows"] = [
        {k: v for k, v in row.items() if k != "stored"} | {"id": row["stored"]["id"]} for row in sheet["rows"]
    ]
    return {"session": shown, **sheet}


@router.get("/api/evenings")
def evenings_json(c: Ctx):
    return [s | {"hands": len(c.store.hands(s["id"]))} for s in c.store.sessions()]


@router.get("/sheet.csv")
def sheet_csv(c: Ctx, session: Evening, system: str | None = None, evening: int | None = None):
    session = _evening(c, session, evening)
    system = _system(system, session)
    sheet = build_sheet(c.store, session, system)
    players = session["players"]
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(csv_row(["hand", "declarer", "partner", "contract", *players,
                             *[f"{p} total" for p in players]]))
    for i, row in enumerate(sheet["rows"], start=1):
        hand = row["stored"]["hand"]
        writer.writerow(csv_row(
            [
                i,
                hand.get("declarer"),
                hand.get("partner") or "",
                hand.get("contract"),
                *[row["scores"].get(p, 0) for p in players],
                *[row["totals"].get(p, 0) for p in players],
            ]
        ))
    writer.writerow(
        csv_row(["total", "", "", "", *["" for _ in players], *[sheet["totals"].get(p, 0) for p in players]])
    )
    name = f"tarokcam-evening-{session['id']}-{system}.csv"
    return Response(
        out.getvalue(),
        media_type="text/csv; charset=utf-8",
        headers={"content-disposition": f'attachment; filename="{name}"'},
    )
