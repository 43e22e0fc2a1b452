"""The processes a browser test drives: `ralph-mobile-server` and a ralph run started outside it (`fake-ralph`)."""

import json
import os
import re
import signal
import subprocess
import time
import urllib.error
import urllib.request

from products import claude_path, codex_path, product

ADMIN_KEY = "rmk_e2e_admin_key_for_the_browser_tests"


class Server:
    """`ralph-mobile-server` as a process: started on a free port, stopped with SIGTERM, started again on that port.

    With `openai` (a FakeOpenAI), conversations can also run the real Codex CLI against it (its sandbox off: Codex's
    sandboxes need bubblewrap); without it the server looks for `codex` on PATH, and health says it is not available
    when it is not there."""

    def __init__(self, workspace, anthropic, api_key=ADMIN_KEY, extra_args=(), openai=None):
        self.workspace = workspace
        self.openai = openai
        self.extra_args = list(extra_args)
        self.anthropic = anthropic
        self.api_key = api_key
        self.port = 0
        self.process = None
        self.log_path = os.path.join(workspace.dir, "server.log")

    def start(self):
        args = [product("ralph-mobile-server"), "--port", str(self.port), "--data-dir", self.workspace.data,
                "--workspace", self.workspace.ws, "--ralph-command", product("fake-ralph"),
                "--claude-command", claude_path(), "--heartbeat-interval", "2"]
        if self.api_key:
            args += ["--api-key", self.api_key]
        if self.openai:
            args += ["--codex-command", codex_path(), "--codex-sandbox", "danger-full-access"]
        if os.environ.get("RALPH_MOBILE_WEB_ROOT"):
            # While editing the dashboard: its files as they are in that folder, without rebuilding the server.
            args += ["--web-root", os.environ["RALPH_MOBILE_WEB_ROOT"]]
        args += self.extra_args
        # The server hands its environment to the claude it starts: an isolated home, the model API at fake-anthropic,
        # any key, nothing sent anywhere else.
        home = os.path.join(self.workspace.dir, "home")
        os.makedirs(home, exist_ok=True)
        env = dict(os.environ, HOME=home, CLAUDE_CONFIG_DIR=os.path.join(home, ".claude"), ANTHROPIC_BASE_URL=self.anthropic.base,
                   ANTHROPIC_API_KEY="sk-ant-test", DISABLE_TELEMETRY="1", DISABLE_AUTOUPDATER="1", DISABLE_ERROR_REPORTING="1",
                   CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
        for name in ["RALPH_MOBILE_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "CODEX_HOME",
                     "OPENAI_API_KEY", "OPENAI_BASE_URL"]:
            env.pop(name, None)
        if self.openai:
            env.update(CODEX_HOME=self.openai.codex_home(self.workspace.dir), NO_COLOR="1")
        with open(self.log_path, "a") as log:
            self.process = subprocess.Popen(args, cwd=self.workspace.ws, stdout=log, stderr=log, env=env, start_new_session=True)
        deadline = time.time() + 30
        pattern = re.compile(r"listening on http://[^:]+:(\d+)")
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError("the server exited at start:\n" + self.log_tail())
            with open(self.log_path) as f:
                matches = pattern.findall(f.read())
            if len(matches) > self.starts():
                self.port = int(matches[-1])
                self._starts = self.starts() + 1
                return self
            time.sleep(0.05)
        raise RuntimeError("the server did not start in 30 s:\n" + self.log_tail())

    def log_tail(self):
        with open(self.log_path) as f:
            return f.read()[-3000:]

    def starts(self):
        return getattr(self, "_starts", 0)

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def restart(self):
        self.stop()
        return self.start()

    @property
    def base(self):
        return f"http://127.0.0.1:{self.port}"

    def api(self, method, path, body=None, key=None):
        """Calls the API directly (with the admin key by default); returns (status, parsed JSON or text)."""
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        key = key if key is not None else self.api_key
        if key:
            request.add_header("X-Api-Key", key)
        try:
            with urllib.request.urlopen(request, timeout=15) as response:
                text = response.read().decode()
                status = response.status
        except urllib.error.HTTPError as error:
            text = error.read().decode()
            status = error.code
        try:
            return status, json.loads(text)
        except ValueError:
            return status, text

    def create_key(self, role, name):
        out = subprocess.run([product("ralph-mobile-server"), "keys", "create", "--role", role, "--name", name,
                              "--data-dir", self.workspace.data], capture_output=True, text=True, check=True)
        return re.search(r"(rmk_[0-9a-f]{40})", out.stdout).group(1)


class Ralph:
    """A ralph run started outside the server (as a developer starts one in a terminal), in its own process group."""

    def __init__(self, workspace, prompt="Build the feature"):
        self.workspace = workspace
        with open(os.path.join(workspace.dir, "ralph.log"), "a") as log:
            self.process = subprocess.Popen([product("fake-ralph"), "run", "-c", "ralph.yml", "-p", prompt, "--autonomous", "--no-tui"],
                                            cwd=workspace.ws, stdout=log, stderr=log, start_new_session=True)

    def events_file(self):
        with open(os.path.join(self.workspace.ws, ".ralph", "current-events")) as f:
            relative = f.read().strip()
        return relative if os.path.isabs(relative) else os.path.join(self.workspace.ws, relative)

    def lines(self):
        with open(self.events_file()) as f:
            return [json.loads(line) for line in f if line.strip()]

    def stop(self):
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGCONT)
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.process.wait()
