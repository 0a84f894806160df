// Issue 28, the pure parts of sign-in: which ids authenticate accepts (ours and the other
// adapters'), DEFAULT_AUTH_REQUEST as read from the environment, Codex's account as ACP's
// auth/status, and a turn's error info read as "the credentials were refused".
import { describe, expect, it } from "vitest";
import type { v2 } from "../../src/codex/index.js";
import { withoutSecrets } from "../../src/core/errors.js";
import { credentialsRefused } from "../../src/core/session/turn-runner.js";
import { readDefaultAuthRequest } from "../../src/sign-in/default-request.js";
import { acceptedMethodIds, AUTH, routeOf } from "../../src/sign-in/methods.js";
import { authStatusOf } from "../../src/sign-in/status.js";

describe("method ids", () => {
  it("the other adapters' ids are our methods, with the key variables each reads, in its order", () => {
    expect(routeOf("api-key")).toEqual({ method: AUTH.apiKey, keyFrom: ["CODEX_API_KEY", "OPENAI_API_KEY"] });
    expect(routeOf("codex-api-key")).toEqual({ method: AUTH.apiKey, keyFrom: ["CODEX_API_KEY"] });
    expect(routeOf("chat-gpt")).toEqual({ method: AUTH.browser });
    expect(routeOf("chat-gpt-device-code")).toEqual({ method: AUTH.deviceCode });
    expect(routeOf("openai-api-key")).toEqual({ method: AUTH.apiKey, keyFrom: ["OPENAI_API_KEY", "CODEX_API_KEY"] });
    expect(routeOf("chatgpt")).toEqual({ method: AUTH.browser });
  });

  it("anything else is not accepted, an object's own properties included", () => {
    for (const id of ["gateway", "", "toString", "__proto__", "constructor", "API-KEY"])
      expect(routeOf(id), id).toBeUndefined();
  });

  it("the accepted list is what authenticate carries out: not the terminal methods", () => {
    expect(acceptedMethodIds()).toEqual([
      "openai-api-key",
      "chatgpt",
      "chatgpt-device-code",
      "codex-login",
      "api-key",
      "codex-api-key",
      "chat-gpt",
      "chat-gpt-device-code",
    ]);
  });
});

describe("DEFAULT_AUTH_REQUEST", () => {
  const read = (value: string | undefined) =>
    readDefaultAuthRequest(value === undefined ? {} : { DEFAULT_AUTH_REQUEST: value });

  it("unset or blank: none", () => {
    expect(read(undefined)).toBeUndefined();
    expect(read("  ")).toBeUndefined();
  });

  it("an authenticate request for an accepted id, with its _meta", () => {
    expect(read('{"methodId":"api-key"}')).toEqual({ usable: true, request: { methodId: "api-key" } });
    expect(read('{"methodId":"openai-api-key","_meta":{"api-key":{"apiKey":"sk-x"}}}')).toEqual({
      usable: true,
      request: { methodId: "openai-api-key", _meta: { "api-key": { apiKey: "sk-x" } } },
    });
  });

  it("anything else says what is wrong without quoting the value", () => {
    const cases: Array<[string, RegExp]> = [
      ["sk-secret-not-json", /not JSON/],
      ['"sk-secret-string"', /not an authenticate request/],
      [
        '{"methodId":"gateway","_meta":{"gateway":{"headers":{"Authorization":"sk-secret"}}}}',
        /not one this agent accepts \(openai-api-key, .*chat-gpt-device-code\)/,
      ],
      ['{"methodId":"codex-login-terminal"}', /terminal method/],
      ['{"methodId":""}', /methodId/],
      ['{"methodId":"api-key","_meta":"sk-secret"}', /_meta/],
    ];
    for (const [value, problem] of cases) {
      const result = read(value);
      expect(result, value).toMatchObject({ usable: false, problem: expect.stringMatching(problem) });
      expect(JSON.stringify(result), value).not.toContain("secret");
    }
  });
});

describe("auth/status from Codex's account", () => {
  const account = (read: Partial<v2.GetAccountResponse>): v2.GetAccountResponse => ({
    account: null,
    userId: null,
    requiresOpenaiAuth: true,
    workspaceRouting: null,
    ...read,
  });

  it("an account is authenticated, shown by what it is and who, never by a key", () => {
    expect(authStatusOf({ account: account({ account: { type: "apiKey" } }), refused: false })).toEqual({
      state: "authenticated",
      accounts: [{ label: "OpenAI API key", active: true }],
    });
    const chatgpt = account({
      account: {
        type: "chatgpt",
        email: "me@example.com",
        planType: "self_serve_business_prolite",
        workspaceName: "Acme",
      },
      userId: "user-1",
    });
    expect(authStatusOf({ account: chatgpt, refused: false })).toEqual({
      state: "authenticated",
      accounts: [
        {
          label: "ChatGPT (self serve business prolite plan)",
          active: true,
          email: "me@example.com",
          organization: "Acme",
        },
      ],
    });
    const bare = account({ account: { type: "chatgpt", email: null, planType: "unknown", workspaceName: null } });
    expect(authStatusOf({ account: bare, refused: false })).toEqual({
      state: "authenticated",
      accounts: [{ label: "ChatGPT", active: true }],
    });
  });

  it("no account: unauthenticated, or not_required for a provider that needs no OpenAI sign-in", () => {
    expect(authStatusOf({ account: account({}), refused: false })).toEqual({ state: "unauthenticated" });
    expect(authStatusOf({ account: account({ requiresOpenaiAuth: false }), refused: false })).toEqual({
      state: "not_required",
    });
  });

  it("refused by the model provider: unauthenticated until the next sign-in, the account still shown", () => {
    expect(authStatusOf({ account: account({ account: { type: "apiKey" } }), refused: true })).toEqual({
      state: "unauthenticated",
      accounts: [{ label: "OpenAI API key", active: true }],
    });
    expect(authStatusOf({ account: account({ requiresOpenaiAuth: false }), refused: true })).toEqual({
      state: "unauthenticated",
    });
  });

  it("Codex could not say: unknown (and unauthenticated after a refusal)", () => {
    expect(authStatusOf({ account: undefined, refused: false })).toEqual({ state: "unknown" });
    expect(authStatusOf({ account: undefined, refused: true })).toEqual({ state: "unauthenticated" });
  });
});

describe("a turn's error read as refused credentials", () => {
  it("unauthorized, or HTTP 401 in any of Codex's connection errors", () => {
    expect(credentialsRefused("unauthorized")).toBe(true);
    expect(credentialsRefused({ httpConnectionFailed: { httpStatusCode: 401 } })).toBe(true);
    expect(credentialsRefused({ responseStreamDisconnected: { httpStatusCode: 401 } })).toBe(true);
  });

  it("nothing else", () => {
    for (const info of [
      null,
      undefined,
      "other",
      "usageLimitExceeded",
      { httpConnectionFailed: { httpStatusCode: 403 } },
      { httpConnectionFailed: { httpStatusCode: null } },
      { httpConnectionFailed: "401" },
      401,
    ]) {
      expect(credentialsRefused(info), JSON.stringify(info)).toBe(false);
    }
  });
});

describe("withoutSecrets", () => {
  it("drops key- and token-like words and keeps the rest", () => {
    expect(
      withoutSecrets(
        "Incorrect API key provided: sk-proj-ab**********wxyz. You can find your API key at https://platform.openai.com/account/api-keys.",
      ),
    ).toBe(
      "Incorrect API key provided: sk-…. You can find your API key at https://platform.openai.com/account/api-keys.",
    );
    expect(withoutSecrets("Authorization: Bearer eyJhbGciOi.J9.abc, then")).toBe("Authorization: Bearer …, then");
    expect(withoutSecrets("task-force sk8er desk-top")).toBe("task-force sk8er desk-top");
    // GitHub's scheme and HTTP's basic one, as a header quoted in an error or a log line.
    expect(withoutSecrets("sent Authorization: token ghp_ABCDEF123456 and authorization=Basic dXNlcjpwYXNz")).toBe(
      "sent Authorization: token … and authorization=Basic …",
    );
    expect(withoutSecrets("the token was refused; Basic auth is off")).toBe("the token was refused; Basic auth is off");
    // As JSON writes a header, and in a scheme of its own.
    expect(withoutSecrets('{"Authorization":"token ghp_ABCDEF123456"} and Authorization: ApiKey abcdef123456')).toBe(
      '{"Authorization":"token …"} and Authorization: ApiKey …',
    );
  });

  it("drops a URL's password and its secret-looking query values (an MCP server's address quoted in Codex's error), keeping the rest of it", () => {
    expect(withoutSecrets("error sending request for url (http://127.0.0.1:9/mcp?token=URL-SECRET-666&x=1)")).toBe(
      "error sending request for url (http://127.0.0.1:9/mcp?token=…&x=1)",
    );
    expect(withoutSecrets("https://user:PASSWORD@host.example/p?access_token=abc&api_key=k2&sig=s3&page=2")).toBe(
      "https://…@host.example/p?access_token=…&api_key=…&sig=…&page=2",
    );
    // A token alone as the user, and a password with an @ in it, go whole.
    expect(withoutSecrets("https://ghp_TOKEN1234@host/mcp and http://u:p@ss@h2/x")).toBe(
      "https://…@host/mcp and http://…@h2/x",
    );
    expect(withoutSecrets("see https://example.com/docs?topic=tokens")).toBe(
      "see https://example.com/docs?topic=tokens",
    );
  });
});
