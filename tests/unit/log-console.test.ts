// The console route (issue 26): the ACP SDK's complaints about a client's malformed messages are
// counted per kind, and the kind includes a method name the client chooses, so a hostile client
// must not be able to grow that tally without bound.
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { routeConsoleToLogger } from "../../src/log/index.js";

const saved = { ...console };
afterEach(() => Object.assign(console, saved));

describe("routeConsoleToLogger", () => {
  it("keeps a bounded tally of complaint kinds however many methods a client invents", () => {
    const route = routeConsoleToLogger(pino({ level: "silent" }));
    for (let i = 0; i < 5_000; i++) console.error("Error handling notification", { method: `invented/${i}` });
    expect(route.complaintKinds()).toBeLessThanOrEqual(65);
    // A kind already seen is still counted as that kind.
    console.error("Error handling notification", { method: "invented/0" });
    expect(route.complaintKinds()).toBeLessThanOrEqual(65);
  });
});
