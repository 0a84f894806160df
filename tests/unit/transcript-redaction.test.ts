// Secrets at rest (issue 26): what `record` redacts before a transcript reaches the disk, and how a
// replay still compares and answers with what was redacted (the marker keeps a digest).
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { TranscriptEntry } from "../../tools/transcripts/format.js";
import {
  fileContentMarker,
  redactCommand,
  redactTranscript,
  secretsOfEnvironment,
} from "../../tools/transcripts/redaction/redact.js";
import { SECRET_MARKER } from "../../tools/transcripts/redaction/redaction-marker.js";
import { parseRecordArgs, TRANSCRIPT_USAGE } from "../../tools/transcripts/cli.js";

type Json = Record<string, unknown>;
const client = (msg: Json): TranscriptEntry => ({
  type: "message",
  dir: "client->agent",
  t: 0,
  msg: { jsonrpc: "2.0", ...msg },
});
const agent = (msg: Json): TranscriptEntry => ({
  type: "message",
  dir: "agent->client",
  t: 0,
  msg: { jsonrpc: "2.0", ...msg },
});
const msgOf = (e: TranscriptEntry | undefined): Json => (e?.type === "message" ? e.msg : {});
const sha256 = (s: string): string => createHash("sha256").update(s).digest("hex");

const API_KEY = "sk-proj-0123456789abcdefSECRET";
const GH_TOKEN = "ghp_0123456789SECRETTOKEN";
const BEARER = "Bearer eyJhbGciOiJIUzI1NiJ9.SECRET";

describe("redactTranscript", () => {
  it("replaces authenticate's _meta values by the marker and keeps every key", () => {
    const [auth] = redactTranscript(
      [
        client({
          id: 1,
          method: "authenticate",
          params: {
            methodId: "openai-api-key",
            _meta: { "api-key": { apiKey: API_KEY, provider: "openai" }, note: "x" },
          },
        }),
      ],
      {},
    );
    expect(msgOf(auth).params).toEqual({
      methodId: "openai-api-key",
      _meta: { "api-key": { apiKey: SECRET_MARKER, provider: SECRET_MARKER }, note: SECRET_MARKER },
    });
  });

  it("replaces ACP v2 auth/login's _meta values the same way (v2's authenticate)", () => {
    const [login] = redactTranscript(
      [
        client({
          id: 1,
          method: "auth/login",
          params: { methodId: "openai-api-key", _meta: { "api-key": { provider: "openai" } } },
        }),
      ],
      {},
    );
    expect(msgOf(login).params).toEqual({
      methodId: "openai-api-key",
      _meta: { "api-key": { provider: SECRET_MARKER } },
    });
  });

  it("replaces params fields named like a credential (any case, any depth, either direction), and nothing else", () => {
    const params = {
      sessionId: "s",
      apiKey: "a1",
      API_KEY: "a2",
      "x-api-key": "a3",
      nested: {
        accessToken: "t1",
        refresh_token: "t2",
        Authorization: "Bearer z",
        password: "p",
        clientSecret: "c",
        cookie: "k",
      },
      maxTokens: 5,
      tokens: "many",
      outputTokens: 3,
      cwd: "/w",
      secretive: "kept: not a credential's name",
    };
    const [fromClient, fromAgent] = redactTranscript(
      [client({ id: 1, method: "_x/config", params }), agent({ method: "_x/notice", params })],
      {},
    );
    for (const e of [fromClient, fromAgent]) {
      expect(msgOf(e).params).toEqual({
        sessionId: "s",
        apiKey: SECRET_MARKER,
        API_KEY: SECRET_MARKER,
        "x-api-key": SECRET_MARKER,
        nested: {
          accessToken: SECRET_MARKER,
          refresh_token: SECRET_MARKER,
          Authorization: SECRET_MARKER,
          password: SECRET_MARKER,
          clientSecret: SECRET_MARKER,
          cookie: SECRET_MARKER,
        },
        maxTokens: 5,
        tokens: "many",
        outputTokens: 3,
        cwd: "/w",
        secretive: "kept: not a credential's name",
      });
    }
  });

  it("replaces MCP servers' env and header values in session/new, load and resume, keeping their names", () => {
    const mcpServers = [
      {
        name: "gh",
        command: "gh-mcp",
        args: ["--stdio"],
        env: [
          { name: "GITHUB_TOKEN", value: GH_TOKEN },
          { name: "MODE", value: "fast" },
        ],
      },
      { type: "http", name: "api", url: "https://mcp.example/x", headers: [{ name: "Authorization", value: BEARER }] },
    ];
    const out = redactTranscript(
      ["session/new", "session/load", "session/resume"].map((method, id) =>
        client({ id, method, params: { cwd: "/w", sessionId: "s", mcpServers } }),
      ),
      {},
    );
    for (const e of out) {
      expect(msgOf(e).params).toMatchObject({
        cwd: "/w",
        mcpServers: [
          {
            name: "gh",
            command: "gh-mcp",
            args: ["--stdio"],
            env: [
              { name: "GITHUB_TOKEN", value: SECRET_MARKER },
              { name: "MODE", value: SECRET_MARKER },
            ],
          },
          {
            type: "http",
            name: "api",
            url: "https://mcp.example/x",
            headers: [{ name: "Authorization", value: SECRET_MARKER }],
          },
        ],
      });
    }
  });

  it("replaces every header value given to a model provider (providers/set), whatever its name; an address's password and secret-looking query values; a command's credential arguments", () => {
    const out = redactTranscript(
      [
        client({
          id: 1,
          method: "providers/set",
          params: {
            providerId: "p",
            apiType: "responses",
            baseUrl: "https://u:PASSWORD-123@llm.example/v1?api_key=QUERYKEY-123&region=eu",
            headers: { "Ocp-Apim-Subscription-Key": "SUBSCRIPTION-123", "X-Portkey-Virtual-Key": "VIRTUAL-123" },
          },
        }),
        client({
          id: 2,
          method: "session/new",
          params: {
            cwd: "/w",
            mcpServers: [
              {
                name: "cli",
                command: "tool",
                args: ["--api-key", "ARGKEY-12345", "--token=ARGTOKEN-123", "--stdio", "--verbose"],
                env: [],
              },
              { type: "http", name: "u", url: "https://mcp.example/x?access_token=URLTOKEN-123&page=2", headers: [] },
            ],
          },
        }),
        {
          type: "raw",
          dir: "agent->client",
          t: 0,
          text: "Authorization: Bearer RAWBEARER-12345 and sk-rawkey-0123456789",
        },
      ],
      {},
    );
    const text = JSON.stringify(out);
    for (const secret of [
      "PASSWORD-123",
      "QUERYKEY-123",
      "SUBSCRIPTION-123",
      "VIRTUAL-123",
      "ARGKEY-12345",
      "ARGTOKEN-123",
      "URLTOKEN-123",
      "RAWBEARER-12345",
      "sk-rawkey-0123456789",
    ])
      expect(text).not.toContain(secret);
    const provider = msgOf(out[0]).params as Json;
    expect(provider.headers).toEqual({
      "Ocp-Apim-Subscription-Key": SECRET_MARKER,
      "X-Portkey-Virtual-Key": SECRET_MARKER,
    });
    expect(provider.baseUrl).toBe(`https://${SECRET_MARKER}@llm.example/v1?api_key=${SECRET_MARKER}&region=eu`);
    const [cli, http] = (msgOf(out[1]).params as { mcpServers: Json[] }).mcpServers;
    expect(cli!.args).toEqual(["--api-key", SECRET_MARKER, `--token=${SECRET_MARKER}`, "--stdio", "--verbose"]);
    expect(http!.url).toBe(`https://mcp.example/x?access_token=${SECRET_MARKER}&page=2`);
  });

  it("the agent's command line in the header loses its credential arguments, nothing else", () => {
    expect(
      redactCommand(["node", "agent.js", "--api-key", "ARGKEY-12345", "--password=PW-1234567", "--model", "gpt"]),
    ).toEqual(["node", "agent.js", "--api-key", SECRET_MARKER, `--password=${SECRET_MARKER}`, "--model", "gpt"]);
  });

  it("scrubs a credential the agent (or a non-JSON line) repeats elsewhere", () => {
    const out = redactTranscript(
      [
        client({
          id: 1,
          method: "authenticate",
          params: { methodId: "openai-api-key", _meta: { "api-key": { apiKey: API_KEY } } },
        }),
        agent({ id: 1, error: { code: -32000, message: `invalid key ${API_KEY} given` } }),
        { type: "raw", dir: "agent->client", t: 0, text: `debug: token=${GH_TOKEN}` },
        client({
          id: 2,
          method: "session/new",
          params: {
            cwd: "/w",
            mcpServers: [{ name: "gh", command: "x", args: [], env: [{ name: "GITHUB_TOKEN", value: GH_TOKEN }] }],
          },
        }),
        // A line the client never finished: its credential fields are still found.
        {
          type: "raw",
          dir: "client->agent",
          t: 0,
          text: '{"jsonrpc":"2.0","id":3,"method":"authenticate","params":{"_meta":{"api-key":{"apiKey":"sk-unseen-elsewhere-123"',
        },
      ],
      {},
    );
    const text = JSON.stringify(out);
    for (const secret of [API_KEY, GH_TOKEN, "sk-unseen-elsewhere-123"]) expect(text).not.toContain(secret);
    expect((msgOf(out[1]).error as Json).message).toBe(`invalid key ${SECRET_MARKER} given`);
    expect(out[2]).toMatchObject({ type: "raw", text: `debug: token=${SECRET_MARKER}` });
    expect(out[4]).toMatchObject({
      type: "raw",
      text: `{"jsonrpc":"2.0","id":3,"method":"authenticate","params":{"_meta":{"api-key":{"apiKey":"${SECRET_MARKER}"`,
    });
  });

  it("replaces what the editor served and what the agent wrote by a marker with its size and digest, and the agent's exact echoes of them", () => {
    const served = "line one\nline two in /home/me/proj/a.txt\n";
    const written = "rewritten\n";
    const out = redactTranscript(
      [
        agent({ id: 0, method: "fs/read_text_file", params: { sessionId: "s", path: "/home/me/proj/a.txt" } }),
        client({ id: 0, result: { content: served } }),
        agent({
          method: "session/update",
          params: {
            sessionId: "s",
            update: {
              sessionUpdate: "tool_call_update",
              toolCallId: "c",
              rawOutput: { content: served, total_lines: 2 },
            },
          },
        }),
        agent({
          id: 1,
          method: "fs/write_text_file",
          params: { sessionId: "s", path: "/home/me/proj/a.txt", content: written },
        }),
        client({ id: 1, result: {} }),
        agent({
          method: "session/update",
          params: {
            sessionId: "s",
            update: {
              sessionUpdate: "tool_call_update",
              toolCallId: "c",
              content: [{ type: "diff", path: "/home/me/proj/a.txt", oldText: served, newText: written }],
            },
          },
        }),
        agent({
          method: "session/update",
          params: {
            sessionId: "s",
            update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Done." } },
          },
        }),
      ],
      { "<CWD>": "/home/me/proj" },
    );
    // The digest is of the portable text (this run's paths as placeholders), so a replay elsewhere compares.
    const servedMarker = `[redacted file content: ${Buffer.byteLength(served)} bytes, 2 lines, sha256 ${sha256("line one\nline two in <CWD>/a.txt\n")}]`;
    const writtenMarker = `[redacted file content: 10 bytes, 1 line, sha256 ${sha256(written)}]`;
    expect(fileContentMarker(served, { "<CWD>": "/home/me/proj" })).toBe(servedMarker);
    expect(msgOf(out[1]).result).toEqual({ content: servedMarker });
    expect((msgOf(out[2]).params as Json).update).toMatchObject({
      rawOutput: { content: servedMarker, total_lines: 2 },
    });
    expect(msgOf(out[3]).params as Json).toMatchObject({ path: "/home/me/proj/a.txt", content: writtenMarker });
    expect((msgOf(out[5]).params as Json).update).toMatchObject({
      content: [{ type: "diff", path: "/home/me/proj/a.txt", oldText: servedMarker, newText: writtenMarker }],
    });
    expect(JSON.stringify(out[6])).toContain('"Done."');
  });

  it("a command's credentials in the other shapes: NAME=value (docker -e, --env), a header after -H/--header, a bearer token or key anywhere, a signature in an address", () => {
    const server = (args: string[]) =>
      client({
        id: 1,
        method: "session/new",
        params: { cwd: "/w", mcpServers: [{ name: "x", command: "docker", args, env: [] }] },
      });
    const cases: Array<[string[], string[]]> = [
      [
        ["run", "-e", `GITHUB_PERSONAL_ACCESS_TOKEN=${GH_TOKEN}`, "-e", "LOG_LEVEL=debug", "img"],
        ["run", "-e", `GITHUB_PERSONAL_ACCESS_TOKEN=${SECRET_MARKER}`, "-e", "LOG_LEVEL=debug", "img"],
      ],
      [
        ["--env", `API_KEY=${GH_TOKEN}`],
        ["--env", `API_KEY=${SECRET_MARKER}`],
      ],
      [
        ["mcp-remote", "https://mcp.example/sse", "--header", `Authorization: ${BEARER}`],
        ["mcp-remote", "https://mcp.example/sse", "--header", `Authorization: ${SECRET_MARKER}`],
      ],
      [
        [`--header=X-Api-Key: ${GH_TOKEN}`, "-H", "X-Trace: abcdefgh1234"],
        [`--header=X-Api-Key: ${SECRET_MARKER}`, "-H", `X-Trace: ${SECRET_MARKER}`],
      ],
      [
        [`--config=${BEARER}`, `key:${API_KEY}`],
        [`--config=Bearer ${SECRET_MARKER}`, `key:sk-${SECRET_MARKER}`],
      ],
      [
        [
          `https://x.blob.core.windows.net/c?sv=1&sig=${GH_TOKEN}`,
          `https://s3.example/o?X-Amz-Signature=${GH_TOKEN}&p=1`,
        ],
        [
          `https://x.blob.core.windows.net/c?sv=1&sig=${SECRET_MARKER}`,
          `https://s3.example/o?X-Amz-Signature=${SECRET_MARKER}&p=1`,
        ],
      ],
    ];
    for (const [args, expected] of cases) {
      const [out] = redactTranscript([server(args)], {});
      expect(((msgOf(out).params as Json).mcpServers as Json[])[0]!.args, args.join(" ")).toEqual(expected);
    }
    expect(redactCommand(["agent", "-e", `OPENAI_API_KEY=${API_KEY}`, "-H", `Authorization: ${BEARER}`])).toEqual([
      "agent",
      "-e",
      `OPENAI_API_KEY=${SECRET_MARKER}`,
      "-H",
      `Authorization: ${SECRET_MARKER}`,
    ]);
  });

  it("terminal/create's env values are replaced as an MCP server's are (names kept), in either shape", () => {
    const out = redactTranscript(
      [
        agent({
          id: 5,
          method: "terminal/create",
          params: {
            sessionId: "s",
            command: "make",
            env: [
              { name: "GITHUB_TOKEN", value: GH_TOKEN },
              { name: "MODE", value: "fast" },
            ],
          },
        }),
        agent({
          id: 6,
          method: "terminal/create",
          params: { sessionId: "s", command: "make", env: { GITHUB_TOKEN: GH_TOKEN } },
        }),
        client({ id: 5, result: { terminalId: "t" } }),
        agent({
          method: "session/update",
          params: {
            sessionId: "s",
            update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `token ${GH_TOKEN}` } },
          },
        }),
      ],
      {},
    );
    expect((msgOf(out[0]).params as Json).env).toEqual([
      { name: "GITHUB_TOKEN", value: SECRET_MARKER },
      { name: "MODE", value: SECRET_MARKER },
    ]);
    expect((msgOf(out[1]).params as Json).env).toEqual({ GITHUB_TOKEN: SECRET_MARKER });
    expect(JSON.stringify(out)).not.toContain(GH_TOKEN);
  });

  it("scrubs the credentials it is told of (the recorder's environment) wherever they appear, e.g. a printenv in a tool's output", () => {
    const out = redactTranscript(
      [
        agent({
          method: "session/update",
          params: {
            sessionId: "s",
            update: {
              sessionUpdate: "tool_call_update",
              toolCallId: "c",
              rawOutput: { stdout: `GITHUB_TOKEN=${GH_TOKEN}\nHOME=/home/me` },
            },
          },
        }),
      ],
      {},
      { secrets: [GH_TOKEN, "short"] },
    );
    expect(JSON.stringify(out)).not.toContain(GH_TOKEN);
    expect(JSON.stringify(out)).toContain("HOME=/home/me");
  });

  it("a file's lines do not survive in a windowed read's output, a read tool's output or a diff: the editor served the whole file, the agent showed a part", () => {
    const env =
      "# settings\nOPENAI_API_KEY=sk-proj-FROMTHEFILE1234\nDATABASE_URL=postgres://me:hunter2pass@db/x\nx=1\n";
    const out = redactTranscript(
      [
        agent({ id: 0, method: "fs/read_text_file", params: { sessionId: "s", path: "/w/.env" } }),
        client({ id: 0, result: { content: env } }),
        agent({
          method: "session/update",
          params: {
            sessionId: "s",
            update: {
              sessionUpdate: "tool_call_update",
              toolCallId: "c",
              rawOutput: { content: "OPENAI_API_KEY=sk-proj-FROMTHEFILE1234\n", total_lines: 4 },
            },
          },
        }),
        agent({
          method: "session/update",
          params: {
            sessionId: "s",
            update: {
              sessionUpdate: "agent_message_chunk",
              content: { type: "text", text: "It sets x=1 and\nDATABASE_URL=postgres://me:hunter2pass@db/x" },
            },
          },
        }),
        client({
          id: 3,
          method: "session/prompt",
          params: { sessionId: "s", prompt: [{ type: "text", text: "why is sk-proj-FROMTHEFILE1234 there?" }] },
        }),
      ],
      {},
    );
    const text = JSON.stringify(out);
    for (const leaked of ["sk-proj-FROMTHEFILE1234", "FROMTHEFILE1234", "hunter2pass"])
      expect(text).not.toContain(leaked);
    expect(((msgOf(out[3]).params as Json).update as Json).content).toEqual({
      type: "text",
      text: `It sets x=1 and\n${SECRET_MARKER}`,
    });
  });

  it("a read tool call's output and a diff's sides are file contents even when no fs method carried them (an agent writing on its own)", () => {
    const secretLine = "password = 'correct-horse-battery'";
    const out = redactTranscript(
      [
        agent({
          method: "session/update",
          params: {
            sessionId: "s",
            update: { sessionUpdate: "tool_call", toolCallId: "r", title: "Read cfg", kind: "read", status: "pending" },
          },
        }),
        agent({
          method: "session/update",
          params: {
            sessionId: "s",
            update: {
              sessionUpdate: "tool_call_update",
              toolCallId: "r",
              status: "completed",
              rawOutput: { content: `${secretLine}\n` },
              content: [{ type: "content", content: { type: "text", text: `${secretLine}\n` } }],
            },
          },
        }),
        agent({
          method: "session/update",
          params: {
            sessionId: "s",
            update: {
              sessionUpdate: "tool_call",
              toolCallId: "e",
              title: "Edit cfg",
              kind: "edit",
              status: "completed",
              content: [{ type: "diff", path: "/w/cfg", oldText: `${secretLine}\n`, newText: "password = 'x'\n" }],
            },
          },
        }),
      ],
      {},
    );
    expect(JSON.stringify(out)).not.toContain("correct-horse-battery");
    const marker = fileContentMarker(`${secretLine}\n`, {});
    expect(((msgOf(out[1]).params as Json).update as Json).rawOutput).toEqual({ content: marker });
    expect(((msgOf(out[2]).params as Json).update as Json).content).toEqual([
      { type: "diff", path: "/w/cfg", oldText: marker, newText: fileContentMarker("password = 'x'\n", {}) },
    ]);
    expect(((msgOf(out[0]).params as Json).update as Json).title).toBe("Read cfg");
  });

  it("the review's gaps: --env=NAME=value, a quoted value with spaces a file assigns, a read tool's _meta output", () => {
    const out = redactTranscript(
      [
        client({
          id: 1,
          method: "session/new",
          params: {
            cwd: "/w",
            mcpServers: [
              {
                name: "x",
                command: "docker",
                args: ["run", "--env=API_KEY=supersecretvalue123", "-e=GITHUB_TOKEN=ghp_viaequalsform1"],
                env: [],
              },
            ],
          },
        }),
        agent({ id: 0, method: "fs/read_text_file", params: { sessionId: "s", path: "/w/.env" } }),
        client({ id: 0, result: { content: 'PASSWORD="open sesame dragon"\nAPI_KEY=abc#defghijk\n' } }),
        agent({
          method: "session/update",
          params: {
            sessionId: "s",
            update: {
              sessionUpdate: "agent_message_chunk",
              content: { type: "text", text: "the password is open sesame dragon" },
            },
          },
        }),
        agent({
          method: "session/update",
          params: {
            sessionId: "s",
            update: {
              sessionUpdate: "tool_call",
              toolCallId: "t",
              title: "cat .env",
              kind: "read",
              status: "in_progress",
            },
          },
        }),
        agent({
          method: "session/update",
          params: {
            sessionId: "s",
            update: {
              sessionUpdate: "tool_call_update",
              toolCallId: "t",
              _meta: { terminal_output_delta: { data: "DB_PASS=hunter2hunter2\n" } },
            },
          },
        }),
      ],
      {},
    );
    const text = JSON.stringify(out);
    for (const leaked of ["supersecretvalue123", "ghp_viaequalsform1", "open sesame dragon", "hunter2hunter2"])
      expect(text, leaked).not.toContain(leaked);
  });

  it("a file's line or a credential cut across streamed chunks is found in the chunks read together: each chunk it touches is replaced", () => {
    const chunk = (text: string, sessionId = "s") =>
      agent({
        method: "session/update",
        params: { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } },
      });
    const out = redactTranscript(
      [
        agent({ id: 0, method: "fs/read_text_file", params: { sessionId: "s", path: "/w/.env" } }),
        client({ id: 0, result: { content: "DATABASE_URL=postgres://me:hunter2pass@db/x\n" } }),
        client({
          id: 1,
          method: "authenticate",
          params: { methodId: "k", _meta: { "api-key": { apiKey: "sk-proj-SPLITACROSSCHUNKS99" } } },
        }),
        chunk("The file says\nDATABASE_URL=postgres://me:"),
        chunk("hunter2pass@db/x"),
        chunk("\nand your key is sk-proj-SPLIT"),
        chunk("ACROSSCHUNKS99, fine."),
        chunk("Unrelated text stays."),
      ],
      {},
    );
    const text = JSON.stringify(out);
    for (const leaked of ["hunter2pass", "SPLITACROSS", "ACROSSCHUNKS99"]) expect(text, leaked).not.toContain(leaked);
    const texts = out.slice(3).map((e) => (((msgOf(e).params as Json).update as Json).content as Json).text);
    expect(texts).toEqual([SECRET_MARKER, SECRET_MARKER, SECRET_MARKER, SECRET_MARKER, "Unrelated text stays."]);
  });

  it("does not scrub what only looks assigned: a header that is not a credential, code a file assigns (the replay would send other messages)", () => {
    const out = redactTranscript(
      [
        client({
          id: 1,
          method: "session/new",
          params: {
            cwd: "/w",
            mcpServers: [{ name: "x", command: "curl", args: ["-H", "Content-Type: application/json"], env: [] }],
          },
        }),
        agent({ id: 0, method: "fs/read_text_file", params: { sessionId: "s", path: "/w/schema.ts" } }),
        client({
          id: 0,
          result: { content: "export const user = {\n  password: z.string(),\n  token: process.env.TOKEN_NAME,\n};\n" },
        }),
        client({
          id: 2,
          method: "session/prompt",
          params: {
            sessionId: "s",
            prompt: [
              { type: "text", text: "send application/json, validate with z.string() and read process.env.TOKEN_NAME" },
            ],
          },
        }),
      ],
      {},
    );
    expect(((msgOf(out[0]).params as Json).mcpServers as Json[])[0]!.args).toEqual([
      "-H",
      `Content-Type: ${SECRET_MARKER}`,
    ]);
    expect(((msgOf(out[3]).params as Json).prompt as Json[])[0]).toEqual({
      type: "text",
      text: "send application/json, validate with z.string() and read process.env.TOKEN_NAME",
    });
  });

  it("finds credentials in environment names the word list alone missed (PGPASSWORD, MYSQL_PWD, GITHUB_AUTH), and leaves PWD, the working folder, alone", () => {
    const secrets = secretsOfEnvironment({
      PGPASSWORD: "pg-secret-123",
      MYSQL_PWD: "my-secret-456",
      GITHUB_AUTH: "gh-auth-secret-789",
      PWD: "/home/me/project",
      OLDPWD: "/home/me/elsewhere",
      HOME: "/home/me",
    });
    expect(secrets.sort()).toEqual(["gh-auth-secret-789", "my-secret-456", "pg-secret-123"]);
  });

  it("leaves the input alone and returns it unchanged when there is nothing to redact", () => {
    const entries = [
      client({ id: 0, method: "initialize", params: { protocolVersion: 1 } }),
      agent({ id: 0, result: { protocolVersion: 1 } }),
    ];
    const copy = structuredClone(entries);
    const withKey = [client({ id: 1, method: "authenticate", params: { methodId: "m", _meta: { k: "v" } } })];
    redactTranscript(withKey, {});
    expect(msgOf(withKey[0]).params).toEqual({ methodId: "m", _meta: { k: "v" } });
    expect(redactTranscript(entries, {})).toEqual(copy);
  });
});

describe("record's option", () => {
  it("--keep-secrets is parsed and documented", () => {
    expect(parseRecordArgs(["--out", "f.jsonl", "--keep-secrets", "--", "a"])).toEqual({
      out: "f.jsonl",
      command: ["a"],
      keepSecrets: true,
    });
    expect(parseRecordArgs(["--out", "f.jsonl", "--", "a"])).toEqual({ out: "f.jsonl", command: ["a"] });
    expect(TRANSCRIPT_USAGE).toContain("--keep-secrets");
    expect(TRANSCRIPT_USAGE).toMatch(/0600/);
  });
});
