// Titles: derived from the first user message (codex 0.169 never names threads itself),
// replaced by a real name when Codex announces one.
import type { CodexNotification } from "../../src/codex/index.js";
import { note } from "../support/codex-messages.js";
import { describe, expect, it } from "vitest";
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { deriveTitle, isoTime, threadTitle, TITLE_MAX } from "../../src/core/session/titles.js";
import { titlesFeature } from "../../src/features/titles.js";
import type { AgentServices, SessionOpening } from "../../src/core/feature-api.js";
import type { AcpSession } from "../../src/core/session/session.js";
import { log } from "../../src/log/index.js";

describe("deriveTitle", () => {
  it("keeps a short first message, on one line", () => {
    expect(deriveTitle("  fix the\n  failing   test ")).toBe("fix the failing test");
  });
  it("cuts a long message at a word, with an ellipsis, within TITLE_MAX", () => {
    const title = deriveTitle("word ".repeat(40))!;
    expect(title.length).toBeLessThanOrEqual(TITLE_MAX);
    expect(title.endsWith("word…")).toBe(true);
  });
  it("leaves out embedded editor context, and gives nothing for an empty message", () => {
    expect(deriveTitle('explain this <context ref="file:///a.ts">\nconst a = 1;\n</context>')).toBe("explain this");
    expect(deriveTitle("   ")).toBeUndefined();
    expect(deriveTitle(null)).toBeUndefined();
  });
  it("prefers a thread's name to its preview", () => {
    expect(threadTitle({ name: "Named", preview: "first message" })).toBe("Named");
    expect(threadTitle({ name: null, preview: "first message" })).toBe("first message");
    expect(threadTitle({ name: null, preview: "" })).toBeUndefined();
  });
  it("turns codex's unix seconds into ISO 8601", () => {
    expect(isoTime(1_700_000_000)).toBe("2023-11-14T22:13:20.000Z");
    expect(isoTime(undefined)).toBeUndefined();
  });
});

describe("titlesFeature", () => {
  function fakeSession() {
    const sent: SessionUpdate[] = [];
    const listeners = new Set<(n: CodexNotification) => void>();
    const session = {
      id: "thread-1",
      // The part of AcpSession.on the titles feature uses.
      on: (_event: "notification", listener: (n: CodexNotification) => void) => (
        listeners.add(listener), () => void listeners.delete(listener)
      ),
      send: async (u: SessionUpdate) => {
        sent.push(u);
      },
    };
    const emit = (method: string, params: Record<string, unknown>) => {
      for (const l of listeners) l(note(method, params));
    };
    return { session: session as unknown as AcpSession, sent, emit, listeners };
  }
  const services = { log } as unknown as AgentServices;
  const opening = { kind: "new" } as SessionOpening;
  const userMessage = (text: string) => ({
    threadId: "thread-1",
    item: { type: "userMessage", id: "u", content: [{ type: "text", text, text_elements: [] }] },
  });

  it("sends one session_info_update for the first user message, then follows thread/name/updated", async () => {
    const feature = titlesFeature();
    const { session, sent, emit, listeners } = fakeSession();
    await feature.attach!(session, opening, services);
    emit("item/started", userMessage("ignored: not completed"));
    emit("item/completed", userMessage("first thing I asked"));
    emit("item/completed", userMessage("second thing"));
    emit("item/completed", { threadId: "thread-1", item: { type: "agentMessage", id: "m", text: "hi" } });
    expect(sent).toEqual([
      { sessionUpdate: "session_info_update", title: "first thing I asked", updatedAt: expect.any(String) },
    ]);
    emit("thread/name/updated", { threadId: "thread-1", threadName: "A real name" });
    emit("thread/name/updated", { threadId: "thread-1", threadName: "A real name" });
    expect(sent.map((u) => (u.sessionUpdate === "session_info_update" ? u.title : undefined))).toEqual([
      "first thing I asked",
      "A real name",
    ]);
    await feature.detach!(session, services);
    expect(listeners.size).toBe(0);
  });
});
