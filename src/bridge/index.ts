export { ThreadEventTranslator } from "./translator.js";
export { completedItemUpdate, describeItem, isToolItem, type Item, type ToolCallView } from "./items.js";
export { replayTurns, type ReplayOptions } from "./history.js";
export { FILE_TOOLS_SERVER, DIFF_META_KEY } from "../tool-contract/index.js";
