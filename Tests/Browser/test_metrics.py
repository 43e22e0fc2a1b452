"""`GET /metrics` of the built server, read by an independent parser: prometheus-client's own
(`prometheus_client.parser.text_string_to_metric_families`, pinned, from `scripts/prometheus-client`).

A keyed server (admin key and metrics key) with a ralph run: the scrape parses, its families have the types the
exposition format says, a known workload moves the request counter by exactly what was done, the metrics key reads
/metrics and nothing else, and the request log carries the request id the client sent.
"""

import os
import re
import subprocess
import sys
import time
import types
import unittest
import urllib.error
import urllib.request

from harness import ADMIN_KEY, ROOT, Ralph, Server, Workspace

METRICS_KEY = "rmk_e2e_metrics_key_for_the_scrape_test_0123"


def prometheus_parser():
    """prometheus_client.parser, from RALPH_MOBILE_PROMETHEUS_PATH or the cache `scripts/prometheus-client` fills."""
    path = os.environ.get("RALPH_MOBILE_PROMETHEUS_PATH")
    if not path:
        out = subprocess.run([os.path.join(ROOT, "scripts", "prometheus-client")], capture_output=True, text=True, check=True)
        path = re.search(r"RALPH_MOBILE_PROMETHEUS_PATH=(\S+)", out.stdout).group(1)
    if path not in sys.path:
        sys.path.insert(0, path)
    from prometheus_client import parser
    return parser


def eventually(condition, timeout, message):
    """Polls `condition` every 0.1 s until it holds; fails after `timeout` seconds."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout}s waiting for {message}")


def get(url, headers=None):
    """(status, headers, body text) of a GET."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            return response.status, response.headers, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read().decode()


class MetricsScrapeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.parser = prometheus_parser()
        cls.workspace = Workspace()
        cls.server = Server(cls.workspace, types.SimpleNamespace(base="http://127.0.0.1:9"),
                            extra_args=["--metrics-key", METRICS_KEY]).start()
        cls.ralph = Ralph(cls.workspace)

    @classmethod
    def tearDownClass(cls):
        cls.ralph.stop()
        cls.server.stop()

    def scrape(self):
        """The families of one scrape with the metrics key, by name."""
        status, headers, text = get(self.server.base + "/metrics", {"Authorization": "Bearer " + METRICS_KEY})
        self.assertEqual(status, 200, text)
        self.assertTrue(headers["Content-Type"].startswith("text/plain; version=0.0.4"), headers["Content-Type"])
        return {family.name: family for family in self.parser.text_string_to_metric_families(text)}

    @staticmethod
    def sample(families, family, name, **labels):
        """The value of the sample `name` with exactly `labels` (0 when the series is not written yet)."""
        for sample in families[family].samples if family in families else []:
            if sample.name == name and sample.labels == labels:
                return sample.value
        return 0

    def test_scrape_parses_and_counts_a_known_workload(self):
        before = self.scrape()
        self.assertEqual(before["ralph_mobile_http_requests"].type, "counter")
        self.assertEqual(before["ralph_mobile_runs"].type, "gauge")
        self.assertEqual(before["ralph_mobile_process_resident_memory_bytes"].type, "gauge")
        self.assertEqual(before["ralph_mobile_process_open_fds"].type, "gauge")
        self.assertGreater(self.sample(before, "ralph_mobile_process_resident_memory_bytes", "ralph_mobile_process_resident_memory_bytes"), 1 << 20)

        for _ in range(4):
            self.assertEqual(get(self.server.base + "/api/sessions", {"X-Api-Key": ADMIN_KEY})[0], 200)
        self.assertEqual(get(self.server.base + "/api/no-such-route", {"X-Api-Key": ADMIN_KEY})[0], 404)
        after = self.scrape()

        def delta(**labels):
            name = "ralph_mobile_http_requests_total"
            return self.sample(after, "ralph_mobile_http_requests", name, **labels) - self.sample(before, "ralph_mobile_http_requests", name, **labels)

        self.assertEqual(delta(route="/api/sessions", method="GET", status="200"), 4)
        self.assertEqual(delta(route="NotFound", method="GET", status="404"), 1)
        self.assertEqual(delta(route="/metrics", method="GET", status="200"), 1)

        # A histogram as the format wants it: cumulative buckets ending in +Inf, which equals the count.
        histogram = after["ralph_mobile_http_request_duration_seconds"]
        self.assertEqual(histogram.type, "histogram")
        buckets = [s for s in histogram.samples if s.name.endswith("_bucket") and s.labels.get("route") == "/api/sessions"]
        values = [s.value for s in buckets]
        self.assertEqual(values, sorted(values), "cumulative")
        self.assertEqual(buckets[-1].labels["le"], "+Inf")
        count = self.sample(after, "ralph_mobile_http_request_duration_seconds", "ralph_mobile_http_request_duration_seconds_count",
                            route="/api/sessions", method="GET")
        self.assertEqual(buckets[-1].value, count)

    def test_a_live_run_is_counted_by_mode(self):
        eventually(lambda: self.sample(self.scrape(), "ralph_mobile_runs", "ralph_mobile_runs", mode="live") == 1, 30, "the run to be counted live")

    def test_the_metrics_key_reads_metrics_and_nothing_else(self):
        status, _, body = get(self.server.base + "/metrics")
        self.assertEqual((status, body), (401, '{"error":"unauthorized"}'))
        self.assertEqual(get(self.server.base + "/metrics", {"X-Api-Key": ADMIN_KEY})[0], 200)
        for path in ["/api/sessions", "/api/whoami", "/api/keys"]:
            status, _, body = get(self.server.base + path, {"Authorization": "Bearer " + METRICS_KEY})
            self.assertEqual((status, body), (401, '{"error":"unauthorized"}'), path)

    def test_the_request_log_carries_the_request_id(self):
        status, headers, _ = get(self.server.base + "/api/sessions", {"X-Api-Key": ADMIN_KEY, "X-Request-Id": "py-metrics-req-1"})
        self.assertEqual(status, 200)
        self.assertEqual(headers["X-Request-Id"], "py-metrics-req-1")

        def logged():
            return [line for line in self.server.log_tail().splitlines() if "py-metrics-req-1" in line]
        eventually(lambda: logged(), 5, "the request's log line")
        line = logged()[0]
        self.assertIn("GET /api/sessions 200", line)
        self.assertIn("route=/api/sessions", line)
        self.assertRegex(line, r"duration_ms=\d+\.\d{3}")


if __name__ == "__main__":
    unittest.main()
