/**
 * Splits a stream of chunks (text, or bytes kept intact until a line is complete, so a UTF-8
 * character split across chunks survives) into lines on "\n"; a "\r" before it is dropped.
 * Only each new chunk is searched, and the pieces of a long line are joined once, when it ends:
 * linear in the input however long a line is (a 32 MiB line used to block the event loop for
 * seconds). Written by hand: ~30 lines on the hot path of every message.
 */
export class LineSplitter {
  private pieces: Array<string | Buffer> = [];

  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: string | Buffer): void {
    let start = 0;
    for (let nl = newlineIn(chunk, 0); nl !== -1; nl = newlineIn(chunk, start)) {
      if (this.pieces.length === 0) {
        // A line whole within this chunk (most are): decoded straight out of it, no piece kept.
        this.emitLine(typeof chunk === "string" ? chunk.slice(start, nl) : chunk.toString("utf8", start, nl));
      } else {
        this.pieces.push(typeof chunk === "string" ? chunk.slice(start, nl) : chunk.subarray(start, nl));
        this.emit();
      }
      start = nl + 1;
    }
    if (start < chunk.length)
      this.pieces.push(start === 0 ? chunk : typeof chunk === "string" ? chunk.slice(start) : chunk.subarray(start));
  }

  /** Emits a final line that had no terminating newline. */
  end(): void {
    if (this.pieces.length > 0) this.emit();
  }

  private emit(): void {
    const pieces = this.pieces;
    this.pieces = [];
    const only = pieces.length === 1 ? pieces[0]! : undefined;
    const line =
      only !== undefined
        ? only.toString("utf8")
        : pieces.every((p) => typeof p === "string")
          ? pieces.join("")
          : Buffer.concat(pieces.map((p) => (typeof p === "string" ? Buffer.from(p) : p))).toString("utf8");
    this.emitLine(line);
  }

  private emitLine(line: string): void {
    this.onLine(line.endsWith("\r") ? line.slice(0, -1) : line);
  }
}

/** Where the next "\n" is (a Buffer is searched for the byte: with a string needle it converts it at every call). */
function newlineIn(chunk: string | Buffer, from: number): number {
  return typeof chunk === "string" ? chunk.indexOf("\n", from) : chunk.indexOf(0x0a, from);
}
