// typescript-eslint with type information: the rules that catch bugs the compiler lets through
// (a promise nobody awaits or catches, a method passed without its `this`, an unsafe any).
// No stylistic rules: formatting is a formatter's job, not the linter's.
// No cache: with type information a file's result depends on the files it imports, which a cache
// keyed by the file's own content does not see (it reported stale errors, and could hide new ones).
import js from "@eslint/js";
import { defineConfig, globalIgnores } from "eslint/config";
import globals from "globals";
import tseslint from "typescript-eslint";

export default defineConfig(
  globalIgnores([
    "dist/**",
    "coverage/**",
    "node_modules/**",
    "src/codex/generated/**",
    "tests/fixtures/**",
    "tests/transcripts/**",
  ]),
  // Plain JavaScript (build scripts, helpers tests spawn, this file): run by Node as they are, no types to check.
  {
    files: ["**/*.{js,mjs,cjs}"],
    extends: [js.configs.recommended],
    languageOptions: { globals: globals.node },
  },
  {
    files: ["**/*.ts"],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A leading _ names what is unused on purpose: a parameter a signature requires, a field taken out before a rest spread.
      "@typescript-eslint/no-unused-vars": [
        "error",
        {
          argsIgnorePattern: "^_",
          varsIgnorePattern: "^_",
          caughtErrorsIgnorePattern: "^_",
          destructuredArrayIgnorePattern: "^_",
          ignoreRestSiblings: true,
        },
      ],
      // `async` without `await` implements a Promise-returning contract so that a throw becomes a rejection
      // the caller handles (session.ts catches each beforeTurn hook's rejection): dropping it changes behaviour.
      "@typescript-eslint/require-await": "off",
      // Names and values are checked for control characters on purpose (features/providers.ts refuses them).
      "no-control-regex": "off",
      // String(x) of a value narrowed from unknown (a rejection reason, a form's answer) is how it is logged or compared here.
      "@typescript-eslint/no-base-to-string": "off",
      // A stream rejects with the reason it was aborted with, whatever that is (streams/reused-writer-stream.ts).
      "@typescript-eslint/prefer-promise-reject-errors": ["error", { allowThrowingUnknown: true }],
      // Empty cases grouped under a comment (bridge/translator.ts's lists of methods it ignores) do not fall through.
      "no-fallthrough": ["error", { allowEmptyCase: true }],
      // `let emit!: ...` read by a closure written above its one assignment says it is set later; const there would read as set now.
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
      // `string | "cancel"` names the special value a string may take: documentation, not a mistake.
      "@typescript-eslint/no-redundant-type-constituents": "off",
    },
  },
  // Tests (and the bench's drivers, which speak JSON-RPC the same way) read the agent's and Codex's JSON
  // loosely on purpose: `JSON.parse(line).result.sessionId`, an `any` message type. Typing every such
  // read would bury what a test checks under casts; the shape is what the test asserts.
  {
    files: ["tests/**/*.ts", "scripts/bench/**/*.ts", "scripts/dev/**/*.ts"],
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-return": "off",
    },
  },
);
