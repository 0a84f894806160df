// The validators generated from Codex's JSON schema (scripts/codex-validators.mjs): what the real
// codex sent (tests/fixtures/codex, recorded from the pinned binary) passes; and how strict they
// are, on small schemas: exact where the schema is, open to a newer Codex's enum values and union
// variants, and never changing what they check.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { generateValidators } from "../../scripts/codex-validators.mjs";
import {
  notificationValidators,
  resultValidators,
  type ValidationIssue,
} from "../../src/codex/generated/validators.js";

const FIXTURES = path.resolve(import.meta.dirname, "../fixtures/codex");

describe("the generated validators", () => {
  it("pass every notification and stored turn the real codex sent", () => {
    let checked = 0;
    for (const file of readdirSync(FIXTURES)) {
      const recorded = JSON.parse(readFileSync(path.join(FIXTURES, file), "utf8")) as {
        notifications: Array<{ method: string; params: unknown }>;
        turns: unknown[];
      };
      for (const n of recorded.notifications) {
        if (!Object.hasOwn(notificationValidators, n.method)) continue;
        const issues: ValidationIssue[] = [];
        const validate = notificationValidators[n.method as keyof typeof notificationValidators];
        expect(validate(n, issues), `${file} ${n.method}: ${JSON.stringify(issues)}`).toBe(true);
        checked++;
      }
      const issues: ValidationIssue[] = [];
      expect(
        resultValidators["thread/turns/list"](
          { data: recorded.turns, nextCursor: null, backwardsCursor: null },
          issues,
        ),
        `${file}: ${JSON.stringify(issues)}`,
      ).toBe(true);
    }
    expect(checked).toBeGreaterThan(50);
  });
});

const dir = mkdtempSync(path.join(os.tmpdir(), "codex-validators-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let modules = 0;

/** Compiles `definitions` (the root is "Root") and returns its validator. */
async function compile(definitions: Record<string, unknown>): Promise<(value: unknown) => ValidationIssue | undefined> {
  const { js } = generateValidators({
    definitions,
    tables: { t: { entries: { root: "Root" }, envelope: false } },
    methodSets: {},
    typeImport: () => "",
    header: "",
  });
  const file = path.join(dir, `v${modules++}.mjs`);
  writeFileSync(file, js);
  const { t } = (await import(pathToFileURL(file).href)) as {
    t: { root: (value: unknown, issues: ValidationIssue[]) => boolean };
  };
  return (value) => {
    const issues: ValidationIssue[] = [];
    return t.root(value, issues) ? undefined : issues[0];
  };
}

const item = {
  Root: {
    type: "object",
    properties: {
      item: { $ref: "#/definitions/Item" },
      note: { type: ["string", "null"] },
      tags: { type: "array", items: { type: "string" }, default: [] },
    },
    required: ["item"],
  },
  Item: {
    oneOf: [
      {
        type: "object",
        properties: {
          type: { type: "string", enum: ["command"] },
          id: { type: "string" },
          status: { $ref: "#/definitions/Status" },
          exitCode: { type: ["integer", "null"] },
        },
        required: ["type", "id", "status"],
      },
      {
        type: "object",
        properties: {
          type: { type: "string", enum: ["message"] },
          id: { type: "string", description: "annotated" },
          text: { type: "string" },
        },
        required: ["type", "id", "text"],
      },
    ],
  },
  Status: { type: "string", enum: ["inProgress", "completed"] },
};

describe("scripts/codex-validators.mjs", () => {
  it("checks types and required properties, and says where the first issue is", async () => {
    const check = await compile(item);
    expect(check({ item: { type: "message", id: "m", text: "hi" } })).toBeUndefined();
    expect(check(null)).toEqual({ path: "", message: "must be object" });
    expect(check({})).toEqual({ path: "/item", message: "is missing" });
    expect(check({ item: { type: "message", text: "hi" } })).toEqual({ path: "/item/id", message: "is missing" });
    expect(check({ item: { type: "command", id: "c", status: "completed", exitCode: 1.5 } })).toEqual({
      path: "/item/exitCode",
      message: "must be integer or null",
    });
    expect(check({ item: { type: "message", id: "m", text: "hi" }, tags: ["a", 2] })).toEqual({
      path: "/tags/1",
      message: "must be string",
    });
  });

  it("leaves what it checks as it came: an optional property left out stays out", async () => {
    const check = await compile(item);
    const value = { item: { type: "command", id: "c", status: "inProgress" } };
    const before = JSON.stringify(value);
    expect(check(value)).toBeUndefined();
    expect(JSON.stringify(value)).toBe(before);
  });

  it("is open to a newer Codex: an enum value or a variant it does not know passes (a variant with the fields all variants share)", async () => {
    const check = await compile(item);
    expect(check({ item: { type: "command", id: "c", status: "vaporized" } })).toBeUndefined();
    expect(check({ item: { type: "command", id: "c", status: 3 } })).toEqual({
      path: "/item/status",
      message: "must be string",
    });
    expect(check({ item: { type: "hologram", id: "h" } })).toBeUndefined();
    expect(check({ item: { type: "hologram" } })).toEqual({ path: "/item/id", message: "is missing" });
    expect(check({ item: { id: "h" } })).toEqual({ path: "/item/type", message: "is missing" });
  });

  it("reads externally tagged unions (`{ variant: {...} }` or a string) open too, a known variant in full", async () => {
    const check = await compile({
      Root: {
        anyOf: [
          { type: "string", enum: ["overloaded"] },
          {
            type: "object",
            additionalProperties: false,
            properties: {
              httpFailed: {
                type: "object",
                properties: { status: { type: "integer", minimum: 0 } },
                required: ["status"],
              },
            },
            required: ["httpFailed"],
          },
          {
            type: "object",
            additionalProperties: false,
            properties: { steer: { type: "object", properties: { kind: { type: "string" } }, required: ["kind"] } },
            required: ["steer"],
          },
        ],
      },
    });
    expect(check("overloaded")).toBeUndefined();
    expect(check("meltdown")).toBeUndefined();
    expect(check({ httpFailed: { status: 502 } })).toBeUndefined();
    expect(check({ httpFailed: { status: -1 } })).toEqual({ path: "/httpFailed/status", message: "must be >= 0" });
    expect(check({ quantumFailure: {} })).toBeUndefined();
    expect(check(7)).toEqual({ path: "", message: "must be string or object" });
  });

  it("checks an untagged union as any of its variants, and a nullable one", async () => {
    const check = await compile({
      Root: {
        type: "object",
        properties: {
          image: { anyOf: [{ $ref: "#/definitions/Url" }, { type: "null" }] },
          body: { anyOf: [{ type: "string" }, { type: "array", items: { type: "string" } }] },
        },
        required: ["image", "body"],
      },
      Url: {
        anyOf: [
          { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
          { type: "object", properties: { fileId: { type: "string" } }, required: ["fileId"] },
        ],
      },
    });
    expect(check({ image: null, body: "x" })).toBeUndefined();
    expect(check({ image: { fileId: "f" }, body: ["x"] })).toBeUndefined();
    expect(check({ image: { path: "/p" }, body: "x" })).toEqual({
      path: "/image",
      message: "matches none of its 2 variants",
    });
    expect(check({ image: null, body: 1 })).toEqual({ path: "/body", message: "matches none of its 2 variants" });
  });

  it("refuses a keyword it does not check, rather than half-check a newer schema", () => {
    expect(() =>
      generateValidators({
        definitions: { Root: { type: "string", pattern: "^a" } },
        tables: { t: { entries: { root: "Root" }, envelope: false } },
        methodSets: {},
        typeImport: () => "",
        header: "",
      }),
    ).toThrow(/Root uses the keyword pattern/);
  });
});
