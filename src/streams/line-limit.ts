import net from "node:net";
import { fstatSync } from "node:fs";

/**
 * Splits newline-delimited bytes into lines (each with its "\n"), except lines longer than
 * `maxBytes`: those are dropped as they stream (never held whole) and reported once each. The
 * ACP SDK ends the whole connection on a line over its own limit (32 MiB); dropping it before
 * the SDK sees it keeps one hostile or broken message from ending the editor's session.
 * With `copy`, what is kept is copied out of the chunk (for a reader that reuses its buffer).
 */
export class LimitedLines {
  private pieces: Uint8Array[] = [];
  private size = 0;
  private dropping = false;
  /** With `copy`, a long line is assembled here (see LongLineBlock). */
  private block: LongLineBlock | undefined;
  private inBlock = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onTooLong: () => void,
    private readonly emit: (line: Uint8Array) => void,
    private readonly options: { copy?: boolean } = {},
  ) {}

  /** Bytes of an unfinished line held until its newline arrives. */
  get heldBytes(): number {
    return this.dropping ? 0 : this.size;
  }

  write(chunk: Uint8Array): void {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      this.keep(chunk.subarray(start, nl + 1));
      this.endLine();
      start = nl + 1;
    }
    this.keep(chunk.subarray(start));
  }

  /** The input ended: a last line without a newline is still a line. */
  end(): void {
    this.endLine();
  }

  private keep(part: Uint8Array): void {
    if (this.dropping || part.byteLength === 0) return;
    const held = this.size;
    this.size += part.byteLength;
    if (this.size > this.maxBytes) {
      this.dropping = true;
      this.pieces = [];
      if (this.inBlock) this.block!.release();
      this.inBlock = false;
    } else if (!this.options.copy) this.pieces.push(part);
    else if (this.inBlock) this.block!.put(part, held);
    else if (this.size <= LONG_LINE_BYTES)
      this.pieces.push(new Uint8Array(part)); // (Buffer#slice would not copy)
    else {
      // Copies of a reader's chunks are small heap allocations that glibc keeps after they are
      // freed; a long line moves into the block, which gives its pages back when it is done.
      this.block ??= new LongLineBlock(this.maxBytes);
      this.inBlock = true;
      let at = 0;
      for (const piece of this.pieces) {
        this.block.put(piece, at);
        at += piece.byteLength;
      }
      this.block.put(part, held);
      this.pieces = [];
    }
  }

  private endLine(): void {
    if (this.dropping) this.onTooLong();
    else if (this.inBlock) {
      // The block goes with its line (no copy); the next long line gets a new one.
      this.emit(this.block!.handOff(this.size));
      this.block = undefined;
    } else if (this.pieces.length > 0)
      this.emit(this.pieces.length === 1 ? this.pieces[0]! : Buffer.concat(this.pieces));
    this.pieces = [];
    this.inBlock = false;
    this.size = 0;
    this.dropping = false;
  }
}

/**
 * Where a long line is assembled: a resizable ArrayBuffer that reserves `maxBytes` of address
 * space and commits pages as the line grows. Its memory is V8's own pages, not the C heap's: a
 * dropped line's block shrinks to nothing at once (V8 returns a shrunk buffer's pages to the OS:
 * checked on Linux, a 30 MiB line's RSS is back on `resize(0)`), and a complete line is handed on
 * in its block, whose pages go back to the OS when it is collected. A copy of the line in a plain
 * ArrayBuffer came from malloc instead: after the first such copy glibc raises its mmap threshold
 * to that size, later ones land on the brk heap, and up to twice that (20-40 MiB after forty
 * 20 MB lines) stayed resident for good (in about one run in four).
 */
class LongLineBlock {
  private readonly buffer: ArrayBuffer;
  private readonly bytes: Uint8Array;

  constructor(maxBytes: number) {
    this.buffer = new ArrayBuffer(0, { maxByteLength: maxBytes });
    this.bytes = new Uint8Array(this.buffer); // length-tracking: follows every resize
  }

  put(part: Uint8Array, at: number): void {
    const needed = at + part.byteLength;
    if (needed > this.buffer.byteLength)
      this.buffer.resize(Math.min(this.buffer.maxByteLength, Math.max(needed, this.buffer.byteLength * 2)));
    this.bytes.set(part, at);
  }

  /** The line's bytes, in this block cut to their length; the block is the consumer's from now on. */
  handOff(length: number): Uint8Array {
    this.buffer.resize(length);
    return new Uint8Array(this.buffer, 0, length);
  }

  release(): void {
    this.buffer.resize(0);
  }
}

/** Past this, a copied line moves into the long-line block. */
const LONG_LINE_BYTES = 256 * 1024;

/** The same limit as a transform over a byte stream. */
export function limitLineLength(maxBytes: number, onTooLong: () => void): TransformStream<Uint8Array, Uint8Array> {
  let lines: LimitedLines | undefined;
  return new TransformStream<Uint8Array, Uint8Array>({
    start(controller) {
      lines = new LimitedLines(maxBytes, onTooLong, (line) => controller.enqueue(line));
    },
    transform(chunk) {
      lines!.write(chunk);
    },
    flush() {
      lines!.end();
    },
  });
}

/**
 * The lines of a pipe or socket file descriptor (stdin as editors give it), read into one
 * reused 64 KiB buffer: only the lines kept are copied. Node's default reads allocate a buffer
 * per read, and a burst of input (a 50 MB line) left tens of MiB of freed buffers that the C
 * allocator never gave back. Waits for the consumer (the read pauses while `highWaterMark`
 * lines are queued). Undefined when the descriptor is not a pipe or socket (a file, a TTY), and on
 * Windows.
 */
export function readPipeLines(
  fd: number,
  maxBytes: number,
  onTooLong: () => void,
  highWaterMark = 64,
  platform: NodeJS.Platform = process.platform,
): ReadableStream<Uint8Array> | undefined {
  // Windows pipes are named pipes, not descriptors net.Socket can take over (fstat cannot tell a
  // FIFO there): Node's own stdin stream, with the same line limit, reads them (src/app.ts).
  if (platform === "win32") return undefined;
  const stat = fstatSync(fd);
  if (!stat.isFIFO() && !stat.isSocket()) return undefined;
  let socket: net.Socket | undefined;
  let stopped = false;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const lines = new LimitedLines(maxBytes, onTooLong, (line) => controller.enqueue(line), { copy: true });
        // Node's constructor takes `onread` (documented for new net.Socket), its types only on connect.
        const options: net.SocketConstructorOpts & { onread: net.OnReadOpts } = {
          fd,
          readable: true,
          writable: false,
          onread: {
            buffer: Buffer.allocUnsafe(64 * 1024),
            // Returning false stops reading (Node calls readStop; the stream is not "paused").
            callback: (bytesRead: number, buffer: Uint8Array) => {
              lines.write(buffer.subarray(0, bytesRead));
              stopped = (controller.desiredSize ?? 1) <= 0;
              return !stopped;
            },
          },
        };
        socket = new net.Socket(options);
        socket.on("end", () => {
          lines.end();
          controller.close();
        });
        socket.on("error", (err) => controller.error(err));
      },
      pull() {
        // read(0) starts the handle reading again.
        if (stopped) {
          stopped = false;
          socket?.read(0);
        }
      },
      cancel() {
        socket?.destroy();
      },
    },
    { highWaterMark },
  );
}
