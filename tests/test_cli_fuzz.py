"""Damaged input files never crash the command line.

Small valid files of every format the CLI reads (CSV, TSV without header,
gzip-compressed CSV, .npy 2-D and structured, .npz plain and compressed,
Parquet with and without compression) are truncated and bit-flipped with a
seeded generator; each damaged copy goes through ``pranker.cli.main.main``
in-process (as the console script does). Whatever the damage, the command
either succeeds (the damage left a valid file) or exits with status 2 and one
error line, never a traceback, and the ``-o`` output file exists only after
a success (no partial file, no temporary left behind).
"""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import numpy as np
import pytest

from pranker.cli.main import main

pytestmark = pytest.mark.slow  # the quick local run: python -m pytest -m "not slow"

N_TRUNCATED = 25  # per format
N_FLIPPED = 45  # per format (1 to 5 flipped bits each)


def _ranking() -> tuple[np.ndarray, np.ndarray]:
    """(scores, labels) that every source file holds."""
    rng = np.random.default_rng(20240601)
    n = 24
    y = np.zeros(n, dtype=np.int64)
    y[[0, 3, 5, 10, 17]] = 1
    return np.round(rng.normal(size=n) + y, 3), y


def _sources() -> dict[str, bytes]:
    s, y = _ranking()
    csv = "score,label\n" + "".join(
        f"{a!r},{b}\n" for a, b in zip(s.tolist(), y.tolist(), strict=True)
    )
    out = {
        "d.csv": csv.encode(),
        "d.tsv": "".join(
            f"{a!r}\t{b}\n" for a, b in zip(s.tolist(), y.tolist(), strict=True)
        ).encode(),
        "d.csv.gz": gzip.compress(csv.encode(), mtime=0),
    }
    b = io.BytesIO()
    np.save(b, np.c_[s, y])
    out["d.npy"] = b.getvalue()
    rec = np.zeros(s.size, dtype=[("score", "f8"), ("label", "i8")])
    rec["score"], rec["label"] = s, y
    b = io.BytesIO()
    np.save(b, rec)
    out["r.npy"] = b.getvalue()
    b = io.BytesIO()
    np.savez(b, score=s, label=y)
    out["d.npz"] = b.getvalue()
    b = io.BytesIO()
    np.savez_compressed(b, score=s, label=y)
    out["c.npz"] = b.getvalue()
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return out
    for name, compression in (("d.parquet", "snappy"), ("u.parquet", "none")):
        b = io.BytesIO()
        pq.write_table(pa.table({"score": s, "label": y}), b, compression=compression)
        out[name] = b.getvalue()
    return out


SOURCES = _sources()


def _damaged_copies(raw: bytes, seed: int):
    rng = np.random.default_rng(seed)
    for k in rng.integers(0, len(raw), N_TRUNCATED):
        yield f"truncated to {k} bytes", raw[:k]
    for _ in range(N_FLIPPED):
        x = bytearray(raw)
        where = []
        for _ in range(int(rng.integers(1, 6))):
            i, bit = int(rng.integers(len(x))), int(rng.integers(8))
            x[i] ^= 1 << bit
            where.append((i, bit))
        yield f"bits flipped at {where}", bytes(x)


def _run_case(path: Path, out: Path, capsys, extra=()):
    code = main(["score", str(path), "-o", str(out), "--no-progress", *extra])
    so, se = capsys.readouterr()
    return code, so, se


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_damaged_files_exit_0_or_2_without_traceback(tmp_path, capsys, name):
    raw = SOURCES[name]
    path = tmp_path / name
    out = tmp_path / "results.json"
    # the undamaged file is scored
    path.write_bytes(raw)
    code, _, err = _run_case(path, out, capsys)
    assert code == 0, err
    out.unlink()
    codes = {0: 0, 2: 0}
    for seed, readers in (
        (1, ("auto",)),
        (2, ("numpy",) if "csv" in name or "tsv" in name else ()),
    ):
        for reader in readers:
            for what, data in _damaged_copies(raw, seed):
                path.write_bytes(data)
                code, so, se = _run_case(path, out, capsys, ("--reader", reader))
                case = f"{name} {what} (--reader {reader}): exit {code}\n{se}"
                assert code in (0, 2), case
                assert "Traceback" not in se and "Traceback" not in so, case
                codes[code] += 1
                if code == 0:
                    assert out.exists(), case
                    out.unlink()
                else:
                    assert not out.exists(), case
                    assert so == "", case
                    lines = se.strip().splitlines()
                    assert len(lines) == 1 and lines[0].startswith("pranker score: error: "), case
                    assert str(path) in se or "column" in se, case  # names the file or column
                # nothing else written: no temporary left in the folder
                assert sorted(p.name for p in tmp_path.iterdir()) == [name], case
    assert codes[2] > 0  # the damage is noticed


def test_every_source_file_reads_as_the_ranking_written(tmp_path, capsys):
    """The undamaged files the fuzz starts from are read as the data written to them:
    each gives N, P and the AUPRC that scikit-learn computes from the arrays (no tied
    scores, so every tie mode is scikit-learn's), with either text reader."""
    from sklearn.metrics import average_precision_score

    s, y = _ranking()
    assert np.unique(s).size == s.size
    expected = average_precision_score(y, s)
    out = tmp_path / "r.json"
    for name, raw in sorted(SOURCES.items()):
        path = tmp_path / name
        path.write_bytes(raw)
        text = "csv" in name or "tsv" in name
        for reader in ("auto", "numpy") if text else ("auto",):
            code, _, se = _run_case(path, out, capsys, ("--reader", reader))
            assert code == 0, (name, reader, se)
            d = json.loads(out.read_text())
            out.unlink()
            assert (d["n"], d["n_pos"]) == (y.size, int(y.sum())), (name, reader)
            assert d["auprc"] == pytest.approx(expected, abs=1e-12), (name, reader)


# --- named damages that used to end in a traceback --------------------------------------


def test_corrupt_parquet_page(tmp_path, capsys):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "d.parquet"
    pq.write_table(
        pa.table({"score": np.linspace(0, 1, 50), "label": np.arange(50) % 2}),
        path,
        compression="none",
    )
    raw = bytearray(path.read_bytes())
    raw[4:24] = b"\xff" * 20  # the first page header, after the magic "PAR1"
    path.write_bytes(bytes(raw))
    out = tmp_path / "r.json"
    code, so, se = _run_case(path, out, capsys)
    assert code == 2 and so == "" and "Traceback" not in se
    assert str(path) in se and "Parquet" in se and "damaged" in se
    assert not out.exists()


def test_truncated_gzip(tmp_path, capsys):
    path = tmp_path / "d.csv.gz"
    path.write_bytes(SOURCES["d.csv.gz"][:-12])
    out = tmp_path / "r.csv"
    for reader in ("auto", "numpy"):
        code, so, se = _run_case(path, out, capsys, ("--reader", reader))
        assert code == 2 and so == "" and "Traceback" not in se, se
        assert str(path) in se and ("truncated" in se or "damaged" in se)
        assert not out.exists()


def test_npy_header_declaring_more_rows_than_present(tmp_path, capsys):
    path = tmp_path / "d.npy"
    raw = SOURCES["d.npy"]
    path.write_bytes(raw.replace(b"(24, 2)", b"(99, 2)"))
    code, _, se = _run_case(path, tmp_path / "r.json", capsys)
    assert code == 2 and "shape (99, 2)" in se and "damaged or truncated" in se


def test_npy_header_declaring_a_huge_array(tmp_path, capsys):
    """A damaged header cannot make numpy allocate terabytes."""
    path = tmp_path / "d.npy"
    raw = SOURCES["d.npy"]
    path.write_bytes(raw.replace(b"(24, 2)", b"(10**13,2)".replace(b"10**13", b"9" * 7)))
    code, _, se = _run_case(path, tmp_path / "r.json", capsys)
    assert code == 2 and "damaged or truncated" in se


def test_damaged_text_on_standard_input(tmp_path, capsys, monkeypatch):
    """The same damage piped in with ``-``: CSV text and gzip-compressed CSV."""
    out = tmp_path / "results.csv"
    for name in ("d.csv", "d.csv.gz"):
        for what, data in _damaged_copies(SOURCES[name], 3):
            monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
            code = main(["score", "-", "-o", str(out), "--no-progress"])
            so, se = capsys.readouterr()
            case = f"stdin {name} {what}: exit {code}\n{se}"
            assert code in (0, 2) and "Traceback" not in se, case
            assert out.exists() == (code == 0), case
            if code == 0:
                out.unlink()
            else:
                assert len(se.strip().splitlines()) == 1, case
