"""`fake-anthropic`, the double of the Anthropic Messages API the real `claude` CLI talks to in the browser tests."""

import json
import os
import re
import subprocess
import threading

from products import product


def model(*steps):
    """A message fake-anthropic answers as a script: one model response per step (each a list of commands)."""
    return "#model\n" + "\n---\n".join("\n".join(step) for step in steps)


class ModelDouble:
    """A model API double of the package (`fake-anthropic`, `fake-openai`) on a free port; one JSON line per request in
    `log` (named by `$<log_variable>`)."""

    def __init__(self, directory, name, log_variable, stem):
        self.log = os.path.join(directory, stem + ".log")
        self.output = open(os.path.join(directory, stem + ".out"), "a+")
        self.process = subprocess.Popen([product(name), "--port", "0"], stdout=subprocess.PIPE, stderr=self.output,
                                        env=dict(os.environ, **{log_variable: self.log}), start_new_session=True, text=True)
        line = self.process.stdout.readline()
        # fake-openai's framework may log its own line first.
        while line and "listening on http" not in line:
            self.output.write(line)
            line = self.process.stdout.readline()
        match = re.search(r"listening on (http://[^\s:]+:\d+)", line)
        if not match:
            self.stop()
            raise RuntimeError(f"{name} did not start: {line!r}")
        self.base = match.group(1)
        # Whatever else it prints goes to <stem>.out, so a full pipe never blocks it.
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


class FakeAnthropic(ModelDouble):
    """`fake-anthropic`, the double of the Anthropic Messages API the real `claude` talks to."""

    def __init__(self, directory):
        super().__init__(directory, "fake-anthropic", "FAKE_ANTHROPIC_LOG", "anthropic")
