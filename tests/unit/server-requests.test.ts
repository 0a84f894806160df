// Codex's requests being answered, withdrawn when Codex says one was settled elsewhere
// (src/codex/server-requests.ts): both answers of an id Codex asked twice, nothing else.
import { describe, expect, it } from "vitest";
import { ServerRequestsInFlight } from "../../src/codex/server-requests.js";

describe("ServerRequestsInFlight", () => {
  it("serverRequest/resolved withdraws every answer of that id (Codex asks again with the same id on a resumed thread), and only those", () => {
    const inFlight = new ServerRequestsInFlight();
    const first = inFlight.begin(0);
    const again = inFlight.begin(0);
    const other = inFlight.begin("7");
    inFlight.resolved({ threadId: "t", requestId: 0 });
    expect([first.signal.aborted, again.signal.aborted, other.signal.aborted]).toEqual([true, true, false]);
    inFlight.resolved({ threadId: "t", requestId: "7" });
    expect(other.signal.aborted).toBe(true);
  });

  it("forgets what was answered; params that name no request change nothing", () => {
    const inFlight = new ServerRequestsInFlight();
    const a = inFlight.begin(1);
    const b = inFlight.begin(1);
    a.done();
    expect(inFlight.size).toBe(1);
    b.done();
    expect(inFlight.size).toBe(0);
    const c = inFlight.begin(2);
    for (const junk of [undefined, null, "2", { requestId: { id: 2 } }, { requestId: true }]) inFlight.resolved(junk);
    expect(c.signal.aborted).toBe(false);
    inFlight.resolved({ requestId: 1 }); // already answered: nothing to withdraw
    expect(inFlight.size).toBe(1);
  });
});
