"""The evening's score sheet: totals, radli, session end, settlement, chart and CSV export."""

from __future__ import annotations

import csv
import io

from fastapi import APIRouter, Request
from fastapi.responses import Response

from device.web import chart
from device.web import scoring_adapter as rules
from device.web.deps import Ctx, Evening, render
from device.web.evening import build_sheet

router = APIRouter(tags=["sheet"])


def _system(system: str | None, session: dict) -> str:
    return system if system in rules.SYSTEMS else session["system"]


@router.get("/sheet")
def sheet_page(request: Request, c: Ctx, session: Evening, system: str | None = None):
    system = _system(system, session)
    sheet = build_sheet(c.store, session, system)
    return render(
        request,
        "sheet.html",
        session=session,
        sheet=sheet,
        game=rules.game(session["game"]),
        chart=chart.totals_chart(session["players"], sheet["rows"]),
        other=next(s for s in rules.SYSTEMS if s != system),
    )


@router.get("/api/sheet")
def sheet_json(c: Ctx, session: Evening, system: str | None = None):
    sheet = build_sheet(c.store, session, _system(system, session))
    sheet["rows"] = [
        {k: v for k, v in row.items() if k != "stored"} | {"id": row["stored"]["id"]} for row in sheet["rows"]
    ]
    return {"session": session, **sheet}


@router.get("/sheet.csv")
def sheet_csv(c: Ctx, session: Evening, system: str | None = None):
    system = _system(system, session)
    sheet = build_sheet(c.store, session, system)
    players = session["players"]
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["hand", "declarer", "partner", "contract", *players, *[f"{p} total" for p in players]])
    for i, row in enumerate(sheet["rows"], start=1):
        hand = row["stored"]["hand"]
        writer.writerow(
            [
                i,
                hand.get("declarer"),
                hand.get("partner") or "",
                hand.get("contract"),
                *[row["scores"].get(p, 0) for p in players],
                *[row["totals"].get(p, 0) for p in players],
            ]
        )
    writer.writerow(
        ["total", "", "", "", *["" for _ in players], *[sheet["totals"].get(p, 0) for p in players]]
    )
    name = f"tarokcam-evening-{session['id']}-{system}.csv"
    return Response(
        out.getvalue(),
        media_type="text/csv; charset=utf-8",
        headers={"content-disposition": f'attachment; filename="{name}"'},
    )
