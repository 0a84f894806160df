// Each field of a session's answer (modes, configOptions, models, _meta) belongs to one feature:
// the core merges the parts the features return, and two features answering one field is a
// defect reported when the session opens, not a silent override decided by the feature order.
import { describe, expect, it } from "vitest";
import { mergeResponseParts } from "../../src/core/feature-api.js";

describe("session response parts", () => {
  it("merges the fields each feature returns", () => {
    const modes = { currentModeId: "auto", availableModes: [{ id: "auto", name: "Auto" }] };
    const merged = mergeResponseParts([
      { feature: "modes", part: { modes } },
      { feature: "titles", part: undefined },
      { feature: "config-options", part: { configOptions: [] } },
    ]);
    expect(merged).toEqual({ modes, configOptions: [] });
  });

  it("refuses a field two features both answer", () => {
    expect(() =>
      mergeResponseParts([
        { feature: "modes", part: { modes: { currentModeId: "auto", availableModes: [] } } },
        { feature: "other", part: { modes: { currentModeId: "read-only", availableModes: [] } } },
      ]),
    ).toThrow(/modes and other both answer the session's "modes"/);
  });

  it("ignores a field a feature leaves undefined", () => {
    expect(
      mergeResponseParts([
        { feature: "a", part: { configOptions: undefined } },
        { feature: "b", part: { configOptions: [] } },
      ]),
    ).toEqual({ configOptions: [] });
  });
});
