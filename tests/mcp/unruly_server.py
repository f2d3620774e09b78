"""A stdio MCP server that misbehaves in ways the official SDKs do not let a server behave, written as
raw JSON-RPC lines on the standard library alone. The first argument chooses how:

`endless-pages`: answers `initialize`, then answers every `tools/list` with a page of tools and a
`nextCursor`, for ever.
`silent PORT`: reads its stdin and never answers anything. When the first request arrives it
connects to 127.0.0.1:PORT and keeps the connection open, so a test knows the request was sent and
sees the connection close when the process is gone.
`elicit-flood`: asks the person a form as soon as it is initialized (outside any tool call), and
five at once while its tool `ask` runs; the tool returns what became of each, as
`{"early": ..., "f1": ..., ...}` (the error message, or the action).
"""

import json
import socket
import sys


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def endless_pages():
    page = 0
    for line in sys.stdin:
        request = json.loads(line)
        method, id_ = request.get("method"), request.get("id")
        if id_ is None:
            continue
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": id_, "result": {
                "protocolVersion": request["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "endless", "version": "1"},
            }})
        elif method == "tools/list":
            tools = [{"name": f"p{page}_t{i}", "description": "One more.", "inputSchema": {"type": "object"}}
                     for i in range(5)]
            page += 1
            send({"jsonrpc": "2.0", "id": id_, "result": {"tools": tools, "nextCursor": f"page-{page}"}})
        else:
            send({"jsonrpc": "2.0", "id": id_, "error": {"code": -32601, "message": f"no {method}"}})


FORM = {"message": "Your name?", "requestedSchema": {
    "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}


def elicit_flood():
    outcomes, call_id, asked = {}, None, []

    def outcome(message):
        if "error" in message:
            return message["error"].get("message", "error")
        return message.get("result", {}).get("action", "?")

    for line in sys.stdin:
        message = json.loads(line)
        method, id_ = message.get("method"), message.get("id")
        if method is None and id_ is not None:
            # A response to one of this server's requests.
            outcomes[id_] = outcome(message)
            if call_id is not None and all(f in outcomes for f in asked):
                send({"jsonrpc": "2.0", "id": call_id, "result": {
                    "content": [{"type": "text", "text": json.dumps(outcomes, sort_keys=True)}]}})
                call_id = None
            continue
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": id_, "result": {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "flood", "version": "1"},
            }})
        elif method == "notifications/initialized":
            send({"jsonrpc": "2.0", "id": "early", "method": "elicitation/create", "params": FORM})
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": id_, "result": {"tools": [
                {"name": "ask", "description": "Asks five forms at once.", "inputSchema": {"type": "object"}}]}})
        elif method == "tools/call":
            call_id, asked = id_, [f"f{i}" for i in range(1, 6)]
            for form_id in asked:
                send({"jsonrpc": "2.0", "id": form_id, "method": "elicitation/create", "params": FORM})
        elif id_ is not None:
            send({"jsonrpc": "2.0", "id": id_, "error": {"code": -32601, "message": f"no {method}"}})


def silent(port):
    held = None
    for _ in sys.stdin:
        if held is None:
            held = socket.create_connection(("127.0.0.1", port))


mode = sys.argv[1] if len(sys.argv) > 1 else ""
if mode == "endless-pages":
    endless_pages()
elif mode == "silent":
    silent(int(sys.argv[2]))
elif mode == "elicit-flood":
    elicit_flood()
else:
    sys.exit(f"unknown mode {mode!r}: endless-pages, silent PORT or elicit-flood")
