import { describe, expect, it } from "vitest";
import { ignoredSettings, parseArgs, signInTimeoutMs } from "../../src/config/index.js";

describe("CODEX_ACP_CODEX_ARGS", () => {
  it("splits words and keeps quoted values whole", () => {
    expect(parseArgs(`  -c model="gpt-5.5"   -c developer_instructions="be terse" -c 'x=a b' `)).toEqual([
      "-c",
      "model=gpt-5.5",
      "-c",
      "developer_instructions=be terse",
      "-c",
      "x=a b",
    ]);
    expect(parseArgs("")).toEqual([]);
  });

  it("takes a JSON array as it is, and refuses what it cannot split", () => {
    expect(parseArgs('["-c", "a=\\"b c\\""]')).toEqual(["-c", 'a="b c"']);
    expect(() => parseArgs('["-c", 1]')).toThrow(/array of strings/);
    expect(() => parseArgs('-c "open')).toThrow(/unbalanced/);
  });
});

describe("numeric settings that cannot be used", () => {
  it("are each named with the value given and what is used instead; good and unset ones are not", () => {
    const ignored = ignoredSettings({
      CODEX_ACP_HANG_TIMEOUT_MS: "-5",
      CODEX_ACP_REQUEST_TIMEOUT_MS: "abc",
      CODEX_ACP_FILE_TOOL_TIMEOUT_SEC: "0",
      CODEX_ACP_SESSION_LIST_PAGE_SIZE: "1.5",
      CODEX_ACP_SIGN_IN_TIMEOUT_MS: "ten minutes",
    });
    expect(ignored).toEqual([
      { variable: "CODEX_ACP_HANG_TIMEOUT_MS", value: "-5", using: "the default, 30000" },
      { variable: "CODEX_ACP_REQUEST_TIMEOUT_MS", value: "abc", using: "the default, 120000" },
      { variable: "CODEX_ACP_FILE_TOOL_TIMEOUT_SEC", value: "0", using: "the default, 3600" },
      { variable: "CODEX_ACP_SESSION_LIST_PAGE_SIZE", value: "1.5", using: "the default, 50" },
      { variable: "CODEX_ACP_SIGN_IN_TIMEOUT_MS", value: "ten minutes", using: "the default, 600000" },
    ]);
    // Past what a Node timer takes, a timeout would fire at once.
    expect(ignoredSettings({ CODEX_ACP_REQUEST_TIMEOUT_MS: "99999999999" })).toEqual([
      { variable: "CODEX_ACP_REQUEST_TIMEOUT_MS", value: "99999999999", using: "the default, 120000" },
    ]);
    expect(
      ignoredSettings({
        CODEX_ACP_HANG_TIMEOUT_MS: "800",
        CODEX_ACP_FILE_TOOL_TIMEOUT_SEC: "2.5",
        CODEX_ACP_SESSION_LIST_PAGE_SIZE: "",
      }),
    ).toEqual([]);
  });
});

describe("CODEX_ACP_SIGN_IN_TIMEOUT_MS", () => {
  it("bounds a browser or device-code sign-in: 10 minutes unless set to a usable number", () => {
    expect(signInTimeoutMs({})).toBe(600_000);
    expect(signInTimeoutMs({ CODEX_ACP_SIGN_IN_TIMEOUT_MS: "1500" })).toBe(1500);
    expect(signInTimeoutMs({ CODEX_ACP_SIGN_IN_TIMEOUT_MS: "0" })).toBe(600_000);
  });
});
