"""A push subscription the browser replaced (`pushsubscriptionchange`), in headless Chromium against the real server.

DevTools cannot make Chromium fire `pushsubscriptionchange` (no command does, and headless Chromium has no push service
to rotate a subscription), so the event is dispatched by a script evaluated in the service worker's own DevTools target:
an `ExtendableEvent` of that type carrying the old subscription, with the worker's `PushManager.subscribe` giving the
local Web Push receiver's second subscription. The listener, the module and the request are the real ones, from the
worker, with the page's login cookie; only the event's origin is synthetic (so its `waitUntil` throws, as the spec says
for an untrusted event, after the work has started: the test waits on the server instead).

Signed in, the new subscription replaces the device (its name and kinds carry over, one device remains); signed out,
the worker shows the notification that says notifications stopped and leads to Settings.

Run after `swift build --build-tests`: `/usr/bin/python3 -m unittest Tests/Browser/test_resubscribe.py -v`.
"""

import json
import time
import os
import unittest
import urllib.request

from cdp import CDP, CDPError
from harness import ADMIN_KEY, FakeAnthropic, Server, Workspace, css, make_driver, one, severe_console_errors, test_id, wait
from dashboard_base import click
from notify_fixtures import FAKE_PUSH_MANAGER_JS, NOTIFICATIONS_JS, PushService

# Evaluated in the service worker: `subscribe` gives NEW; the event carries OLD (with the key it was made with).
FIRE_JS = """(async () => {
  const old = OLD, next = NEW;
  const key = new Uint8Array(old.key).buffer;
  PushManager.prototype.subscribe = async (options) => ({
    endpoint: next.endpoint, options: { applicationServerKey: new Uint8Array(options.applicationServerKey).buffer },
    toJSON: () => ({ endpoint: next.endpoint, expirationTime: null, keys: next.keys }),
  });
  const event = new ExtendableEvent('pushsubscriptionchange');
  Object.defineProperty(event, 'oldSubscription', { value: {
    endpoint: old.endpoint, options: { applicationServerKey: key }, toJSON: () => ({ endpoint: old.endpoint, keys: old.keys }) } });
  Object.defineProperty(event, 'newSubscription', { value: null });
  try { self.dispatchEvent(event); } catch (error) { return String(error); }
  return 'dispatched';
})()"""


class Resubscribe(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.workspace = Workspace()
        cls.anthropic = FakeAnthropic(cls.workspace.dir)
        cls.server = Server(cls.workspace, cls.anthropic).start()
        cls.push_service = PushService()
        cls.driver = make_driver()

    @classmethod
    def tearDownClass(cls):
        try:
            cls.driver.quit()
        finally:
            cls.push_service.stop()
            cls.server.stop()
            cls.anthropic.stop()
            cls.workspace.cleanup()

    def tearDown(self):
        self.assertEqual(severe_console_errors(self.driver), [], "the browser console has errors")

    def devices(self):
        return self.server.api("GET", "/api/notifications/devices")[1]["devices"]

    def worker(self):
        """The DevTools connection to the dashboard's service worker."""
        address = self.driver.capabilities["goog:chromeOptions"]["debuggerAddress"]
        with urllib.request.urlopen(f"http://{address}/json/list", timeout=10) as response:
            targets = json.load(response)
        found = [t for t in targets if t.get("type") == "service_worker" and t.get("url") == self.server.base + "/sw.js"]
        if not found:
            raise CDPError(f"no service worker target among {[(t.get('type'), t.get('url')) for t in targets]}")
        return CDP(found[0]["webSocketDebuggerUrl"])

    def fire(self, worker, old, new):
        script = FIRE_JS.replace("OLD", json.dumps(old)).replace("NEW", json.dumps(new))
        result = worker.send("Runtime.evaluate", {"expression": script, "awaitPromise": True, "returnByValue": True})
        self.assertEqual(result.get("result", {}).get("value"), "dispatched", result)

    @staticmethod
    def worker_notifications(worker):
        try:
            result = worker.send("Runtime.evaluate", {"expression": "self.registration.getNotifications().then((l) => JSON.stringify(l.map((n) => n.title)))",
                                                      "awaitPromise": True, "returnByValue": True})
            return result.get("result", {}).get("value")
        except CDPError as error:
            return f"not read ({error})"

    @staticmethod
    def worker_console(worker):
        lines = []
        for event in worker.events:
            params = event.get("params", {})
            if event.get("method") == "Runtime.consoleAPICalled":
                lines.append(" ".join(str(a.get("value", a.get("description"))) for a in params.get("args", [])))
            elif event.get("method") == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                lines.append(f"uncaught at line {details.get('lineNumber')}: {details.get('exception', {}).get('description', details.get('text'))}"[:300])
        return lines

    def test_rotated_subscription_replaces_the_device_then_signed_out_says_so(self):
        d = self.driver
        first = self.push_service.call("POST", "/control/subscription", {})
        second = self.push_service.call("POST", "/control/subscription", {})
        third = self.push_service.call("POST", "/control/subscription", {})
        self.assertEqual(len({first["endpoint"], second["endpoint"], third["endpoint"]}), 3)
        d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": FAKE_PUSH_MANAGER_JS.replace("SUBSCRIPTION", json.dumps(first))})
        d.get(self.server.base + "/")
        one(d, "#login-key").send_keys(ADMIN_KEY)
        click(one(d, "form.login button[type=submit]"))
        wait(d, lambda _: css(d, "#tabbar:not([hidden])"), message="logged in")
        d.execute_cdp_cmd("Browser.grantPermissions", {"origin": self.server.base, "permissions": ["notifications"]})
        d.get(self.server.base + "/#/settings")
        click(one(d, test_id("notify-subscribe")))
        wait(d, lambda _: css(d, test_id("notify-subscribed")) and one(d, test_id("notify-subscribed")).get_attribute("data-value") == "subscribed",
             timeout=30, message="subscribed")
        [device] = self.devices()
        status, _ = self.server.api("PATCH", f"/api/notifications/devices/{device['id']}", {"name": "Desk browser", "kinds": ["approval"]})
        self.assertEqual(status, 200)
        key = json.loads(d.execute_script("return localStorage.getItem('test.push')"))
        # The synthetic event gives the worker no extended lifetime, and Chromium stops a worker idle for 30 s once no
        # DevTools session holds it: under load that stopped it in the middle of the signed-out handler (CI). One session
        # is held from here to the end, so the worker lives until the test has seen what it did.
        worker = self.worker()
        worker.send("Runtime.enable")  # its console and uncaught errors are kept, to say what happened if a step fails
        try:
            self.check_replacement(d, worker, device, key, first, second, third)
        finally:
            worker.close()

    def check_replacement(self, d, worker, device, key, first, second, third):
        # Signed in: the worker registers the new subscription in place of the old one.
        self.fire(worker, {"endpoint": first["endpoint"], "keys": first["keys"], "key": key}, second)
        wait(d, lambda _: [dev["id"] for dev in self.devices()] != [device["id"]], timeout=20, message="the device replaced")
        [replaced] = self.devices()
        self.assertEqual((replaced["name"], replaced["kinds"]), ("Desk browser", ["approval"]), replaced)
        self.assertNotEqual(replaced["id"], device["id"])
        # The open page is told the new id, so presence and Settings name this device (the id left in Cache Storage for
        # a page opened later is checked by Tests/Web/notify-handoff.test.mjs: a reload here made the signed-out dispatch
        # below fail once in three full runs under load, cause not found).
        wait(d, lambda _: d.execute_script("return localStorage.getItem('ralph.notify.device')") == replaced["id"], timeout=10,
             message="the page to adopt the new device id")

        # Signed out: nothing changes on the server, and the worker says notifications stopped. The dashboard is left
        # first (a browser usually replaces a subscription with no page open; an open dashboard would also rightly
        # log its next request's 401 as the login ending); the notifications are read from a plain page of the origin.
        d.get(self.server.base + "/assets/icons/icon-192.png")
        d.delete_all_cookies()
        self.fire(worker, {"endpoint": second["endpoint"], "keys": second["keys"], "key": key}, third)
        # The notifications are read only once the worker has said the registration failed, and a second later: a
        # `getNotifications` racing Chromium's own `showNotification` made the new notification vanish (it was shown —
        # the worker's promise resolved — and was gone from the list 3 s later; one run in three, even alone). Likely
        # cause: Chromium prunes from its notification database what it does not see displayed yet when it is read; no
        # browser polls like this test does.
        worker.wait_event(lambda e: e.get("method") == "Runtime.consoleAPICalled" and "not registered again" in json.dumps(e), timeout=20)
        time.sleep(1)

        def shown(_):
            found = d.execute_async_script(NOTIFICATIONS_JS, "ralph-resubscribe")
            self.assertNotIsInstance(found, dict, f"getNotifications failed: {found}")
            return found
        try:
            [notice] = wait(d, shown, timeout=20, message="the notification that notifications stopped")
        except AssertionError as error:
            raise AssertionError(f"{error}; the worker's own list: {self.worker_notifications(worker)}; its console: {self.worker_console(worker)}")
        self.assertEqual(notice["title"], "Ralph Mobile notifications stopped")
        self.assertIn("signed out", notice["body"])
        self.assertIn("Open Settings", notice["body"])
        self.assertEqual(notice["data"]["path"], "/#/settings")
        self.assertEqual([dev["id"] for dev in self.devices()], [replaced["id"]], "nothing changed on the server")


if __name__ == "__main__":
    unittest.main()
