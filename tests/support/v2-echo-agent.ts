// A tiny, real ACP v2 (draft) agent for the transcript runner's tests, built on the SDK's v2 agent
// API (run: `npx tsx tests/support/v2-echo-agent.ts`). It answers only protocol version 2.
// Per prompt, after the prompt's response (its user message id), in the session's update stream:
//   - state_update running, user_message (the prompt), two agent_message_chunks "echo: " and
//     "<text>" under one agent message id, state_update idle (end_turn);
//   - "ask": before the idle, a tool call, state_update requires_action, session/request_permission
//     for it, state_update running, the tool call completed and a chunk "permission: <optionId>".
// Every id (session, message, tool call) is random, as a real agent's differ per run.
// V2_ECHO_AGENT_VERSION sets info.version (default "1.0.0").
import * as acp from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { randomUUID } from "node:crypto";
import { stdioStreams } from "./stdio.js";

const version = process.env.V2_ECHO_AGENT_VERSION ?? "1.0.0";

function textOf(prompt: acp.ContentBlock[]): string {
  return prompt.map((b) => (b.type === "text" ? b.text : "")).join("");
}

async function runTurn(
  client: acp.AgentContext,
  sessionId: string,
  prompt: acp.ContentBlock[],
  userMessageId: string,
): Promise<void> {
  const update = (u: acp.SessionUpdate) => client.notify(acp.methods.client.session.update, { sessionId, update: u });
  const messageId = `msg-${randomUUID()}`;
  const say = (text: string) =>
    update({ sessionUpdate: "agent_message_chunk", messageId, content: { type: "text", text } });
  const text = textOf(prompt);
  await update({ sessionUpdate: "state_update", state: "running" });
  await update({ sessionUpdate: "user_message", messageId: userMessageId, content: prompt });
  await say("echo: ");
  await say(text);
  if (/\bask\b/.test(text)) {
    const toolCallId = `call-${randomUUID()}`;
    await update({
      sessionUpdate: "tool_call_update",
      toolCallId,
      title: "Do the thing",
      kind: "execute",
      status: "pending",
    });
    await update({ sessionUpdate: "state_update", state: "requires_action" });
    const res = await client.request(acp.methods.client.session.requestPermission, {
      sessionId,
      title: "Do the thing?",
      subject: { type: "tool_call", toolCall: { toolCallId } },
      options: [
        { optionId: "allow", name: "Allow", kind: "allow_once" },
        { optionId: "reject", name: "Reject", kind: "reject_once" },
      ],
    });
    await update({ sessionUpdate: "state_update", state: "running" });
    await update({ sessionUpdate: "tool_call_update", toolCallId, status: "completed" });
    await say(
      ` permission: ${String(res.outcome.outcome === "selected" ? res.outcome.optionId : res.outcome.outcome)}`,
    );
  }
  await update({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
}

const connection = acp
  .agent({ name: "v2-echo-agent" })
  .onRequest(acp.methods.agent.initialize, () => ({
    protocolVersion: 2,
    info: { name: "v2-echo-agent", version },
    capabilities: {},
  }))
  .onRequest(acp.methods.agent.session.new, () => ({ sessionId: `sess-${randomUUID()}` }))
  .onRequest(acp.methods.agent.session.prompt, ({ params, client }) => {
    const userMessageId = `user-${randomUUID()}`;
    // v2: the response says the prompt is in the conversation; the turn goes on after it.
    setImmediate(() => {
      runTurn(client, params.sessionId, params.prompt, userMessageId).catch((error: unknown) => {
        process.stderr.write(`v2-echo-agent: turn failed: ${String(error)}\n`);
      });
    });
    return { messageId: userMessageId };
  })
  .onRequest(acp.methods.agent.session.close, () => ({}))
  .connect(acp.ndJsonStream(...stdioStreams()));

await connection.closed;
process.exit(0);
