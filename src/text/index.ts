// Public surface of src/text: text cut for display without splitting a character.
export { textHead, textTail } from "./cut.js";
