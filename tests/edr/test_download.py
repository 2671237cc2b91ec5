"""Downloads from a real HTTP server on the loopback, in PhysioNet's URL layout.

The server (``http.server`` on 127.0.0.1, in a thread) serves the shared BIDMC
files under ``/files/bidmc/1.0.0/``; per file it can drop the connection half
way, serve corrupted bytes, or answer 404. The code under test is the real
``fetch_url`` (urllib), pointed at the server through ``$EDR_PHYSIONET_URL``.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from edr.errors import DataUnavailableError
from edr.io import datasets

RECORD = "bidmc01"
FILES = [f"{RECORD}.hea", f"{RECORD}.dat", f"{RECORD}.breath"]


class _Handler(BaseHTTPRequestHandler):
    root: Path
    faults: dict[str, str] = {}
    requests: list[str] = []

    def log_message(self, *args):  # keep pytest output clean
        pass

    def do_GET(self):
        prefix = "/files/bidmc/1.0.0/"
        self.requests.append(self.path)
        name = self.path[len(prefix):] if self.path.startswith(prefix) else ""
        fault = self.faults.get(name)
        path = self.root / name
        if not name or "/" in name or fault == "404" or not path.is_file():
            self.send_error(404, "Not Found")
            return
        body = path.read_bytes()
        if fault == "corrupt":
            body = body[:-1] + bytes([body[-1] ^ 0xFF])
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if fault == "drop":
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(2)  # the connection drops mid-file
            return
        self.wfile.write(body)


@pytest.fixture
def server(bidmc_dir, tmp_path, monkeypatch):
    handler = type("Handler", (_Handler,), {"root": bidmc_dir, "faults": {}, "requests": []})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv(datasets.BASE_URL_ENV, f"http://127.0.0.1:{httpd.server_address[1]}/files")
    monkeypatch.delenv("EDR_DATA_DIR", raising=False)
    monkeypatch.setenv("EDR_CACHE_DIR", str(tmp_path / "cache"))
    yield handler
    httpd.shutdown()
    httpd.server_close()
    thread.join(5)


def _manifest(optional=()):
    real = datasets.load_manifest()["databases"]["bidmc"]
    entry = {k: v for k, v in real.items() if k not in ("sha256", "records", "size_bytes")}
    entry["records"] = [RECORD]
    entry["sha256"] = {f: real["sha256"][f] for f in FILES}
    return {"databases": {"bidmc": entry}}


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".") or p.suffix == ".part")


def test_download_from_a_loopback_server_verifies_every_file(server, tmp_path):
    folder = datasets.locate_database("bidmc", manifest=_manifest())
    assert folder == tmp_path / "cache" / "bidmc-1.0.0"
    assert datasets.verify_database(folder, "bidmc", manifest=_manifest()) == {}
    assert all(r.startswith("/files/bidmc/1.0.0/") for r in server.requests)
    n = len(server.requests)
    assert datasets.locate_database("bidmc", manifest=_manifest()) == folder  # complete: no request
    assert len(server.requests) == n


def test_dropped_connection_leaves_nothing_and_a_rerun_completes(server, tmp_path):
    server.faults[f"{RECORD}.dat"] = "drop"
    with pytest.raises(DataUnavailableError, match=rf"download failed .*{RECORD}\.dat broke off"):
        datasets.locate_database("bidmc", manifest=_manifest())
    folder = tmp_path / "cache" / "bidmc-1.0.0"
    assert not (folder / f"{RECORD}.dat").exists()
    assert _leftovers(folder) == []
    done = {p.name for p in folder.iterdir()}
    server.faults.clear()
    server.requests.clear()
    assert datasets.locate_database("bidmc", manifest=_manifest()) == folder
    fetched = {r.rsplit("/", 1)[1] for r in server.requests}
    assert fetched == set(FILES) - done  # the rerun fetches only what is missing
    assert datasets.verify_database(folder, "bidmc", manifest=_manifest()) == {}


def test_checksum_mismatch_is_discarded_and_redone(server, tmp_path):
    server.faults[f"{RECORD}.hea"] = "corrupt"
    with pytest.raises(DataUnavailableError, match=rf"checksum mismatch for .*{RECORD}\.hea"):
        datasets.locate_database("bidmc", manifest=_manifest())
    folder = tmp_path / "cache" / "bidmc-1.0.0"
    assert not (folder / f"{RECORD}.hea").exists() and _leftovers(folder) == []
    # a corrupt copy already in the cache (e.g. written by hand) is fetched again
    server.faults.clear()
    (folder / f"{RECORD}.breath").write_bytes(b"not the annotations")
    assert datasets.locate_database("bidmc", manifest=_manifest()) == folder
    assert datasets.verify_database(folder, "bidmc", manifest=_manifest()) == {}


def test_404_says_what_to_fetch_and_leaves_nothing(server, tmp_path):
    server.faults[f"{RECORD}.breath"] = "404"
    with pytest.raises(DataUnavailableError, match=r"HTTP Error 404.*Fetch its files from http://127\.0\.0\.1"):
        datasets.locate_database("bidmc", manifest=_manifest())
    folder = tmp_path / "cache" / "bidmc-1.0.0"
    assert not (folder / f"{RECORD}.breath").exists() and _leftovers(folder) == []
