"""The OpenAPI contract against the real server: schemathesis (pinned in scripts/python-tools.txt) generates requests
for every operation from /openapi.json — valid ones, invalid ones, and sequences that follow the links between
operations — and runs all of its checks on every answer: no server error, every status, content type, header and
body as the contract says, invalid input refused, valid input accepted, authentication not ignored, deleted things
gone. Once with a key of each role (viewer, operator, then admin, whose operations change the most), on one server
with a live ralph run, a conversation with the real Claude Code CLI (against fake-anthropic) and the library files of
the browser tests' workspace, whose ids and paths are given to schemathesis so that its requests reach them.

What schemathesis is told beyond the contract is in `config()` below, each with its reason. Its reports (the command,
every failure with a curl line to reproduce it) are kept in the workspace and printed when a role fails.

Needs RALPH_MOBILE_PYTHON_TOOLS (`eval "$(scripts/python-tools)"`, as scripts/test does). RALPH_MOBILE_ST_SPEC names a
contract file to use instead of the served one (while editing it), RALPH_MOBILE_ST_EXAMPLES the number of examples per
operation (default 10), RALPH_MOBILE_ST_KEEP=1 keeps the workspace with the reports."""

import json
import os
import subprocess
import time
import unittest

from harness import ADMIN_KEY, FakeAnthropic, Ralph, Server, Workspace, model
from workspace_files import fake_ralph

TOOLS = os.environ.get("RALPH_MOBILE_PYTHON_TOOLS")
EXAMPLES = int(os.environ.get("RALPH_MOBILE_ST_EXAMPLES", "10"))

# Event streams never end by themselves: schemathesis reads this many events of one, then closes it.
STREAM_EVENTS = 1

# Operations whose valid input the contract cannot fully describe, so that a schema-valid request may still be refused
# with 400 (every other check still applies to them, and their refusals are tested in the Swift suites):
SEMANTIC_400 = {
    "GET /api/conversations": "`cursor` is an opaque token of an earlier page",
    "GET /api/conversations/{id}/messages": "`before` is an opaque token of an earlier page",
    "POST /api/notifications/devices": "a Web Push key must be a point of P-256; URLs must name a host",
    "PATCH /api/notifications/devices/{id}": "the same rules as registering",
    "POST /api/conversations": "`cwd` must be a directory inside the workspace roots",
    "PUT /api/conversations/{id}/auto-reply": "rules across fields: a `judge` strategy needs `judge`, `message_based` needs `max_messages`",
    "POST /api/conversations/{id}/auto-reply/start": "the same rules across fields",
    "POST /api/chat/auto-response/start": "the same rules across fields",
    "POST /api/config/import": "`content` must be ralph's configuration: a YAML mapping with known sections",
    "POST /api/sessions": "`config_path`, `prompt_path` and `working_dir` must name files and directories in the workspace",
    "POST /api/loops": "`config_path` must name a file in the workspace and the workspace be a git repository",
    "POST /api/pairing": "`url` must be an address a URL parser reads with a host",
}


def toml_string(value):
    return json.dumps(value)


@unittest.skipUnless(TOOLS, "RALPH_MOBILE_PYTHON_TOOLS is not set: run `eval \"$(scripts/python-tools)\"` first (scripts/test does)")
class Schemathesis(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ralph = cls.server = cls.anthropic = None
        try:
            cls.start()
        except BaseException:
            # unittest does not call tearDownClass after a failed setUpClass: nothing may be left running.
            cls.tearDownClass()
            raise

    @classmethod
    def start(cls):
        cls.workspace = Workspace()
        # Runs started by the admin's requests end by themselves, quickly.
        cls.workspace.write("presets/quick.yml", "# Quick preset\nevent_loop:\n  max_iterations: 3\n" + fake_ralph(3))
        cls.anthropic = FakeAnthropic(cls.workspace.dir)
        # APNs credentials (a key made here, APNs itself at a closed port): Live Activities can be registered, their
        # deliveries fail and are recorded as failures.
        apns_key = os.path.join(cls.workspace.dir, "AuthKey_TEST000001.p8")
        subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", apns_key], check=True,
                       capture_output=True)
        cls.server = Server(cls.workspace, cls.anthropic, extra_args=[
            # schemathesis presents wrong keys on purpose (it checks that they are refused), hundreds of times a minute,
            # from the one address every test request comes from.
            "--auth-failure-limit", "1000000",
            "--apns-key", apns_key, "--apns-key-id", "TEST000001", "--apns-team-id", "TEAM000001", "--apns-topic", "dev.ralph.mobile",
            "--apns-host", "127.0.0.1:9",
        ]).start()
        cls.ralph = Ralph(cls.workspace)
        cls.keys = {"viewer": cls.server.create_key("viewer", "st-viewer"), "operator": cls.server.create_key("operator", "st-operator"),
                    "admin": ADMIN_KEY}
        deadline = time.time() + 30
        sessions = []
        while time.time() < deadline and not sessions:
            status, body = cls.server.api("GET", "/api/sessions")
            sessions = body if status == 200 and isinstance(body, list) else []
            time.sleep(0.2)
        if not sessions:
            raise RuntimeError("the ralph run did not show up: " + cls.server.log_tail())
        cls.session_id = sessions[0]["id"]
        status, conversation = cls.server.api("POST", "/api/conversations", {"cwd": cls.workspace.ws, "title": "contract"})
        if status != 201:
            raise RuntimeError(f"could not create a conversation: {status} {conversation}")
        cls.conversation_id = conversation["id"]
        print(f"\nschemathesis: run {cls.session_id}, conversation {cls.conversation_id} in {cls.workspace.ws}", flush=True)
        status, sent = cls.server.api("POST", f"/api/conversations/{cls.conversation_id}/messages", {"text": model(["say Hello."])})
        if status not in (200, 202):
            raise RuntimeError(f"could not send a message: {status} {sent}")

    @classmethod
    def tearDownClass(cls):
        try:
            if cls.ralph:
                cls.ralph.stop()
        finally:
            try:
                if cls.server:
                    cls.server.stop()
            finally:
                if cls.anthropic:
                    cls.anthropic.stop()
                if not os.environ.get("RALPH_MOBILE_ST_KEEP"):
                    cls.workspace.cleanup()

    def config(self, role):
        """schemathesis.toml for one role's run."""
        ws = self.workspace.ws
        lines = [
            "request-timeout = 15",
            f"max-stream-events = {STREAM_EVENTS}",
            "workers = 1",
            "[generation]",
            f"max-examples = {EXAMPLES}",
            # Identical runs from one commit to the next: a failure found once is found again.
            "deterministic = true",
            # The server ignores query parameters it does not know (clients add their own, e.g. cache busters).
            "allow-extra-parameters = false",
            "",
            # The workspace a library request names must exist, which no schema can say: requests name the test's
            # workspace (the server's refusal of others is tested in LibraryRoutesTests).
            "[parameters]",
            f"workspace = {toml_string(ws)}",
            "",
        ]
        # The catch-all paths hold slashes, which schemathesis never generates in a path parameter: they get real files.
        for label, value in [("GET /api/prompts/{path}", "prompts/docs.md"), ("GET /assets/{path}", "css/app.css"), ("HEAD /assets/{path}", "js/app.js")]:
            lines += ["[[operations]]", f"include-name = {toml_string(label)}", f"parameters = {{ \"path.path\" = {toml_string(value)} }}", ""]
        # The run's id, so that requests reach a run rather than only 404s (not for DELETE: the run must outlive the runs
        # of every role). Conversations are reached through schemathesis's own links: from the list, which holds the
        # test's conversation, and from those it creates (a fixed id would outlive a conversation a DELETE removed).
        lines += ["[[operations]]", f"include-name-regex = {toml_string('^(GET|HEAD|POST|PUT|PATCH) /api/sessions/[{]id[}]')}",
                  f"parameters = {{ \"path.id\" = {toml_string(self.session_id)} }}", ""]
        for label, reason in SEMANTIC_400.items():
            lines += [f"# {reason}", "[[operations]]", f"include-name = {toml_string(label)}",
                      "checks.positive_data_acceptance.expected-statuses = [\"2xx\", \"3xx\", \"400\", \"401\", \"403\", \"404\", \"409\", \"429\"]", ""]
        return "\n".join(lines)

    def run_role(self, role):
        report = os.path.join(self.workspace.dir, f"schemathesis-{role}")
        os.makedirs(report, exist_ok=True)
        config_path = os.path.join(report, "schemathesis.toml")
        with open(config_path, "w") as f:
            f.write(self.config(role))
        spec = os.environ.get("RALPH_MOBILE_ST_SPEC") or f"{self.server.base}/openapi.json"
        command = [os.path.join(TOOLS, "st"), "--config-file", config_path, "run", spec, "--url", self.server.base,
                   "--header", f"Authorization: Bearer {self.keys[role]}", "--checks", "all",
                   "--generation-with-security-parameters", "false", "--no-color",
                   "--report", "junit", "--report-dir", report]
        started = time.time()
        result = subprocess.run(command, capture_output=True, text=True, cwd=report, timeout=1200)
        with open(os.path.join(report, "output.txt"), "w") as f:
            f.write(result.stdout + result.stderr)
        summary = result.stdout[result.stdout.rfind("SUMMARY"):] if "SUMMARY" in result.stdout else result.stdout[-3000:]
        print(f"\nschemathesis as {role}: exit {result.returncode} in {time.time() - started:.0f} s\n{summary}", flush=True)
        if result.returncode != 0:
            self.fail(f"schemathesis found failures as {role}:\n{result.stdout[-20000:]}\n{result.stderr[-3000:]}\nserver log:\n{self.server.log_tail()}")

    def test_1_viewer(self):
        self.run_role("viewer")

    def test_2_operator(self):
        self.run_role("operator")

    def test_3_admin(self):
        self.run_role("admin")


if __name__ == "__main__":
    unittest.main()
