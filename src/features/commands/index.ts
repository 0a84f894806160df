// Slash commands: the Codex commands that make sense in an editor, advertised with
// `available_commands_update` and run through the app-server method that does each one.
// Unknown `/x` text is an ordinary prompt for the model.
import * as acp from "@agentclientprotocol/sdk/unstable";
import type { UserInput, v2 } from "../../codex/index.js";
import type { AgentHandle, SessionFeature } from "../../core/index.js";
import { modeName } from "../../core/index.js";
import { setThreadName, signOut } from "../../core/index.js";
import { mcpCommandText, type McpLogins } from "./mcp.js";
import { listSkills, skillCommand, skillInput, skillsText, type Skill } from "./skills.js";
import { GOAL_HINT, goalCommand } from "./goal.js";
import type { AcpSession } from "../../core/index.js";

const COMMANDS: acp.AvailableCommand[] = [
  {
    name: "review",
    description: "Ask Codex to review the uncommitted changes (or what you describe)",
    input: { hint: "optional: what to review" },
  },
  { name: "compact", description: "Summarize the conversation to free up context" },
  { name: "init", description: "Create an AGENTS.md file with instructions for Codex" },
  { name: "status", description: "Show the session's model, mode, token usage, usage limits and directory" },
  { name: "logout", description: "Sign out of Codex (the next session asks to sign in)" },
  { name: "rename", description: "Rename this session", input: { hint: "the new title" } },
  { name: "skills", description: "List the Codex skills available here (each is also a command)" },
  {
    name: "mcp",
    description:
      "Show the MCP servers of this session, their state and sign-in; `reconnect` starts again the ones that are down, `login` signs in to one",
    input: { hint: "optional: reconnect [server], or login <server>" },
  },
  {
    name: "review-branch",
    description: "Ask Codex to review this branch against a base branch",
    input: { hint: "base branch (default: main)" },
  },
  { name: "review-commit", description: "Ask Codex to review one commit", input: { hint: "commit sha" } },
  {
    name: "plan",
    description: "Plan mode: Codex explores, asks and proposes a plan without changing anything (/plan off to leave)",
    input: { hint: "optional: what to plan, or off" },
  },
  {
    name: "goal",
    description:
      "Set a goal Codex keeps working toward, turn after turn, until it is done; pause, resume or clear it, or show it",
    input: { hint: GOAL_HINT },
  },
];

const INIT_PROMPT = [
  "Create an AGENTS.md file at the root of this repository that guides coding agents working in it.",
  "Look at the project first (layout, languages, build, test and lint commands, conventions visible in the code and in any existing docs).",
  "Then write a concise AGENTS.md (a few hundred words) with sections such as: project structure, how to build and run,",
  "how to test, coding style and naming, and how to write commits and pull requests. Use the project's real commands and paths;",
  "do not invent anything you did not see. If an AGENTS.md already exists, improve it instead of replacing what is still true.",
].join(" ");

type Usage = { total?: number; last?: number; window?: number | null };
type CommandState = { usage: Usage; skills: Skill[]; mcpLogins: McpLogins };

/** Advertises the commands (built-in and skills), runs them when a prompt is one, and keeps the token usage /status shows. */
export function commandsFeature(): SessionFeature {
  const builtIn: ReadonlySet<string> = new Set(COMMANDS.map((c) => c.name));
  const states = new WeakMap<AcpSession, CommandState>();
  const unsubscribe = new WeakMap<AcpSession, () => void>();
  return {
    name: "commands",
    handlePrompt(session, prompt, agent) {
      const state = states.get(session) ?? { usage: {}, skills: [], mcpLogins: new Map() };
      const cmd = parseCommand(prompt, builtIn, state.skills);
      if (!cmd) return undefined;
      const skill = state.skills.find((k) => k.command === cmd.name);
      if (skill) return session.prompt(skillInput(skill, cmd.args));
      return runCommand(session, cmd, agent, (input) => session.prompt(input), state);
    },
    detach(session) {
      unsubscribe.get(session)?.();
      unsubscribe.delete(session);
      // Sign-ins still waited for end with the session (their timers and codex-exit listeners too).
      for (const end of states.get(session)?.mcpLogins.values() ?? []) end();
      states.delete(session);
    },
    async attach(session, opening, services) {
      const state: CommandState = { usage: {}, skills: [], mcpLogins: new Map() };
      states.set(session, state);
      session.on("notification", (n) => {
        if (n.method !== "thread/tokenUsage/updated") return;
        const u = n.params.tokenUsage;
        state.usage.total = u.total.totalTokens;
        state.usage.last = u.last.totalTokens;
        state.usage.window = u.modelContextWindow;
      });
      const advertise = (): void => {
        if (session.isClosed) return;
        const availableCommands = [...COMMANDS, ...state.skills.map(skillCommand)];
        void session.send({ sessionUpdate: "available_commands_update", availableCommands }).catch(() => undefined);
      };
      const refresh = async (forceReload = false): Promise<void> => {
        try {
          const client = await services.host.client();
          state.skills = await listSkills(client, session.roots.slice(), builtIn, forceReload);
        } catch (err) {
          services.log.debug({ err: String(err), sessionId: session.id }, "skills/list failed; no skill commands");
        }
      };
      unsubscribe.set(
        session,
        services.host.onNotification((method) => {
          if (method === "skills/changed") void refresh(true).then(advertise);
        }),
      );
      // session/load and session/resume: the client already knows the id, so queue it now, in
      // order ahead of the history replay (a fixed position, as transcripts expect). session/new:
      // only after the response is written (the client would not know the session), and without
      // holding the response up for the skills.
      if (opening.kind === "new") {
        const listed = refresh();
        setTimeout(() => void listed.then(advertise), 0);
      } else {
        // Before the history replay (its place in the stream is fixed), but never holding up the
        // load for long: without skills after a second, the skills follow in a later update.
        const listed = refresh();
        const inTime = await Promise.race([
          listed.then(() => true),
          new Promise<boolean>((r) => setTimeout(() => r(false), 1000).unref()),
        ]);
        advertise();
        if (!inTime) void listed.then(advertise);
      }
    },
  };
}

/** `/name rest` when the prompt starts with one of our commands (or a skill's), else undefined. */
function parseCommand(
  prompt: acp.ContentBlock[],
  builtIn: ReadonlySet<string>,
  skills: readonly Skill[],
): { name: string; args: string } | undefined {
  const first = prompt[0];
  if (!first || first.type !== "text") return undefined;
  const m = /^\/([a-zA-Z][\w.:-]*)(?:\s+([\s\S]*))?$/.exec(first.text.trim());
  if (!m || !(builtIn.has(m[1]!) || skills.some((k) => k.command === m[1]))) return undefined;
  const rest = [m[2] ?? "", ...prompt.slice(1).map((b) => (b.type === "text" ? b.text : ""))].join(" ").trim();
  return { name: m[1]!, args: rest };
}

function say(session: AcpSession, text: string): Promise<void> {
  return session.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
}

/** Runs one of our slash commands; resolves with the prompt's response. */
async function runCommand(
  session: AcpSession,
  cmd: { name: string; args: string },
  agent: AgentHandle,
  runPrompt: (input: UserInput[]) => Promise<acp.PromptResponse>,
  state: CommandState,
): Promise<acp.PromptResponse> {
  const { services } = agent;
  services.log.info({ sessionId: session.id, command: cmd.name }, "slash command");
  // A command answered here takes its place among the session's prompts like any other.
  const answer = (text: () => Promise<string> | string): Promise<acp.PromptResponse> =>
    session.runLocal(async () => {
      await say(session, await text());
      return { stopReason: "end_turn" };
    });
  switch (cmd.name) {
    case "init":
      return runPrompt([
        { type: "text", text: cmd.args ? `${INIT_PROMPT}\n\nAlso: ${cmd.args}` : INIT_PROMPT, text_elements: [] },
      ]);
    case "status":
      return answer(async () => statusText(session, state.usage, await agent.statusLines(session)));
    case "review":
      return session.review(cmd.args ? { type: "custom", instructions: cmd.args } : { type: "uncommittedChanges" });
    case "skills":
      return answer(() => skillsText(state.skills));
    case "mcp":
      return answer(() => mcpCommandText(session, cmd.args, services, state.mcpLogins));
    case "review-branch":
    case "review-commit": {
      const target: v2.ReviewTarget =
        cmd.name === "review-branch"
          ? { type: "baseBranch", branch: cmd.args || "main" }
          : cmd.args
            ? { type: "commit", sha: cmd.args, title: null }
            : { type: "commit", sha: "HEAD", title: null };
      return session.review(target);
    }
    case "logout":
      return answer(async () => {
        await signOut(services);
        return "Signed out of Codex. New sessions will ask you to sign in.\n";
      });
    case "rename": {
      const title = cmd.args.replace(/\s+/g, " ").trim();
      if (!title) return answer(() => "Give the new title: `/rename <title>`.\n");
      return answer(async () => {
        await setThreadName(services, session.threadId, title);
        return `Renamed to “${title}”.\n`;
      });
    }
    case "plan": {
      const off = /^off$/i.test(cmd.args);
      // Codex takes the mode with a model: without one known, saying "on" would be untrue.
      if (!off && !session.settings.model)
        return answer(
          () =>
            "Plan mode is not available: the session's model is not known (Codex's model list could not be read).\n",
        );
      // Switched in the command's place among the prompts: one sent before it runs as it was sent.
      const toggle = (): void => session.update({ settings: { collaborationMode: off ? "default" : "plan" } });
      if (off || !cmd.args) {
        return answer(() => {
          toggle();
          return off
            ? "Plan mode is off: Codex works normally again.\n"
            : "Plan mode is on: Codex explores, asks and proposes a plan; it changes nothing. Send `/plan off` (or pick another collaboration mode) to leave.\n";
        });
      }
      return session
        .runLocal(async () => (toggle(), { stopReason: "end_turn" }))
        .then((switched) =>
          switched.stopReason === "cancelled"
            ? switched
            : runPrompt([{ type: "text", text: cmd.args, text_elements: [] }]),
        );
    }
    case "goal":
      return goalCommand(session, cmd.args, answer, (text) => say(session, text));
    case "compact":
      return session.runTurn("thread/compact/start", (client) =>
        client.call("thread/compact/start", { threadId: session.threadId }),
      );
    default:
      throw new Error(`no handler for the command /${cmd.name}`);
  }
}

/** The session's own lines, then the other features' (usage limits, ...), then its id. */
function statusText(session: AcpSession, usage: Usage, featureLines: readonly string[]): string {
  const s = session.settings;
  const lines = [
    "**Session status**",
    `- Model: ${s.model ?? "(Codex default)"}${s.effort ? ` (reasoning effort: ${s.effort})` : ""}`,
    `- Mode: ${modeName(session)} (approvals: ${typeof s.approvalPolicy === "object" ? "granular" : (s.approvalPolicy ?? "default")}, sandbox: ${s.sandbox ?? "default"})`,
    `- Collaboration: ${s.collaborationMode === "plan" ? "plan mode (nothing is changed)" : "default"}`,
    `- Directory: ${session.cwd}`,
    usage.total !== undefined
      ? `- Tokens: ${usage.total} used in this session${usage.last !== undefined && usage.window ? `; context ${usage.last} of ${usage.window}` : ""}`
      : "- Tokens: none used yet",
    ...featureLines,
    `- Session: ${session.id}`,
  ];
  return `${lines.join("\n")}\n`;
}
