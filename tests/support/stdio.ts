// This process's stdout and stdin as the web streams an ACP SDK's ndJsonStream takes (the test
// agents in tests/support serve on them, as an agent started by an editor does).
import { Readable, Writable } from "node:stream";

export function stdioStreams(): [output: WritableStream<Uint8Array>, input: ReadableStream<Uint8Array>] {
  return [
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  ];
}
