// `/goal`: Codex's goal for the thread (thread/goal/*), as the Codex CLI and the official adapter
// offer it. `/goal <objective>` sets it (in place of any other) and Codex works toward it by
// itself: on an idle thread it starts a turn, and another after each one, until the goal is
// complete (the model's update_goal), paused or cleared. The command's prompt is that first turn;
// the turns after it stream as the session's updates outside any prompt (a prompt sent meanwhile
// joins the running turn), as with the official adapter. `/goal pause` lets the running turn end
// and starts no other, `/goal resume` starts one again, `/goal clear` drops the goal, `/goal`
// alone shows it. Codex's own changes of the goal are notices (bridge/translator.ts).
import type { PromptResponse } from "@agentclientprotocol/sdk/unstable";
import { CodexRpcError, type AppServerClient, type v2 } from "../../codex/index.js";
import { goalStatusLabel } from "../../bridge/index.js";
import type { AcpSession } from "../../core/index.js";
import { NO_TURN } from "../../core/index.js";
import { collaborationParams, keptTurnParams } from "../../core/index.js";

export const GOAL_HINT = "<objective> | pause | resume | clear | (nothing: show the goal)";

/**
 * Codex starts the goal's turn within milliseconds of the goal being set; with nothing this long
 * after, none is coming (input of its own queued, a turn of its own still running) and the
 * prompt ends: the turn that comes later streams as the session's updates.
 */
const TURN_GRACE_MS = 3000;

/** The longest objective Codex takes, in characters. */
const MAX_OBJECTIVE_CHARS = 4000;

const NO_GOAL =
  "No goal is set. Send `/goal <objective>`: Codex then works toward it, turn after turn, until it is done.\n";

/** Answers a command here, in its place among the session's prompts (index.ts). */
type Answer = (text: () => Promise<string> | string) => Promise<PromptResponse>;
type Say = (text: string) => Promise<void>;

/** Runs `/goal <args>`. */
export function goalCommand(session: AcpSession, args: string, answer: Answer, say: Say): Promise<PromptResponse> {
  switch (args.trim().toLowerCase()) {
    case "":
      return answer(() =>
        withClient(session, "read the goal", async (client) =>
          shown((await client.call("thread/goal/get", { threadId: session.id })).goal),
        ),
      );
    case "pause":
      return answer(() => withClient(session, "pause the goal", (client) => pause(session, client)));
    case "clear":
      return answer(() =>
        withClient(session, "clear the goal", async (client) =>
          (await client.call("thread/goal/clear", { threadId: session.id, origin: "user" })).cleared
            ? "Goal cleared.\n"
            : "There is no goal to clear.\n",
        ),
      );
    case "resume":
      return pursue(session, undefined, say);
    default: {
      const objective = args.trim();
      // Refused before the goal it would replace is cleared.
      const length = [...objective].length;
      if (length > MAX_OBJECTIVE_CHARS)
        return answer(
          () =>
            `A goal's objective is at most ${MAX_OBJECTIVE_CHARS} characters for Codex; this one has ${length}. The goal is unchanged.\n`,
        );
      return pursue(session, objective, say);
    }
  }
}

/** Codex's refusal (an objective too long, ...) is the command's answer, not a failed prompt. */
async function withClient(
  session: AcpSession,
  what: string,
  action: (client: AppServerClient) => Promise<string>,
): Promise<string> {
  try {
    return await action(await session.ensureAttached());
  } catch (err) {
    if (err instanceof CodexRpcError) return `Codex could not ${what}: ${err.message}\n`;
    throw err;
  }
}

async function pause(session: AcpSession, client: AppServerClient): Promise<string> {
  const { goal } = await client.call("thread/goal/get", { threadId: session.id });
  if (!goal) return NO_GOAL;
  if (goal.status === "paused")
    return `The goal is already paused: ${goal.objective}\nSend \`/goal resume\` to go on.\n`;
  const paused = (await client.call("thread/goal/set", { threadId: session.id, status: "paused", origin: "user" }))
    .goal;
  return `Goal paused: ${paused.objective}\nCodex finishes the turn it is in, if any, and starts no other. Send \`/goal resume\` to go on.\n`;
}

/**
 * Sets the goal active (with a new objective, or as it was: resume) and runs, as this prompt, the
 * turn Codex starts for it. The session's mode, model and collaboration mode reach Codex first:
 * its goal turns take the thread's settings, and in plan mode it does not work on a goal.
 */
function pursue(session: AcpSession, objective: string | undefined, say: Say): Promise<PromptResponse> {
  return session.runTurn("thread/goal/set", async (client) => {
    const threadId = session.id;
    await client.call("thread/settings/update", {
      threadId,
      ...keptTurnParams(session.settings),
      ...collaborationParams(session.settings),
    });
    const turn = watchForTurn(session);
    try {
      if (objective === undefined) {
        const { goal } = await client.call("thread/goal/get", { threadId });
        if (!goal) return await said(say, NO_GOAL);
      } else {
        // A new objective is a new goal (its usage counted from zero), as the CLI replaces one.
        await client.call("thread/goal/clear", { threadId, origin: "user" });
      }
      const { goal } = await client.call("thread/goal/set", {
        threadId,
        ...(objective === undefined ? {} : { objective }),
        status: "active",
        origin: "user",
      });
      await say(`Goal ${objective === undefined ? "resumed" : "set"}: ${goal.objective}\n`);
      if (session.settings.collaborationMode === "plan")
        return await said(
          say,
          "Codex works on a goal outside plan mode only: it starts once plan mode is off (`/plan off`, then `/goal resume`).\n",
        );
      if (goal.status !== "active") return await said(say, shown(goal));
      return (await turn.coming()) ? undefined : NO_TURN;
    } catch (err) {
      if (!(err instanceof CodexRpcError)) throw err;
      return await said(
        say,
        `Codex could not ${objective === undefined ? "resume" : "set"} the goal: ${err.message}\n`,
      );
    } finally {
      turn.stop();
    }
  });
}

async function said(say: Say, text: string): Promise<typeof NO_TURN> {
  await say(text);
  return NO_TURN;
}

/** Whether Codex starts a turn (or ends the one it runs, which another follows) before TURN_GRACE_MS passes. */
function watchForTurn(session: AcpSession): { coming(): Promise<boolean>; stop(): void } {
  let seen = false;
  let wake: (() => void) | undefined;
  const stop = session.on("notification", (n) => {
    if (n.method !== "turn/started" && n.method !== "turn/completed") return;
    seen = true;
    wake?.();
  });
  return {
    coming: () =>
      seen
        ? Promise.resolve(true)
        : new Promise<boolean>((resolve) => {
            const timer = setTimeout(() => resolve(false), TURN_GRACE_MS).unref();
            wake = () => {
              clearTimeout(timer);
              resolve(true);
            };
          }),
    stop,
  };
}

/** `/goal`: the goal, its state and what it used. */
function shown(goal: v2.ThreadGoal | null): string {
  if (!goal) return NO_GOAL;
  const budget = goal.tokenBudget !== null ? ` of a budget of ${goal.tokenBudget}` : "";
  const next =
    goal.status === "active"
      ? "`/goal pause` to stop after the current turn, `/goal clear` to drop it"
      : goal.status === "complete"
        ? "`/goal <objective>` for a new one, `/goal clear` to drop it"
        : "`/goal resume` to go on, `/goal clear` to drop it";
  return [
    `**Goal** (${goalStatusLabel(goal.status)})`,
    goal.objective,
    `Used: ${goal.tokensUsed} tokens${budget}, ${duration(goal.timeUsedSeconds)}.`,
    `Send ${next}.`,
    "",
  ].join("\n");
}

function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}
