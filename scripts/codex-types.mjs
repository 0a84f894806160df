// npm run codex:types: regenerates src/codex/generated/ from the pinned codex binary, so the
// app-server's messages are typed and checked by Codex's own schema. Committed; rerun after
// bumping @openai/codex.
//  - Types: `codex app-server generate-ts --experimental`. The generator writes extension-less
//    relative imports; NodeNext resolution wants ".js", so they are rewritten (a folder import
//    "./v2" becomes "./v2/index.js").
//  - Validators (validators.js + .d.ts): `codex app-server generate-json-schema --experimental`,
//    compiled by scripts/codex-validators.mjs for what the adapter reads: the notifications and
//    server requests below, and the result of every request it makes. Every other notification
//    or request reaches the adapter with its params typed unknown (src/codex/validation.ts), so a
//    reader of one that is not listed here fails `tsc` until it is added.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, cpSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { generateValidators } from "./codex-validators.mjs";

/** Notifications whose params the adapter reads (the bridge's translator, the session and its features). */
const CHECKED_NOTIFICATIONS = [
  "error",
  "guardianWarning",
  "hook/completed",
  "item/agentMessage/delta",
  "item/commandExecution/outputDelta",
  "item/completed",
  "item/plan/delta",
  "item/reasoning/summaryPartAdded",
  "item/reasoning/summaryTextDelta",
  "item/reasoning/textDelta",
  "item/started",
  "mcpServer/oauthLogin/completed",
  "mcpServer/startupStatus/updated",
  "model/rerouted",
  "rawResponseItem/completed",
  "thread/goal/updated",
  "thread/name/updated",
  "thread/tokenUsage/updated",
  "turn/completed",
  "turn/plan/updated",
  "turn/started",
];

/** Server->client requests whose params the adapter reads to answer them (the others get a refusal). */
const CHECKED_SERVER_REQUESTS = [
  "item/commandExecution/requestApproval",
  "item/fileChange/requestApproval",
  "item/permissions/requestApproval",
  "item/tool/requestUserInput",
  "mcpServer/elicitation/request",
];

/** The requests the adapter makes (src/codex/requests.ts) and the definition of each one's result. */
const RESULTS = {
  "thread/start": "ThreadStartResponse",
  "thread/resume": "ThreadResumeResponse",
  "thread/read": "ThreadReadResponse",
  "thread/list": "ThreadListResponse",
  "thread/turns/list": "ThreadTurnsListResponse",
  "thread/items/list": "ThreadItemsListResponse",
  "thread/fork": "ThreadForkResponse",
  "thread/archive": "ThreadArchiveResponse",
  "thread/unarchive": "ThreadUnarchiveResponse",
  "thread/delete": "ThreadDeleteResponse",
  "thread/name/set": "ThreadSetNameResponse",
  "thread/unsubscribe": "ThreadUnsubscribeResponse",
  "thread/settings/update": "ThreadSettingsUpdateResponse",
  "thread/compact/start": "ThreadCompactStartResponse",
  "thread/goal/get": "ThreadGoalGetResponse",
  "thread/goal/set": "ThreadGoalSetResponse",
  "thread/goal/clear": "ThreadGoalClearResponse",
  "thread/sample": "ThreadSampleResponse",
  "thread/backgroundTerminals/terminate": "ThreadBackgroundTerminalsTerminateResponse",
  "turn/start": "TurnStartResponse",
  "turn/interrupt": "TurnInterruptResponse",
  "turn/steer": "TurnSteerResponse",
  "collaborationMode/list": "CollaborationModeListResponse",
  "review/start": "ReviewStartResponse",
  "model/list": "ModelListResponse",
  "modelProvider/list": "ModelProviderListResponse",
  "account/read": "GetAccountResponse",
  "account/rateLimits/read": "GetAccountRateLimitsResponse",
  "account/login/start": "LoginAccountResponse",
  "account/login/cancel": "CancelLoginAccountResponse",
  "account/logout": "LogoutAccountResponse",
  "mcpServerStatus/list": "ListMcpServerStatusResponse",
  "config/mcpServer/reload": "McpServerRefreshResponse",
  "mcpServer/oauth/login": "McpServerOauthLoginResponse",
  "skills/list": "SkillsListResponse",
  "config/read": "ConfigReadResponse",
};

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const out = path.join(root, "src/codex/generated");
const codex = process.env.CODEX_PATH ?? findNative();

function findNative() {
  const base = path.join(root, "node_modules/@openai");
  for (const pkg of readdirSync(base).filter((d) => d.startsWith("codex-"))) {
    const vendor = path.join(base, pkg, "vendor");
    for (const triple of readdirSync(vendor)) {
      const bin = path.join(vendor, triple, "bin", process.platform === "win32" ? "codex.exe" : "codex");
      if (existsSync(bin)) return bin;
    }
  }
  throw new Error("no native codex binary under node_modules/@openai; set CODEX_PATH");
}

/** method -> params type, read off a generated union (`{ "method": "x", ..., "params": T }`). */
function methodsOf(unionFile) {
  const text = readFileSync(unionFile, "utf8");
  return Object.fromEntries(
    [...text.matchAll(/\{ "method": "([^"]+)",(?: id: \w+,)? "?params"?: (\w+)/g)].map((m) => [m[1], m[2]]),
  );
}

function pick(all, methods, what) {
  return Object.fromEntries(
    methods.map((m) => {
      if (!all[m]) throw new Error(`codex:types: ${what} ${m} is not in Codex's schema`);
      return [m, all[m]];
    }),
  );
}

/** The definitions of the v2 bundle and of the server requests (v1 approvals live only there). */
function schemaDefinitions(dir) {
  const definitions = {
    ...JSON.parse(readFileSync(path.join(dir, "codex_app_server_protocol.v2.schemas.json"), "utf8")).definitions,
  };
  for (const [name, schema] of Object.entries(
    JSON.parse(readFileSync(path.join(dir, "ServerRequest.json"), "utf8")).definitions,
  )) {
    if (definitions[name] !== undefined && JSON.stringify(definitions[name]) !== JSON.stringify(schema))
      throw new Error(`codex:types: two definitions of ${name}`);
    definitions[name] = schema;
  }
  return definitions;
}

const tmp = mkdtempSync(path.join(os.tmpdir(), "codex-types-"));
const schemaDir = mkdtempSync(path.join(os.tmpdir(), "codex-schema-"));
try {
  execFileSync(codex, ["app-server", "generate-ts", "--experimental", "--out", tmp], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  execFileSync(codex, ["app-server", "generate-json-schema", "--experimental", "--out", schemaDir], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  const version = execFileSync(codex, ["--version"], { encoding: "utf8" }).trim();
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const file = path.join(dir, name);
      if (statSync(file).isDirectory()) walk(file);
      else if (name.endsWith(".ts")) {
        const text = readFileSync(file, "utf8").replace(/from "(\.{1,2}\/[^"]*)"/g, (_, spec) => {
          const target = path.resolve(path.dirname(file), spec);
          return existsSync(target) && statSync(target).isDirectory() ? `from "${spec}/index.js"` : `from "${spec}.js"`;
        });
        writeFileSync(file, text);
      }
    }
  };
  walk(tmp);
  const notifications = methodsOf(path.join(tmp, "ServerNotification.ts"));
  const serverRequests = methodsOf(path.join(tmp, "ServerRequest.ts"));
  const { js, dts } = generateValidators({
    definitions: schemaDefinitions(schemaDir),
    tables: {
      notificationValidators: { entries: pick(notifications, CHECKED_NOTIFICATIONS, "notification"), envelope: true },
      serverRequestValidators: {
        entries: pick(serverRequests, CHECKED_SERVER_REQUESTS, "server request"),
        envelope: true,
      },
      resultValidators: { entries: RESULTS, envelope: false },
    },
    methodSets: { notificationMethods: Object.keys(notifications), serverRequestMethods: Object.keys(serverRequests) },
    typeImport: (type) => {
      if (existsSync(path.join(tmp, "v2", `${type}.ts`))) return `./v2/${type}.js`;
      if (existsSync(path.join(tmp, `${type}.ts`))) return `./${type}.js`;
      throw new Error(`codex:types: no generated type ${type}`);
    },
    header: `// GENERATED by npm run codex:types (scripts/codex-validators.mjs) from ${version}'s JSON schema. Do not edit.`,
  });
  writeFileSync(path.join(tmp, "validators.js"), js);
  writeFileSync(path.join(tmp, "validators.d.ts"), dts);
  writeFileSync(path.join(tmp, "VERSION"), `${version}\n`);
  rmSync(out, { recursive: true, force: true });
  cpSync(tmp, out, { recursive: true });
  process.stderr.write(
    `codex:types: ${version} -> ${path.relative(root, out)} (validators: ${Math.round(js.length / 1024)} KB)\n`,
  );
} finally {
  rmSync(tmp, { recursive: true, force: true });
  rmSync(schemaDir, { recursive: true, force: true });
}
