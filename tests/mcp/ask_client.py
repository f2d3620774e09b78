"""An outside agent on the official Python MCP SDK, asking the person through `hark mcp`.

Run as `ask_client.py HARK_BIN [hark mcp flags...]`: it starts `hark mcp` over stdio (with the
HARK_DATA_DIR it was given), names itself "Test Agent" (or, with ASK_CLIENT_NAME set, by that name
and no title, as Claude Code does with "claude-code"), and then does what each line on stdin says,
printing one JSON line per step on stdout:

  tools        the tool names and the ask tool's parameters
  ask          calls ask_user_question with a database question, prints its result
  answers [CALL_ID...]
               calls get_answers (with those call_ids, learnt elsewhere), prints its result
  withdraw CALL_ID REASON...
               calls withdraw_question, prints its result
"""

import json
import os
import sys

import anyio
import mcp_types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

QUESTION = {
    "questions": [
        {
            "id": "db",
            "header": "Database",
            "question": "Which database should the notes app use?",
            "multi_select": False,
            "options": [
                {"label": "SQLite", "description": "One file next to the app"},
                {"label": "Postgres", "description": "A server to run"},
            ],
        }
    ]
}


def emit(step, **fields):
    print(json.dumps({"step": step, **fields}), flush=True)


def result_fields(result):
    text = "".join(block.text for block in result.content if getattr(block, "type", "") == "text")
    return {"text": text, "structured": result.structured_content, "is_error": bool(result.is_error)}


async def main():
    hark, flags = sys.argv[1], sys.argv[2:]
    # The SDK passes a server only a few variables of its own; the desktop session's are added, as
    # agents like Claude Code pass theirs, so a `hark mcp` that starts the app can show its window.
    env = {"HARK_DATA_DIR": os.environ["HARK_DATA_DIR"]}
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "HARK_DESKTOP"):
        if name in os.environ:
            env[name] = os.environ[name]
    params = StdioServerParameters(command=hark, args=["mcp", *flags], env=env, cwd=os.getcwd())
    async with stdio_client(params) as (read, write):
        named = os.environ.get("ASK_CLIENT_NAME")
        if named:
            info = types.Implementation(name=named, version="1.0")
        else:
            info = types.Implementation(name="test-agent", title="Test Agent", version="1.0")
        async with ClientSession(read, write, client_info=info) as session:
            await session.initialize()
            emit("ready")
            lines = anyio.wrap_file(sys.stdin)
            async for line in lines:
                command = line.strip()
                if command == "tools":
                    tools = (await session.list_tools()).tools
                    ask = next(t for t in tools if t.name == "ask_user_question")
                    emit("tools", names=[t.name for t in tools], ask_parameters=sorted(ask.input_schema["properties"]))
                elif command == "ask":
                    emit("asked", **result_fields(await session.call_tool("ask_user_question", QUESTION)))
                elif command.split(" ")[0] == "answers":
                    calls = command.split()[1:]
                    arguments = {"call_ids": calls} if calls else {}
                    emit("answers", **result_fields(await session.call_tool("get_answers", arguments)))
                elif command.split(" ")[0] == "withdraw":
                    _, call_id, reason = command.split(" ", 2)
                    arguments = {"call_id": call_id, "reason": reason}
                    emit("withdrawn", **result_fields(await session.call_tool("withdraw_question", arguments)))
                elif command == "quit":
                    break


anyio.run(main)
