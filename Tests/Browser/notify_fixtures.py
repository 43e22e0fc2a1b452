"""What the notification browser tests stand on: a webhook sink (to read a real approval's message with its tokens),
the local Web Push receiver as the page's push service, the page-side scripts, and message builders."""

import http.server
import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.request

from harness import ROOT

class WebhookSink:
    """A webhook device's receiver: records each `NotificationMessage` the server posts (the signature is checked by
    the server's own tests against Tests/Receivers; here only the message matters)."""

    def __init__(self):
        self.messages = []
        self.lock = threading.Condition()
        sink = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with sink.lock:
                    sink.messages.append(json.loads(body))
                    sink.lock.notify_all()
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/hook"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def wait_for(self, predicate, timeout=30, what="a message"):
        deadline = time.time() + timeout
        with self.lock:
            while True:
                found = [m for m in self.messages if predicate(m)]
                if found:
                    return found[0]
                remaining = deadline - time.time()
                if remaining <= 0:
                    raise AssertionError(f"the webhook never got {what}; got {[(m.get('kind'), m.get('tag'), m.get('withdraw')) for m in self.messages]}")
                self.lock.wait(remaining)

    def stop(self):
        self.httpd.shutdown()


class PushService:
    """The local Web Push receiver standing in for the browser's push service (RALPH_MOBILE_RECEIVERS_PATH, from
    `scripts/receivers`, gives it http_ece and cryptography)."""

    def __init__(self):
        path = os.environ.get("RALPH_MOBILE_RECEIVERS_PATH")
        if not path:
            out = subprocess.run([os.path.join(ROOT, "scripts", "receivers")], capture_output=True, text=True, check=True)
            path = re.search(r"RALPH_MOBILE_RECEIVERS_PATH=(\S+)", out.stdout).group(1)
        self.process = subprocess.Popen([sys.executable, os.path.join(ROOT, "Tests", "Receivers", "push_receiver.py")],
                                        stdout=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONPATH=path), start_new_session=True)
        line = self.process.stdout.readline()
        match = re.search(r"listening on (http://\S+)", line)
        if not match:
            self.stop()
            raise RuntimeError(f"push_receiver did not start: {line!r}")
        self.base = match.group(1)

    def call(self, method, path, body=None):
        if self.process.poll() is not None:
            raise AssertionError(f"push_receiver is not running (exit status {self.process.returncode}: killed by something else?)")
        request = urllib.request.Request(self.base + path, data=json.dumps(body).encode() if body is not None else None, method=method)
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.load(response)

    def received(self, count, timeout=20):
        return self.call("GET", f"/control/received?count={count}&timeout={timeout}")

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(5)


# The page's PushManager holding `SUBSCRIPTION` (the receiver's) as if its push service had given it.
FAKE_PUSH_MANAGER_JS = """(() => {
  const given = SUBSCRIPTION;
  const make = (options) => ({
    endpoint: given.endpoint,
    options: { userVisibleOnly: true, applicationServerKey: options && options.applicationServerKey ? new Uint8Array(options.applicationServerKey).buffer : null },
    toJSON: () => ({ endpoint: given.endpoint, expirationTime: null, keys: given.keys }),
    unsubscribe: async () => { localStorage.removeItem('test.push'); return true; },
  });
  PushManager.prototype.subscribe = async function (options) {
    localStorage.setItem('test.push', JSON.stringify(Array.from(new Uint8Array(options.applicationServerKey))));
    return make(options);
  };
  PushManager.prototype.getSubscription = async function () {
    const key = localStorage.getItem('test.push');
    return key ? make({ applicationServerKey: new Uint8Array(JSON.parse(key)) }) : null;
  };
})();"""


NOTIFICATIONS_JS = """
const done = arguments[arguments.length - 1];
navigator.serviceWorker.getRegistration('/').then((r) => r ? r.getNotifications(arguments[0] ? {tag: arguments[0]} : undefined) : [])
  .then((list) => done(list.map((n) => ({title: n.title, body: n.body, tag: n.tag, silent: n.silent, renotify: n.renotify,
    requireInteraction: n.requireInteraction, actions: n.actions.map((a) => ({action: a.action, title: a.title, type: a.type})),
    data: n.data}))), (e) => done({error: String(e)}));
"""

# The click of a notification's button, as the service worker runs it (the same modules, in the page: DevTools cannot
# press a notification's button).
ACTION_JS = """
const [tag, action, reply] = arguments; const done = arguments[arguments.length - 1];
(async () => {
  const m = await import('/assets/js/notify/action.js');
  const r = await navigator.serviceWorker.getRegistration('/');
  const [n] = await r.getNotifications({tag});
  if (!n) return {error: 'no notification with tag ' + tag};
  const plan = m.clickPlan(n.data, action, reply);
  if (plan.kind !== 'send') return {plan};
  const result = await m.sendAction(fetch, location.origin, plan.token, plan.text);
  return {plan, result, outcome: m.outcomeDisplay(n.data, result)};
})().then(done, (e) => done({error: String(e)}));
"""


def message(tag, title, **fields):
    """A NotificationMessage. An approval's kind by default: Chromium closes notifications without requireInteraction
    after about 25 s, which a slow run of these tests can exceed."""
    base = {"id": "m-" + tag + "-" + title, "kind": "approval", "subject": "session", "subject_id": "r1", "title": title,
            "body": "The run ended.", "tag": tag, "path": "/#/sessions/r1", "actions": [], "created_at": "2026-11-23T18:00:00Z"}
    base.update(fields)
    return base
