"""A stdio MCP server that misbehaves in ways the official SDKs do not let a server behave, written as
raw JSON-RPC lines on the standard library alone. The first argument chooses how:

`endless-pages`: answers `initialize`, then answers every `tools/list` with a page of tools and a
`nextCursor`, for ever.
`silent PORT`: reads its stdin and never answers anything. When the first request arrives it
connects to 127.0.0.1:PORT and keeps the connection open, so a test knows the request was sent and
sees the connection close when the process is gone.
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
else:
    sys.exit(f"unknown mode {mode!r}: endless-pages or silent PORT")
