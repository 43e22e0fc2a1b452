"""A trusted loopback server (bound to 127.0.0.1, no key: the default) in a real Chromium.

Its own dashboard steers a live run without a login; a page of another site, a page on another port of the same host,
and a page reached through a DNS name rebound to 127.0.0.1 (Chromium's `--host-resolver-rules` plays the attacker's
DNS) change nothing, whatever a browser lets them send.
"""

import http.server
import threading
import time
import types
import unittest

from harness import Ralph, Server, Workspace, make_driver, one, test_id, wait

EVIL_HOST = "evil.test"

# What a hostile page can send to another origin without asking first (no CORS preflight): a text/plain fetch, a
# body-less fetch, and a form posted into a hidden frame. It reports when all of it has been sent.
EVIL_PAGE = """<!doctype html><title>cute cats</title>
<iframe name="sink" style="display:none"></iframe>
<form id="form" method="post" enctype="text/plain" target="sink" action="TARGET/api/sessions/RUN/steer">
<input name='{"message":"EVIL form","x":"' value='"}'></form>
<script>
const target = 'TARGET';
Promise.allSettled([
  fetch(target + '/api/sessions/RUN/steer', {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'},
        body: JSON.stringify({message: 'EVIL fetch'})}),
  fetch(target + '/api/sessions/RUN/pause', {method: 'POST', mode: 'no-cors'}),
  fetch(target + '/api/sessions', {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'},
        body: JSON.stringify({config_path: 'ralph.yml', prompt: 'EVIL run'})}),
]).then(() => { document.getElementById('form').submit(); setTimeout(() => { document.title = 'sent'; }, 1000); });
</script>"""


class EvilSite:
    """A web server on another port that serves EVIL_PAGE aimed at `target`."""

    def __init__(self, target, run_id):
        page = EVIL_PAGE.replace("TARGET", target).replace("RUN", run_id).encode()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self):
        self.httpd.shutdown()


class TrustedLoopback(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.workspace = Workspace()
        # No conversation is started here: the model API is never called.
        cls.server = Server(cls.workspace, types.SimpleNamespace(base="http://127.0.0.1:9"), api_key=None).start()
        cls.ralph = Ralph(cls.workspace)
        deadline = time.time() + 20
        cls.run_id = None
        while time.time() < deadline and not cls.run_id:
            status, sessions = cls.server.api("GET", "/api/sessions")
            live = [s for s in sessions if s["mode"] == "live"] if status == 200 else []
            cls.run_id = live[0]["id"] if live else None
            time.sleep(0.1)
        if not cls.run_id:
            raise AssertionError("the ralph run never showed as live")
        cls.evil = EvilSite(cls.server.base, cls.run_id)
        cls.driver = make_driver(extra_arguments=[f"--host-resolver-rules=MAP {EVIL_HOST} 127.0.0.1"])

    @classmethod
    def tearDownClass(cls):
        try:
            cls.driver.quit()
        finally:
            cls.evil.stop()
            cls.ralph.stop()
            cls.server.stop()
            cls.workspace.cleanup()

    def guidance(self):
        return [line["payload"] for line in self.ralph.lines() if line.get("topic") == "human.guidance"]

    def ralph_state(self):
        with open(f"/proc/{self.ralph.process.pid}/stat") as f:
            return f.read().split(")")[1].split()[0]

    def test_1_the_dashboard_steers_and_pauses_without_a_login(self):
        d = self.driver
        d.get(f"{self.server.base}/#/sessions/{self.run_id}")
        one(d, test_id("steer-text"), 20).send_keys("From the trusted dashboard")
        one(d, test_id("steer-submit")).click()
        wait(d, lambda _: "From the trusted dashboard" in self.guidance(), message="the guidance reached ralph")
        one(d, test_id("pause")).click()
        wait(d, lambda _: self.ralph_state() == "T", message="ralph is paused from the page (a POST without a body)")
        # ralph stops before the page has the answer: Resume shows once the page knows, as a person would see it.
        wait(d, lambda _: one(d, test_id("resume")).is_displayed(), message="the page shows the run paused")
        one(d, test_id("resume")).click()
        wait(d, lambda _: self.ralph_state() != "T", message="and resumed")

    def attack_from(self, origin):
        d = self.driver
        d.get(f"{origin}/evil.html")
        wait(d, lambda _: d.title == "sent", timeout=20, message=f"the page at {origin} sent its requests")
        time.sleep(1)
        self.assertFalse([g for g in self.guidance() if "EVIL" in str(g)], f"nothing from {origin} reached the run")
        self.assertNotEqual(self.ralph_state(), "T", f"the page at {origin} did not pause the run")
        sessions = self.server.api("GET", "/api/sessions")[1]
        self.assertFalse([s for s in sessions if "EVIL" in (s.get("task_name") or "")], f"the page at {origin} started no run")

    def test_2_a_page_of_another_site_changes_nothing(self):
        self.attack_from(f"http://{EVIL_HOST}:{self.evil.port}")

    def test_3_a_page_on_another_port_of_this_host_changes_nothing(self):
        self.attack_from(f"http://127.0.0.1:{self.evil.port}")

    def test_4_a_rebound_dns_name_reaches_nothing(self):
        d = self.driver
        # The attacker's name now resolves to this machine: the browser sees the server as that site's own origin.
        d.get(f"http://{EVIL_HOST}:{self.server.port}/")
        self.assertIn("misdirected_request", one(d, "body").text)
        status = d.execute_async_script(
            """const done = arguments[arguments.length - 1];
            fetch('/api/sessions/%s/steer', {method: 'POST', headers: {'Content-Type': 'application/json'},
                  body: JSON.stringify({message: 'EVIL rebound'})}).then(r => done(r.status), e => done(String(e)));"""
            % self.run_id)
        self.assertEqual(status, 421)
        read = d.execute_async_script(
            "const done = arguments[arguments.length - 1]; fetch('/api/sessions').then(r => done(r.status), e => done(String(e)));")
        self.assertEqual(read, 421, "nothing can be read through the rebound name either")
        self.assertFalse([g for g in self.guidance() if "EVIL" in str(g)])


if __name__ == "__main__":
    unittest.main()
