// Validation of every JSON-RPC message against the ACP JSON schema shipped with the SDK, one per
// protocol version (@agentclientprotocol/sdk/schema/v1/schema.unstable.json, schema/v2/...: the
// stable methods and the unstable ones agents advertise; which one a transcript's message is checked against is decided by its
// `initialize`, replay/protocol.ts). The schema's $defs carry `x-method` and `x-side` on each
// request/response/notification payload, which is how a message is mapped to its exact
// definition: a request's params by its method, a response's result by the method of the request
// it answers, an error response's error by `Error`.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import type { ErrorObject, ValidateFunction } from "ajv";
import type { Direction } from "./format.js";

export interface SchemaViolation {
  /** JSON path inside the message, e.g. "$.params.update.sessionUpdate". */
  path: string;
  message: string;
}

type Kind = "request" | "response" | "notification";

interface SchemaDefs {
  [name: string]: { "x-method"?: string; "x-side"?: string } & Record<string, unknown>;
}

export interface AcpValidator {
  /**
   * Validates one message. For a response, `method` is the method of the request it answers
   * (unknown: only the envelope and, for errors, the error object are checked).
   */
  validate(dir: Direction, msg: unknown, method?: string): SchemaViolation[];
}

/** The ACP schema versions the SDK ships: v1, and the v2 draft. */
export type AcpSchemaVersion = 1 | 2;

/** One validator per schema version. */
export type AcpValidators = Readonly<Record<AcpSchemaVersion, AcpValidator>>;

/** The schema a negotiated (or requested) protocol version speaks: 2 and later the v2 draft, else v1. */
export function schemaVersionFor(protocolVersion: unknown): AcpSchemaVersion {
  return typeof protocolVersion === "number" && protocolVersion >= 2 ? 2 : 1;
}

// A memo, not state: a compiled schema never changes once built (compiling costs ~0.1-0.3 s).
const cached = new Map<AcpSchemaVersion, Promise<AcpValidator>>();

/** Loads one version's schema and compiles its validators once per process. */
export function loadAcpValidator(version: AcpSchemaVersion = 1): Promise<AcpValidator> {
  let validator = cached.get(version);
  if (!validator) cached.set(version, (validator = build(version)));
  return validator;
}

/** Both versions' validators: a transcript's version is known only once its `initialize` is answered. */
export async function loadAcpValidators(): Promise<AcpValidators> {
  const [v1, v2] = await Promise.all([loadAcpValidator(1), loadAcpValidator(2)]);
  return { 1: v1, 2: v2 };
}

/**
 * The schema's catch-all ("other") variants admit any value of their discriminator (a session
 * update's `sessionUpdate`, a state's `state`, a status string). ACP reserves values that do not
 * begin with `_` for future versions: a receiver must tolerate them, but an agent speaking this
 * version must not send them, so the runner admits only `_` extensions there. Without this a v1
 * `tool_call` update in a v2 session would pass as an unknown future kind. Applied to v2 only:
 * v1's few catch-alls (a config option's category, ...) stay as lenient as recordings made
 * before v2 were checked (the official adapter's `collaboration_mode` category passes there).
 */
function reserveFutureValues(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(reserveFutureValues);
  if (node === null || typeof node !== "object") return;
  const n = node as Record<string, unknown>;
  if (n.title === "other") {
    const props = n.properties as Record<string, Record<string, unknown>> | undefined;
    const known = ((n.not as { anyOf?: unknown[] } | undefined)?.anyOf ?? []) as Array<{
      properties?: Record<string, unknown>;
    }>;
    const discriminators = new Set(known.flatMap((k) => Object.keys(k.properties ?? {})));
    if (n.type === "string" && !props) n.pattern = "^_";
    for (const key of discriminators) if (props?.[key]) props[key] = { ...props[key], pattern: "^_" };
  }
  for (const value of Object.values(n)) reserveFutureValues(value);
}

function pointerToPath(pointer: string): string {
  if (pointer === "") return "";
  return pointer
    .split("/")
    .slice(1)
    .map((seg) => seg.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((seg) => (/^\d+$/.test(seg) ? `[${seg}]` : `.${seg}`))
    .join("");
}

function describe(errors: ErrorObject[] | null | undefined, prefix: string): SchemaViolation[] {
  if (!errors || errors.length === 0) return [{ path: prefix, message: "does not match the schema" }];
  // anyOf reports one error per branch; the deepest errors are the most useful to a reader.
  const deepest = Math.max(...errors.map((e) => e.instancePath.length));
  const picked = errors.filter((e) => e.instancePath.length === deepest && e.keyword !== "anyOf");
  const list = picked.length > 0 ? picked : errors;
  const seen = new Set<string>();
  const out: SchemaViolation[] = [];
  for (const e of list) {
    const extra =
      e.keyword === "enum" ? ` (${JSON.stringify((e.params as { allowedValues?: unknown }).allowedValues)})` : "";
    const v = { path: `${prefix}${pointerToPath(e.instancePath)}`, message: `${e.message ?? e.keyword}${extra}` };
    const key = `${v.path} ${v.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(v);
    }
  }
  return out.slice(0, 5);
}

async function build(version: AcpSchemaVersion): Promise<AcpValidator> {
  const require = createRequire(import.meta.url);
  // The unstable schema: the stable one and the methods agents advertise before they are stable
  // (session/fork, set_title, status...); a transcript of an agent that offers them is valid.
  const schemaPath = require.resolve(`@agentclientprotocol/sdk/schema/v${version}/schema.unstable.json`);
  const schema = JSON.parse(await readFile(schemaPath, "utf8")) as { $defs: SchemaDefs };
  if (version >= 2) reserveFutureValues(schema.$defs);
  // Both are CommonJS; their module.exports (the namespace's default) is the callable itself.
  const ajvMod = (await import("ajv/dist/2020.js")) as unknown as {
    default: typeof import("ajv/dist/2020.js").default;
  };
  const formatsMod = (await import("ajv-formats")) as unknown as { default: typeof import("ajv-formats").default };
  const ajv = new ajvMod.default({ strict: false, allErrors: true, validateFormats: true });
  formatsMod.default(ajv);
  const int = (bits: number, signed: boolean) => ({
    type: "number" as const,
    validate: (n: number) => Number.isInteger(n) && (signed ? Math.abs(n) <= 2 ** (bits - 1) : n >= 0 && n < 2 ** bits),
  });
  ajv.addFormat("int32", int(32, true));
  ajv.addFormat("int64", { type: "number", validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat("uint16", int(16, false));
  ajv.addFormat("uint32", int(32, false));
  ajv.addFormat("uint64", { type: "number", validate: (n: number) => Number.isInteger(n) && n >= 0 });
  ajv.addFormat("double", { type: "number", validate: () => true });
  ajv.addSchema({ $id: "acp", $defs: schema.$defs });

  const compiled = new Map<string, ValidateFunction>();
  const validatorFor = (def: string): ValidateFunction => {
    let fn = compiled.get(def);
    if (!fn) {
      fn = ajv.compile({ $ref: `acp#/$defs/${def}` });
      compiled.set(def, fn);
    }
    return fn;
  };

  // (side that receives, method, kind) -> definition name
  const byMethod = new Map<string, string>();
  for (const [name, def] of Object.entries(schema.$defs)) {
    const method = def["x-method"];
    const side = def["x-side"];
    if (!method || !side) continue;
    const kind: Kind | undefined = name.endsWith("Request")
      ? "request"
      : name.endsWith("Response")
        ? "response"
        : name.endsWith("Notification")
          ? "notification"
          : undefined;
    if (kind) byMethod.set(`${side} ${kind} ${method}`, name);
  }

  const envelope = (dir: Direction, kind: Kind) => {
    const side = dir === "client->agent" ? "Client" : "Agent";
    return `${side}${kind === "request" ? "Request" : kind === "response" ? "Response" : "Notification"}`;
  };

  return {
    validate(dir, msg, method) {
      if (msg === null || typeof msg !== "object" || Array.isArray(msg)) {
        return [{ path: "$", message: "a JSON-RPC message must be an object" }];
      }
      const m = msg as Record<string, unknown>;
      // x-side names the side that implements the method: the receiver of a request or
      // notification, the sender of a response. "protocol" methods ($/...) go both ways.
      const implementer = (k: Kind) => ((dir === "client->agent") === (k === "response") ? "client" : "agent");
      const violations: SchemaViolation[] = [];
      if (m.jsonrpc !== "2.0") violations.push({ path: "$.jsonrpc", message: 'must be "2.0"' });
      const hasMethod = typeof m.method === "string";
      const kind: Kind = hasMethod ? ("id" in m ? "request" : "notification") : "response";
      if (!hasMethod && !("id" in m)) {
        violations.push({ path: "$", message: "neither a request, a notification nor a response (no method, no id)" });
        return violations;
      }
      const env = validatorFor(envelope(dir, kind));
      if (!env(m)) violations.push(...describe(env.errors, "$"));

      if (kind === "response") {
        if ("error" in m && "result" in m)
          violations.push({ path: "$", message: "a response has both result and error" });
        if ("error" in m) {
          const fn = validatorFor("Error");
          if (!fn(m.error)) violations.push(...describe(fn.errors, "$.error"));
        } else if (method) {
          const def = byMethod.get(`${implementer("response")} response ${method}`);
          if (def) {
            const fn = validatorFor(def);
            if (!fn(m.result)) violations.push(...describe(fn.errors, "$.result"));
          }
        }
      } else {
        const name = m.method as string;
        const def = byMethod.get(`${implementer(kind)} ${kind} ${name}`) ?? byMethod.get(`protocol ${kind} ${name}`);
        if (def) {
          const fn = validatorFor(def);
          if (!fn(m.params)) violations.push(...describe(fn.errors, "$.params"));
        } else if (!name.startsWith("_") && !name.startsWith("$/")) {
          violations.push({ path: "$.method", message: `unknown ACP ${kind} method ${JSON.stringify(name)}` });
        }
      }
      // Deduplicate (the envelope and the exact definition may report the same fault).
      const seen = new Set<string>();
      return violations.filter((v) => {
        const key = `${v.path} ${v.message}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
    },
  };
}
