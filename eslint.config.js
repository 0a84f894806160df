// typescript-eslint with type information: the rules that catch bugs the compiler lets through
// (a promise nobody awaits or catches, a misused promise, an unsafe any). Formatting is Biome's.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "coverage/**", "src/codex/generated/**", "node_modules/**", "tests/fixtures/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
  },
);
