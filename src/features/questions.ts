// Codex asking the user (`item/tool/requestUserInput`, offered to the model in plan mode) ->
// ACP `elicitation/create` as a form, the answers mapped back in Codex's shape. A client
// without form elicitation cannot be asked: the model is told so, in the shape Codex expects.
import * as acp from "@agentclientprotocol/sdk/unstable";
import type { v2 } from "../codex/index.js";
import { askClient } from "../core/index.js";
import type { AgentServices, SessionFeature } from "../core/index.js";
import { route } from "../core/index.js";
import type { AcpSession } from "../core/index.js";

type Question = v2.ToolRequestUserInputQuestion;
type Answers = v2.ToolRequestUserInputResponse;

/** The free-text field beside a question whose options are not the only answers. */
const otherField = (id: string): string => `${id}__other`;

/** One form for all questions of a request. */
export function questionForm(questions: Question[]): acp.ElicitationSchema {
  const properties: Record<string, acp.ElicitationPropertySchema> = {};
  const required: string[] = [];
  for (const q of questions) {
    const options = q.options ?? [];
    // ACP forms have no password field: say where a secret goes rather than hide it.
    const description = q.isSecret ? `${q.question} (it is sent to the model)` : q.question;
    properties[q.id] = {
      type: "string",
      title: q.header || q.id,
      description,
      ...(options.length > 0
        ? {
            oneOf: options.map((o) => ({
              const: o.label,
              title: o.label,
              ...(o.description ? { description: o.description } : {}),
            })),
          }
        : {}),
    };
    if (options.length > 0 && q.isOther)
      properties[otherField(q.id)] = {
        type: "string",
        title: `${q.header || q.id}: another answer`,
        description: "Instead of a choice above",
      };
    if (options.length === 0) required.push(q.id);
  }
  return { type: "object", properties, required };
}

/** The form's content as Codex's answers (empty values are no answer). */
export function answersFrom(questions: Question[], content: Record<string, unknown>): Answers {
  const answers: Answers["answers"] = {};
  const values = (v: unknown): string[] =>
    (Array.isArray(v) ? v.map(String) : v === undefined || v === null ? [] : [String(v)])
      .map((s) => s.trim())
      .filter(Boolean);
  for (const q of questions) {
    const other = values(content[otherField(q.id)]);
    const chosen = other.length > 0 ? other : values(content[q.id]);
    if (chosen.length > 0) answers[q.id] = { answers: chosen };
  }
  return { answers };
}

/** What the model hears when nobody can be asked. */
export function unaskableAnswers(questions: Question[]): Answers {
  const note =
    "The user cannot be asked questions in this editor. Decide yourself, say which assumption you made, and go on.";
  return { answers: Object.fromEntries(questions.map((q) => [q.id, { answers: [note] }])) };
}

async function askQuestions(
  session: AcpSession,
  params: v2.ToolRequestUserInputParams,
  services: AgentServices,
  withdrawn?: AbortSignal,
): Promise<Answers> {
  const log = { sessionId: session.id, itemId: params.itemId, questions: params.questions.length };
  if (!services.clientCapabilities().elicitation?.form) {
    services.log.info(log, "Codex asks the user, but the client cannot show forms; the model is told");
    return unaskableAnswers(params.questions);
  }
  const message = params.questions.length === 1 ? params.questions[0]!.question : "Codex has some questions.";
  try {
    const asked = await askClient(session, withdrawn, (signal) =>
      services
        .client()
        .request(
          acp.methods.client.elicitation.create,
          { sessionId: session.id, mode: "form", message, requestedSchema: questionForm(params.questions) },
          { cancellationSignal: signal, stopWaitingOnCancel: true },
        ),
    );
    if (asked.cancelled) return { answers: {} };
    services.log.info({ ...log, action: asked.answer.action }, "questions answered");
    if (!acp.CreateElicitationResponse.isAccept(asked.answer)) return { answers: {} };
    return answersFrom(params.questions, asked.answer.content ?? {});
  } catch (err) {
    services.log.warn({ ...log, err: String(err) }, "asking the user failed; no answers");
    return { answers: {} };
  }
}

/** Answers Codex's questions to the user through the client's forms. */
export const questionsFeature: SessionFeature = {
  name: "questions",
  requestRoutes: [
    route("item/tool/requestUserInput", (session, request, services, withdrawn) =>
      askQuestions(session, request.params, services, withdrawn),
    ),
  ],
};
