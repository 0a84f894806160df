// The envelope of what codex app-server writes, read by zod and told apart by kind (src/codex/schemas.ts):
// the client reads each kind's typed fields, with no cast.
import { describe, expect, it } from "vitest";
import { incomingMessageSchema } from "../../src/codex/schemas.js";

const kindOf = (raw: unknown): string | undefined => {
  const read = incomingMessageSchema.safeParse(raw);
  return read.success ? read.kind : undefined;
};

describe("incoming messages from codex", () => {
  it("tells a result, an error, a request and a notification apart", () => {
    expect(kindOf({ id: 1, result: { ok: true } })).toBe("result");
    expect(kindOf({ id: 1, error: null, result: 3 })).toBe("result");
    expect(kindOf({ id: 1, error: { code: -32600, message: "no" } })).toBe("error");
    expect(kindOf({ id: "r1", method: "item/tool/requestUserInput", params: {} })).toBe("request");
    expect(kindOf({ method: "turn/started", params: {} })).toBe("notification");
    expect(kindOf({ method: "turn/started" })).toBe("notification");
  });

  it("keeps each kind's fields, typed", () => {
    const read = incomingMessageSchema.safeParse({
      id: 7,
      error: { code: -32001, message: "busy", data: { retry: true } },
    });
    if (!read.success || read.kind !== "error") throw new Error("not read as an error");
    expect([read.data.id, read.data.error.code, read.data.error.message, read.data.error.data]).toEqual([
      7,
      -32001,
      "busy",
      { retry: true },
    ]);
  });

  it("refuses what is not a JSON-RPC message", () => {
    expect(kindOf({ method: 3 })).toBeUndefined();
    expect(kindOf({ id: {}, result: 1 })).toBeUndefined();
    expect(kindOf({ id: 1, method: "x", params: {}, extra: 1 })).toBe("request");
    expect(kindOf({ id: 1, error: { message: "no code" } })).toBeUndefined();
    expect(kindOf("text")).toBeUndefined();
  });
});
