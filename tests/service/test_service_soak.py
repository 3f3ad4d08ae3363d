"""device.soak: the growth check, and a short real soak with a fake recogniser."""
from __future__ import annotations

import io

import pytest

from device.soak import Sample, judge, main, report


def samples(rss, fds=None, threads=None):
    n = len(rss)
    return [Sample(float(i), rss[i], (fds or [20] * n)[i], (threads or [6] * n)[i]) for i in range(n)]


def test_levelled_off_memory_passes():
    # Warm-up in the first third, then noise around a plateau.
    rss = [100_000 + min(i, 10) * 3000 + (i % 3) * 500 for i in range(30)]
    assert judge(samples(rss), rss_tolerance_kib=8192, fd_tolerance=3, thread_tolerance=2) == []


def test_steady_growth_fails():
    rss = [100_000 + i * 1024 for i in range(30)]  # 1 MiB per round: a leak
    fds = [20 + i // 2 for i in range(30)]  # a descriptor every other round
    problems = judge(samples(rss, fds), rss_tolerance_kib=8192, fd_tolerance=3, thread_tolerance=2)
    assert [p.split(" keeps")[0] for p in problems] == ["resident memory", "open files"]


def test_too_few_samples_fail():
    assert judge(samples([1, 2, 3]), rss_tolerance_kib=1, fd_tolerance=1, thread_tolerance=1)


def test_failed_requests_fail_the_soak():
    out = io.StringIO()
    assert report(samples([100_000] * 9), ["GET /healthz: 500 boom"], 9, out) == 1
    assert "FAIL: GET /healthz: 500 boom" in out.getvalue()


@pytest.mark.slow
def test_short_soak_with_fake_recogniser(capsys):
    assert main(["--minutes", "0.33", "--interval", "1", "--fake-recogniser"]) == 0
    out = capsys.readouterr().out
    assert "0 failed requests" in out and "soak: ok" in out
