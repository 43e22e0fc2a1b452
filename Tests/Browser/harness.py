"""End-to-end harness for the web dashboard: the real server, the real Claude Code CLI, headless Chromium.

Everything is real except what cannot run here: `ralph` is replaced by the package's `fake-ralph` (its real file
layout), and the Anthropic Messages API the real `claude` CLI (2.1.330, from `scripts/agent-clis`) talks to is the
package's `fake-anthropic`, whose replies are scripted in the prompt (`#model` …). The server runs from the package's
build directory (so it serves the dashboard bundled as SwiftPM resources) on a free port, in a temporary workspace;
it is stopped and started again on the same port to test resuming.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCREENSHOTS = os.path.join(ROOT, "docs", "screenshots")
ADMIN_KEY = "rmk_e2e_admin_key_for_the_browser_tests"


def bin_path():
    out = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True, check=True)
    return out.stdout.strip()


BIN = os.environ.get("RALPH_MOBILE_BIN") or bin_path()
CLAUDE_WHEEL = "0.2.187"  # claude-agent-sdk carrying Claude Code 2.1.330, as scripts/agent-clis pins it


def product(name):
    path = os.path.join(BIN, name)
    if not os.path.exists(path):
        raise RuntimeError(f"{path} is missing: run `swift build` first")
    return path


def claude_path():
    """The real Claude Code CLI: `$RALPH_MOBILE_CLAUDE`, else the binary `scripts/agent-clis` unpacked into its cache."""
    given = os.environ.get("RALPH_MOBILE_CLAUDE")
    if given:
        return given
    cache = os.environ.get("RALPH_MOBILE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "ralph-mobile")
    unpacked = os.path.join(cache, "unpacked")
    for entry in sorted(os.listdir(unpacked)) if os.path.isdir(unpacked) else []:
        path = os.path.join(unpacked, entry, "claude_agent_sdk", "_bundled", "claude")
        if entry.startswith(f"claude_agent_sdk-{CLAUDE_WHEEL}-") and os.access(path, os.X_OK):
            return path
    raise RuntimeError("the real Claude Code CLI is not here: run `eval \"$(scripts/agent-clis)\"` (it fetches the "
                       f"claude-agent-sdk {CLAUDE_WHEEL} wheel from PyPI once), or set RALPH_MOBILE_CLAUDE")


def model(*steps):
    """A message fake-anthropic answers as a script: one model response per step (each a list of commands)."""
    return "#model\n" + "\n---\n".join("\n".join(step) for step in steps)


class FakeAnthropic:
    """`fake-anthropic`, the double of the Anthropic Messages API, on a free port; one JSON line per request in `log`."""

    def __init__(self, directory):
        self.log = os.path.join(directory, "anthropic.log")
        self.output = open(os.path.join(directory, "anthropic.out"), "a+")
        self.process = subprocess.Popen([product("fake-anthropic"), "--port", "0"], stdout=subprocess.PIPE, stderr=self.output,
                                        env=dict(os.environ, FAKE_ANTHROPIC_LOG=self.log), start_new_session=True, text=True)
        line = self.process.stdout.readline()
        match = re.search(r"listening on (http://\S+)", line)
        if not match:
            self.stop()
            raise RuntimeError(f"fake-anthropic did not start: {line!r}")
        self.base = match.group(1)
        # Whatever else it prints goes to anthropic.out, so a full pipe never blocks it.
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        for line in self.process.stdout:
            self.output.write(line)
            self.output.flush()

    def requests(self):
        """The model requests answered so far, in order."""
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return [json.loads(line) for line in f if line.strip()]

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


RALPH_YML = """# Browser test workspace
cli:
  backend: claude
event_loop:
  max_iterations: 1000
hats:
  planner:
    name: "Planner"
    description: Plans the work and hands out one task at a time
    triggers: [build.start, build.blocked]
    publishes: [build.task]
  builder:
    name: Builder
    description: Implements one task
    triggers: [build.task]
    publishes: [build.done, build.blocked]
  reviewer:
    name: Reviewer
    description: Reviews a change
    triggers: [build.done]
    publishes: [review.approved]
skills:
  dirs: [skills]
fake_ralph:
  iterations: 1000
  pace: 1
"""

FEATURE_YML = """# Feature Development Preset
event_loop:
  max_iterations: 40
hats:
  architect:
    name: Architect
    description: Designs the change before anyone builds it
    triggers: [build.start]
    publishes: [design.done]
fake_ralph:
  iterations: 40
  pace: 1
"""


class Workspace:
    """A temporary workspace with ralph's files, and the server's data directory beside it."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="rm-browser-")
        self.ws = os.path.join(self.dir, "ws")
        self.data = os.path.join(self.dir, "data")
        for sub in ["presets", "prompts", "skills/deploy"]:
            os.makedirs(os.path.join(self.ws, sub), exist_ok=True)
        os.makedirs(self.data, exist_ok=True)
        self.write("ralph.yml", RALPH_YML)
        self.write("presets/feature.yml", FEATURE_YML)
        self.write("prompts/docs.md", "# Write the docs\nDocument every public function.\n")
        self.write("prompts/refactor.md", "Refactor the payment module so that it uses the new client.\n")
        self.write("skills/deploy/SKILL.md", "---\nname: deploy\ndescription: How to deploy\ntags: [ops]\nhats: [builder]\n---\n# Deploy\nRun make deploy.\n")

    def write(self, relative, text):
        with open(os.path.join(self.ws, relative), "w") as f:
            f.write(text)

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)


class Server:
    """`ralph-mobile-server` as a process: started on a free port, stopped with SIGTERM, started again on that port."""

    def __init__(self, workspace, anthropic, api_key=ADMIN_KEY, extra_args=()):
        self.workspace = workspace
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
        args += self.extra_args
        # The server hands its environment to the claude it starts: an isolated home, the model API at fake-anthropic,
        # any key, nothing sent anywhere else.
        home = os.path.join(self.workspace.dir, "home")
        os.makedirs(home, exist_ok=True)
        env = dict(os.environ, HOME=home, CLAUDE_CONFIG_DIR=os.path.join(home, ".claude"), ANTHROPIC_BASE_URL=self.anthropic.base,
                   ANTHROPIC_API_KEY="sk-ant-test", DISABLE_TELEMETRY="1", DISABLE_AUTOUPDATER="1", DISABLE_ERROR_REPORTING="1",
                   CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
        for name in ["RALPH_MOBILE_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX"]:
            env.pop(name, None)
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


def make_driver(width=390, height=844, extra_arguments=()):
    """Headless Chromium; `extra_arguments` are added to its command line (e.g. `--host-resolver-rules=…`)."""
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--window-size={width},{height}",
                     "--force-device-scale-factor=1", "--hide-scrollbars", *extra_arguments]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    driver.set_window_size(width, height)
    driver.implicitly_wait(0)
    return driver


def wait(driver, condition, timeout=15, message=""):
    """Waits until `condition(driver)` is truthy (stale elements just mean "not yet"); returns its value."""
    def attempt(d):
        try:
            return condition(d)
        except StaleElementReferenceException:
            return False
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.1).until(attempt)
    except TimeoutException:
        raise AssertionError(f"timed out after {timeout}s waiting for: {message or condition}")


def css(driver, selector):
    return driver.find_elements(By.CSS_SELECTOR, selector)


def one(driver, selector, timeout=15):
    return wait(driver, lambda d: (css(d, selector) or [None])[0], timeout, f"element {selector}")


def test_id(name):
    return f'[data-test="{name}"]'


def severe_console_errors(driver):
    """Browser console errors, except the 401 the app expects while it checks whether a login is needed."""
    errors = []
    for entry in driver.get_log("browser"):
        if entry.get("level") != "SEVERE":
            continue
        message = entry.get("message", "")
        if "401" in message and ("/api/whoami" in message or "/api/login" in message):
            continue
        if "net::ERR_CONNECTION_REFUSED" in message or "ERR_INCOMPLETE_CHUNKED_ENCODING" in message or "ERR_EMPTY_RESPONSE" in message:
            continue  # expected while the server restarts
        errors.append(message)
    return errors


def screenshot(driver, name):
    os.makedirs(SCREENSHOTS, exist_ok=True)
    path = os.path.join(SCREENSHOTS, name + ".png")
    # Notices of earlier steps would cover the screen being shown.
    driver.execute_script("const t = document.getElementById('toasts'); if (t) t.replaceChildren();")
    driver.save_screenshot(path)
    return path


# WCAG 2 contrast of computed colours, run in the page.
CONTRAST_JS = r"""
function parse(c) {
  const m = c.match(/rgba?\(([^)]+)\)/); if (!m) return null;
  const p = m[1].split(',').map(s => parseFloat(s)); return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1};
}
function lum(c) {
  const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
}
function background(el) {
  let stack = [];
  for (let e = el; e; e = e.parentElement) {
    const c = parse(getComputedStyle(e).backgroundColor);
    if (c && c.a > 0) { stack.push(c); if (c.a >= 1) break; }
  }
  let base = {r: 255, g: 255, b: 255};
  if (stack.length && stack[stack.length - 1].a >= 1) base = stack.pop();
  while (stack.length) { const c = stack.pop(); base = {r: c.r * c.a + base.r * (1 - c.a), g: c.g * c.a + base.g * (1 - c.a), b: c.b * c.a + base.b * (1 - c.a)}; }
  return base;
}
const out = [];
for (const el of document.querySelectorAll(arguments[0])) {
  if (!el.offsetParent && getComputedStyle(el).position !== 'fixed') continue;
  const text = (el.innerText || '').trim(); if (!text) continue;
  const fg = parse(getComputedStyle(el).color); const bg = background(el);
  const l1 = lum(fg), l2 = lum(bg);
  const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
  const size = parseFloat(getComputedStyle(el).fontSize); const bold = parseInt(getComputedStyle(el).fontWeight) >= 700;
  const large = size >= 24 || (bold && size >= 18.66);
  out.push({text: text.slice(0, 40), cls: el.className && el.className.baseVal === undefined ? el.className : '', ratio: Math.round(ratio * 100) / 100, need: large ? 3 : 4.5});
}
return out;
"""

# Controls without an accessible name (a label, aria-label/labelledby, title or text).
UNLABELLED_JS = r"""
const bad = [];
for (const el of document.querySelectorAll('button, a[href], input:not([type=hidden]), select, textarea, [role=button], [role=tab]')) {
  if (!el.offsetParent) continue;
  const labelled = el.getAttribute('aria-label') || el.getAttribute('aria-labelledby') || el.getAttribute('title')
    || (el.id && document.querySelector('label[for="' + CSS.escape(el.id) + '"]')) || el.closest('label')
    || (el.innerText || '').trim() || (el.getAttribute('placeholder') && el.tagName !== 'TEXTAREA' && false)
    || (el.querySelector('img[alt]:not([alt=""])'));
  if (!labelled) bad.push(el.outerHTML.slice(0, 120));
}
return bad;
"""
