"""Downloads from a real HTTP server on the loopback, in PhysioNet's URL layout.

The server (``http.server`` on 127.0.0.1, port 0, in a thread) serves files under
``/files/<slug>/<version>/``, with or without a ``SHA256SUMS.txt``. Each request
for a file can be given a fault, used once: the file truncated (a short file with
a matching ``Content-Length``), altered (same size, one byte flipped), the
connection dropped half way, or 404. The code under test is the real
``edr.io.download.fetch_url`` (urllib), pointed at the server through
``$EDR_PHYSIONET_URL``. No other network access.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from edr.errors import DataUnavailableError, VerificationError
from edr.io import datasets, download, integrity

TOY = {"r1.hea": b"r1 1 250 10\n", "r1.dat": bytes(range(200)) * 5, "r1.ann": b"note",
       "r2.hea": b"r2 1 250 10\n", "r2.dat": b"\x07" * 300}
CACHE = "toy-1.0.0"
#: download.STALL_S in the tests of stalled transfers (s).
STALL_TEST_S = 0.3


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _sums(files: dict[str, bytes]) -> bytes:
    return "".join(f"{_sha(data)}  {name}\n" for name, data in sorted(files.items())).encode()


class _Handler(BaseHTTPRequestHandler):
    files: dict[str, bytes] = {}  # path below /files/ -> content
    faults: dict[str, list[str]] = {}  # path below /files/ -> faults of the next requests
    requests: list[str] = []

    def log_message(self, *args):  # keep pytest output clean
        pass

    def do_GET(self):
        name = self.path.removeprefix("/files/")
        self.requests.append(name)
        queued = self.faults.get(name) or []
        fault = queued.pop(0) if queued else None
        if fault == "404" or name not in self.files:
            self.send_error(404, "Not Found")
            return
        body = self.files[name]
        if fault == "stall_head":  # no answer at all for a while
            time.sleep(STALL_TEST_S * 5)
            return
        if fault == "html":  # an error or maintenance page, with status 200
            body = b"<html><body><h1>Service temporarily unavailable</h1></body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        if fault == "truncate":
            body = body[: len(body) // 2]
        elif fault == "alter":
            body = body[:-1] + bytes([body[-1] ^ 0xFF])
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if fault == "stall":  # half the file, then nothing for a while
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            time.sleep(STALL_TEST_S * 5)
            return
        if fault == "drop":
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(2)  # the connection drops mid-file
            return
        self.wfile.write(body)


@pytest.fixture
def server(tmp_path, monkeypatch):
    """The loopback server (its handler class: ``files``, ``faults``, ``requests``); the
    cache under ``tmp_path/cache``, no ``EDR_DATA_DIR``."""
    handler = type("Handler", (_Handler,), {"files": {}, "faults": {}, "requests": []})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    monkeypatch.setenv(download.BASE_URL_ENV, f"http://127.0.0.1:{httpd.server_address[1]}/files")
    monkeypatch.delenv("EDR_DATA_DIR", raising=False)
    monkeypatch.setenv("EDR_CACHE_DIR", str(tmp_path / "cache"))
    yield handler
    httpd.shutdown()
    httpd.server_close()
    thread.join(5)


def _publish(server, files: dict[str, bytes], *, sums: bytes | None = None,
             slug: str = "toy", version: str = "1.0.0") -> None:
    """Serve ``files`` under ``<slug>/<version>/`` with a SHA256SUMS.txt of them (or ``sums``)."""
    for name, data in files.items():
        server.files[f"{slug}/{version}/{name}"] = data
    server.files[f"{slug}/{version}/SHA256SUMS.txt"] = _sums(files) if sums is None else sums


def _toy(*, digests: bool = False) -> dict:
    """A two-record manifest: required .hea/.dat, optional .ann (r1 only) and .xyz (none)."""
    entry = {"title": "Toy", "slug": "toy", "version": "1.0.0", "folder": "toy",
             "download": True, "records": ["r1", "r2"],
             "files_per_record": ["{record}.hea", "{record}.dat"],
             "optional_files_per_record": ["{record}.ann", "{record}.xyz"]}
    if digests:
        entry["sha256"] = {n: _sha(d) for n, d in TOY.items()}
        entry["size_bytes"] = {n: len(d) for n, d in TOY.items()}
    return {"databases": {"toy": entry}}


def _names(server) -> list[str]:
    """The file names requested, in order."""
    return [r.rsplit("/", 1)[1] for r in server.requests]


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.suffix == ".part")


# ---------------------------------------------------------------- published SHA256SUMS.txt


def test_published_digests_verify_every_file_and_are_recorded(server, tmp_path):
    _publish(server, TOY)
    folder = datasets.locate_database("toy", manifest=_toy())
    assert folder == tmp_path / "cache" / CACHE
    assert _names(server) == ["SHA256SUMS.txt", "r1.hea", "r1.dat", "r2.hea", "r2.dat", "r1.ann"]
    assert {p.name: p.read_bytes() for p in folder.iterdir() if p.name in TOY} == TOY
    record = json.loads((folder / integrity.RECORD_NAME).read_text())["files"]
    sums_url = f"{os.environ[download.BASE_URL_ENV]}/toy/1.0.0/SHA256SUMS.txt"
    assert {n: (e["sha256"], e["size"], e["source"]) for n, e in record.items()} == {
        n: (_sha(d), len(d), sums_url) for n, d in TOY.items()}
    assert datasets.verify_database(folder, "toy", manifest=_toy()) == {}
    server.requests.clear()
    assert datasets.locate_database("toy", manifest=_toy()) == folder
    assert server.requests == []  # verified and recorded: no request, not even the list


@pytest.mark.parametrize("fault", ["truncate", "alter"])
def test_a_file_bad_twice_fails_naming_it_and_its_digests(server, tmp_path, fault):
    _publish(server, TOY)
    server.faults["toy/1.0.0/r1.dat"] = [fault, fault]
    good = TOY["r1.dat"]
    bad = good[: len(good) // 2] if fault == "truncate" else good[:-1] + bytes([good[-1] ^ 0xFF])
    with pytest.raises(VerificationError, match=(
            rf"^r1\.dat failed verification 2 times: expected sha256 {_sha(good)} \(http://"
            rf".*/toy/1\.0\.0/SHA256SUMS\.txt\), got sha256 {_sha(bad)}, {len(bad)} bytes; "
            rf"fetched from http://.*/toy/1\.0\.0/r1\.dat, nothing was kept under .*r1\.dat$")):
        datasets.locate_database("toy", manifest=_toy())
    assert _names(server).count("r1.dat") == 2  # fetched again once, not more
    folder = tmp_path / "cache" / CACHE
    assert not (folder / "r1.dat").exists() and _leftovers(folder) == []
    assert "r1.dat" not in integrity.read_verified_record(folder)
    assert set(integrity.read_verified_record(folder)) == {"r1.hea"}  # what verified before is kept


def test_a_transfer_broken_twice_fails_naming_the_file(server, tmp_path):
    _publish(server, TOY)
    server.faults["toy/1.0.0/r2.dat"] = ["drop", "drop"]
    with pytest.raises(VerificationError, match=(
            rf"^r2\.dat failed verification 2 times: expected sha256 {_sha(TOY['r2.dat'])} .*"
            r"got 150 bytes before the transfer broke off \(IncompleteRead.*nothing was kept")):
        datasets.locate_database("toy", manifest=_toy())
    folder = tmp_path / "cache" / CACHE
    assert not (folder / "r2.dat").exists() and _leftovers(folder) == []
    server.faults.clear()
    server.requests.clear()
    assert datasets.locate_database("toy", manifest=_toy()) == folder  # the rerun completes
    assert _names(server) == ["SHA256SUMS.txt", "r2.dat", "r1.ann"]  # only what was missing


@pytest.mark.parametrize("fault", ["truncate", "alter", "drop"])
def test_a_file_bad_once_then_good_passes(server, fault):
    _publish(server, TOY)
    server.faults["toy/1.0.0/r1.dat"] = [fault]
    folder = datasets.locate_database("toy", manifest=_toy())
    assert (folder / "r1.dat").read_bytes() == TOY["r1.dat"]
    assert _names(server).count("r1.dat") == 2
    assert _leftovers(folder) == []


def test_a_needed_file_missing_from_the_list_fails_before_any_download(server, tmp_path):
    listed = {n: d for n, d in TOY.items() if n not in ("r1.dat", "r2.hea")}
    _publish(server, TOY, sums=_sums(listed))
    with pytest.raises(VerificationError, match=(
            r"^http://.*/toy/1\.0\.0/SHA256SUMS\.txt does not list r1\.dat, r2\.hea: no SHA-256 "
            r"to verify them against; nothing was downloaded$")):
        datasets.locate_database("toy", manifest=_toy())
    assert _names(server) == ["SHA256SUMS.txt"]
    assert not (tmp_path / "cache" / CACHE).exists()


def test_an_unlisted_optional_file_is_skipped_and_a_listed_one_verified(server):
    _publish(server, TOY, sums=_sums({n: d for n, d in TOY.items() if n != "r1.ann"}))
    folder = datasets.locate_database("toy", manifest=_toy())
    assert not (folder / "r1.ann").exists() and "r1.ann" not in _names(server)
    server.files.clear()
    server.requests.clear()
    other = {**TOY, "r1.ann": b"other"}
    _publish(server, other, sums=_sums(TOY))  # listed, but the server's copy differs
    (folder / integrity.RECORD_NAME).unlink()
    (folder / "r1.hea").unlink()  # the cache is incomplete: a new download
    with pytest.raises(VerificationError, match=r"^r1\.ann failed verification 2 times"):
        datasets.locate_database("toy", manifest=_toy())


def test_no_published_list_means_no_download(server, tmp_path):
    _publish(server, TOY)
    del server.files["toy/1.0.0/SHA256SUMS.txt"]
    with pytest.raises(VerificationError, match=(
            r"^http://.*/toy/1\.0\.0/SHA256SUMS\.txt not found \(HTTP 404\): no published "
            r"SHA-256 list")):
        datasets.locate_database("toy", manifest=_toy())
    _publish(server, TOY, sums=b"<html>not a digest list</html>\n")
    with pytest.raises(VerificationError, match=r"SHA256SUMS\.txt lists no SHA-256 digest"):
        datasets.locate_database("toy", manifest=_toy())
    assert [n for n in _names(server) if n != "SHA256SUMS.txt"] == []


def test_an_http_error_is_not_retried_and_says_what_to_fetch(server, tmp_path):
    _publish(server, TOY)
    server.faults["toy/1.0.0/r2.hea"] = ["404"]
    with pytest.raises(DataUnavailableError, match=(
            r"download failed \(HTTP Error 404: .* for http://127\.0\.0\.1:\d+/files/toy/1\.0\.0/"
            r"r2\.hea\).*Fetch its files from http://127\.0\.0\.1")):
        datasets.locate_database("toy", manifest=_toy())
    assert _names(server).count("r2.hea") == 1
    assert not (tmp_path / "cache" / CACHE / "r2.hea").exists()


# ---------------------------------------------------------------- manifest digests


def test_manifest_digests_take_precedence_over_the_published_list(server, tmp_path):
    _publish(server, TOY, sums=_sums({n: b"wrong" for n in TOY}))
    folder = datasets.locate_database("toy", manifest=_toy(digests=True))
    assert {p.name: p.read_bytes() for p in folder.iterdir() if p.name in TOY} == TOY
    assert "SHA256SUMS.txt" not in _names(server)
    sources = {e["source"] for e in integrity.read_verified_record(folder).values()}
    assert sources == {datasets.MANIFEST_SOURCE}


def test_a_manifest_size_that_differs_is_named(server, tmp_path):
    manifest = _toy(digests=True)
    manifest["databases"]["toy"]["size_bytes"]["r2.dat"] = 299
    _publish(server, TOY)
    with pytest.raises(VerificationError, match=(
            rf"^r2\.dat failed verification 2 times: expected sha256 {_sha(TOY['r2.dat'])}, "
            rf"299 bytes \(data_manifest\.yaml\), got sha256 {_sha(TOY['r2.dat'])}, 300 bytes")):
        datasets.locate_database("toy", manifest=manifest)


# ---------------------------------------------------------------- the cache and its record


@pytest.fixture
def cached(server):
    """The toy database downloaded and verified; returns its folder."""
    _publish(server, TOY)
    folder = datasets.locate_database("toy", manifest=_toy())
    server.requests.clear()
    return folder


def _count_hashes(monkeypatch) -> list[str]:
    hashed = []
    real = integrity.sha256_file

    def counting(path):
        hashed.append(Path(path).name)
        return real(path)

    monkeypatch.setattr(integrity, "sha256_file", counting)
    return hashed


def test_an_intact_cache_is_not_hashed_again(cached, server, monkeypatch):
    hashed = _count_hashes(monkeypatch)
    assert datasets.locate_database("toy", manifest=_toy()) == cached
    assert hashed == [] and server.requests == []


def test_a_touched_file_is_hashed_once_and_its_record_refreshed(cached, server, monkeypatch):
    hashed = _count_hashes(monkeypatch)
    st = (cached / "r1.dat").stat()
    os.utime(cached / "r1.dat", ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    assert datasets.locate_database("toy", manifest=_toy()) == cached
    assert hashed == ["r1.dat"] and server.requests == []
    cached_entry = integrity.read_verified_record(cached)["r1.dat"]
    assert cached_entry["mtime_ns"] == st.st_mtime_ns + 5_000_000_000
    assert datasets.locate_database("toy", manifest=_toy()) == cached and hashed == ["r1.dat"]


def test_a_truncated_cached_file_is_caught_and_fetched_again(cached, server):
    path = cached / "r2.dat"
    st = path.stat()
    path.write_bytes(TOY["r2.dat"][:100])
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # even with the recorded mtime
    with pytest.raises(DataUnavailableError, match=(
            r"is not available: .*\(in the cache, r2\.dat failed verification against sha256 "
            rf"{_sha(TOY['r2.dat'])}, 300 bytes")):
        datasets.locate_database("toy", manifest=_toy(), download=False)
    assert datasets.locate_database("toy", manifest=_toy()) == cached
    assert path.read_bytes() == TOY["r2.dat"]
    assert _names(server) == ["SHA256SUMS.txt", "r2.dat"]


def test_a_changed_cached_file_is_fetched_again(cached, server):
    path = cached / "r2.dat"
    path.write_bytes(b"\x08" + TOY["r2.dat"][1:])  # same size, a new mtime
    assert datasets.locate_database("toy", manifest=_toy()) == cached
    assert path.read_bytes() == TOY["r2.dat"]
    assert _names(server) == ["SHA256SUMS.txt", "r2.dat"]


def test_a_changed_cached_file_that_cannot_be_fetched_again_is_not_kept(cached, server):
    path = cached / "r2.dat"
    path.write_bytes(b"changed")
    server.faults["toy/1.0.0/r2.dat"] = ["alter", "alter"]
    with pytest.raises(VerificationError, match=r"^r2\.dat failed verification 2 times"):
        datasets.locate_database("toy", manifest=_toy())
    assert not path.exists() and "r2.dat" not in integrity.read_verified_record(cached)
    assert _leftovers(cached) == []


def test_same_size_and_mtime_pass_the_quick_check_but_not_verify_database(cached, server):
    """The documented limit of the size-and-mtime check; the full check sees the change."""
    path = cached / "r2.dat"
    st = path.stat()
    path.write_bytes(b"\x08" + TOY["r2.dat"][1:])
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert datasets.locate_database("toy", manifest=_toy()) == cached and server.requests == []
    source = integrity.read_verified_record(cached)["r2.dat"]["source"]
    assert datasets.verify_database(cached, "toy", manifest=_toy()) == {"r2.dat": (
        f"expected sha256 {_sha(TOY['r2.dat'])}, 300 bytes ({source}), got sha256 "
        f"{_sha(path.read_bytes())}, 300 bytes")}


def test_an_unreadable_record_means_hashing_again_not_downloading(cached, server, monkeypatch):
    (cached / integrity.RECORD_NAME).write_text("{not json")
    hashed = _count_hashes(monkeypatch)
    with pytest.raises(DataUnavailableError, match=r"in the cache, r1\.hea has no known SHA-256"):
        datasets.locate_database("toy", manifest=_toy(), download=False)
    assert datasets.locate_database("toy", manifest=_toy()) == cached
    assert _names(server) == ["SHA256SUMS.txt"]  # the list again, but no file
    assert sorted(hashed) == sorted(["r1.hea", "r1.dat", "r2.hea", "r2.dat", "r1.ann"])


def test_a_cache_filled_by_hand_verifies_offline_against_its_sums_file(server, tmp_path):
    folder = tmp_path / "cache" / CACHE
    folder.mkdir(parents=True)
    for name, data in TOY.items():
        (folder / name).write_bytes(data)
    with pytest.raises(DataUnavailableError, match=r"against a SHA256SUMS\.txt put beside them"):
        datasets.locate_database("toy", manifest=_toy(), download=False)
    (folder / "SHA256SUMS.txt").write_bytes(_sums(TOY))
    assert datasets.locate_database("toy", manifest=_toy(), download=False) == folder
    assert server.requests == []
    (folder / "r1.hea").write_bytes(b"edited by hand")
    with pytest.raises(DataUnavailableError, match=r"r1\.hea failed verification"):
        datasets.locate_database("toy", manifest=_toy(), download=False)


# ---------------------------------------------------------------- every database of the manifest


def _fake_files(entry: dict) -> dict[str, bytes]:
    return {n: n.encode() * 3 for n in datasets.required_files(entry)}


@pytest.mark.parametrize("name", [n for n, e in datasets.load_manifest()["databases"].items()
                                  if e["download"] and not e.get("sha256")])
def test_every_database_without_manifest_digests_is_verified(server, tmp_path, name):
    """Fantasia, CEBS, Apnea-ECG, slpdb: no download without the published list, and each
    file's record names that list."""
    entry = datasets.database_entry(name)
    files = _fake_files(entry)
    _publish(server, files, slug=entry["slug"], version=entry["version"])
    del server.files[f"{entry['slug']}/{entry['version']}/SHA256SUMS.txt"]
    with pytest.raises(VerificationError, match=r"SHA256SUMS\.txt not found"):
        datasets.locate_database(name)
    _publish(server, files, slug=entry["slug"], version=entry["version"])
    folder = datasets.locate_database(name)
    record = integrity.read_verified_record(folder)
    assert set(record) == set(files)
    base = f"{os.environ[download.BASE_URL_ENV]}/{entry['slug']}/{entry['version']}"
    assert {e["source"] for e in record.values()} == {f"{base}/SHA256SUMS.txt"}


def test_every_database_with_manifest_digests_lists_each_record_and_size():
    for name, entry in datasets.load_manifest()["databases"].items():
        if entry.get("sha256"):
            listed = set(entry["sha256"])
            assert [r for r in entry["records"] if f"{r}.hea" not in listed] == [], name
            assert set(entry.get("size_bytes") or listed) == listed, name


# ---------------------------------------------------------------- BIDMC, real files


def _bidmc_manifest(record: str):
    real = datasets.load_manifest()["databases"]["bidmc"]
    entry = {k: v for k, v in real.items() if k not in ("sha256", "records", "size_bytes")}
    entry["records"] = [record]
    names = [f"{record}.hea", f"{record}.dat", f"{record}.breath"]
    entry["sha256"] = {f: real["sha256"][f] for f in names}
    entry["size_bytes"] = {f: real["size_bytes"][f] for f in names}
    return {"databases": {"bidmc": entry}}


def test_bidmc_from_the_loopback_server_against_the_manifest(server, bidmc_dir, tmp_path):
    manifest = _bidmc_manifest("bidmc01")
    names = manifest["databases"]["bidmc"]["sha256"]
    server.files.update({f"bidmc/1.0.0/{n}": (bidmc_dir / n).read_bytes() for n in names})
    server.faults["bidmc/1.0.0/bidmc01.dat"] = ["drop"]
    server.faults["bidmc/1.0.0/bidmc01.hea"] = ["alter", "alter"]
    with pytest.raises(VerificationError, match=r"^bidmc01\.hea failed verification 2 times"):
        datasets.locate_database("bidmc", manifest=manifest)
    folder = tmp_path / "cache" / "bidmc-1.0.0"
    assert sorted(p.name for p in folder.iterdir()) == [integrity.RECORD_NAME, "bidmc01.breath",
                                                        "bidmc01.dat"]
    assert datasets.locate_database("bidmc", manifest=manifest) == folder
    assert datasets.verify_database(folder, "bidmc", manifest=manifest) == {}
    assert "SHA256SUMS.txt" not in _names(server)


# ---------------------------------------------------------------- faults of the batch campaign


def test_an_html_error_page_with_status_200_is_named(server, tmp_path):
    """A server that answers with an error page and status 200: fetched twice, nothing kept,
    and the message says it was an HTML page."""
    _publish(server, TOY)
    server.faults["toy/1.0.0/r1.dat"] = ["html", "html"]
    with pytest.raises(VerificationError, match=r"^r1\.dat failed verification 2 times: .*"
                       r"the server sent an HTML page, text/html; charset=utf-8"):
        datasets.locate_database("toy", manifest=_toy())
    assert not (tmp_path / "cache" / CACHE / "r1.dat").exists()


@pytest.mark.parametrize("fault", ["stall", "stall_head"])
def test_a_stalled_transfer_is_fetched_again_then_named(server, tmp_path, monkeypatch, fault):
    """A server that stops sending (mid-file, or before its headers, which urllib reports as a
    URLError) for longer than download.STALL_S: the file is fetched once more; stalled twice it
    is named."""
    monkeypatch.setattr(download, "STALL_S", STALL_TEST_S)
    _publish(server, TOY)
    server.faults["toy/1.0.0/r2.dat"] = [fault]
    folder = datasets.locate_database("toy", manifest=_toy())
    assert (folder / "r2.dat").read_bytes() == TOY["r2.dat"]
    assert _names(server).count("r2.dat") == 2
    server.faults["toy/1.0.0/r2.dat"] = [fault, fault]
    (folder / "r2.dat").write_bytes(b"changed")
    with pytest.raises(VerificationError, match=r"^r2\.dat failed verification 2 times: .*"
                       r"before the transfer stalled \(no byte for 0\.3 s\)"):
        datasets.locate_database("toy", manifest=_toy())
    assert _leftovers(folder) == []


def test_a_read_only_cache_names_the_file_and_the_way_out(cached, server, monkeypatch):
    """A changed file in a cache on a read-only disk: the error names the file that could not
    be replaced (not the record's temporary file) and EDR_CACHE_DIR."""
    import errno

    (cached / "r2.dat").write_bytes(b"changed")
    real_unlink = Path.unlink

    def read_only(path, *args, **kwargs):
        if path.parent == cached:
            raise OSError(errno.EROFS, "Read-only file system", str(path))
        return real_unlink(path, *args, **kwargs)

    def no_file(*args, dir=None, prefix="", suffix="", **kwargs):
        raise OSError(errno.EROFS, "Read-only file system", os.path.join(dir, prefix + suffix))

    monkeypatch.setattr(Path, "unlink", read_only)
    monkeypatch.setattr("tempfile.mkstemp", no_file)
    with pytest.raises(DataUnavailableError) as caught:
        datasets.locate_database("toy", manifest=_toy())
    message = str(caught.value)
    assert f"Read-only file system: '{cached / 'r2.dat'}')" in message
    assert "set EDR_CACHE_DIR to a folder that can" in message and ".part" not in message
