// A streamable-HTTP MCP server on 127.0.0.1 that wants an OAuth sign-in, for end-to-end tests:
// without a token it answers 401 pointing at its protected-resource metadata (RFC 9728), which
// names itself as the authorization server (RFC 8414 metadata, dynamic client registration, an
// authorization endpoint that sends the browser straight back, a token endpoint). With the token
// it serves one read-only tool, `secret_word`. `refuse` makes the authorization endpoint answer
// `access_denied`, as a user saying no would.
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

export type OauthMcpServer = {
  /** The MCP endpoint (give it to the session as an http server). */
  url: string;
  /** The access token it issues: a test checks it never shows up where it should not. */
  token: string;
  /** Paths requested, in order (no query strings, no bodies: those carry codes and tokens). */
  paths: string[];
  close(): Promise<void>;
};

export async function startOauthMcpServer(opts: { refuse?: boolean } = {}): Promise<OauthMcpServer> {
  const token = `tok-${randomBytes(12).toString("hex")}`;
  const code = `code-${randomBytes(8).toString("hex")}`;
  const paths: string[] = [];
  let base = "";
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", base);
      paths.push(`${req.method} ${url.pathname}`);
      const body = Buffer.concat(chunks).toString("utf8");
      const json = (status: number, value: unknown, headers: Record<string, string> = {}): void => {
        res.writeHead(status, { "content-type": "application/json", ...headers });
        res.end(JSON.stringify(value));
      };
      if (url.pathname.startsWith("/.well-known/oauth-protected-resource"))
        return json(200, { resource: `${base}/mcp`, authorization_servers: [base] });
      if (url.pathname.startsWith("/.well-known/oauth-authorization-server")) {
        return json(200, {
          issuer: base,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          registration_endpoint: `${base}/register`,
          response_types_supported: ["code"],
          grant_types_supported: ["authorization_code", "refresh_token"],
          code_challenge_methods_supported: ["S256"],
          token_endpoint_auth_methods_supported: ["none"],
        });
      }
      if (url.pathname === "/register") {
        const { redirect_uris } = JSON.parse(body || "{}") as { redirect_uris?: string[] };
        return json(201, {
          client_id: "test-client",
          redirect_uris: redirect_uris ?? [],
          token_endpoint_auth_method: "none",
        });
      }
      if (url.pathname === "/authorize") {
        const back = new URL(url.searchParams.get("redirect_uri") ?? "");
        if (opts.refuse) back.searchParams.set("error", "access_denied");
        else back.searchParams.set("code", code);
        back.searchParams.set("state", url.searchParams.get("state") ?? "");
        res.writeHead(302, { location: back.href });
        return res.end();
      }
      if (url.pathname === "/token") {
        if (new URLSearchParams(body).get("code") !== code) return json(400, { error: "invalid_grant" });
        return json(200, { access_token: token, token_type: "Bearer", expires_in: 3600 });
      }
      if (url.pathname !== "/mcp") return json(404, { error: "not found" });
      if (req.headers.authorization !== `Bearer ${token}`) {
        return json(
          401,
          { error: "unauthorized" },
          { "www-authenticate": `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"` },
        );
      }
      if (req.method !== "POST") {
        res.writeHead(405);
        return res.end();
      }
      const message = JSON.parse(body) as { id?: number; method: string; params?: { protocolVersion?: string } };
      if (message.id === undefined) {
        res.writeHead(202);
        return res.end();
      }
      const tool = {
        name: "secret_word",
        description: "Tells the secret word",
        inputSchema: { type: "object", properties: {} },
        annotations: { readOnlyHint: true },
      };
      const result =
        message.method === "initialize"
          ? {
              protocolVersion: message.params?.protocolVersion ?? "2025-06-18",
              capabilities: { tools: {} },
              serverInfo: { name: "locked", version: "1.0.0" },
            }
          : message.method === "tools/list"
            ? { tools: [tool] }
            : message.method === "tools/call"
              ? { content: [{ type: "text", text: "the secret word is ossify" }] }
              : {};
      return json(200, { jsonrpc: "2.0", id: message.id, result });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/mcp`,
    token,
    paths,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
