"""The API reference page (/docs) in a real Chromium, phone-sized, on a server with a key: the page and the contract
need none; it renders every operation of /openapi.json, filters them, and opens one with its parameters, body,
responses and event frames. Nothing comes from another origin (the page's CSP allows only the server itself)."""

import json
import types
import unittest
import urllib.request

from harness import Server, Workspace, css, make_driver, one, screenshot, severe_console_errors, wait


class APIDocs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.workspace = Workspace()
        cls.server = Server(cls.workspace, types.SimpleNamespace(base="http://127.0.0.1:9")).start()
        cls.driver = make_driver()

    @classmethod
    def tearDownClass(cls):
        try:
            cls.driver.quit()
        finally:
            cls.server.stop()
            cls.workspace.cleanup()

    def contract(self):
        with urllib.request.urlopen(f"{self.server.base}/openapi.json") as response:
            return json.load(response)

    def test_1_every_operation_is_rendered_and_the_filter_finds_one(self):
        spec = self.contract()
        operations = sum(1 for item in spec["paths"].values() for method in ("get", "head", "post", "put", "patch", "delete") if method in item)
        d = self.driver
        d.get(f"{self.server.base}/docs")
        wait(d, lambda _: d.execute_script("return document.body.dataset.operations") is not None, message="the contract rendered")
        self.assertEqual(int(d.execute_script("return document.body.dataset.operations")), operations)
        self.assertEqual(len(css(d, "details.op")), operations, "one entry per operation")
        self.assertIn(spec["info"]["title"], one(d, "#docs-title").text)
        one(d, "#docs-filter").send_keys("post /api/sessions/{id}/steer")
        wait(d, lambda _: len([e for e in css(d, "details.op") if e.is_displayed()]) == 1, message="the filter leaves one operation")
        shown = [e for e in css(d, "details.op") if e.is_displayed()][0]
        self.assertIn("/api/sessions/{id}/steer", shown.text)
        self.assertIn("operator", shown.text, "the least role that may call it")
        shown.click()
        wait(d, lambda _: "request body" in shown.text.lower() and "SteerRequest" in shown.text, message="the operation opens with its body")
        screenshot(d, "api-docs")
        self.assertEqual(severe_console_errors(d), [])

    def test_2_an_event_stream_shows_its_frames_and_their_data(self):
        d = self.driver
        d.get(f"{self.server.base}/docs#streamSessionEvents")
        op = one(d, "#streamSessionEvents")
        # (Selenium reads the headings as shown: upper case.)
        wait(d, lambda _: op.get_attribute("open") is not None and "responses" in op.text.lower(), message="the linked operation opens")
        text = op.text
        for expected in ("Last-Event-ID", "event: workflow", "event: end", "WorkflowEvent", "viewer"):
            self.assertIn(expected, text)
        self.assertEqual(severe_console_errors(d), [])


if __name__ == "__main__":
    unittest.main()
