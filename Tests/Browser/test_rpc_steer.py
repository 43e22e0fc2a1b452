"""A run the server starts runs in ralph's RPC mode: the session page shows its cost, context window use and tool calls
live, and the steer form's "Now (this iteration)" gets ralph's acknowledgement (fake-ralph in a real Chromium)."""

import time
import types
import unittest

from harness import Server, Workspace, make_driver, one, test_id, wait


class RpcSteer(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.workspace = Workspace()
        cls.workspace.write("rpc.yml", "fake_ralph:\n  iterations: 1000\n  pace: 0.5\n  rpc_tool_seconds: 1.5\n")
        cls.server = Server(cls.workspace, types.SimpleNamespace(base="http://127.0.0.1:9"), api_key=None).start()
        status, started = cls.server.api("POST", "/api/sessions", {"config_path": "rpc.yml", "prompt": "Steer me now"})
        if status != 201:
            raise AssertionError(f"start failed: {status} {started}")
        cls.run_id = started["id"]
        cls.driver = make_driver()

    @classmethod
    def tearDownClass(cls):
        try:
            cls.driver.quit()
        finally:
            cls.server.api("DELETE", f"/api/sessions/{cls.run_id}")
            cls.server.stop()
            cls.workspace.cleanup()

    def test_live_card_and_steer_now(self):
        d = self.driver
        d.get(f"{self.server.base}/#/sessions/{self.run_id}")
        card = one(d, test_id("rpc-live"), 20)
        wait(d, lambda _: card.is_displayed() and "so far" in card.text, timeout=20, message="the live card shows the cost so far")
        wait(d, lambda _: "of 200,000 tokens" in card.text, timeout=20, message="and the context window use")
        wait(d, lambda _: "Bash: swift test" in card.text, timeout=20, message="and a tool call in progress")
        one(d, test_id("steer-text")).send_keys("Check the failing test first")
        one(d, test_id("steer-now")).click()
        one(d, test_id("steer-submit")).click()
        wait(d, lambda _: "acknowledged for this iteration" in one(d, test_id("rpc-ack")).text, timeout=20,
             message="ralph's acknowledgement of the steer shows on the page")
        deadline = time.time() + 20
        steered = False
        while time.time() < deadline and not steered:
            status, detail = self.server.api("GET", f"/api/sessions/{self.run_id}")
            steered = status == 200 and any(i.get("steered") for i in detail["rpc"]["iterations"])
            time.sleep(0.2)
        self.assertTrue(steered, "the iteration the steer landed in is marked steered")


if __name__ == "__main__":
    unittest.main()
