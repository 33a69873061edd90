#!/usr/bin/python3
"""A stub OpenAI-compatible chat-completions server for the LLM reasoner's tests.

Usage: llm_stub.py [PORT]   (default 0: any free port)

Binds 127.0.0.1 only and prints "PORT <n>" as its first line on stdout. It exits when its
stdin closes (so a test that dies never leaves it running) and on SIGTERM. Python 3 standard
library only.

Every POST to .../chat/completions must carry
  response_format: {"type": "json_schema", "json_schema": {"name": ..., "schema": {...}}}
(the nested form); without it the answer is HTTP 400. GET /stats answers how many requests came
with and without it: {"with_schema": n, "without_schema": m}. The request's "model" picks the
behaviour:

  good, good-<mode>      a valid decision (mode 3, or <mode>; <mode> may be 1..9, so good-7
                         answers a mode the schema forbids)
  schema-break           a decision without selected_mode
  schema-break-mode7     selected_mode 7
  schema-break-string    selected_mode "2"
  error-nested           HTTP 400 {"error": {"message", "type": "invalid_request_error", "code"}}
  error-string           HTTP 500 {"error": "model not found"}
  error-detail           HTTP 422 {"detail": [{"loc", "msg", "type"}]}
  error-object           HTTP 400 {"object": "error", "message", "type", "param", "code"}
  error-text             HTTP 502 with an HTML body
  never                  accepts the request and never answers
  truncated              Content-Length larger than the bytes sent, then closes
  huge, huge-chunked     a 2 MiB body (with Content-Length / chunked)
  flaky-429[-x]          HTTP 429 for the first two requests with this model name, then good
  flaky-503[-x]          HTTP 503 likewise
  length                 finish_reason "length" with a cut answer
  low-confidence         a valid decision with confidence 0.3
  fenced                 the decision wrapped in a ```json fence
  reasoning              empty content, the decision in reasoning_content
  empty-choices          "choices": []
  auth                   good when "Authorization: Bearer sk-test" was sent, else HTTP 401
"""

import http.server
import json
import os
import signal
import sys
import threading
import time

COUNTS = {}  # model name -> requests seen (flaky-*)
STATS = {"with_schema": 0, "without_schema": 0}  # requests by their response_format
COUNTS_LOCK = threading.Lock()  # guards COUNTS and STATS


def decision(mode=3, confidence=0.9):
    return {
        "selected_mode": mode,
        "confidence": confidence,
        "io_topology": "N-N private",
        "primary_reason": "every rank writes its own file (stub)",
        "risk_analysis": ["a later step could read the files from another node"],
        "evidence": [{"file": "job.sh", "line": 12, "finding": "file.per_rank"}],
        "scores": {"1": 0.2, "2": 0.1, "3": 0.5, "4": 0.3} if mode != 1 else
                  {"1": 0.9, "2": 0.1, "3": 0.5, "4": 0.6},
    }


def chat(content, finish="stop", reasoning=None):
    message = {"role": "assistant", "content": content}
    if reasoning is not None:
        message["reasoning_content"] = reasoning
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "stub",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def nested_error(message, etype, code):
    return {"error": {"message": message, "type": etype, "param": None, "code": code}}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet: the tests own stderr
        pass

    def send_body(self, status, body, content_type="application/json", length=None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        self.end_headers()
        self.wfile.write(body)

    def send_json(self, status, obj):
        self.send_body(status, json.dumps(obj).encode())

    def do_GET(self):
        if self.path != "/stats":
            return self.send_json(404, {"detail": "Not Found"})
        with COUNTS_LOCK:
            self.send_json(200, dict(STATS))

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if not self.path.endswith("/chat/completions"):
            return self.send_json(404, {"detail": "Not Found"})
        try:
            request = json.loads(raw)
        except ValueError:
            return self.send_json(400, nested_error("body is not JSON", "invalid_request_error",
                                                    400))
        rf = request.get("response_format")
        js = rf.get("json_schema") if isinstance(rf, dict) else None
        ok = (isinstance(rf, dict) and rf.get("type") == "json_schema" and
              isinstance(js, dict) and isinstance(js.get("schema"), dict))
        with COUNTS_LOCK:
            STATS["with_schema" if ok else "without_schema"] += 1
        if not ok:
            return self.send_json(400, nested_error(
                "response_format must be {type: json_schema, json_schema: {name, schema}}",
                "invalid_request_error", 400))
        self.behave(str(request.get("model", "")))

    def behave(self, model):
        if model.startswith("flaky-"):
            with COUNTS_LOCK:
                COUNTS[model] = COUNTS.get(model, 0) + 1
                seen = COUNTS[model]
            if seen <= 2:
                status = 429 if model.startswith("flaky-429") else 503
                return self.send_json(status, nested_error("busy, try again", "server_error",
                                                           status))
            return self.send_json(200, chat(json.dumps(decision(3))))
        if model == "good" or model.startswith("good-"):
            mode = int(model[5:]) if model.startswith("good-") else 3
            return self.send_json(200, chat(json.dumps(decision(mode))))
        handler = BEHAVIOURS.get(model)
        if handler is None:
            return self.send_json(404, nested_error("model '%s' not found" % model,
                                                    "not_found_error", 404))
        handler(self)

    def schema_break(self, change):
        d = decision(2)
        change(d)
        self.send_json(200, chat(json.dumps(d)))

    def truncated(self):
        body = json.dumps(chat(json.dumps(decision(3)))).encode()
        self.send_body(200, body[: len(body) // 2], length=len(body) + 64)
        self.wfile.flush()
        self.close_connection = True

    def huge(self, chunked):
        piece = b" " * 65536
        total = 2 << 20
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(total))
        self.end_headers()
        for _ in range(total // len(piece)):
            if chunked:
                self.wfile.write(b"%x\r\n" % len(piece) + piece + b"\r\n")
            else:
                self.wfile.write(piece)
        if chunked:
            self.wfile.write(b"0\r\n\r\n")
        self.close_connection = True

    def auth(self):
        if self.headers.get("Authorization") != "Bearer sk-test":
            return self.send_json(401, nested_error("invalid api key", "authentication_error",
                                                    401))
        self.send_json(200, chat(json.dumps(decision(2))))


def without(key):
    return lambda d: d.pop(key)


def setter(key, value):
    return lambda d: d.__setitem__(key, value)


BEHAVIOURS = {
    "schema-break": lambda h: h.schema_break(without("selected_mode")),
    "schema-break-mode7": lambda h: h.schema_break(setter("selected_mode", 7)),
    "schema-break-string": lambda h: h.schema_break(setter("selected_mode", "2")),
    "error-nested": lambda h: h.send_json(400, {"error": {
        "message": "messages: field required", "type": "invalid_request_error", "code": 400}}),
    "error-string": lambda h: h.send_json(500, {"error": "model not found"}),
    "error-detail": lambda h: h.send_json(422, {"detail": [
        {"loc": ["body", "messages"], "msg": "Field required", "type": "missing"}]}),
    "error-object": lambda h: h.send_json(400, {
        "object": "error", "message": "max_tokens is too large", "type": "BadRequestError",
        "param": None, "code": 400}),
    "error-text": lambda h: h.send_body(502, b"<html><body>502 Bad Gateway</body></html>",
                                        "text/html"),
    "never": lambda h: threading.Event().wait(),
    "truncated": lambda h: h.truncated(),
    "huge": lambda h: h.huge(False),
    "huge-chunked": lambda h: h.huge(True),
    "length": lambda h: h.send_json(200, chat('{"selected_mode": 2, "confid', finish="length")),
    "low-confidence": lambda h: h.send_json(200, chat(json.dumps(decision(1, 0.3)))),
    "fenced": lambda h: h.send_json(200, chat("```json\n" + json.dumps(decision(4)) + "\n```\n")),
    "reasoning": lambda h: h.send_json(200, chat("", reasoning=json.dumps(decision(2)))),
    "empty-choices": lambda h: h.send_json(200, {"id": "x", "object": "chat.completion",
                                                 "choices": []}),
    "auth": lambda h: h.auth(),
}


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):  # a client that hung up: not news
        pass


def main():
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    server = Server(("127.0.0.1", port), Handler)
    print("PORT %d" % server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    while sys.stdin.buffer.read(4096):  # until the test closes our stdin (or dies)
        pass
    os._exit(0)


if __name__ == "__main__":
    main()
