// Who answers a Codex server request (issue 27): the feature that claims its method, routed by
// key, most specific first (an MCP elicitation by its server, then as a tool approval, then any).
// It used to be the first feature in the list that did not pass: an order nothing documented.
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import type { CodexServerRequest } from "../../src/codex/index.js";
import { RequestRouter, route } from "../../src/core/request-routes.js";
import type { SessionFeature } from "../../src/core/feature-api.js";

const services = { log: pino({ level: "silent" }) } as never;
const session = {} as never;
const elicitation = (serverName: string, meta: unknown): CodexServerRequest =>
  ({
    method: "mcpServer/elicitation/request",
    params: {
      threadId: "t",
      turnId: "u",
      serverName,
      mode: "form",
      message: "?",
      requestedSchema: { type: "object", properties: {} },
      _meta: meta,
    },
  }) as unknown as CodexServerRequest;
const toolApproval = { codex_approval_kind: "mcp_tool_call", tool_name: "search" };

/** A feature that answers each key it claims with its own name. */
const claiming = (name: string, ...routes: Array<Parameters<typeof route>>): SessionFeature => ({
  name,
  requestRoutes: routes.map(([method, , qualifier]) =>
    route(method, async () => ({ action: "accept", content: { by: name }, _meta: null }) as never, qualifier),
  ),
});
const answeredBy = async (router: RequestRouter, request: CodexServerRequest): Promise<unknown> =>
  (
    (await router.answer(session, request, services, new AbortController().signal)) as
      | { content?: { by?: string } }
      | undefined
  )?.content?.by;

describe("RequestRouter", () => {
  const features = [
    claiming("mcp-elicitations", ["mcpServer/elicitation/request", async () => ({}) as never]),
    claiming("approvals", ["mcpServer/elicitation/request", async () => ({}) as never, "toolApproval"]),
    claiming("file-tools", ["mcpServer/elicitation/request", async () => ({}) as never, { server: "acp_fs" }]),
  ];

  it("routes an elicitation by its server first, then as a tool approval, then to whoever takes any", async () => {
    const router = new RequestRouter(features);
    expect(await answeredBy(router, elicitation("acp_fs", toolApproval))).toBe("file-tools");
    expect(await answeredBy(router, elicitation("github", toolApproval))).toBe("approvals");
    expect(await answeredBy(router, elicitation("github", null))).toBe("mcp-elicitations");
  });

  it("does not depend on the order of the features", async () => {
    const router = new RequestRouter([...features].reverse());
    expect(await answeredBy(router, elicitation("acp_fs", toolApproval))).toBe("file-tools");
    expect(await answeredBy(router, elicitation("github", toolApproval))).toBe("approvals");
  });

  it("refuses two features claiming one route, at start-up", () => {
    expect(
      () =>
        new RequestRouter([
          ...features,
          claiming("another", ["mcpServer/elicitation/request", async () => ({}) as never, "toolApproval"]),
        ]),
    ).toThrow(/mcpServer\/elicitation\/request#toolApproval is claimed by both approvals and another/);
  });

  it("leaves a request nobody claims unanswered (the agent then refuses it in Codex's shape)", () => {
    const router = new RequestRouter(features);
    expect(
      router.answer(
        session,
        {
          method: "item/tool/requestUserInput",
          params: { threadId: "t", turnId: "u", itemId: "i", questions: [] },
        } as unknown as CodexServerRequest,
        services,
        new AbortController().signal,
      ),
    ).toBeUndefined();
  });
});

describe("route", () => {
  it("types a route's answer by its own request (tsc checks this file: an answer of another request is an error)", async () => {
    const approval = route("item/commandExecution/requestApproval", async () => ({ decision: "decline" }));
    // @ts-expect-error a question's answer is not a command approval's
    const wrong = route("item/commandExecution/requestApproval", async () => ({ answers: {} }));
    expect([approval.key, wrong.key]).toEqual([
      "item/commandExecution/requestApproval",
      "item/commandExecution/requestApproval",
    ]);
  });
});
