// Codex skills as slash commands: `skills/list` for the session's directories, one command per
// enabled skill (a name taken by a built-in command becomes `skill:<name>`), refreshed when Codex
// says they changed. Running one sends `$<name>` plus Codex's `skill` input item (the file the
// model should load), the way Codex's own clients invoke a skill.
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { z } from "zod";
import type { AppServerClient, UserInput } from "../../codex/index.js";

export type Skill = { command: string; name: string; description: string; path: string };

const skillsListSchema = z.looseObject({
  data: z.array(
    z.looseObject({
      skills: z.array(
        z.looseObject({
          name: z.string(),
          description: z.string().default(""),
          shortDescription: z.string().nullish(),
          interface: z.looseObject({ shortDescription: z.string().nullish() }).nullish(),
          path: z.string(),
          enabled: z.boolean().default(true),
        }),
      ),
    }),
  ),
});

/** The enabled skills for `cwds`, each once, named as commands next to the built-in ones. */
export async function listSkills(
  client: AppServerClient,
  cwds: string[],
  builtIn: ReadonlySet<string>,
  forceReload = false,
): Promise<Skill[]> {
  const parsed = skillsListSchema.parse(
    await client.call("skills/list", { cwds, ...(forceReload ? { forceReload } : {}) }),
  );
  const skills: Skill[] = [];
  const seen = new Set<string>();
  for (const entry of parsed.data) {
    for (const s of entry.skills) {
      if (!s.enabled || seen.has(s.name) || !/^[\w.-]+$/.test(s.name)) continue;
      seen.add(s.name);
      const description =
        s.interface?.shortDescription || s.shortDescription || s.description.split(/(?<=\.)\s/)[0] || s.name;
      skills.push({
        command: builtIn.has(s.name) ? `skill:${s.name}` : s.name,
        name: s.name,
        description,
        path: s.path,
      });
    }
  }
  return skills;
}

export function skillCommand(skill: Skill): acp.AvailableCommand {
  return {
    name: skill.command,
    description: `Skill: ${skill.description}`,
    input: { hint: "optional: what it should do" },
  };
}

/** What Codex gets for `/<skill> args`. */
export function skillInput(skill: Skill, args: string): UserInput[] {
  return [
    { type: "text", text: args ? `$${skill.name} ${args}` : `$${skill.name}`, text_elements: [] },
    { type: "skill", name: skill.name, path: skill.path },
  ];
}

/** `/skills`: what there is, for the user. */
export function skillsText(skills: readonly Skill[]): string {
  if (skills.length === 0)
    return "No Codex skills are available here. Skills live in `.agents/skills/<name>/SKILL.md` (this project) or `$CODEX_HOME/skills`.\n";
  return `**Skills** (run one as \`/<name> what to do\`)\n${skills.map((s) => `- \`/${s.command}\`: ${s.description}`).join("\n")}\n`;
}
