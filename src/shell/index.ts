// Public surface of src/shell: what a shell command does, read from its text alone.
export { mayChange } from "./effects.js";
export { shellTokens, type ShellTokens, type Token, type Word } from "./words.js";
