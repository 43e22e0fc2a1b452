#!/usr/bin/env python3
"""A local stand-in for APNs, written independently of the server's Swift code: HTTP/2 over TLS (ALPN h2, a
self-signed certificate made at start), checking what Apple checks before accepting a notification.

    apns_receiver.py <public key PEM> <key id> <team id> <topic> <record file>

Prints `listening on https://127.0.0.1:<port> ca=<certificate PEM>` when ready. Every request is appended to the
record file as one JSON line: its headers, payload and the problems found (`errors`). Checked: `POST
/3/device/<hex token>`; `authorization: bearer <JWT>` signed ES256 by the given key, `kid` the key id, `iss` the team,
`iat` within the last hour; `apns-push-type` alert|background|liveactivity; `apns-topic` the bundle id (with
`.push-type.liveactivity` for live activities); `apns-priority` 5|10; `apns-collapse-id` at most 64 bytes;
`apns-id` a UUID; a JSON payload with an `aps` dictionary, at most 4096 bytes. A request with problems is answered
400 with APNs' reason; a device token starting with `00` is answered 410 `Unregistered`; anything else 200.
"""
import base64
import datetime
import json
import os
import re
import socket
import ssl
import sys
import tempfile
import threading
import time

import h2.config
import h2.connection
import h2.events
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.x509.oid import NameOID

UUID = re.compile(r"^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$")


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def self_signed(directory):
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    import ipaddress
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
    with open(cert_path, "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(key_path, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    return cert_path, key_path


class Checker:
    def __init__(self, public_key, key_id, team_id, topic):
        self.public_key, self.key_id, self.team_id, self.topic = public_key, key_id, team_id, topic

    def check(self, headers, body):
        errors = []
        if headers.get(":method") != "POST":
            errors.append("MethodNotAllowed")
        path = headers.get(":path", "")
        match = re.match(r"^/3/device/([0-9a-f]+)$", path)
        if not match:
            errors.append("BadPath")
        auth = headers.get("authorization", "")
        if not auth.startswith("bearer "):
            errors.append("MissingProviderToken")
        else:
            try:
                head_b64, claims_b64, sig_b64 = auth[len("bearer "):].split(".")
                head, claims = json.loads(b64url_decode(head_b64)), json.loads(b64url_decode(claims_b64))
                sig = b64url_decode(sig_b64)
                der = encode_dss_signature(int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big"))
                self.public_key.verify(der, (head_b64 + "." + claims_b64).encode(), ec.ECDSA(hashes.SHA256()))
                if head.get("alg") != "ES256" or head.get("kid") != self.key_id or claims.get("iss") != self.team_id:
                    errors.append("InvalidProviderToken")
                if not (time.time() - 3600 < claims.get("iat", 0) <= time.time() + 60):
                    errors.append("ExpiredProviderToken")
            except (ValueError, InvalidSignature):
                errors.append("InvalidProviderToken")
        push_type = headers.get("apns-push-type")
        if push_type not in ("alert", "background", "liveactivity"):
            errors.append("InvalidPushType")
        expected_topic = self.topic + (".push-type.liveactivity" if push_type == "liveactivity" else "")
        if headers.get("apns-topic") != expected_topic:
            errors.append("TopicDisallowed")
        if headers.get("apns-priority") not in ("5", "10"):
            errors.append("BadPriority")
        if len(headers.get("apns-collapse-id", "").encode()) > 64:
            errors.append("BadCollapseId")
        if not UUID.match(headers.get("apns-id", "")):
            errors.append("BadMessageId")
        payload = None
        if len(body) > 4096:
            errors.append("PayloadTooLarge")
        try:
            payload = json.loads(body)
            if not isinstance(payload.get("aps"), dict):
                errors.append("PayloadEmpty")
        except ValueError:
            errors.append("BadPayload")
        return (match.group(1) if match else None), payload, errors


def serve(connection, context, checker, record):
    try:
        tls = context.wrap_socket(connection, server_side=True)
    except (ssl.SSLError, OSError):
        return
    if tls.selected_alpn_protocol() != "h2":
        tls.close()
        return
    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
    conn.initiate_connection()
    tls.sendall(conn.data_to_send())
    streams = {}
    while True:
        try:
            data = tls.recv(65536)
        except OSError:
            break
        if not data:
            break
        for event in conn.receive_data(data):
            if isinstance(event, h2.events.RequestReceived):
                streams[event.stream_id] = (dict(event.headers), bytearray())
            elif isinstance(event, h2.events.DataReceived):
                streams[event.stream_id][1].extend(event.data)
                conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                headers, body = streams.pop(event.stream_id)
                token, payload, errors = checker.check(headers, bytes(body))
                if errors:
                    status, reason = 400, errors[0]
                elif token and token.startswith("00"):
                    status, reason = 410, "Unregistered"
                else:
                    status, reason = 200, None
                entry = {"headers": {k: v for k, v in headers.items() if k != "authorization"}, "token": token, "payload": payload,
                         "errors": errors, "status": status, "http2": True, "at": time.time()}
                with open(record, "a") as f:
                    f.write(json.dumps(entry) + "\n")
                answer = json.dumps({"reason": reason}).encode() if reason else b""
                response = [(":status", str(status)), ("apns-id", headers.get("apns-id", ""))]
                if answer:
                    response.append(("content-type", "application/json"))
                conn.send_headers(event.stream_id, response, end_stream=not answer)
                if answer:
                    conn.send_data(event.stream_id, answer, end_stream=True)
        tls.sendall(conn.data_to_send())
    tls.close()


def exit_with_parent():
    parent = os.getppid()
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


def main():
    public_pem, key_id, team_id, topic, record = sys.argv[1:6]
    with open(public_pem, "rb") as f:
        public_key = serialization.load_pem_public_key(f.read())
    threading.Thread(target=exit_with_parent, daemon=True).start()
    directory = tempfile.mkdtemp(prefix="apns-receiver-")
    cert, key = self_signed(directory)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    context.set_alpn_protocols(["h2"])
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    print("listening on https://127.0.0.1:%d ca=%s" % (listener.getsockname()[1], cert), flush=True)
    checker = Checker(public_key, key_id, team_id, topic)
    while True:
        connection, _ = listener.accept()
        threading.Thread(target=serve, args=(connection, context, checker, record), daemon=True).start()


if __name__ == "__main__":
    sys.exit(main())
