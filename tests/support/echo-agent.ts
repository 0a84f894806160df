// A tiny, real ACP agent for the transcript runner's tests (run: `npx tsx tests/support/echo-agent.ts`).
// Behaviour, per prompt text:
//   - always: one agent_message_chunk "echo: <text>"
//   - "read <ABSPATH>": calls fs/read_text_file on the client and echoes the content
//   - "ask": sends session/request_permission and echoes the chosen option
//   - "tool": reports a tool_call and a tool_call_update with a random toolCallId
// --shout (or ECHO_AGENT_SHOUT=1) makes it upper-case its echo (a "different agent" for tests).
// ECHO_AGENT_VERSION sets agentInfo.version (default "1.0.0").
import * as acp from "@agentclientprotocol/sdk";
import { randomUUID } from "node:crypto";
import { stdioStreams } from "./stdio.js";

const shout = process.argv.includes("--shout") || process.env.ECHO_AGENT_SHOUT === "1";
const version = process.env.ECHO_AGENT_VERSION ?? "1.0.0";

function textOf(prompt: acp.ContentBlock[]): string {
  return prompt.map((b) => (b.type === "text" ? b.text : "")).join("");
}

const connection = acp
  .agent({ name: "echo-agent" })
  .onRequest(acp.methods.agent.initialize, () => ({
    protocolVersion: 1,
    agentCapabilities: {},
    agentInfo: { name: "echo-agent", version },
  }))
  .onRequest(acp.methods.agent.session.new, () => ({ sessionId: `sess-${randomUUID()}` }))
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const sessionId = params.sessionId;
    const say = (text: string) =>
      client.notify(acp.methods.client.session.update, {
        sessionId,
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
      });
    const text = textOf(params.prompt);
    await say(shout ? `ECHO: ${text.toUpperCase()}` : `echo: ${text}`);
    const read = /\bread (\S+)/.exec(text);
    if (read?.[1]) {
      const res = await client.request(acp.methods.client.fs.readTextFile, { sessionId, path: read[1] });
      await say(`content: ${res.content}`);
    }
    if (/\bask\b/.test(text)) {
      const toolCallId = `call-${randomUUID()}`;
      const res = await client.request(acp.methods.client.session.requestPermission, {
        sessionId,
        toolCall: { toolCallId, title: "Do the thing", kind: "execute", status: "pending" },
        options: [
          { optionId: "allow", name: "Allow", kind: "allow_once" },
          { optionId: "reject", name: "Reject", kind: "reject_once" },
        ],
      });
      const outcome = res.outcome.outcome === "selected" ? res.outcome.optionId : "cancelled";
      await say(`permission: ${outcome}`);
    }
    if (/\btool\b/.test(text)) {
      const toolCallId = `call-${randomUUID()}`;
      await client.notify(acp.methods.client.session.update, {
        sessionId,
        update: { sessionUpdate: "tool_call", toolCallId, title: "Think", kind: "think", status: "in_progress" },
      });
      await client.notify(acp.methods.client.session.update, {
        sessionId,
        update: { sessionUpdate: "tool_call_update", toolCallId, status: "completed" },
      });
    }
    return { stopReason: "end_turn" };
  })
  .connect(acp.ndJsonStream(...stdioStreams()));

await connection.closed;
process.exit(0);
