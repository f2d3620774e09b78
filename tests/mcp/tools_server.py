"""An MCP server built on the official Python SDK whose tools are chosen by its first argument, for
the tests of how Hark treats a server's tool list.

`env`: one tool, `environment`, returns the names of the variables the server was started with, as
a JSON list, so a test sees what Hark let through.
`clash`: `run.tests` and `run_tests`, two names that are one once made model-safe; each returns its
own name, so a test sees which one a call reached.
`many N`: N tools `t000`, `t001`, ..., each returning its own name.
`readonly`: `look`, which the server marks read-only, and `change`, which it does not; each returns
its own name.
"""

import json
import os
import sys

from mcp.types import ToolAnnotations

from mcp.server.mcpserver import MCPServer

server = MCPServer("tools")


def named(name: str):
    def tool() -> str:
        return name

    return tool


mode = sys.argv[1] if len(sys.argv) > 1 else ""
if mode == "env":

    def environment() -> str:
        return json.dumps(sorted(os.environ))

    server.add_tool(environment, name="environment", description="The names of this server's environment variables.")
elif mode == "clash":
    for name in ["run.tests", "run_tests"]:
        server.add_tool(named(name), name=name, description=f"Says {name}.")
elif mode == "many":
    for i in range(int(sys.argv[2])):
        name = f"t{i:03}"
        server.add_tool(named(name), name=name, description=f"Says {name}.")
elif mode == "readonly":
    server.add_tool(named("look"), name="look", description="Looks.", annotations=ToolAnnotations(readOnlyHint=True))
    server.add_tool(named("change"), name="change", description="Changes.")
else:
    sys.exit(f"unknown mode {mode!r}: env, clash, many N or readonly")

if __name__ == "__main__":
    server.run()
