"""An MCP server built on the official Python SDK that asks the person through elicitation.

`banner` asks the same choice as `pick` the way the client's protocol carries a form: mid-call on
protocols up to 2025-11-25, as an `input_required` result the client answers by calling again on
2026-07-28 (what Claude Code speaks). `deploy` asks a form with a titled enum, a multi-select and a boolean (with a default); `pick`
asks a single choice, small enough for a notification's buttons; `link` asks in URL mode; `too_big`
asks what Hark refuses to show, and reports the refusal. Each tool returns what the
client sent back, as JSON, so a test reads the action and the typed content in the tool result.
"""

import json
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from mcp.server.mcpserver import Context, Elicit, ElicitationResult, MCPServer, Resolve

server = MCPServer("elicit")

DEPLOY_FORM = {
    "type": "object",
    "properties": {
        "env": {
            "type": "string",
            "title": "Environment",
            "description": "Where should release 1.2 go?",
            "oneOf": [{"const": "stg", "title": "Staging"}, {"const": "prod", "title": "Production"}],
        },
        "regions": {
            "type": "array",
            "title": "Regions",
            "description": "Which regions?",
            "items": {"type": "string", "enum": ["eu", "us", "ap"]},
            "minItems": 1,
        },
        "notify": {"type": "boolean", "title": "Notify", "description": "Tell the team?", "default": True},
    },
    "required": ["env", "regions"],
}

PICK_FORM = {
    "type": "object",
    "properties": {"colour": {"type": "string", "title": "Colour", "enum": ["red", "green"]}},
    "required": ["colour"],
}


async def ask(ctx: Context, message: str, schema: dict) -> str:
    result = await ctx.request_context.session.elicit_form(message, schema, related_request_id=ctx.request_id)
    return json.dumps({"action": result.action, "content": result.content})


@server.tool()
async def deploy(ctx: Context) -> str:
    """Deploys release 1.2 after asking the person where to."""
    return await ask(ctx, "Deploy settings for release 1.2", DEPLOY_FORM)


@server.tool()
async def pick(ctx: Context) -> str:
    """Asks the person for a colour."""
    return await ask(ctx, "Pick a colour for the banner", PICK_FORM)


@server.tool()
async def too_big(ctx: Context) -> str:
    """Asks a choice among more options than Hark shows; reports the refusal it gets."""
    schema = {
        "type": "object",
        "properties": {"n": {"type": "string", "title": "Number", "enum": [str(i) for i in range(12)]}},
    }
    try:
        return await ask(ctx, "Pick a number", schema)
    except Exception as e:  # the client's refusal arrives as an MCP error
        return json.dumps({"refused": str(e)})


@server.tool()
async def link(ctx: Context) -> str:
    """Asks the person to open a sign-in page (URL mode)."""
    result = await ctx.request_context.session.elicit_url(
        "Sign in to the deploy service", "https://example.com/sign-in?code=42", "sign-in-1",
        related_request_id=ctx.request_id,
    )
    return json.dumps({"action": result.action, "content": result.content})


class Banner(BaseModel):
    colour: Literal["red", "green"] = Field(title="Colour")


def ask_banner() -> Elicit[Banner]:
    return Elicit("Pick a colour for the banner", Banner)


@server.tool()
async def banner(answer: Annotated[ElicitationResult[Banner], Resolve(ask_banner)]) -> str:
    """Asks the person for the banner's colour."""
    content = answer.data.model_dump() if answer.action == "accept" else None
    return json.dumps({"action": answer.action, "content": content})


if __name__ == "__main__":
    server.run()

