// The options of a permission prompt, built from what Codex offers for that request
// (`availableDecisions`, in Codex's order), so the editor never shows a choice Codex would not
// honour. Pure: tests/unit/approval-options.test.ts.
import type { v2 } from "../../codex/index.js";
import type { Choice } from "../../core/index.js";
import { textHead } from "../../text/index.js";

type CommandDecision = v2.CommandExecutionApprovalDecision;
type FileDecision = v2.FileChangeApprovalDecision;
type Params = v2.CommandExecutionRequestApprovalParams;

/** Option ids, stable across requests (clients and transcripts match on them). */
export const OPTION = {
  once: "allow_once",
  session: "allow_session",
  prefix: "allow_prefix",
  allowHost: "allow_host",
  denyHost: "deny_host",
  reject: "reject",
  stop: "reject_and_stop",
} as const;

function quote(s: string, max = 80): string {
  const one = s.replace(/\s+/g, " ").trim();
  return `\`${one.length > max ? `${textHead(one, max - 1)}…` : one}\``;
}

/** What Codex offers when it does not say (as its own terminal UI decides). */
function defaultDecisions(params: Params): CommandDecision[] {
  if (params.networkApprovalContext) {
    const allow = params.proposedNetworkPolicyAmendments?.find((a) => a.action === "allow");
    return [
      "accept",
      "acceptForSession",
      ...(allow ? [{ applyNetworkPolicyAmendment: { network_policy_amendment: allow } }] : []),
      "cancel",
    ];
  }
  if (params.additionalPermissions) return ["accept", "cancel"];
  const prefix = params.proposedExecpolicyAmendment;
  return [
    "accept",
    ...(prefix && prefix.length > 0 ? [{ acceptWithExecpolicyAmendment: { execpolicy_amendment: prefix } }] : []),
    "cancel",
  ];
}

/**
 * The command approval's options. A plain "Reject" (decline: the model is told and the turn
 * goes on) is always there, before "No, and tell Codex what to do differently" (cancel: the
 * turn stops so the user can say what to do), because an editor's "no" must not end the turn.
 */
export function commandChoices(params: Params): Choice<CommandDecision>[] {
  const offered = params.availableDecisions?.length ? params.availableDecisions : defaultDecisions(params);
  const host = params.networkApprovalContext?.host;
  const choices: Choice<CommandDecision>[] = [];
  const add = (choice: Choice<CommandDecision>) => {
    if (!choices.some((c) => c.option.optionId === choice.option.optionId)) choices.push(choice);
  };
  const reject: Choice<CommandDecision> = {
    option: { optionId: OPTION.reject, name: "Reject", kind: "reject_once" },
    answer: "decline",
  };
  for (const decision of offered) {
    if (decision === "accept")
      add({ option: { optionId: OPTION.once, name: "Allow once", kind: "allow_once" }, answer: decision });
    else if (decision === "acceptForSession") {
      const name = host ? `Always allow ${host} in this session` : "Always allow this command in this session";
      add({ option: { optionId: OPTION.session, name, kind: "allow_always" }, answer: decision });
    } else if (decision === "decline") add(reject);
    else if (decision === "cancel") {
      add(reject);
      add({
        option: { optionId: OPTION.stop, name: "No, and tell Codex what to do differently", kind: "reject_once" },
        answer: decision,
      });
    } else if ("acceptWithExecpolicyAmendment" in decision) {
      const prefix = decision.acceptWithExecpolicyAmendment.execpolicy_amendment;
      if (prefix.length === 0) continue;
      add({
        option: {
          optionId: OPTION.prefix,
          name: `Always allow commands starting with ${quote(prefix.join(" "))} (saved in Codex's rules)`,
          kind: "allow_always",
        },
        answer: decision,
      });
    } else {
      const { host: ruleHost, action } = decision.applyNetworkPolicyAmendment.network_policy_amendment;
      add(
        action === "allow"
          ? {
              option: {
                optionId: OPTION.allowHost,
                name: `Always allow network access to ${ruleHost}`,
                kind: "allow_always",
              },
              answer: decision,
            }
          : {
              option: {
                optionId: OPTION.denyHost,
                name: `Never allow network access to ${ruleHost}`,
                kind: "reject_always",
              },
              answer: decision,
            },
      );
    }
  }
  if (!choices.some((c) => c.option.kind === "reject_once")) add(reject);
  return choices;
}

/** A patch approval's options (Codex offers every file decision; it sends no list). */
export function fileChangeChoices(files: number): Choice<FileDecision>[] {
  return [
    { option: { optionId: OPTION.once, name: "Allow this change", kind: "allow_once" }, answer: "accept" },
    {
      option: {
        optionId: OPTION.session,
        name:
          files === 1
            ? "Always allow changes to this file in this session"
            : "Always allow changes to these files in this session",
        kind: "allow_always",
      },
      answer: "acceptForSession",
    },
    { option: { optionId: OPTION.reject, name: "Reject", kind: "reject_once" }, answer: "decline" },
    {
      option: { optionId: OPTION.stop, name: "No, and tell Codex what to do differently", kind: "reject_once" },
      answer: "cancel",
    },
  ];
}

type Grant = v2.PermissionsRequestApprovalResponse;

/** Codex asking for more permissions (network, file system): this turn, this session, or no. */
export function permissionChoices(requested: v2.RequestPermissionProfile): Choice<Grant>[] {
  const permissions: v2.GrantedPermissionProfile = {
    ...(requested.network ? { network: requested.network } : {}),
    ...(requested.fileSystem ? { fileSystem: requested.fileSystem } : {}),
  };
  return [
    {
      option: { optionId: OPTION.once, name: "Allow for this turn", kind: "allow_once" },
      answer: { permissions, scope: "turn" },
    },
    {
      option: { optionId: OPTION.session, name: "Allow for this session", kind: "allow_always" },
      answer: { permissions, scope: "session" },
    },
    {
      option: { optionId: OPTION.reject, name: "Reject", kind: "reject_once" },
      answer: { permissions: {}, scope: "turn" },
    },
  ];
}

/** The requested permissions in words, for the prompt. */
export function describePermissions(requested: v2.RequestPermissionProfile): string[] {
  const lines: string[] = [];
  if (requested.network?.enabled) lines.push("- network access");
  const fsPerms = requested.fileSystem;
  for (const p of fsPerms?.read ?? []) lines.push(`- read ${p}`);
  for (const p of fsPerms?.write ?? []) lines.push(`- write ${p}`);
  for (const e of fsPerms?.entries ?? []) {
    const where =
      e.path.type === "path"
        ? e.path.path
        : e.path.type === "glob_pattern"
          ? e.path.pattern
          : JSON.stringify(e.path.value);
    lines.push(`- ${e.access} ${where}`);
  }
  return lines;
}
