// Types of scripts/codex-validators.mjs (a plain script, so codex:types runs without a build), for its tests.
export type GeneratorOptions = {
  /** Every definition the tables' definitions may reference. */
  definitions: Record<string, unknown>;
  /** Table name -> method -> definition name; with `envelope`, a validator checks a message `{ method, params }`. */
  tables: Record<string, { entries: Record<string, string>; envelope: boolean }>;
  /** Set name -> every method of that kind this build knows. */
  methodSets: Record<string, readonly string[]>;
  /** The module (relative to the generated folder) that exports a definition's TS type. */
  typeImport: (definition: string) => string;
  /** A comment heading both files. */
  header: string;
};

export function generateValidators(opts: GeneratorOptions): { js: string; dts: string };
