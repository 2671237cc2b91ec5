"""edr.io.datasets: manifest content, local look-up, download (network mocked) and checksums.

The downloads against a real HTTP server on the loopback: tests/edr/test_download.py.
"""

from __future__ import annotations

import hashlib
import re
import urllib.error

import pytest

from edr.errors import DataUnavailableError, VerificationError
from edr.io import download, read_record
from edr.io.datasets import (
    database_entry,
    load_manifest,
    locate_database,
    record_paths,
    verify_database,
)
from edr.io.integrity import RECORD_NAME, parse_sha256_lines
from edr.io.integrity import read_verified_record as read_verified

CONTENT = {"r1.hea": b"r1 1 250 10\n", "r1.dat": b"\x00\x01" * 10, "r1.ann": b"note"}


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _toy_manifest(*, checksums=True, download=True):
    entry = {"title": "Toy", "slug": "toy", "version": "1.0.0", "folder": "toy",
             "download": download,
             "records": ["r1"], "source": "the toy source"}
    if checksums:
        entry["sha256"] = {name: _sha(data) for name, data in CONTENT.items()}
    else:
        entry.update(sha256=None, files_per_record=["{record}.hea", "{record}.dat"],
                     optional_files_per_record=["{record}.ann", "{record}.xyz"])
    return {"databases": {"toy": entry}}


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """No EDR_DATA_DIR, cache under tmp_path, and a network that fails loudly if touched."""
    monkeypatch.delenv("EDR_DATA_DIR", raising=False)
    monkeypatch.setenv("EDR_CACHE_DIR", str(tmp_path / "cache"))

    def no_network(url, out, *, timeout=60.0):
        raise urllib.error.URLError(f"offline (test): {url}")

    monkeypatch.setattr(download, "fetch_url", no_network)
    return tmp_path


def _serve(monkeypatch, files: dict[str, bytes], calls: list[str]):
    def fake_fetch(url, out, *, timeout=60.0):
        calls.append(url)
        name = url.rsplit("/", 1)[1]
        if name not in files:
            raise urllib.error.HTTPError(url, 404, "Not Found", None, None)
        out.write(files[name])

    monkeypatch.setattr(download, "fetch_url", fake_fetch)


# ---------------------------------------------------------------- manifest


def test_manifest_entries_are_complete():
    dbs = load_manifest()["databases"]
    assert {"bidmc", "fantasia", "cebsdb", "apnea-ecg", "slpdb", "wfdb-samples"} <= set(dbs)
    for key, entry in dbs.items():
        for field in ("title", "slug", "version", "folder", "records", "record_list_source",
                      "ecg_channels",
                      "resp_channels", "licence", "citation"):
            assert entry.get(field), f"{key} lacks {field}"
        assert isinstance(entry["download"], bool), key
        assert entry.get("sha256") or entry.get("sha256_note"), (
            f"{key}: sha256 or a note saying why not")
        if not entry.get("sha256"):
            assert entry["files_per_record"], key
    bidmc = dbs["bidmc"]
    assert (bidmc["slug"], bidmc["version"], bidmc["fs"], bidmc["licence"]) == ("bidmc", "1.0.0",
                                                                                125, "ODC-By-1.0")
    assert len(bidmc["records"]) == 30 and len(bidmc["sha256"]) == 3 + 5 * 30
    assert bidmc["breath_annotations"] == {"extension": "breath", "annotator": "ann1",
                                           "annotators": ["ann1", "ann2"],
                                           "annotator_field": "aux_note"}
    assert dbs["apnea-ecg"]["records"] == ["a01r", "a02r", "a03r", "a04r", "b01r", "c01r",
                                           "c02r", "c03r"]
    assert [dbs[k]["version"] for k in ("fantasia", "cebsdb", "apnea-ecg",
                                        "slpdb")] == ["1.0.0"] * 4
    assert dbs["wfdb-samples"]["download"] is False
    assert database_entry("BIDMC")["name"] == "bidmc"


@pytest.mark.realdata
def test_manifest_checksums_match_the_data_readme(data_dir):
    readme = (data_dir / "README.md").read_text()
    blocks = re.findall(r"### SHA-256\s*```(.*?)```", readme, flags=re.S)
    parsed = [parse_sha256_lines(b) for b in blocks]
    dbs = load_manifest()["databases"]
    assert {f: h for f, (h, _) in parsed[0].items()} == dbs["bidmc"]["sha256"]
    assert {f: n for f, (_, n) in parsed[0].items()} == dbs["bidmc"]["size_bytes"]
    assert {f: h for f, (h, _) in parsed[1].items()} == dbs["wfdb-samples"]["sha256"]


def test_parse_sha256_lines_formats():
    h = "a" * 64
    text = f"{h}  x.hea\n{h} *y.dat\n{h}  z.dat  (12 bytes)\nnot a line\n"
    assert parse_sha256_lines(text) == {"x.hea": (h, None), "y.dat": (h, None), "z.dat": (h, 12)}
    upper = "AB" * 32
    assert parse_sha256_lines(f"{upper}  ./sub dir/w.dat\n{h}x.dat\n") == {
        "sub dir/w.dat": (upper.lower(), None)}  # no separator after the digest: not a line


def test_unknown_database_lists_valid_names():
    with pytest.raises(ValueError,
                       match=r"unknown database 'mitdb'; valid names: apnea-ecg, bidmc, cebsdb"):
        locate_database("mitdb")


# ---------------------------------------------------------------- local look-up (real data)


@pytest.mark.realdata
def test_edr_data_dir_is_used(data_dir, isolated, monkeypatch):
    monkeypatch.setenv("EDR_DATA_DIR", str(data_dir))
    assert locate_database("bidmc") == data_dir / "bidmc"
    paths = record_paths("bidmc")
    assert len(paths) == 30 and paths[0] == data_dir / "bidmc" / "bidmc01"
    rec = read_record(paths[-1])
    assert rec.name == "bidmc49" and rec.breath_times is not None
    assert [p.name for p in record_paths("wfdb-samples")] == ["03700181", "v102s", "mixedsignals"]
    assert not (isolated / "cache").exists()  # nothing downloaded


@pytest.mark.realdata
def test_data_dir_argument_and_verify(data_dir, isolated):
    assert locate_database("bidmc", data_dir=data_dir) == data_dir / "bidmc"
    assert (locate_database("wfdb-samples", data_dir=data_dir / "wfdb-samples")
            == data_dir / "wfdb-samples")
    assert verify_database(data_dir / "wfdb-samples", "wfdb-samples") == {}


# ---------------------------------------------------------------- download (network mocked)


def test_offline_says_what_to_fetch_and_where(isolated):
    with pytest.raises(DataUnavailableError, match=(
            r"download failed \(.*offline \(test\): https://physionet.org/files/toy/1.0.0/r1.*\).*"
            r"Fetch its files from https://physionet.org/files/toy/1.0.0/ .*put them in "
            r"\$EDR_DATA_DIR/toy/ \(used as they are\) or .*cache/toy-1.0.0/ \(verified against "
            r"the manifest\)$")):
        locate_database("toy", manifest=_toy_manifest())
    assert list((isolated / "cache" / "toy-1.0.0").iterdir()) == []  # no partial download left


def test_offline_with_the_real_manifest(isolated):
    with pytest.raises(DataUnavailableError, match=(
            r"offline \(test\): https://physionet.org/files/fantasia/1.0.0/SHA256SUMS.txt>\).*"
            r"\(verified against a SHA256SUMS.txt put beside them\)$")):
        locate_database("fantasia")
    assert not (isolated / "cache" / "fantasia-1.0.0").exists()


def test_download_disabled_or_local_only(isolated, monkeypatch):
    _serve(monkeypatch, CONTENT, calls := [])
    with pytest.raises(DataUnavailableError,
                       match=r"database 'toy' \(Toy 1.0.0\) is not available: searched"):
        locate_database("toy", download=False, manifest=_toy_manifest())
    with pytest.raises(DataUnavailableError,
                       match=r"Fetch its files from the toy source and put them in"):
        locate_database("toy", manifest=_toy_manifest(download=False))
    with pytest.raises(DataUnavailableError,
                       match=r"Fetch its files from GitHub MIT-LCP/wfdb-python"):
        locate_database("wfdb-samples", data_dir=isolated / "nowhere")
    assert calls == []


def test_download_verifies_and_caches(isolated, monkeypatch):
    _serve(monkeypatch, CONTENT, calls := [])
    folder = locate_database("toy", manifest=_toy_manifest())
    assert folder == isolated / "cache" / "toy-1.0.0"
    assert {p.name: p.read_bytes() for p in folder.iterdir() if p.name != RECORD_NAME} == CONTENT
    assert len(calls) == 3
    assert sorted(read_verified(folder)) == sorted(CONTENT)
    assert locate_database("toy", manifest=_toy_manifest()) == folder and len(calls) == 3  # cached
    (folder / "r1.dat").write_bytes(b"tampered")
    assert verify_database(folder, "toy", manifest=_toy_manifest()) == {
        "r1.dat": f"expected sha256 {_sha(CONTENT['r1.dat'])} (data_manifest.yaml), got sha256 "
                  f"{_sha(b'tampered')}, 8 bytes"}


def test_checksum_mismatch_discards_the_download(isolated, monkeypatch):
    _serve(monkeypatch, {**CONTENT, "r1.dat": b"corrupted"}, calls := [])
    with pytest.raises(VerificationError, match=(
            rf"r1.dat failed verification 2 times: expected sha256 {_sha(CONTENT['r1.dat'])} "
            rf"\(data_manifest.yaml\), got sha256 {_sha(b'corrupted')}, 9 bytes; fetched from "
            r"https://physionet.org/files/toy/1.0.0/r1.dat")):
        locate_database("toy", manifest=_toy_manifest())
    assert sorted(p.name for p in (isolated / "cache" / "toy-1.0.0").iterdir()) == [
        RECORD_NAME, "r1.ann"]
    assert [c.rsplit("/", 1)[1] for c in calls] == ["r1.ann", "r1.dat", "r1.dat"]


def test_download_without_checksums_fetches_the_listed_optional_files(isolated, monkeypatch):
    sums = "".join(f"{_sha(d)}  {n}\n" for n, d in CONTENT.items()).encode()
    _serve(monkeypatch, {**CONTENT, "SHA256SUMS.txt": sums}, calls := [])
    folder = locate_database("toy", manifest=_toy_manifest(checksums=False))
    assert sorted(p.name for p in folder.iterdir()) == [RECORD_NAME, "r1.ann", "r1.dat", "r1.hea"]
    assert [c.rsplit("/", 1)[1] for c in calls] == ["SHA256SUMS.txt", "r1.hea", "r1.dat",
                                                   "r1.ann"]  # r1.xyz is not listed: not asked
    assert record_paths("toy", manifest=_toy_manifest(checksums=False)) == [folder / "r1"]
    assert len(calls) == 4
