// Other MCP servers asking the user (MCP elicitation: a form, or a page to open) -> ACP
// `elicitation/create` when the client supports that mode, the answer back in Codex's shape.
// (Codex's own tool-call approvals arrive the same way and are answered in src/features/approvals/.)
// A form is passed on only when every field has an ACP equivalent; else, as when the client
// cannot show it, the request is declined, so the server is never answered with a guess.
import * as acp from "@agentclientprotocol/sdk/unstable";
import { z } from "zod";
import type { v2 } from "../codex/index.js";
import { askClient } from "../core/index.js";
import type { AgentServices, SessionFeature } from "../core/index.js";
import { route } from "../core/index.js";
import type { AcpSession } from "../core/index.js";

type Answer = v2.McpServerElicitationRequestResponse;
const DECLINE: Answer = { action: "decline", content: null, _meta: null };

const text = { title: z.string().optional(), description: z.string().optional() };
const option = z.object({ const: z.string(), title: z.string() });
const stringField = z
  .object({
    type: z.literal("string"),
    ...text,
    minLength: z.number().int().optional(),
    maxLength: z.number().int().optional(),
    pattern: z.string().optional(),
    format: z.enum(["email", "uri", "date", "date-time"]).optional(),
    default: z.string().optional(),
    enum: z.array(z.string()).optional(),
    enumNames: z.array(z.string()).optional(),
    oneOf: z.array(option).optional(),
  })
  .transform(({ enumNames, ...f }): acp.ElicitationPropertySchema => {
    // MCP's legacy titled enum: titles beside the values.
    if (f.enum && enumNames?.length === f.enum.length)
      return { ...f, enum: undefined, oneOf: f.enum.map((v, i) => ({ const: v, title: enumNames[i]! })) };
    return f;
  });
const numberField = z.object({
  type: z.enum(["number", "integer"]),
  ...text,
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  default: z.number().optional(),
});
const booleanField = z.object({ type: z.literal("boolean"), ...text, default: z.boolean().optional() });
const arrayField = z.object({
  type: z.literal("array"),
  ...text,
  minItems: z.number().int().optional(),
  maxItems: z.number().int().optional(),
  items: z.union([
    z.object({ type: z.literal("string"), enum: z.array(z.string()) }),
    z.object({ anyOf: z.array(option) }),
  ]),
  default: z.array(z.string()).optional(),
});
const formSchema = z.object({
  type: z.literal("object"),
  properties: z.record(z.string(), z.union([stringField, numberField, booleanField, arrayField])),
  required: z.array(z.string()).optional(),
});

/** An MCP form schema as ACP's, or undefined when a field has no ACP equivalent. */
export function acpForm(requested: unknown): acp.ElicitationSchema | undefined {
  const parsed = formSchema.safeParse(requested);
  if (!parsed.success) return undefined;
  const properties: Record<string, acp.ElicitationPropertySchema> = {};
  for (const [name, field] of Object.entries(parsed.data.properties)) properties[name] = field;
  return { type: "object", properties, ...(parsed.data.required ? { required: parsed.data.required } : {}) };
}

async function forward(
  session: AcpSession,
  params: v2.McpServerElicitationRequestParams,
  services: AgentServices,
  withdrawn?: AbortSignal,
): Promise<Answer> {
  const caps = services.clientCapabilities().elicitation;
  const log = { sessionId: session.id, server: params.serverName, mode: params.mode };
  let request: acp.CreateElicitationRequest | undefined;
  if (params.mode === "form" && caps?.form) {
    const requestedSchema = acpForm(params.requestedSchema);
    if (requestedSchema)
      request = {
        sessionId: session.id,
        mode: "form",
        message: `${params.serverName}: ${params.message}`,
        requestedSchema,
      };
  } else if (params.mode === "url" && caps?.url) {
    request = {
      sessionId: session.id,
      mode: "url",
      message: `${params.serverName}: ${params.message}`,
      url: params.url,
      elicitationId: params.elicitationId,
    };
  }
  if (!request) {
    services.log.info(log, "an MCP server asks the user something this client cannot show; declined");
    return DECLINE;
  }
  const asked = await askClient(session, withdrawn, (signal) =>
    services.client().request(acp.methods.client.elicitation.create, request, {
      cancellationSignal: signal,
      stopWaitingOnCancel: true,
    }),
  ).catch((err: unknown) => {
    services.log.warn({ ...log, err: String(err) }, "asking the user for an MCP server failed; declined");
    return undefined;
  });
  if (!asked) return DECLINE;
  if (asked.cancelled) return { action: "cancel", content: null, _meta: null };
  services.log.info({ ...log, action: asked.answer.action }, "MCP server elicitation answered");
  if (acp.CreateElicitationResponse.isAccept(asked.answer))
    return { action: "accept", content: asked.answer.content ?? {}, _meta: null };
  return asked.answer.action === "cancel" ? { action: "cancel", content: null, _meta: null } : DECLINE;
}

/** Forwards other MCP servers' elicitations (the ones approvals and file tools did not take). */
export const mcpElicitationsFeature: SessionFeature = {
  name: "mcp-elicitations",
  requestRoutes: [
    route("mcpServer/elicitation/request", (session, request, services, withdrawn) =>
      forward(session, request.params, services, withdrawn),
    ),
  ],
};
