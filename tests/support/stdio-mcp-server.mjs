// A tiny stdio MCP server for end-to-end tests (plain ESM so `node` starts it without a
// TypeScript loader). Tools:
//   lookup_word {word}  read-only (readOnlyHint): returns "definition of <word>"
//   save_note {text}    not read-only (Codex asks before calling it): returns "saved: <text>"; with
//                       $MCP_NOTES_DIR set, also writes the text to note.txt there (a tool that edits files)
//   ask_color {}        read-only; asks the user (MCP elicitation, a form) and returns the answer
// Every call is appended to $MCP_CALL_LOG (one JSON line) when that variable is set, and every
// start of the server (its pid, one line) to $MCP_START_LOG, so a test can see a restart. With
// $MCP_REQUIRE_FILE set, the server exits at once (fails to start) while that file is missing.
import { appendFileSync, existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

if (process.env.MCP_REQUIRE_FILE && !existsSync(process.env.MCP_REQUIRE_FILE)) process.exit(1);
if (process.env.MCP_START_LOG) appendFileSync(process.env.MCP_START_LOG, `${process.pid}\n`);

const server = new McpServer({ name: "test-notes", version: "1.0.0" });
const record = (tool, args) => {
  if (process.env.MCP_CALL_LOG) appendFileSync(process.env.MCP_CALL_LOG, `${JSON.stringify({ tool, args })}\n`);
};

server.registerTool(
  "lookup_word",
  { description: "Look up a word", inputSchema: { word: z.string() }, annotations: { readOnlyHint: true } },
  async ({ word }) => {
    record("lookup_word", { word });
    return { content: [{ type: "text", text: `definition of ${word}` }] };
  },
);

server.registerTool(
  "save_note",
  { description: "Save a note", inputSchema: { text: z.string() }, annotations: { readOnlyHint: false } },
  async ({ text }) => {
    record("save_note", { text });
    if (process.env.MCP_NOTES_DIR) writeFileSync(path.join(process.env.MCP_NOTES_DIR, "note.txt"), `${text}\n`);
    return { content: [{ type: "text", text: `saved: ${text}` }] };
  },
);

server.registerTool(
  "ask_color",
  { description: "Ask the user for a color", inputSchema: {}, annotations: { readOnlyHint: true } },
  async () => {
    record("ask_color", {});
    const answer = await server.server.elicitInput({
      message: "Pick a color",
      requestedSchema: {
        type: "object",
        properties: {
          color: { type: "string", title: "Color", enum: ["red", "blue"], enumNames: ["Red", "Blue"] },
          shade: { type: "integer", title: "Shade", minimum: 1, maximum: 9 },
        },
        required: ["color"],
      },
    });
    return { content: [{ type: "text", text: `answer: ${JSON.stringify(answer)}` }] };
  },
);

await server.connect(new StdioServerTransport());
