"""`/metrics` (issue #20): Prometheus text with requests by route and status and their latency,
open documents, live connections, commit batches, background fetches by outcome and sign-in
failures; served to loopback clients that came straight here, or to an admin's API token."""

import re
import subprocess

import requests

from emojiart_server import Server, emojiart_binary, free_port
from live_socket import LiveSocket

PASSWORD = "correct horse battery"


def samples(text: str) -> dict:
    """`name{labels}` → value, for every sample line."""
    found = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, value = line.rsplit(" ", 1)
            found[key] = float(value)
    return found


def value(found: dict, name: str, **labels) -> float:
    """The sum of `name`'s samples whose labels include `labels`."""
    total, seen = 0.0, False
    for key, number in found.items():
        metric, _, rest = key.partition("{")
        if metric != name:
            continue
        pairs = dict(re.findall(r'(\w+)="([^"]*)"', rest))
        if all(pairs.get(k) == v for k, v in labels.items()):
            total, seen = total + number, True
    assert seen, f"no {name} {labels}"
    return total


def test_metrics_count_requests_documents_connections_commits_and_fetches(server):
    base = server.base
    doc = requests.post(base + "/api/documents", json={"title": "Counted"}, timeout=5).json()["id"]
    for x in range(3):
        assert requests.post(f"{base}/api/documents/{doc}/edits", timeout=5, json={
            "baseVersion": 0, "edit": {"type": "addEmoji", "text": "🐶", "position": {"x": x, "y": 0}, "size": 40}
        }).status_code == 200
    assert requests.post(f"{base}/api/documents/{doc}/undo", timeout=5).status_code == 200
    assert requests.get(f"{base}/api/documents/00000000-0000-0000-0000-000000000001", timeout=5).status_code == 404
    # A background URL this server may not fetch (EMOJIART_FETCH_PUBLIC=0): a failed fetch.
    requests.post(f"{base}/api/documents/{doc}/edits", timeout=5, json={
        "baseVersion": 0, "edit": {"type": "setBackground", "background": "https://example.com/beach.jpg"}})
    window = LiveSocket(server.port, f"/api/documents/{doc}/live")
    assert window.receive()["type"] == "snapshot"
    try:
        for _ in range(50):
            reply = requests.get(base + "/metrics", timeout=5)
            assert reply.status_code == 200
            found = samples(reply.text)
            if any(k.startswith("emojiart_background_fetches_total") for k in found):
                break
        assert reply.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        assert "# TYPE hb_requests_total counter" in reply.text
        assert "# TYPE http_server_request_duration_seconds histogram" in reply.text
        edits = dict(http_route="/api/documents/{id}/edits", http_request_method="POST")
        assert value(found, "hb_requests_total", **edits, http_response_status_code="200") >= 3
        assert value(found, "http_server_request_duration_seconds_count", **edits) >= 3
        assert value(found, "http_server_request_duration_seconds_bucket", **edits, le="+Inf") >= 3
        assert value(found, "hb_requests_total", http_route="/api/documents/{id}",
                     http_response_status_code="404") == 1
        assert value(found, "emojiart_live_documents") >= 1
        assert value(found, "emojiart_live_connections", kind="document") == 1
        assert value(found, "emojiart_commit_batch_size_count") >= 4
        assert value(found, "emojiart_commit_batch_size_sum") >= 4
        assert value(found, "emojiart_commit_duration_seconds_count") >= 4
        assert value(found, "emojiart_background_fetches_total", outcome="failed") == 1
    finally:
        window.close()

    # Through a proxy everyone looks local: a forwarded request is not let in, whichever header
    # the proxy was configured with (issue #33: `X-Real-IP` alone used to be let in).
    for header in ({"X-Forwarded-For": "203.0.113.9"}, {"Forwarded": "for=203.0.113.9"},
                   {"X-Real-IP": "203.0.113.9"}, {"X-Client-IP": "203.0.113.9"},
                   {"X-Forwarded-Host": "example.org"}, {"True-Client-IP": "203.0.113.9"}):
        refused = requests.get(base + "/metrics", headers=header, timeout=5)
        assert refused.status_code == 404 and refused.json()["error"]["code"] == "not_found"


def test_in_accounts_mode_only_an_admins_token_reads_metrics_from_afar(tmp_path):
    for name, admin in (("root", True), ("pat", False)):
        made = subprocess.run([emojiart_binary(), "users", "add", name, "--data", str(tmp_path),
                               *(["--admin"] if admin else [])],
                              input=PASSWORD + "\n", capture_output=True, text=True, timeout=30)
        assert made.returncode == 0, made.stderr
    tokens = {}
    for name in ("root", "pat"):
        made = subprocess.run([emojiart_binary(), "tokens", "create", "--user", name, "--data", str(tmp_path)],
                              capture_output=True, text=True, timeout=30)
        assert made.returncode == 0, made.stderr
        tokens[name] = made.stdout.strip().splitlines()[-1]
    server = Server(tmp_path, free_port(), "--access", "accounts")
    server.start()
    try:
        base = server.base
        bad = requests.post(base + "/api/session", json={"name": "pat", "password": "wrong"}, timeout=5)
        assert bad.status_code == 401
        proxied = {"X-Forwarded-For": "203.0.113.9"}
        assert requests.get(base + "/metrics", headers=proxied, timeout=5).status_code == 404
        pat = {**proxied, "Authorization": f"Bearer {tokens['pat']}"}
        assert requests.get(base + "/metrics", headers=pat, timeout=5).status_code == 404
        # An admin's session cookie is not enough: tokens are for scripts, and so is this.
        session = requests.Session()
        session.post(base + "/api/session", json={"name": "root", "password": PASSWORD}, timeout=5).raise_for_status()
        assert session.get(base + "/metrics", headers=proxied, timeout=5).status_code == 404
        root = {**proxied, "Authorization": f"Bearer {tokens['root']}"}
        reply = requests.get(base + "/metrics", headers=root, timeout=5)
        assert reply.status_code == 200
        assert value(samples(reply.text), "emojiart_sign_in_failures_total") == 1
    finally:
        server.kill()


def test_log_format_json_gives_one_object_per_line_with_the_request_id(tmp_path):
    import json
    import os
    import time
    port = free_port()
    out = open(tmp_path / "stdout", "wb")
    process = subprocess.Popen([emojiart_binary(), "serve", "--port", str(port), "--data", str(tmp_path / "data"),
                                "--log-format", "json"], stdout=out, stderr=subprocess.DEVNULL,
                               env={**os.environ, "EMOJIART_FETCH_PUBLIC": "0"})
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                requests.get(base + "/api/health", timeout=1)
                break
            except requests.ConnectionError:
                assert time.monotonic() < deadline
                time.sleep(0.05)
        created = requests.post(base + "/api/documents", json={"title": "Logged"}, timeout=5)
        request_id = created.headers["X-Request-Id"]
        assert request_id
        missing = requests.get(base + "/s/secret-token-not-for-logs", timeout=5, allow_redirects=False)
        assert missing.status_code in (302, 303, 404)
    finally:
        process.terminate()
        process.wait(timeout=15)
    lines = (tmp_path / "stdout").read_text().splitlines()
    assert lines, "nothing was logged"
    objects = [json.loads(line) for line in lines]  # every line is one JSON object
    assert all({"time", "level", "label", "message"} <= set(o) for o in objects)
    assert any(o["message"] == "listening" and o["url"] == base + "/" for o in objects)
    [logged] = [o for o in objects if o.get("requestId") == request_id]
    assert logged["message"] == "request" and logged["route"] == "/api/documents" and logged["status"] == "201"
    assert logged["method"] == "POST" and float(logged["durationMs"]) >= 0
    assert "secret-token-not-for-logs" not in (tmp_path / "stdout").read_text(), "share links' paths stay out"
    bad = subprocess.run([emojiart_binary(), "serve", "--log-format", "xml"], capture_output=True, text=True)
    assert bad.returncode == 64 and "text or json" in bad.stderr


def test_log_level_leaves_out_the_request_lines_below_it(tmp_path):
    """`--log-level warning` (or `$EMOJIART_LOG_LEVEL`) writes no line per request; the request's
    id still comes back. `--request-telemetry off` (for the benchmark) counts nothing either."""
    import json
    import os
    import time

    def serve(name, *args, environment=None):
        port = free_port()
        out = open(tmp_path / name, "wb")
        process = subprocess.Popen([emojiart_binary(), "serve", "--port", str(port), "--data", str(tmp_path / (name + "-data")),
                                    "--log-format", "json", *args], stdout=out, stderr=subprocess.DEVNULL,
                                   env={**os.environ, "EMOJIART_FETCH_PUBLIC": "0", **(environment or {})})
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 20
        while True:
            try:
                requests.get(base + "/api/health", timeout=1)
                return process, base
            except requests.ConnectionError:
                assert time.monotonic() < deadline
                time.sleep(0.05)

    for name, args, environment in [("flag", ["--log-level", "warning"], None),
                                    ("env", [], {"EMOJIART_LOG_LEVEL": "error"}),
                                    ("quiet", ["--request-telemetry", "off"], None)]:
        process, base = serve(name + ".log", *args, environment=environment)
        try:
            created = requests.post(base + "/api/documents", json={"title": "Quiet"}, timeout=5)
            assert created.status_code == 201 and created.headers["X-Request-Id"]
            metrics = requests.get(base + "/metrics", timeout=5).text
        finally:
            process.terminate()
            process.wait(timeout=15)
        objects = [json.loads(line) for line in (tmp_path / (name + ".log")).read_text().splitlines() if line]
        assert not [o for o in objects if o.get("message") == "request"], (name, objects)
        counted = 'route="/api/documents"' in metrics
        assert counted == (name != "quiet"), (name, metrics[:2000])
    bad = subprocess.run([emojiart_binary(), "serve", "--log-level", "loud"], capture_output=True, text=True)
    assert bad.returncode == 64 and "trace, debug, info" in bad.stderr
    bad = subprocess.run([emojiart_binary(), "serve"], capture_output=True, text=True,
                         env={**os.environ, "EMOJIART_LOG_LEVEL": "loud"})
    assert bad.returncode == 64 and "$EMOJIART_LOG_LEVEL" in bad.stderr


def test_traces_go_to_an_otlp_collector_when_one_is_set(tmp_path):
    """A stub OTLP/HTTP collector on loopback receives protobuf spans named by route, read here
    with OpenTelemetry's own message definitions (opentelemetry-proto): the service is named, a
    caller's W3C traceparent is joined, and a share link's path never leaves the server."""
    import os
    import threading
    import time
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    received = []

    class Collector(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            received.append((self.path, self.headers.get("Content-Type"), body))
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    def spans():
        found = []
        for _, _, body in list(received):
            request = ExportTraceServiceRequest()
            request.ParseFromString(body)
            for resource_spans in request.resource_spans:
                resource = {a.key: a.value.string_value for a in resource_spans.resource.attributes}
                for scope_spans in resource_spans.scope_spans:
                    found += [(resource, span) for span in scope_spans.spans]
        return found

    collector = ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    threading.Thread(target=collector.serve_forever, daemon=True).start()
    port = free_port()
    process = subprocess.Popen(
        [emojiart_binary(), "serve", "--port", str(port), "--data", str(tmp_path / "data")],
        stdout=open(tmp_path / "log", "wb"), stderr=subprocess.STDOUT,
        env={**os.environ, "EMOJIART_FETCH_PUBLIC": "0",
             "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{collector.server_port}",
             "OTEL_BSP_SCHEDULE_DELAY": "100"})
    base = f"http://127.0.0.1:{port}"
    trace_id, caller_span = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                requests.get(base + "/api/health", timeout=1)
                break
            except requests.ConnectionError:
                assert time.monotonic() < deadline, (tmp_path / "log").read_text()
                time.sleep(0.05)
        doc = requests.post(base + "/api/documents", json={"title": "Traced"}, timeout=5).json()["id"]
        requests.get(f"{base}/api/documents/{doc}", timeout=5,
                     headers={"traceparent": f"00-{trace_id}-{caller_span}-01"}).raise_for_status()
        requests.get(base + "/s/secret-token-not-for-traces", timeout=5, allow_redirects=False)
        deadline = time.monotonic() + 15
        while not any(span.name == "/s/{token}" for _, span in spans()):
            assert time.monotonic() < deadline, f"no span reached the collector: {received!r:.300}"
            time.sleep(0.1)
    finally:
        process.terminate()
        process.wait(timeout=15)
        collector.shutdown()
    assert {path for path, _, _ in received} == {"/v1/traces"}
    assert all(kind == "application/x-protobuf" for _, kind, _ in received)
    found = spans()
    assert all(resource["service.name"] == "emojiart" for resource, _ in found), "the service is named"
    [(_, joined)] = [(r, s) for r, s in found if s.name == "/api/documents/{id}"]
    assert joined.trace_id.hex() == trace_id and joined.parent_span_id.hex() == caller_span
    assert joined.kind == joined.SPAN_KIND_SERVER and len(joined.span_id) == 8
    attributes = {a.key: a.value for a in joined.attributes}
    assert attributes["http.route"].string_value == "/api/documents/{id}"
    assert attributes["http.response.status_code"].int_value == 200
    assert joined.end_time_unix_nano >= joined.start_time_unix_nano > 1_700_000_000 * 10**9
    [(_, created)] = [(r, s) for r, s in found if s.name == "/api/documents"]
    assert created.trace_id.hex() != trace_id and not created.parent_span_id, "a new trace without a caller's"
    for _, span in found:
        assert "url.path" not in {a.key for a in span.attributes}
    assert b"secret-token-not-for-traces" not in b"".join(body for _, _, body in received), \
        "share links' paths stay out of traces"
