// Steering: a message added to the turn that is running (Codex's `turn/steer`), the way the
// official adapter exposes it: the extension request `_session/steering` {sessionId, prompt},
// advertised as `_meta.steering.supported` at initialize. With no turn to steer, the message
// starts one. A plain session/prompt during a turn is queued instead (see AcpSession.runTurn).
import { z } from "zod";
import { CodexRpcError, type UserInput } from "../codex/index.js";
import type { SessionFeature } from "../core/index.js";
import { toUserInput } from "../core/index.js";
import type { AcpSession } from "../core/index.js";

export const STEERING_METHOD = "_session/steering";

const text = z.object({ type: z.literal("text"), text: z.string() });
const image = z.object({ type: z.literal("image"), mimeType: z.string(), data: z.string(), uri: z.string().nullish() });
const resourceLink = z.object({
  type: z.literal("resource_link"),
  uri: z.string(),
  name: z.string(),
  title: z.string().nullish(),
});
const resource = z.object({
  type: z.literal("resource"),
  resource: z.union([
    z.object({ uri: z.string(), text: z.string(), mimeType: z.string().nullish() }),
    z.object({ uri: z.string(), blob: z.string(), mimeType: z.string().nullish() }),
  ]),
});
/** What a steering message may hold (the prompt blocks the adapter maps to Codex input). */
const steeringParamsSchema = z.object({
  sessionId: z.string(),
  prompt: z.array(z.discriminatedUnion("type", [text, image, resourceLink, resource])).min(1),
});

export type SteeringOutcome = { outcome: "injected" | "startedNewTurn" };

/** Into the running turn when there is one (and Codex takes it), else a new turn. */
export async function steer(
  session: AcpSession,
  input: UserInput[],
  onTurnEnd: (err: unknown) => void,
): Promise<SteeringOutcome> {
  const turnId = session.runningTurnId;
  if (turnId && !session.cancelling) {
    try {
      const client = await session.ensureAttached();
      await client.call("turn/steer", { threadId: session.threadId, input, expectedTurnId: turnId });
      return { outcome: "injected" };
    } catch (err) {
      // The turn ended meanwhile (or cannot be steered: a review, a compaction): a turn of its own.
      if (!(err instanceof CodexRpcError)) throw err;
    }
  }
  session.prompt(input).then(() => onTurnEnd(undefined), onTurnEnd);
  return { outcome: "startedNewTurn" };
}

export const steeringFeature: SessionFeature = {
  name: "steering",
  install(app, agent) {
    agent.initializeMeta.steering = { supported: true };
    app.onRequest(STEERING_METHOD, steeringParamsSchema, async ({ params }) => {
      const session = agent.sessionOf(params.sessionId);
      const outcome = await steer(session, toUserInput(params.prompt), (err) => {
        if (err)
          agent.services.log.warn(
            { sessionId: session.id, err: String(err) },
            "the turn a steering message started failed",
          );
      });
      agent.services.log.info({ sessionId: session.id, outcome: outcome.outcome }, "steering message");
      return outcome;
    });
  },
};
