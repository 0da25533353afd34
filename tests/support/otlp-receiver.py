"""An OTLP/HTTP receiver for the tests (tests/e2e/otlp.test.mjs): what
Toolgate sends, decoded with OpenTelemetry's own definitions and held to the
semantic conventions (docs/rules.md, "The audit as OpenTelemetry").

Each request's body is read as OTLP's JSON encoding: the protobuf JSON
mapping of ExportTraceServiceRequest or ExportLogsServiceRequest (the
official opentelemetry-proto package), with OTLP's one deviation undone
first (trace and span ids are hex, not base64), unknown fields refused. Each
span is then checked against the GenAI conventions for tool execution, with
the attribute names of the official opentelemetry-semantic-conventions
package. What was received, and any problem, is printed as one JSON line a
request.

Run as `python otlp-receiver.py`; it prints `{"port": N}` first. Lines on
standard input control it: `down` stops listening (a sender then meets a
refused connection), `up` listens again on the same port, `decode FILE`
decodes a file of OTLP JSON lines (the settings page's export) the same way.
"""

import base64
import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Span
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
from opentelemetry.semconv.attributes import error_attributes

GEN_AI_NAMES = {value for name, value in vars(gen_ai).items() if name.startswith("GEN_AI_") and isinstance(value, str)}
EXECUTE_TOOL = gen_ai.GenAiOperationNameValues.EXECUTE_TOOL.value
HEX = {"traceId": 32, "spanId": 16, "parentSpanId": 16}

lock = threading.Lock()


def emit(line):
    with lock:
        sys.stdout.write(json.dumps(line) + "\n")
        sys.stdout.flush()


def ids_as_protobuf(value, problems):
    """OTLP's JSON writes ids in hex; the protobuf mapping reads bytes as base64."""
    if isinstance(value, list):
        return [ids_as_protobuf(item, problems) for item in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, item in value.items():
        if key in HEX and isinstance(item, str):
            if item and not re.fullmatch(f"[0-9a-fA-F]{{{HEX[key]}}}", item):
                problems.append(f"{key} {item!r} is not {HEX[key]} hex digits")
            try:
                item = base64.b64encode(bytes.fromhex(item)).decode()
            except ValueError:
                pass
        out[key] = ids_as_protobuf(item, problems)
    return out


def plain(any_value):
    kind = any_value.WhichOneof("value")
    return getattr(any_value, kind) if kind else None


def attributes(item):
    return {pair.key: plain(pair.value) for pair in item.attributes}


def span_problems(span, attrs):
    problems = []
    tool = attrs.get(gen_ai.GEN_AI_TOOL_NAME)
    want = f"{EXECUTE_TOOL} {tool}" if tool is not None else EXECUTE_TOOL
    if span.name != want:
        problems.append(f"span name {span.name!r}, not {want!r}")
    if attrs.get(gen_ai.GEN_AI_OPERATION_NAME) != EXECUTE_TOOL:
        problems.append(f"{gen_ai.GEN_AI_OPERATION_NAME} is {attrs.get(gen_ai.GEN_AI_OPERATION_NAME)!r}")
    if span.kind != Span.SpanKind.SPAN_KIND_INTERNAL:
        problems.append(f"span kind {span.kind}")
    if len(span.trace_id) != 16 or len(span.span_id) != 8:
        problems.append("ids of the wrong length")
    if span.start_time_unix_nano == 0 or span.end_time_unix_nano < span.start_time_unix_nano:
        problems.append("times")
    for key in attrs:
        if key.startswith("gen_ai.") and key not in GEN_AI_NAMES:
            problems.append(f"{key} is not a GenAI attribute")
        elif not key.startswith(("gen_ai.", "toolgate.")) and key != error_attributes.ERROR_TYPE:
            problems.append(f"{key} is neither the conventions' nor under toolgate.")
    if span.status.code == span.status.STATUS_CODE_ERROR and error_attributes.ERROR_TYPE not in attrs:
        problems.append("an error without error.type")
    for key, value in attrs.items():
        if isinstance(value, str) and len(value) > 1001:
            problems.append(f"{key} holds {len(value)} characters")
    return problems


def decode(path, text):
    """What a request's body holds, and what is wrong with it."""
    problems = []
    try:
        body = ids_as_protobuf(json.loads(text), problems)
        if path.endswith("/v1/traces"):
            request = json_format.ParseDict(body, ExportTraceServiceRequest())
        elif path.endswith("/v1/logs"):
            request = json_format.ParseDict(body, ExportLogsServiceRequest())
        else:
            return {"path": path, "problems": [f"no such path {path}"]}
    except (ValueError, json_format.ParseError) as error:
        return {"path": path, "problems": [f"not OTLP JSON: {error}"]}
    line = {"path": path, "problems": problems}
    if path.endswith("/v1/traces"):
        line["spans"] = []
        for resource in request.resource_spans:
            for scope in resource.scope_spans:
                for span in scope.spans:
                    attrs = attributes(span)
                    problems.extend(span_problems(span, attrs))
                    line["spans"].append({
                        "name": span.name, "traceId": span.trace_id.hex(), "spanId": span.span_id.hex(),
                        "status": span.status.code, "message": span.status.message, "attributes": attrs,
                        "resource": attributes(resource.resource),
                    })
    else:
        line["records"] = []
        for resource in request.resource_logs:
            for scope in resource.scope_logs:
                for record in scope.log_records:
                    line["records"].append({
                        "body": plain(record.body), "severity": record.severity_number,
                        "traceId": record.trace_id.hex(), "spanId": record.span_id.hex(),
                        "time": str(record.time_unix_nano), "attributes": attributes(record),
                    })
    return line


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        length = int(self.headers.get("content-length") or 0)
        text = self.rfile.read(length).decode("utf-8")
        line = decode(self.path, text)
        line["contentType"] = self.headers.get("content-type")
        line["headers"] = {name.lower(): value for name, value in self.headers.items() if name.lower().startswith("x-")}
        emit(line)
        self.send_response(400 if line["problems"] else 200)
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args):
        pass


def serve(port):
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main():
    server = serve(0)
    port = server.server_address[1]
    emit({"port": port})
    for command in sys.stdin:
        command = command.strip()
        if command == "down" and server:
            server.shutdown()
            server.server_close()
            server = None
            emit({"down": True})
        elif command == "up" and not server:
            server = serve(port)
            emit({"up": True})
        elif command.startswith("decode "):
            with open(command[len("decode "):], encoding="utf-8") as file:
                text = file.read()
            path = "/v1/traces" if '"resourceSpans"' in text else "/v1/logs"
            line = decode(path, text)
            line["decoded"] = True
            emit(line)


if __name__ == "__main__":
    main()
