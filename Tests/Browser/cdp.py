"""A minimal Chrome DevTools Protocol client over the browser's own WebSocket (the standard library only).

Selenium's `execute_cdp_cmd` sends commands but never returns events, and the service worker domain gives a
registration's id only as an event (`ServiceWorker.workerRegistrationUpdated`). This client connects beside
chromedriver to the page's DevTools WebSocket (`goog:chromeOptions.debuggerAddress`), sends commands and keeps the
events it reads.
"""

import base64
import json
import os
import socket
import struct
import time
import urllib.request


class CDPError(Exception):
    pass


class CDP:
    def __init__(self, ws_url, timeout=15):
        assert ws_url.startswith("ws://"), ws_url
        rest = ws_url[len("ws://"):]
        hostport, path = rest.split("/", 1)
        host, port = hostport.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (f"GET /{path} HTTP/1.1\r\nHost: {hostport}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
        self.sock.sendall(request.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise CDPError("the DevTools socket closed during the handshake")
            head += chunk
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise CDPError("DevTools refused the WebSocket: " + head.decode(errors="replace"))
        self.next_id = 0
        self.events = []

    @classmethod
    def for_page(cls, driver):
        """Connects to the DevTools target of the page `driver` shows."""
        address = driver.capabilities["goog:chromeOptions"]["debuggerAddress"]
        with urllib.request.urlopen(f"http://{address}/json/list", timeout=10) as response:
            targets = json.load(response)
        url = driver.current_url
        pages = [t for t in targets if t.get("type") == "page"]
        page = next((t for t in pages if t.get("url") == url), pages[0] if pages else None)
        if not page:
            raise CDPError(f"no page target among {targets}")
        return cls(page["webSocketDebuggerUrl"])

    def _send_frame(self, text):
        data = text.encode()
        mask = os.urandom(4)
        header = bytes([0x81])
        if len(data) < 126:
            header += bytes([0x80 | len(data)])
        elif len(data) < 65536:
            header += bytes([0x80 | 126]) + struct.pack(">H", len(data))
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", len(data))
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        self.sock.sendall(header + mask + masked)

    def _read_exact(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise CDPError("the DevTools socket closed")
            data += chunk
        return data

    def _read_message(self):
        payload = b""
        while True:
            b0, b1 = self._read_exact(2)
            length = b1 & 0x7F
            if length == 126:
                length = struct.unpack(">H", self._read_exact(2))[0]
            elif length == 127:
                length = struct.unpack(">Q", self._read_exact(8))[0]
            data = self._read_exact(length)
            opcode = b0 & 0x0F
            if opcode == 0x8:
                raise CDPError("DevTools closed the WebSocket")
            if opcode in (0x9, 0xA):
                continue  # ping/pong: not expected from DevTools
            payload += data
            if b0 & 0x80:
                return json.loads(payload)

    def send(self, method, params=None, timeout=15):
        """Sends a command and returns its result (events read meanwhile are kept in `events`)."""
        self.next_id += 1
        ident = self.next_id
        self._send_frame(json.dumps({"id": ident, "method": method, "params": params or {}}))
        deadline = time.time() + timeout
        while time.time() < deadline:
            message = self._read_message()
            if message.get("id") == ident:
                if "error" in message:
                    raise CDPError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)
        raise CDPError(f"{method}: no answer in {timeout}s")

    def wait_event(self, predicate, timeout=15):
        """The first event (kept or read now) for which `predicate(event)` is true."""
        deadline = time.time() + timeout
        while True:
            for event in self.events:
                if predicate(event):
                    return event
            remaining = deadline - time.time()
            if remaining <= 0:
                raise CDPError(f"no such event in {timeout}s; seen: {[e['method'] for e in self.events][-20:]}")
            self.sock.settimeout(remaining)
            try:
                message = self._read_message()
            except socket.timeout:
                continue
            finally:
                self.sock.settimeout(15)
            if "method" in message:
                self.events.append(message)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass
