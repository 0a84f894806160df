// Hostile input for the ACP pipe: the same deterministic stream of bad messages on every run
// (tests/e2e/fuzz.test.ts checks the answers; `npm run bench`'s soak measures memory after it).

/** `count` bad lines (broken JSON, wrong ids and versions, bad params); `id` is set when a request expects an answer. */
export function* hostileMessages(count: number): Generator<{ line: string; id?: unknown }> {
  let seed = 42;
  const rand = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  const ids: unknown[] = [1, -7, 1.5, 2 ** 53, "s", "", null, true, {}, [], { a: 1 }];
  const methods = [
    "session/new",
    "session/prompt",
    "session/load",
    "session/set_mode",
    "initialize",
    "authenticate",
    "nope/x",
    "",
    "session/cancel",
    "fs/read_text_file",
  ];
  const params: unknown[] = [
    "x",
    1,
    [],
    null,
    {},
    { cwd: 5 },
    { sessionId: [] },
    { prompt: "no" },
    { cwd: "relative" },
    { sessionId: "x".repeat(100_000) },
  ];
  for (let i = 0; i < count; i++) {
    const kind = rand(6);
    if (kind === 0) {
      const junk = ["{", "[1,2", "nul", "\u0000\u0001", '{"jsonrpc":"2.0",', "}}}", "true", "42", '"str"', "[]"][
        rand(10)
      ]!;
      yield { line: junk };
    } else if (kind === 1) {
      yield {
        line: JSON.stringify({
          jsonrpc: "2.0",
          method: methods[rand(methods.length)],
          params: params[rand(params.length)],
        }),
      }; // notification
    } else {
      const id = ids[rand(ids.length)];
      const msg: Record<string, unknown> = {
        jsonrpc: rand(5) === 0 ? "1.0" : "2.0",
        id,
        method: methods[rand(methods.length)],
      };
      if (rand(3) > 0) msg.params = params[rand(params.length)];
      yield { line: JSON.stringify(msg), id };
    }
  }
}

/** The storm's tail: a 10,000-deep nesting (as a request's params and bare) and a 50 MB line. */
export function hostileExtremes(): string[] {
  const deep = 10_000;
  return [
    `{"jsonrpc":"2.0","id":"deep","method":"session/new","params":{"cwd":${"[".repeat(deep)}${"]".repeat(deep)}}}`,
    `${"[".repeat(deep)}${"]".repeat(deep)}`,
    JSON.stringify({
      jsonrpc: "2.0",
      id: "huge",
      method: "session/prompt",
      params: { sessionId: "none", prompt: [{ type: "text", text: "x".repeat(50 * 1024 * 1024) }] },
    }),
  ];
}

/**
 * Large lines under the agent's 30 MiB limit, so read and parsed whole (issue 49 item 6's storm
 * had forty of 20 MB): a prompt to no session, a session/new with a huge cwd, a request cut off
 * inside a string (not JSON), a cancel of a huge session id. `i` picks the kind.
 */
export function hostileLargeLine(i: number, bytes = 20 * 1024 * 1024): string {
  const text = "x".repeat(bytes);
  switch (i % 4) {
    case 0:
      return JSON.stringify({
        jsonrpc: "2.0",
        id: `large-${i}`,
        method: "session/prompt",
        params: { sessionId: "none", prompt: [{ type: "text", text }] },
      });
    case 1:
      return JSON.stringify({
        jsonrpc: "2.0",
        id: `large-${i}`,
        method: "session/new",
        params: { cwd: text, mcpServers: [] },
      });
    case 2:
      return `{"jsonrpc":"2.0","id":"large-${i}","method":"session/prompt","params":{"text":"${text}`;
    default:
      return JSON.stringify({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: text } });
  }
}
