#!/usr/bin/env python3
"""Local receivers for the notification tests, written independently of the server's Swift code.

One HTTP/1.1 server on 127.0.0.1 (port 0), printing `listening on http://127.0.0.1:<port>` when ready:

- Web Push endpoints `POST /push/<id>`: the VAPID `Authorization` header is checked (RFC 8292: ES256 JWT signed by
  the key in `k=`, `aud` this origin, `exp` within 24 h, `sub` mailto: or https:), the body is decrypted with
  http_ece (RFC 8291 aes128gcm) with the subscription's own private key, and `TTL`, `Urgency`, `Topic`,
  `Content-Encoding` are recorded. A bad signature or undecryptable body is answered 400 and recorded as an error.
- ntfy: `POST /ntfy` (ntfy's JSON publishing: the body names the topic).
- Webhooks `POST /hook/<id>`: `X-Ralph-Mobile-Signature` is checked against HMAC-SHA256(secret, timestamp "." body).

Control (JSON):
- `POST /control/subscription` → a new Web Push subscription `{endpoint, keys: {p256dh, auth}}`.
- `POST /control/hook` `{"secret": …}` → `{"url": …}`.
- `POST /control/script` `{"path": "/push/1", "statuses": [503, 410]}`: the next answers on that path (then 201/200).
- `GET /control/received?count=N&timeout=S` → every request recorded so far, waiting up to S seconds for N of them.
"""
import base64
import hashlib
import hmac
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class State:
    def __init__(self):
        self.lock = threading.Condition()
        self.received = []
        self.subscriptions = {}  # id -> (private key, auth)
        self.hooks = {}  # id -> secret
        self.scripts = {}  # path -> [status, ...]
        self.origin = None

    def record(self, entry):
        with self.lock:
            entry["at"] = time.time()
            self.received.append(entry)
            self.lock.notify_all()

    def next_status(self, path, default):
        with self.lock:
            queue = self.scripts.get(path) or []
            return queue.pop(0) if queue else default


STATE = State()


def verify_vapid(header, origin):
    """Returns the JWT claims, or raises ValueError saying what is wrong."""
    if not header or not header.startswith("vapid "):
        raise ValueError("Authorization is not 'vapid t=…, k=…'")
    params = dict(part.strip().split("=", 1) for part in header[len("vapid "):].split(","))
    token, key = params.get("t"), params.get("k")
    if not token or not key:
        raise ValueError("vapid header lacks t= or k=")
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b64url_decode(key))
    head_b64, claims_b64, sig_b64 = token.split(".")
    header_json = json.loads(b64url_decode(head_b64))
    if header_json.get("alg") != "ES256":
        raise ValueError("JWT alg is not ES256")
    signature = b64url_decode(sig_b64)
    if len(signature) != 64:
        raise ValueError("ES256 signature is not 64 bytes (r||s)")
    der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    try:
        public.verify(der, (head_b64 + "." + claims_b64).encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise ValueError("VAPID signature does not verify with k=")
    claims = json.loads(b64url_decode(claims_b64))
    if claims.get("aud") != origin:
        raise ValueError("aud %r is not this origin %r" % (claims.get("aud"), origin))
    if not (time.time() < claims.get("exp", 0) <= time.time() + 86400):
        raise ValueError("exp is not within the next 24 hours")
    sub = claims.get("sub", "")
    if not (sub.startswith("mailto:") or sub.startswith("https:")):
        raise ValueError("sub %r is neither mailto: nor https:" % sub)
    return claims, key


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body=None):
        data = json.dumps(body).encode() if body is not None else b""
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def do_GET(self):
        if self.path.startswith("/control/received"):
            query = dict(p.split("=", 1) for p in self.path.partition("?")[2].split("&") if "=" in p)
            count, timeout = int(query.get("count", 0)), float(query.get("timeout", 0))
            deadline = time.time() + timeout
            with STATE.lock:
                while len(STATE.received) < count and time.time() < deadline:
                    STATE.lock.wait(deadline - time.time())
                received = list(STATE.received)
            return self.reply(200, received)
        self.reply(404, {"error": "no such path"})

    def do_POST(self):
        body = self.body()
        path = self.path
        if path == "/control/subscription":
            key = ec.generate_private_key(ec.SECP256R1())
            auth = os.urandom(16)
            sub_id = str(len(STATE.subscriptions) + 1)
            STATE.subscriptions[sub_id] = (key, auth)
            public = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
            return self.reply(200, {"endpoint": STATE.origin + "/push/" + sub_id, "keys": {"p256dh": b64url(public), "auth": b64url(auth)}})
        if path == "/control/hook":
            hook_id = str(len(STATE.hooks) + 1)
            STATE.hooks[hook_id] = json.loads(body)["secret"]
            return self.reply(200, {"url": STATE.origin + "/hook/" + hook_id})
        if path == "/control/script":
            script = json.loads(body)
            with STATE.lock:
                STATE.scripts[script["path"]] = list(script["statuses"])
            return self.reply(200, {})
        if path.startswith("/push/"):
            return self.push(path, body)
        if path in ("/", "/ntfy"):
            entry = {"channel": "ntfy", "path": path, "headers": dict(self.headers), "payload": json.loads(body)}
            status = STATE.next_status(path, 200)
            entry["status"] = status
            STATE.record(entry)
            return self.reply(status, {"id": "n%d" % len(STATE.received)})
        if path.startswith("/hook/"):
            return self.hook(path, body)
        self.reply(404, {"error": "no such path"})

    def push(self, path, body):
        entry = {"channel": "web_push", "path": path, "headers": {k: self.headers.get(k) for k in ("TTL", "Urgency", "Topic", "Content-Encoding", "Content-Type")}}
        subscription = STATE.subscriptions.get(path.rsplit("/", 1)[1])
        try:
            if subscription is None:
                raise ValueError("unknown subscription")
            claims, key = verify_vapid(self.headers.get("Authorization"), STATE.origin)
            entry["vapid"] = {"claims": claims, "k": key}
            if self.headers.get("Content-Encoding") != "aes128gcm":
                raise ValueError("Content-Encoding is not aes128gcm")
            private, auth = subscription
            plain = http_ece.decrypt(body, private_key=private, auth_secret=auth, version="aes128gcm")
            entry["payload"] = json.loads(plain)
        except Exception as error:  # recorded so the test can say what was wrong
            entry["error"] = "%s: %s" % (type(error).__name__, error)
            entry["status"] = 400
            STATE.record(entry)
            return self.reply(400, {"error": entry["error"]})
        status = STATE.next_status(path, 201)
        entry["status"] = status
        STATE.record(entry)
        self.reply(status)

    def hook(self, path, body):
        entry = {"channel": "webhook", "path": path, "headers": {k: self.headers.get(k) for k in ("X-Ralph-Mobile-Timestamp", "X-Ralph-Mobile-Signature", "Idempotency-Key", "Content-Type")}}
        secret = STATE.hooks.get(path.rsplit("/", 1)[1])
        timestamp = self.headers.get("X-Ralph-Mobile-Timestamp") or ""
        expected = "sha256=" + hmac.new((secret or "").encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
        if secret is None or not hmac.compare_digest(expected, self.headers.get("X-Ralph-Mobile-Signature") or ""):
            entry["error"] = "bad signature"
            entry["status"] = 401
            STATE.record(entry)
            return self.reply(401, {"error": "bad signature"})
        if abs(time.time() - int(timestamp)) > 300:
            entry["error"] = "stale timestamp"
        entry["payload"] = json.loads(body)
        status = STATE.next_status(path, 200)
        entry["status"] = status
        STATE.record(entry)
        self.reply(status)


def exit_with_parent():
    """Ends the receiver when the test process that started it ends (even if it was killed)."""
    parent = os.getppid()
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


def main():
    threading.Thread(target=exit_with_parent, daemon=True).start()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    STATE.origin = "http://127.0.0.1:%d" % server.server_address[1]
    print("listening on " + STATE.origin, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
