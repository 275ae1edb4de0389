"""A loopback HTTP server that serves files: a report of known bytes, and bodies of any size, streamed.

Routes: `/report.pdf` (the `REPORT` bytes), `/bytes/<n>` (n bytes, sent in chunks without a declared
length), `/missing` (404 with a short JSON body).
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

REPORT = b"%PDF-1.4\n" + bytes(range(256)) * 40 + b"\n%%EOF\n"
CHUNK = 64 * 1024


class FileServer:
    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                parts = [p for p in self.path.split("?")[0].split("/") if p]
                if parts == ["report.pdf"]:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/pdf")
                    self.send_header("Content-Length", str(len(REPORT)))
                    self.end_headers()
                    self.wfile.write(REPORT)
                    return
                if len(parts) == 2 and parts[0] == "bytes":
                    remaining = int(parts[1])
                    self.send_response(200)
                    self.send_header("Content-Type", "application/octet-stream")
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    try:
                        while remaining > 0:
                            size = min(CHUNK, remaining)
                            self.wfile.write(f"{size:x}\r\n".encode() + b"x" * size + b"\r\n")
                            remaining -= size
                        self.wfile.write(b"0\r\n\r\n")
                    except (BrokenPipeError, ConnectionResetError):
                        pass  # the client stopped reading: what a size cap does
                    return
                body = b'{"error": "no such file"}'
                self.send_response(404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FileServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
