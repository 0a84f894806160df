// Public surface of src/streams: helpers for byte, text and message streams shared by the codex
// client, the ACP connection's stdio and the transcript runner.
export { LineSplitter } from "./line-splitter.js";
export { LimitedLines, limitLineLength, readPipeLines } from "./line-limit.js";
export { ReusedWriterStream, type MessageSink } from "./reused-writer-stream.js";
