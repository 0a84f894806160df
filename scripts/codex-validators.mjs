// Compiles the parts of Codex's JSON schema the adapter reads into small standalone validators
// (used by scripts/codex-types.mjs; the output is src/codex/generated/validators.js + .d.ts).
//
// Why not ajv's standalone code: for these definitions it is 880 KB of JS (550 KB minified; every
// keyword carries its own error object, schema path and message), and straight-line code of our
// own was still 200 KB, 4-12 ms to load at every start of the adapter. Here each schema becomes a
// small table (an object's properties: name, check, whether required) read by a few shared
// checkers, built on first use: 60 KB, ~1.5 ms to load; a delta is checked in well under 0.1 µs.
// A failure builds one issue ({ path, message }) on the way out. Only the keywords this schema
// uses are understood; any other stops the generation (a newer Codex's schema is then looked at,
// not silently half-checked).
//
// What is checked, and how strictly (the schema is exact for the pinned binary; a user may run a
// newer codex through CODEX_PATH):
//  - types, required properties, array items, map values, allOf/anyOf/oneOf, minimum, minLength:
//    as the schema says. A malformed field the adapter reads (a null token usage, an item
//    without an id) rejects the message.
//  - enum values are open: only the value's type is checked. A newer Codex's item status or plan
//    step status must not drop the whole item (its tool card would then run forever); readers
//    map values they do not know (default branches).
//  - unions are open to new variants: an object whose tag (internally tagged: `type`, `kind`...)
//    names no variant this build knows passes with the fields every variant shares (a ThreadItem
//    keeps its `id`); an externally tagged object (`{ "httpConnectionFailed": {...} }`) whose key
//    names no known variant passes as it is. A known variant is checked in full. Readers report
//    unknown kinds (the bridge's onUnknown) instead of a whole turn or history being dropped.
//  - oneOf is read as anyOf: with open enums two variants may both match, and readers tell
//    variants apart by their tags anyway.
//  - additionalProperties: false is not enforced (a newer Codex adds fields; nobody reads them).
//  - formats (int64, uint16...) are not checked beyond the JSON type.
// A value that passed is left as it came: the validators check, they never fill in (what passed
// may be handed on to the client, an MCP form's schema for one, where an added null is an error).
// So a property the schema does not require may be absent where the generated TS type says
// `T | null` (ts-rs writes an Option so; Codex's schema, like its deserializer, lets it be left
// out): readers test such fields with `== null` or `??`, not `=== null`.

const IGNORED = new Set([
  "$schema",
  "title",
  "description",
  "default",
  "format",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
]);
const UNDERSTOOD = new Set([
  ...IGNORED,
  "$ref",
  "type",
  "enum",
  "const",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "allOf",
  "anyOf",
  "oneOf",
  "minimum",
  "minLength",
]);

/** The checkers the tables are read by (emitted at the top of validators.js). */
const RUNTIME = String.raw`
const isObject = (x) => typeof x === "object" && x !== null && !Array.isArray(x);
const issue = (path, message) => ({ path, message });
const at = (path, e) => ((e.path = path + e.path), e);
/** An object: props is flat [name, check (0: any value), required (1) or not (0)]. */
const object = (props, more) => (x) => {
  if (!isObject(x)) return issue("", "must be object");
  for (let i = 0; i < props.length; i += 3) {
    const name = props[i];
    const y = x[name];
    if (y === undefined) {
      if (props[i + 2] === 1) return issue("/" + name, "is missing");
      continue;
    }
    const check = props[i + 1];
    if (check !== 0) {
      const e = check(y);
      if (e !== undefined) return at("/" + name, e);
    }
  }
  return more === undefined ? undefined : more(x);
};
const map = (check, known) => (x) => {
  for (const k of Object.keys(x)) {
    if (known.includes(k)) continue;
    const e = check(x[k]);
    if (e !== undefined) return at("/" + k, e);
  }
};
const array = (check) => (x) => {
  if (!Array.isArray(x)) return issue("", "must be array");
  if (check === 0) return;
  for (let i = 0; i < x.length; i++) {
    const e = check(x[i]);
    if (e !== undefined) return at("/" + i, e);
  }
};
const nullable = (check) => (x) => (x === null ? undefined : check(x));
const all = (checks) => (x) => {
  for (const check of checks) {
    const e = check(x);
    if (e !== undefined) return e;
  }
};
/** Internally tagged: the tag picks the variant; a tag no variant has passes with the shared fields. */
const tagged = (tag, variants, shared) => {
  const byTag = new Map(Object.entries(variants));
  return (x) => {
    if (!isObject(x)) return issue("", "must be object");
    const value = x[tag];
    if (typeof value !== "string") return issue("/" + tag, value === undefined ? "is missing" : "must be string");
    const check = byTag.get(value) ?? shared;
    return check === 0 ? undefined : check(x);
  };
};
/** Externally tagged ({ "variant": {...} }, or a string): an object with no known key passes as it is. */
const keyed = (strings, variants) => {
  const entries = Object.entries(variants);
  return (x) => {
    if (typeof x === "string") return strings ? undefined : issue("", "must be object");
    if (!isObject(x)) return issue("", strings ? "must be string or object" : "must be object");
    for (const [key, check] of entries) if (x[key] !== undefined) return check(x);
  };
};
const anyOf = (checks) => (x) => {
  for (const check of checks) if (check(x) === undefined) return;
  return issue("", "matches none of its " + checks.length + " variants");
};
const type = (test, message) => (x) => (test(x) ? undefined : issue("", message));
const minimum = (n) => (x) => (typeof x === "number" && x < n ? issue("", "must be >= " + n) : undefined);
const minLength = (n) => (x) => (typeof x === "string" && x.length < n ? issue("", "must have at least " + n + " characters") : undefined);
const equals = (v) => (x) => (x === v ? undefined : issue("", "must be " + JSON.stringify(v)));
/** A notification or request: { method, params } with params checked (issue paths are within params). */
const envelope = (method, check) => (x) => (isObject(x) && x.method === method ? check(x.params) : issue("", "must be a " + method + " message"));
const checker = (check) => (value, issues) => {
  const e = check(value);
  if (e === undefined) return true;
  if (issues) issues.push(e);
  return false;
};
`;

const TYPE_TESTS = {
  string: (x) => `typeof ${x} === "string"`,
  boolean: (x) => `typeof ${x} === "boolean"`,
  number: (x) => `typeof ${x} === "number"`,
  integer: (x) => `Number.isInteger(${x})`,
  null: (x) => `${x} === null`,
  array: (x) => `Array.isArray(${x})`,
  object: (x) => `isObject(${x})`,
};

/**
 * @param {object} opts
 * @param {Record<string, object>} opts.definitions every definition the roots may reference
 * @param {Record<string, { entries: Record<string, string>, envelope: boolean }>} opts.tables table name -> method -> definition
 *   name; with `envelope`, a validator checks a message `{ method, params }` (its issues' paths are within params)
 * @param {Record<string, string[]>} opts.methodSets set name -> every method of that kind (known to this build)
 * @param {(definition: string) => string} opts.typeImport the module (relative to the generated folder) exporting a definition's TS type
 * @param {string} opts.header a comment for both files
 * @returns {{ js: string, dts: string }}
 */
export function generateValidators({ definitions, tables, methodSets, typeImport, header }) {
  const compiler = new Compiler(definitions);
  const roots = [...new Set(Object.values(tables).flatMap((t) => Object.values(t.entries)))].sort();
  const entry = new Map(roots.map((name) => [name, compiler.definition(name)]));
  compiler.drain();
  const js = [
    header,
    RUNTIME.trim(),
    ...compiler.constants,
    ...compiler.lines,
    ...Object.entries(tables).map(
      ([table, { entries, envelope }]) =>
        `export const ${table} = Object.freeze({\n${Object.entries(entries)
          .map(
            ([method, def]) =>
              `  ${JSON.stringify(method)}: checker(${envelope ? `envelope(${JSON.stringify(method)}, ${entry.get(def)})` : entry.get(def)}),`,
          )
          .join("\n")}\n});`,
    ),
    ...Object.entries(methodSets).map(
      ([name, methods]) => `export const ${name} = new Set(${JSON.stringify([...methods].sort())});`,
    ),
    "",
  ].join("\n");
  const dts = [
    header,
    ...roots.map((t) => `import type { ${t} } from "${typeImport(t)}";`),
    "",
    "/** Where a value first broke the schema (a JSON pointer into it) and how; never the value itself. */",
    "export type ValidationIssue = { path: string; message: string };",
    "/** True when `value` has the shape of T (a field T types `X | null` may be absent: test it with `== null`); otherwise its first issue goes to `issues`. */",
    "export type Validator<T> = (value: unknown, issues?: ValidationIssue[]) => value is T;",
    ...Object.entries(tables).map(
      ([table, { entries, envelope }]) =>
        `export declare const ${table}: {\n${Object.entries(entries)
          .map(
            ([method, def]) =>
              `  readonly ${JSON.stringify(method)}: Validator<${envelope ? `{ method: ${JSON.stringify(method)}; params: ${def} }` : def}>;`,
          )
          .join("\n")}\n};`,
    ),
    ...Object.keys(methodSets).map((name) => `export declare const ${name}: ReadonlySet<string>;`),
    "",
  ].join("\n");
  return { js, dts };
}

/** Turns schemas into checker expressions; each definition is a function (so definitions may refer to each other, and to themselves). */
class Compiler {
  /** @param {Record<string, object>} definitions */
  constructor(definitions) {
    this.definitions = definitions;
    /** Checkers shared by every schema that needs the same one (`const K0 = type(...)`). */
    this.constants = [];
    this.shared = new Map();
    /** @type {string[]} */
    this.lines = [];
    /** definition name -> function name */
    this.names = new Map();
    this.queue = [];
  }

  /** The name of the function checking a definition (its table is built by drain()). */
  definition(name) {
    let fn = this.names.get(name);
    if (fn) return fn;
    if (this.definitions[name] === undefined)
      throw new Error(`codex:types: no definition ${name} in Codex's JSON schema`);
    fn = `v_${name.replace(/[^A-Za-z0-9_$]/g, "_")}`;
    this.names.set(name, fn);
    this.queue.push({ fn, name });
    return fn;
  }

  drain() {
    for (let job = this.queue.shift(); job; job = this.queue.shift()) {
      const check = this.compile(this.definitions[job.name], job.name) ?? "() => undefined";
      // Built on first use: most definitions serve a message that comes late or never, and
      // building them all at load doubled the module's start-up cost (3.1 -> 2.0 ms, 0.7 empty).
      this.lines.push(`let c_${job.fn};`, `function ${job.fn}(x) { return (c_${job.fn} ??= ${check})(x); }`);
    }
  }

  resolve(schema) {
    return schema.$ref !== undefined ? this.definitions[refName(schema.$ref)] : schema;
  }

  /** A checker shared by name (a type test, a bound): one closure for every use. */
  constant(key, expression) {
    let name = this.shared.get(key);
    if (!name) {
      name = `K${this.shared.size}`;
      this.shared.set(key, name);
      this.constants.push(`const ${name} = ${expression};`);
    }
    return name;
  }

  /** A checker expression for `schema`, or undefined when it accepts everything. */
  compile(schema, where) {
    if (schema === true || schema === undefined) return undefined;
    if (schema === false) return this.constant("false", 'type(() => false, "must be absent")');
    for (const key of Object.keys(schema)) {
      if (!UNDERSTOOD.has(key))
        throw new Error(
          `codex:types: ${where} uses the keyword ${key}, which scripts/codex-validators.mjs does not check`,
        );
    }
    const checks = [];
    if (schema.$ref !== undefined) checks.push(this.definition(refName(schema.$ref)));
    let types = typesOf(schema);
    const objectish =
      schema.properties !== undefined ||
      schema.required !== undefined ||
      (typeof schema.additionalProperties === "object" && schema.additionalProperties !== null);
    const nullableShape = (kind) => types?.length === 2 && types.includes(kind) && types.includes("null");
    // An object's or array's own checker tests its type: the type test is left out then.
    let shape;
    if (objectish) {
      shape = this.object(schema, where);
      if (types === undefined) shape = this.whenObject(shape);
      else if (nullableShape("object")) shape = `nullable(${shape})`;
      else if (!(types.length === 1 && types[0] === "object"))
        throw new Error(`codex:types: ${where}: properties on a value of type ${types.join("|")}`);
      types = undefined;
    } else if (schema.items !== undefined) {
      if (Array.isArray(schema.items)) throw new Error(`codex:types: ${where} has tuple items, which are not checked`);
      shape = `array(${this.compile(schema.items, where) ?? 0})`;
      if (types === undefined) shape = this.whenArray(shape);
      else if (nullableShape("array")) shape = `nullable(${shape})`;
      else if (!(types.length === 1 && types[0] === "array"))
        throw new Error(`codex:types: ${where}: items on a value of type ${types.join("|")}`);
      types = undefined;
    }
    if (types) checks.push(this.typeCheck(types));
    if (shape) checks.push(shape);
    if (schema.const !== undefined) checks.push(`equals(${JSON.stringify(schema.const)})`);
    if (schema.minimum !== undefined) checks.push(this.constant(`min${schema.minimum}`, `minimum(${schema.minimum})`));
    if (schema.minLength !== undefined)
      checks.push(this.constant(`minLength${schema.minLength}`, `minLength(${schema.minLength})`));
    for (const sub of schema.allOf ?? []) {
      const c = this.compile(sub, where);
      if (c) checks.push(c);
    }
    for (const key of ["anyOf", "oneOf"]) {
      if (!schema[key]) continue;
      const c = this.union(schema[key], where);
      if (c) checks.push(c);
    }
    if (checks.length === 0) return undefined;
    return checks.length === 1 ? checks[0] : `all([${checks.join(", ")}])`;
  }

  typeCheck(types) {
    const key = [...types].sort().join("|");
    return this.constant(
      `type:${key}`,
      `type((x) => ${types.map((t) => TYPE_TESTS[t]?.("x") ?? unknownType(t)).join(" || ")}, ${JSON.stringify(`must be ${types.join(" or ")}`)})`,
    );
  }

  /** Object keywords apply to objects only: anything else passes them. */
  whenObject(check) {
    return `((c) => (x) => (isObject(x) ? c(x) : undefined))(${check})`;
  }

  whenArray(check) {
    return `((c) => (x) => (Array.isArray(x) ? c(x) : undefined))(${check})`;
  }

  object(schema, where, more) {
    const required = new Set(schema.required ?? []);
    const properties = { ...schema.properties };
    for (const name of required) properties[name] ??= true;
    const props = [];
    for (const [name, sub] of Object.entries(properties)) {
      const check = this.compile(sub, where) ?? 0;
      if (check === 0 && !required.has(name)) continue;
      props.push(JSON.stringify(name), check, required.has(name) ? 1 : 0);
    }
    const extra = schema.additionalProperties;
    const extraCheck = typeof extra === "object" && extra !== null ? this.compile(extra, where) : undefined;
    const tail = [extraCheck && `map(${extraCheck}, ${JSON.stringify(Object.keys(properties))})`, more].filter(Boolean);
    const rest = tail.length === 0 ? "" : `, ${tail.length === 1 ? tail[0] : `all([${tail.join(", ")}])`}`;
    return `object([${props.join(", ")}]${rest})`;
  }

  /** anyOf / oneOf (read alike): nullable, internally or externally tagged (open), string enums (open), or any of. */
  union(variants, where) {
    const resolved = variants.map((v) => this.resolve(v));
    const isNull = (s) => s.type === "null" && Object.keys(s).every((k) => k === "type" || IGNORED.has(k));
    const rest = variants.filter((_, i) => !isNull(resolved[i]));
    const inner = rest.length === 1 ? this.compile(rest[0], where) : this.alternatives(rest, where);
    return rest.length < variants.length && inner ? `nullable(${inner})` : inner;
  }

  alternatives(variants, where) {
    const resolved = variants.map((v) => this.resolve(v));
    if (resolved.every(isStringLike)) return this.typeCheck(["string"]);
    const tag = internalTag(resolved);
    if (tag) {
      const cases = resolved.map(
        (r, i) =>
          `${JSON.stringify(r.properties[tag].enum[0])}: ${this.compile(variants[i], where) ?? "() => undefined"}`,
      );
      const shared = sharedFields(resolved, tag);
      const sharedCheck = shared.required.length > 0 ? this.object(shared, where) : 0;
      return `tagged(${JSON.stringify(tag)}, { ${cases.join(", ")} }, ${sharedCheck})`;
    }
    const keys = externalKeys(resolved);
    if (keys) {
      const cases = resolved.flatMap((r, i) =>
        isStringLike(r) ? [] : [`${JSON.stringify(keys[i])}: ${this.compile(variants[i], where) ?? "() => undefined"}`],
      );
      return `keyed(${resolved.some(isStringLike)}, { ${cases.join(", ")} })`;
    }
    return `anyOf([${variants.map((v) => this.compile(v, where) ?? "() => undefined").join(", ")}])`;
  }
}

function unknownType(t) {
  throw new Error(`codex:types: unknown JSON type ${t}`);
}

function refName(ref) {
  if (!ref.startsWith("#/definitions/")) throw new Error(`codex:types: unsupported $ref ${ref}`);
  return ref.slice("#/definitions/".length);
}

/** The JSON types a schema allows by its `type`, or by its enum's values (enums are open). */
function typesOf(schema) {
  if (schema.type !== undefined) return Array.isArray(schema.type) ? schema.type : [schema.type];
  if (schema.enum !== undefined) return [...new Set(schema.enum.map((v) => (v === null ? "null" : typeof v)))];
  return undefined;
}

function isStringLike(s) {
  return s.type === "string" && Object.keys(s).every((k) => k === "type" || k === "enum" || IGNORED.has(k));
}

/** The property every variant requires and fixes to one distinct string (`type`, `kind`...), if any. */
function internalTag(variants) {
  const first = variants[0];
  if (!first?.properties) return undefined;
  for (const tag of first.required ?? []) {
    const values = variants.map((v) => {
      const p = v.properties?.[tag];
      return v.required?.includes(tag) && p?.enum?.length === 1 && typeof p.enum[0] === "string"
        ? p.enum[0]
        : undefined;
    });
    if (values.every((v) => v !== undefined) && new Set(values).size === values.length) return tag;
  }
  return undefined;
}

/**
 * Externally tagged (serde's default enum representation): each object variant is `{ key: ... }`
 * with its own key and nothing else (schemars says `additionalProperties: false`), string variants
 * beside. Alternatives that merely have one field each (an image by `url` or by `fileId`) are not.
 */
function externalKeys(variants) {
  const keys = variants.map((v) => {
    if (isStringLike(v)) return null;
    const req = v.required ?? [];
    return v.type === "object" &&
      v.additionalProperties === false &&
      req.length === 1 &&
      Object.keys(v.properties ?? {}).length === 1
      ? req[0]
      : undefined;
  });
  if (keys.some((k) => k === undefined)) return undefined;
  const named = keys.filter((k) => k !== null);
  return named.length > 0 && new Set(named).size === named.length ? keys : undefined;
}

/** What every variant of a tagged union has alike (but the tag): checked on a variant this build does not know. */
function sharedFields(variants, tag) {
  const [first, ...rest] = variants;
  const same = (a, b) => JSON.stringify(meaningful(a)) === JSON.stringify(meaningful(b));
  const required = (first.required ?? []).filter(
    (name) =>
      name !== tag &&
      rest.every((v) => v.required?.includes(name) && same(v.properties?.[name], first.properties?.[name])),
  );
  return {
    type: "object",
    required,
    properties: Object.fromEntries(required.map((name) => [name, first.properties?.[name] ?? true])),
  };
}

/** A schema without its annotations (what it checks, only). */
function meaningful(schema) {
  if (Array.isArray(schema)) return schema.map(meaningful);
  if (schema === null || typeof schema !== "object") return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([k]) => !IGNORED.has(k))
      .map(([k, v]) => [k, k === "enum" || k === "required" ? v : meaningful(v)]),
  );
}
