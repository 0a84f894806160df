export { ThreadEventTranslator } from "./translator.js";
export { completedItemUpdate, describeItem, isToolItem, type Item, type ToolCallView } from "./items.js";
