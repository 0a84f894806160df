export { ThreadEventTranslator, type TranslatorOptions } from "./translator.js";
export {
  asToolItem,
  completedItemUpdate,
  describeItem,
  type Item,
  type ItemContext,
  type ToolCallView,
  type ToolItem,
} from "./items.js";
export { replayEntries, replayTurns, turnEntries, type HistoryEntry, type ReplayOptions } from "./history.js";
export { askingCommandUpdate } from "./commands.js";
export { MAX_DIFF_FILE_BYTES } from "./diff.js";
export { turnUsage } from "./usage.js";
export { textContent, type ItemOf, type SessionUpdate, type TextFiles } from "./view.js";
export { goalStatusLabel, noticeUpdate, type ClientDisplay } from "./display.js";
export { FILE_TOOLS_SERVER, DIFF_META_KEY } from "../editor-files/contract/index.js";
