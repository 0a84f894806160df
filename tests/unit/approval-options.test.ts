import { describe, expect, it } from "vitest";
import { commandChoices, describePermissions, permissionChoices } from "../../src/features/approvals/options.js";
import type { v2 } from "../../src/codex/index.js";

const base: v2.CommandExecutionRequestApprovalParams = {
  kind: "command",
  threadId: "t",
  turnId: "u",
  itemId: "c1",
  startedAtMs: 0,
  environmentId: null,
  command: "curl x",
};
const ids = (p: Partial<v2.CommandExecutionRequestApprovalParams>) =>
  commandChoices({ ...base, ...p }).map((c) => [c.option.optionId, c.option.kind, c.answer]);

describe("command approval options follow availableDecisions", () => {
  it("what Codex 0.169 offers for an escalated command: no session-wide allow, a prefix rule, reject and stop", () => {
    expect(
      ids({
        availableDecisions: ["accept", { acceptWithExecpolicyAmendment: { execpolicy_amendment: ["curl"] } }, "cancel"],
      }),
    ).toEqual([
      ["allow_once", "allow_once", "accept"],
      ["allow_prefix", "allow_always", { acceptWithExecpolicyAmendment: { execpolicy_amendment: ["curl"] } }],
      ["reject", "reject_once", "decline"],
      ["reject_and_stop", "reject_once", "cancel"],
    ]);
  });

  it("network host rules are allow_always / reject_always; the session-wide allow names the host", () => {
    const choices = commandChoices({
      ...base,
      networkApprovalContext: { host: "example.com", protocol: "https" },
      availableDecisions: [
        "accept",
        "acceptForSession",
        { applyNetworkPolicyAmendment: { network_policy_amendment: { host: "example.com", action: "allow" } } },
        { applyNetworkPolicyAmendment: { network_policy_amendment: { host: "example.com", action: "deny" } } },
        "decline",
      ],
    });
    expect(choices.map((c) => [c.option.optionId, c.option.kind, c.option.name])).toEqual([
      ["allow_once", "allow_once", "Allow once"],
      ["allow_session", "allow_always", "Always allow example.com in this session"],
      ["allow_host", "allow_always", "Always allow network access to example.com"],
      ["deny_host", "reject_always", "Never allow network access to example.com"],
      ["reject", "reject_once", "Reject"],
    ]);
  });

  it("without a list, Codex's own defaults: prefix rule only when proposed; extra permissions allow once or stop", () => {
    expect(ids({}).map((c) => c[0])).toEqual(["allow_once", "reject", "reject_and_stop"]);
    expect(ids({ proposedExecpolicyAmendment: ["npm", "test"] }).map((c) => c[0])).toEqual([
      "allow_once",
      "allow_prefix",
      "reject",
      "reject_and_stop",
    ]);
    expect(ids({ additionalPermissions: { network: { enabled: true }, fileSystem: null } }).map((c) => c[0])).toEqual([
      "allow_once",
      "reject",
      "reject_and_stop",
    ]);
    expect(
      ids({
        networkApprovalContext: { host: "h", protocol: "http" },
        proposedNetworkPolicyAmendments: [{ host: "h", action: "allow" }],
      }).map((c) => c[0]),
    ).toEqual(["allow_once", "allow_session", "allow_host", "reject", "reject_and_stop"]);
  });

  it("a reject is always offered, once", () => {
    expect(ids({ availableDecisions: ["accept"] }).map((c) => c[0])).toEqual(["allow_once", "reject"]);
    expect(ids({ availableDecisions: ["decline", "cancel", "decline"] }).map((c) => c[0])).toEqual([
      "reject",
      "reject_and_stop",
    ]);
  });
});

describe("permission requests", () => {
  it("grant what was asked for this turn or session; reject grants nothing", () => {
    const requested: v2.RequestPermissionProfile = { network: { enabled: true }, fileSystem: null };
    expect(permissionChoices(requested).map((c) => [c.option.optionId, c.answer])).toEqual([
      ["allow_once", { permissions: { network: { enabled: true } }, scope: "turn" }],
      ["allow_session", { permissions: { network: { enabled: true } }, scope: "session" }],
      ["reject", { permissions: {}, scope: "turn" }],
    ]);
    expect(
      describePermissions({
        network: null,
        fileSystem: {
          read: ["/a"],
          write: ["/b"],
          entries: [{ path: { type: "glob_pattern", pattern: "/c/**" }, access: "write" }],
        },
      }),
    ).toEqual(["- read /a", "- write /b", "- write /c/**"]);
  });
});
